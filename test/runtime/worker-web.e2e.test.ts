/**
 * A worker's web tools follow the run's network (issue 22): with `net: 'on'` the worker the coordinator
 * dispatches is offered WebFetch and WebSearch; with `net: 'off'` or a host list it is offered neither,
 * even when its definition lists them. Asserted on the tools the binary offered the model in the
 * worker's own request (the real binary against the sim).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentsForNet, type NetPolicy } from '../../src/guards/index.js';
import { clarifier, coordinator, worker } from '../../src/roles/index.js';
import { Runtime } from '../../src/runtime/index.js';
import { offeredTools } from '../../src/sim/index.js';
import { project, testEnv } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

/** The tools the worker's request offered, under this net policy. */
async function workerTools(tag: string, net: NetPolicy, w = worker('looks things up', 'You research.', { lang: 'en' })): Promise<string[]> {
  const p = project(tag);
  const spec = coordinator('coord', '', { researcher: w }, { lang: 'en', glance: false });
  sim.reset();
  sim.enqueue(
    {
      type: 'tool_use',
      name: 'Agent',
      match: { firstUserIncludes: 'COORD-W1' },
      input: { description: 'look up', prompt: 'TASK-W1: report.', subagent_type: 'researcher', run_in_background: false },
    },
    { type: 'text', match: { firstUserIncludes: 'TASK-W1' }, text: 'Conclusion: nothing. REPORT-W1' },
    { type: 'text', match: { firstUserIncludes: 'COORD-W1', lastUserIncludes: 'REPORT-W1' }, text: 'done' },
  );
  const rt = new Runtime({ workspace: p.ws, runDir: p.runs, env: testEnv(p, sim.url), onWarning: () => {}, net });
  try {
    const r = await rt.run(spec, 'COORD-W1: look it up');
    assert.equal(r.ok, true, r.error ?? '');
  } finally {
    rt.close();
  }
  sim.assertConsumed();
  sim.assertNoUnexpected();
  const req = sim.messageRequests().find((m) => JSON.stringify(m.body).includes('TASK-W1'));
  assert.ok(req, 'the worker made a request');
  return offeredTools(req.body);
}

test("net 'on': the worker is offered WebFetch and WebSearch", async () => {
  const tools = await workerTools('web-on', 'on');
  assert.ok(tools.includes('WebFetch') && tools.includes('WebSearch'), tools.join(', '));
  assert.ok(tools.includes('Write'));
});

test("net 'off': the worker is offered neither, even when its definition lists them", async () => {
  const tools = await workerTools('web-off', 'off', worker('looks things up', 'You research.', { lang: 'en', tools: ['Read', 'WebFetch', 'WebSearch'] }));
  assert.ok(!tools.includes('WebFetch') && !tools.includes('WebSearch'), tools.join(', '));
  assert.ok(tools.includes('Read'));
});

test('a host list gives no web tools (the binary fetches outside the sandbox proxy); web: false and explicit tools opt out', () => {
  const marked = worker('w', 'p', { lang: 'en' });
  assert.deepEqual(agentsForNet({ w: marked }, ['registry.npmjs.org']).w!.tools, ['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep']);
  assert.deepEqual(agentsForNet({ w: worker('w', 'p', { lang: 'en', web: false }) }, 'on').w!.tools, ['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep']);
  assert.deepEqual(agentsForNet({ w: worker('w', 'p', { lang: 'en', tools: ['Read'] }) }, 'on').w!.tools, ['Read']);
  assert.deepEqual(agentsForNet({ w: worker('w', 'p', { lang: 'en', tools: ['Read'], web: true }) }, 'on').w!.tools, ['Read', 'WebFetch', 'WebSearch']);
});

/**
 * The clarifier's own request under this net policy, as text. Its web tools are deferred tools (named in
 * the request's list of tools to load before calling them), not in `tools`, so the whole body is read.
 */
async function clarifierRequest(tag: string, net: NetPolicy): Promise<string> {
  const p = project(tag);
  sim.reset();
  sim.enqueue({ type: 'text', match: { firstUserIncludes: 'CLAR-W1' }, text: 'clear enough' });
  const rt = new Runtime({ workspace: p.ws, runDir: p.runs, env: testEnv(p, sim.url), onWarning: () => {}, net });
  try {
    const r = await rt.run(clarifier('clarify', { lang: 'en' }), 'CLAR-W1: what do you need?');
    assert.equal(r.ok, true, r.error ?? '');
  } finally {
    rt.close();
  }
  sim.assertConsumed();
  const req = sim.messageRequests().find((m) => JSON.stringify(m.body).includes('CLAR-W1'));
  assert.ok(req, 'the clarifier made a request');
  return JSON.stringify(req.body);
}

test("the clarifier's own web tools follow the network too: loadable with net 'on', never named with 'off' or a host list", async () => {
  const on = await clarifierRequest('clar-web-on', 'on');
  assert.ok(on.includes('WebFetch') && on.includes('WebSearch'), 'with the network the clarifier may load the web tools');
  for (const [tag, net] of [
    ['clar-web-off', 'off'],
    ['clar-web-hosts', ['registry.npmjs.org']],
  ] as const) {
    const body = await clarifierRequest(tag, net as NetPolicy);
    assert.ok(!body.includes('WebFetch') && !body.includes('WebSearch'), `${tag}: the request names a web tool`);
    assert.ok(body.includes('"Read"'), `${tag}: Read is still offered`);
  }
});
