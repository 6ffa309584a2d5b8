/**
 * A person interrupts a running step: it stops at the next message boundary and the SAME session goes
 * on with their words — not an attempt, no network wait.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { AgentSpec, Runtime } from '../../src/runtime/index.js';

import { project, testEnv, transcriptOf } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

test('an interrupt with a remark continues the same session with the remark and does not count as an attempt', async () => {
  const p = project('interrupt');
  sim.reset();
  sim.enqueue(
    {
      type: 'tool_use',
      name: 'Bash',
      input: { command: 'sleep 1; echo step-one', description: 'one' },
      match: { not: { lastUserIncludes: 'use plain JS instead' } },
    },
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
  } finally {
    rt.close();
  }
});

test("words that come as the step's last message does are heard by that step — never by the next one", async () => {
  const p = project('interrupt-late');
  sim.reset();
  sim.enqueue(
    { type: 'text', text: 'finished the work', match: { firstUserIncludes: 'do the work', not: { lastUserIncludes: 'rename it' } } },
    { type: 'text', text: 'renamed as asked', match: { lastUserIncludes: 'rename it' } },
    { type: 'text', text: 'judged', match: { firstUserIncludes: 'judge the work' } },
  );
  const rt = new Runtime({ workspace: p.ws, runDir: p.runs, env: testEnv(p, sim.url, { FLOWER_MAX_ATTEMPTS: '1' }), onWarning: () => {} });
  try {
    // asked when the final answer arrives: the turn has no boundary left, the step is about to end
    const work = await rt.run(new AgentSpec({ name: 'w' }), 'do the work', {
      onEvent: (e) => {
        if (e.kind === 'text' && /finished the work/.test(e.text)) rt.interrupt('rename it');
      },
    });
    assert.equal(work.ok, true, work.error ?? '');
    assert.equal(work.text, 'renamed as asked', 'the same step heard the words');
    assert.equal(work.resumed, true);
    assert.equal(rt.interrupting, false, 'the request was consumed by the step it was meant for');
    const judge = await rt.run(new AgentSpec({ name: 'j' }), 'judge the work');
    assert.equal(judge.ok, true, judge.error ?? '');
    assert.equal(judge.text, 'judged');
    assert.equal(judge.resumed ?? false, false, 'the next step was not interrupted');
  } finally {
    rt.close();
  }
});

test('words asked for during one step that failed before hearing them do not cut the next step', async () => {
  const p = project('interrupt-stale');
  sim.reset();
  sim.enqueue(
    { type: 'error', status: 401, match: { firstUserIncludes: 'do the work' } },
    { type: 'text', text: 'judged', match: { firstUserIncludes: 'judge the work' } },
  );
  const rt = new Runtime({ workspace: p.ws, runDir: p.runs, env: testEnv(p, sim.url, { FLOWER_MAX_ATTEMPTS: '1' }), onWarning: () => {} });
  try {
    const work = await rt.run(new AgentSpec({ name: 'w' }), 'do the work', {
      onSession: () => {
        rt.interrupt('too late');
      },
    });
    assert.equal(work.ok, false);
    const judge = await rt.run(new AgentSpec({ name: 'j' }), 'judge the work');
    assert.equal(judge.ok, true, judge.error ?? '');
    assert.equal(judge.resumed ?? false, false);
    assert.equal(rt.interrupting, false);
  } finally {
    rt.close();
  }
});
