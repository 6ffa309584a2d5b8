/**
 * A person interrupts a running step: it stops at the next message boundary and the SAME session goes
 * on with their words — not an attempt, no network wait.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { AgentSpec, Runtime } from '../../src/runtime/index.js';
import { startSim, type Sim } from '../../src/sim/index.js';
import { project, testEnv, transcriptOf } from '../helpers/e2e.js';

let sim: Sim;
before(async () => { sim = await startSim({ port: 0, onUnexpected: 'error' }); });
after(async () => { await sim.close(); });

test('an interrupt with a remark continues the same session with the remark and does not count as an attempt', async () => {
  const p = project('interrupt');
  sim.reset();
  sim.enqueue(
    { type: 'tool_use', name: 'Bash', input: { command: 'sleep 1; echo step-one', description: 'one' }, match: { not: { lastUserIncludes: 'use plain JS instead' } } },
    { type: 'text', text: 'adjusted as asked', match: { lastUserIncludes: 'use plain JS instead' } },
  );
  const rt = new Runtime({ workspace: p.ws, runDir: p.runs, env: testEnv(p, sim.url, { FLOWER_MAX_ATTEMPTS: '1' }), onWarning: () => {} });
  try {
    let asked = false;
    const r = await rt.run(new AgentSpec({ name: 'w', allowedTools: ['Bash'] }), 'do the work', {
      onEvent: (e) => {
        if (e.kind === 'tool_call' && !asked) {
          asked = true;
          rt.interrupt('use plain JS instead');
        }
      },
    });
    assert.equal(r.ok, true, r.error ?? '');
    assert.equal(r.text, 'adjusted as asked');
    assert.equal(r.attempts, 1, 'an interrupt is not an attempt');
    assert.equal(r.resumed, true);
    const reqs = sim.messageRequests();
    const last = reqs.at(-1)!;
    assert.equal(last.headers['x-claude-code-session-id'], r.session_id);
    const seen = transcriptOf(last.body).join('\n');
    assert.match(seen, /do the work/, 'the earlier turns are intact');
    assert.match(seen, /use plain JS instead/);
    assert.equal(rt.interrupting, false, 'the request was consumed');
  } finally { rt.close(); }
});
