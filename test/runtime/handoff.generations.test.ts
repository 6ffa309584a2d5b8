/**
 * One step's generations against a scripted host (no model): when to cut, which route, the writing
 * round's exemptions, the brakes. The real message loop is covered by handoff.e2e.test.ts; these pin
 * the rules the original's incidents came from.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { AgentSpec, Generations, HANDOFF_SERVER, HANDOFF_TOOL, type GenerationHost, type HandoffPolicy, type StepResult } from '../../src/runtime/index.js';
import type { AttemptOutcome } from '../../src/runtime/attempt.js';
import { fromText } from '../../src/runtime/failure.js';

// the failure is typed where it happens: here, as the attempt would from the binary's text alone
const outcome = (o: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
  sessionId: 's1',
  ok: false,
  text: '',
  error: null,
  errors: [],
  costUsd: 0,
  numTurns: 0,
  context: 0,
  interrupted: null,
  servedModel: null,
  failure: o.ok ? null : fromText(o.error ?? o.errors?.at(-1) ?? ''),
  ...o,
});

const GOOD = '## 现在在做什么\nparsing\n\n## 下一步\nrun the tests';

function setup(o: { policy?: Partial<HandoffPolicy>; answers?: Array<Partial<AttemptOutcome>>; spec?: AgentSpec } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-gens-'));
  const policy: HandoffPolicy = { enabled: true, window: 60_000, headroom: 15_000, maxGenerations: 8, ...o.policy };
  const events: Array<{ kind: string; payload: Record<string, unknown> }> = [];
  const calls: Array<{ spec: AgentSpec; prompt: string; resume: string; dueWhileWriting: unknown }> = [];
  const answers = [...(o.answers ?? [])];
  const result: StepResult = {
    step: 'work',
    session_id: 's1',
    ok: false,
    cost_usd: 0,
    num_turns: 0,
    text: '',
    error: null,
    started_at: '',
    ended_at: null,
    attempts: 1,
    errors: [],
    resumed: false,
    retired: [],
    context: 0,
  };
  let gens: Generations;
  const host: GenerationHost = {
    workspace: path.join(dir, 'ws'),
    lang: 'en',
    env: { XDG_CONFIG_HOME: path.join(dir, 'cfg'), ANTHROPIC_BASE_URL: 'http://gw' },
    policy,
    warn: () => {},
    contextOf: async () => 0,
    attempt: async (spec, prompt, resume) => {
      calls.push({ spec, prompt, resume, dueWhileWriting: gens.due(10_000_000) });
      return outcome({ ok: true, text: GOOD, costUsd: 0.5, numTurns: 2, ...answers.shift() });
    },
  };
  const spec = o.spec ?? new AgentSpec({ name: 'w', maxBudgetUsd: 1, allowedTools: ['Read'] });
  gens = new Generations(host, { spec, step: 'work', task: 'THE TASK', result, emit: (kind, _t, payload) => events.push({ kind, payload }) });
  return { gens, host, policy, events, calls, result, dir };
}

test('the cut comes at the threshold, "near" once per generation, never without a session or with handoff off', () => {
  const { gens, events, result } = setup();
  assert.equal(gens.due(24_999), null);
  assert.equal(gens.due(25_000), null);
  assert.equal(gens.due(44_999), null);
  assert.equal(gens.due(45_000), 'handoff');
  assert.equal(events.filter((e) => e.payload.phase === 'near').length, 1);
  gens.next();
  gens.due(30_000);
  assert.equal(events.filter((e) => e.payload.phase === 'near').length, 2, 'a successor may be warned again');
  result.session_id = null;
  assert.equal(gens.due(50_000), null, 'no session to ask');
  const off = setup({ policy: { enabled: false } });
  assert.equal(off.gens.due(1_000_000), null);
  assert.equal(off.events.length, 0);
});

test('route B reads this attempt only: an old overflow in the step does not make a gateway failure an overflow', () => {
  const { gens, result } = setup();
  result.errors.push('Prompt is too long', 'Prompt is too long');
  assert.equal(gens.route(outcome({ error: 'API Error: 502 bad gateway', errors: ['API Error: 502 bad gateway'], context: 41_000 })), null);
  assert.equal(gens.route(outcome({ error: 'Prompt is too long' })), 'overflow');
  assert.equal(gens.route(outcome({ errors: ['x', 'context_length_exceeded'] })), 'overflow');
  assert.equal(gens.route(outcome({ interrupted: 'handoff', error: 'context-full-handoff' })), 'threshold');
  assert.equal(gens.route(outcome({ interrupted: 'human', error: 'Prompt is too long' })), null, 'a human cut is not an overflow');
  assert.equal(setup({ policy: { enabled: false } }).gens.route(outcome({ error: 'Prompt is too long' })), null);
});

test('the writing round resumes the same session, with no budget cap, the submit tool, and the threshold off until it ends', async () => {
  const { gens, calls, result, events } = setup();
  result.context = 46_000;
  const h = await gens.handOff('threshold', outcome({ interrupted: 'handoff', context: 46_100 }));
  assert.ok(h);
  assert.equal(calls.length, 1);
  const c = calls[0]!;
  assert.equal(c.resume, 's1');
  assert.equal(c.spec.maxBudgetUsd, undefined);
  assert.ok(c.spec.allowedTools.includes(HANDOFF_TOOL));
  assert.ok(HANDOFF_SERVER in c.spec.mcpServers);
  assert.equal(c.dueWhileWriting, null, 'exempt from the threshold while writing');
  assert.equal(gens.due(45_000), 'handoff', 'and subject to it again afterwards (reset in finally)');
  assert.match(c.prompt, /^Your context has reached 46\.1K of a 60K window/);
  assert.equal(h.doing, 'parsing');
  assert.deepEqual(result.retired, ['s1']);
  assert.equal(result.cost_usd, 0.5);
  assert.equal(result.num_turns, 2);
  const done = events.find((e) => e.payload.phase === 'done')!;
  assert.deepEqual(done.payload.sections, { doing: 'parsing', decided: '', deadends: '', next: 'run the tests', scene: '' });
});

test('the writing flag is reset even when the round throws, and the handoff degrades', async () => {
  const s = setup();
  s.host.attempt = async () => {
    throw new Error('spawn failed');
  };
  const h = await s.gens.handOff('threshold', outcome({ interrupted: 'handoff', context: 46_000 }));
  assert.ok(h?.isDegraded);
  assert.equal(s.gens.due(46_000), 'handoff');
  assert.ok(s.result.errors.some((e) => /^交接降级\(the handoff round failed: spawn failed\)$/.test(e)));
});

test('an incomplete or failed writing round degrades; a good handoff resets the degraded streak', async () => {
  const s = setup({
    answers: [{ text: 'sorry, no' }, { text: GOOD }, { ok: false, text: '', error: 'API Error: 500' }, { text: '## 现在在做什么\nonly this' }],
  });
  const cut = () => outcome({ interrupted: 'handoff', context: 46_000 });
  const a = await s.gens.handOff('threshold', cut());
  assert.ok(a?.isDegraded);
  assert.match(a!.doing, /the handoff was incomplete, missing 现在在做什么, 下一步/);
  const b = await s.gens.handOff('threshold', cut());
  assert.equal(b?.isDegraded, false);
  const c = await s.gens.handOff('threshold', cut());
  assert.match(c!.doing, /the handoff round failed: API Error: 500/);
  const d = await s.gens.handOff('threshold', cut());
  assert.equal(d, null, 'two degraded in a row stop the step');
  assert.match(s.result.error ?? '', /2 degraded handoffs in a row/);
  assert.equal(s.result.retired.length, 4);
});

test('an overflow degrades at once without asking the session, and lowers the window for the rest of the run', async () => {
  const s = setup();
  const h = await s.gens.handOff('overflow', outcome({ error: 'Prompt is too long', context: 0 }));
  assert.equal(s.calls.length, 0);
  assert.ok(h?.isDegraded);
  assert.match(h!.scene, /THE TASK/);
  assert.equal(s.policy.window, 60_000, 'no reading and no stated limit: nothing to learn');
  s.result.context = 52_000;
  await s.gens.handOff('overflow', outcome({ error: 'Prompt is too long' }));
  assert.equal(s.policy.window, 52_000);
  const cal = JSON.parse(fs.readFileSync(path.join(s.dir, 'cfg', 'flower', '.windows'), 'utf8')) as Record<string, number>;
  assert.deepEqual(cal, { 'http://gw|': 52_000 });
});

test('maxGenerations caps the retired sessions with the start-up floor message', async () => {
  const s = setup({ policy: { maxGenerations: 2 } });
  const cut = () => outcome({ interrupted: 'handoff', context: 46_000 });
  assert.ok(await s.gens.handOff('threshold', cut()));
  assert.ok(await s.gens.handOff('threshold', cut()));
  assert.equal(await s.gens.handOff('threshold', cut()), null);
  assert.equal(s.result.retired.length, 2);
  assert.match(s.result.error ?? '', /retired 2 sessions.*start-up floor/s);
});
