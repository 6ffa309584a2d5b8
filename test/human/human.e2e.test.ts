/**
 * The human channel end to end: the real `claude` binary, run by flower's Runtime, calls our
 * in-process MCP server; the sim on 127.0.0.1 plays the model. Few and sequential (each ~1 s).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AgentSpec, Runtime, type FlowerEvent } from '../../src/runtime/index.js';
import { HumanChannel } from '../../src/human/index.js';
import { startSim, toolResultsOf, type Sim } from '../../src/sim/index.js';
import { project, testEnv } from '../helpers/e2e.js';

let sim: Sim;
before(async () => {
  sim = await startSim({ port: 0 });
});
after(async () => {
  await sim.close();
});

function runtimeFor(tag: string): Runtime {
  const p = project(tag);
  return new Runtime({ workspace: p.ws, runDir: p.runs, env: testEnv(p, sim.url), onWarning: () => {} });
}

const offered = (body: unknown): string[] => ((body as { tools?: { name?: string }[] }).tools ?? []).map((t) => String(t.name));

test('the model asks with options, the person picks 2, and the next request carries that option', async () => {
  const channelEvents: FlowerEvent[] = [];
  const channel = new HumanChannel({
    lang: 'en',
    timeoutS: 30,
    onEvent: (e) => {
      channelEvents.push(e);
      // the person reads the question and types "2" a moment later
      if (e.kind === 'ask' && e.payload.state === 'asked') setTimeout(() => channel.answer(String(e.payload.id), '2'), 50);
    },
  });
  sim.reset();
  sim.enqueue(
    {
      type: 'tool_use',
      text: 'One thing to settle first.',
      id: 'toolu_ask_1',
      name: 'mcp__human__ask',
      input: { question: 'Which output format?', options: ['HTML', 'Markdown', 'Plain text'] },
    },
    { type: 'text', text: 'Going with Markdown.' },
  );
  const rt = runtimeFor('human-ask');
  const stepEvents: FlowerEvent[] = [];
  try {
    const spec = new AgentSpec({ name: 'asker', allowedTools: channel.toolNames, mcpServers: { human: channel.server }, workbench: false });
    const r = await rt.run(spec, 'Convert the notes; ask me if unsure.', { onEvent: (e) => stepEvents.push(e) });
    assert.equal(r.ok, true, `${r.error} ${r.errors.join(' | ')}`);
    assert.match(r.text, /Going with Markdown\./);
  } finally {
    rt.close();
    channel.close();
  }
  const reqs = sim.messageRequests();
  assert.equal(reqs.length, 2);
  assert.ok(offered(reqs[0]!.body).includes('mcp__human__ask'), `offered: ${offered(reqs[0]!.body).join(', ')}`);
  const results = toolResultsOf(reqs[1]!.body);
  assert.deepEqual(
    results.map((x) => [x.tool_use_id, x.content, x.is_error]),
    [['toolu_ask_1', 'Markdown', false]],
  );
  assert.deepEqual(
    channelEvents.map((e) => `${e.kind}:${String(e.payload.state)}`),
    ['ask:asked', 'ask:answered'],
  );
  assert.deepEqual(channelEvents[0]!.payload.options, ['HTML', 'Markdown', 'Plain text']);
  assert.equal(channel.history()[0]!.optionIndex, 1);
  assert.ok(stepEvents.some((e) => e.kind === 'tool_call' && e.tool === 'mcp__human__ask'));
});

test('the model submits the brief through submit_brief and the step gets a complete Brief', async () => {
  const channel = new HumanChannel({ lang: 'en', timeoutS: 0 }).withSubmissions(['brief']);
  sim.reset();
  sim.enqueue(
    {
      type: 'tool_use',
      id: 'toolu_brief_1',
      name: 'mcp__human__submit_brief',
      input: {
        goal: 'md2html: Markdown to HTML for the docs team',
        acceptance: ['run md2html a.md, get a.html'],
        boundaries: ['no PDF output'],
        unknowns: ['assumed CommonMark; nobody said otherwise'],
      },
    },
    { type: 'text', text: 'Submitted.' },
  );
  const rt = runtimeFor('human-brief');
  try {
    const spec = new AgentSpec({ name: 'clarifier', allowedTools: channel.toolNames, mcpServers: { human: channel.server }, workbench: false });
    const r = await rt.run(spec, 'Pin down the request: a Markdown to HTML script.');
    assert.equal(r.ok, true, `${r.error} ${r.errors.join(' | ')}`);
  } finally {
    rt.close();
    channel.close();
  }
  const results = toolResultsOf(sim.messageRequests()[1]!.body);
  assert.equal(results.length, 1);
  assert.match(results[0]!.content, /^Brief received/);
  const brief = channel.takeSubmission('brief');
  assert.ok(brief, 'the submission was kept');
  assert.equal(brief.complete(), true);
  assert.equal(brief.goal, 'md2html: Markdown to HTML for the docs team');
  assert.equal(brief.unknowns, '- assumed CommonMark; nobody said otherwise');
});
