/**
 * Handoff end to end: the real claude binary, flower's Runtime (and its CLI in-process), the sim
 * reporting whatever context size we script. Window 60000 with a 15000 headroom → threshold 45000,
 * "near" at 25000 (the computed room, max(50k, 25 %), would put the threshold at 10000).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { main } from '../../src/cli/program.js';
import { AgentSpec, HANDOFF_TOOL, Manifest, Runtime, readCalibration, type FlowerEvent } from '../../src/runtime/index.js';
import { lastUserText, startSim, type Sim, type SimCall } from '../../src/sim/index.js';
import { Step, Workflow } from '../../src/workflow/index.js';
import { project, readJson, testEnv, transcriptOf, type Project } from '../helpers/e2e.js';

let sim: Sim;
before(async () => {
  sim = await startSim({ port: 0 });
});
after(async () => {
  await sim.close();
});

const WINDOW = 60_000;
const TAKEOVER = '你在接手'; // the opening of Handoff.promptBlock()
/**
 * A command that holds its turn until the cut interrupts it. Not `sleep 120`: binary 2.1.332 refuses a
 * standalone sleep at once ("Blocked: standalone sleep 120 …"), so on a loaded box the refusal came back
 * before the cut and the step simply ended (the flake of handoff.e2e under load).
 */
const HOLD = `node -e "setTimeout(() => {}, 120000)"`;
const small = { input_tokens: 900, cache_read_input_tokens: 1000, output_tokens: 20 };
const sid = (c: { headers: Record<string, unknown> }) => String(c.headers['x-claude-code-session-id'] ?? '');
const worker = new AgentSpec({ name: 'worker', allowedTools: ['Bash', 'Read'] });
// failures must fail fast here, not wait out a real backoff
const fast = { FLOWER_MAX_ATTEMPTS: '2', FLOWER_BASE_DELAY: '0.05', FLOWER_MAX_DELAY: '0.1', FLOWER_PROBE_TIMEOUT: '1', FLOWER_MAX_OFFLINE_WAIT: '1' };

function runtime(p: Project, extra: Record<string, string> = {}, handoff: ConstructorParameters<typeof Runtime>[0] = {}): Runtime {
  return new Runtime({
    workspace: p.ws,
    runDir: p.runs,
    env: testEnv(p, sim.url, { ...fast, ...extra }),
    handoff: { window: WINDOW, headroom: 15_000 },
    ...handoff,
  });
}

/** The task's two tool turns: 31.1K (past "near" at 25K), then 46.1K (past the threshold at 45K). */
function climb(model?: string): void {
  sim.enqueue(
    {
      type: 'tool_use',
      text: 'Looking around.',
      name: 'Bash',
      input: { command: 'echo looked', description: 'look' },
      usage: { input_tokens: 100, cache_read_input_tokens: 31_000, output_tokens: 30 },
      match: { not: { firstUserIncludes: TAKEOVER } },
      ...(model ? { model } : {}),
    },
    // a slow stream and a command that holds its turn: the cut lands before this tool can finish and ask
    // again (an 8 s sleep was a window the cut had to land in, however loaded the box)
    {
      type: 'tool_use',
      text: 'Running the long build.',
      name: 'Bash',
      input: { command: HOLD, description: 'build' },
      usage: { input_tokens: 100, cache_read_input_tokens: 46_000, output_tokens: 30 },
      chunkDelayMs: 150,
      match: { lastUserIncludes: 'looked' },
    },
  );
}

test('past the threshold the same session writes its handoff through submit_handoff and a fresh session finishes the step', async () => {
  const p = project('handoff');
  sim.reset();
  climb('glm-4.6');
  sim.enqueue(
    {
      type: 'tool_use',
      name: HANDOFF_TOOL,
      usage: small,
      match: { lastUserIncludes: 'submit_handoff' },
      input: {
        doing: 'building the parser; the lexer is done',
        decided: 'zod for the schema: its errors name the field',
        deadends: 'regex parsing: breaks on nested fences',
        next: 'run npm test; if parse.test fails, fix src/parse.ts',
        scene: 'src/parse.ts, notes/lexer.md',
      },
    },
    { type: 'text', text: 'Submitted.', usage: small, match: { lastUserIncludes: 'Handoff received' } },
    { type: 'text', text: 'finished by the successor', usage: small, match: { firstUserIncludes: TAKEOVER }, model: 'glm-4.6' },
  );
  const events: FlowerEvent[] = [];
  const sessions: string[] = [];
  // with a workbench: the handoff is also kept in its notes/ (a Runtime without one writes none)
  const rt = runtime(p, { ANTHROPIC_MODEL: 'claude-opus-test' }, { workbench: true });
  let r;
  try {
    r = await rt.run(worker, 'build the parser (TASK-TEXT-7Q)', {
      stepName: '干活',
      onEvent: (e) => events.push(e),
      onSession: (s) => {
        sessions.push(s);
      },
    });
  } finally {
    rt.close();
  }
  assert.equal(r.ok, true, r.error ?? '');
  assert.equal(r.text, 'finished by the successor');
  const reqs = sim.messageRequests();
  const old = sid(reqs[0]!);
  // the handoff request went to the SAME session, and its last user text is the handoff prompt
  const ask = reqs.find((q) => lastUserText(q.body).includes('submit_handoff'))!;
  assert.ok(ask, 'a handoff request was sent');
  assert.equal(sid(ask), old);
  assert.match(lastUserText(ask.body), /^Your context has reached 46\.1K of a 60K window/);
  // the successor: a new id, and its first prompt is the handoff, not the task
  const succ = reqs.filter((q) => sid(q) !== old);
  assert.equal(succ.length, 1);
  const first = transcriptOf(succ[0]!.body).join('\n');
  assert.match(first, /你在接手/);
  assert.match(first, /run npm test; if parse\.test fails/);
  assert.doesNotMatch(first, /TASK-TEXT-7Q/);
  // records
  assert.deepEqual(r.retired, [old]);
  assert.equal(r.session_id, sid(succ[0]!));
  assert.equal(sessions.at(-1), r.session_id, 'onSession follows the successor (lineage)');
  assert.equal(r.attempts, 1, 'a handoff is not an attempt');
  const row = (await Manifest.read(p.runs))[0]!;
  assert.deepEqual(row.retired, [old]);
  assert.equal(row.session_id, r.session_id);
  assert.ok(row.num_turns >= 4, `turns accumulate across generations: ${row.num_turns}`);
  const doc = fs.readFileSync(path.join(p.ws, '.flower', 'notes', '交接-干活.md'), 'utf8');
  assert.match(doc, /## 现在在做什么\n\nbuilding the parser/);
  assert.match(doc, /## 下一步\n\nrun npm test/);
  assert.match(doc, /## 走不通的路\n\nregex parsing/);
  // events: one near, then writing, then done with every section (scene included)
  const hand = events.filter((e) => e.kind === 'handoff');
  assert.deepEqual(
    hand.map((e) => e.payload.phase),
    ['near', 'writing', 'done'],
  );
  assert.equal(hand[0]!.payload.context, 31_100);
  assert.equal(hand[0]!.payload.at, 45_000);
  assert.equal(hand[0]!.payload.window, WINDOW);
  const done = hand[2]!.payload;
  assert.equal(done.degraded, false);
  assert.equal(done.path, path.join(p.ws, '.flower', 'notes', '交接-干活.md'));
  assert.equal((done.sections as Record<string, string>).scene, 'src/parse.ts, notes/lexer.md');
  assert.ok(
    events.every((e) => e.kind !== 'tool_call' || e.tool !== HANDOFF_TOOL),
    'the writing round is not shown',
  );
  // the gateway served another model than the configured one: one warning per Runtime, not per attempt
  const mismatch = events.filter((e) => e.kind === 'error' && e.payload.model_mismatch === true);
  assert.equal(mismatch.length, 1);
  assert.deepEqual([mismatch[0]!.payload.want, mismatch[0]!.payload.served], ['claude-opus-test', 'glm-4.6']);
  assert.match(mismatch[0]!.text, /FLOWER_WINDOW or --window/);
});

const TOO_LONG = { type: 'error', status: 400, message: 'prompt is too long: 70000 tokens > 60000 maximum', sticky: true } as const;

test('a "prompt is too long" 400 gives a degraded handoff at once, calibrates the window, and the step completes on the successor', async () => {
  const p = project('overflow');
  sim.reset();
  const task = `refactor the store (TASK-HEAD) ${'x'.repeat(1500)} TASK-TAIL`;
  sim.enqueue(
    {
      type: 'tool_use',
      name: 'Bash',
      input: { command: 'echo one', description: 'one' },
      usage: { input_tokens: 100, cache_read_input_tokens: 40_000, output_tokens: 30 },
      match: { not: { firstUserIncludes: TAKEOVER } },
    },
    // the CLI silently re-sends a 400 five times: sticky, for the old session only
    { ...TOO_LONG, match: (c: SimCall) => !c.firstUser.includes(TAKEOVER) },
    { type: 'text', text: 'recovered on the successor', usage: small, match: { firstUserIncludes: TAKEOVER } },
  );
  const events: FlowerEvent[] = [];
  const rt = runtime(p, {}, { workbench: true });
  let r;
  try {
    r = await rt.run(worker, task, { stepName: 'a/b:c', onEvent: (e) => events.push(e) });
    // mid-session the CLI says only "Prompt is too long": the last reading is what we know
    assert.equal(rt.handoffPolicy.window, 40_100, 'the context reached lowers the live window at once');
  } finally {
    rt.close();
  }
  assert.equal(r.ok, true, r.error ?? '');
  assert.equal(r.text, 'recovered on the successor');
  assert.equal(r.attempts, 1);
  assert.equal(r.retired.length, 1);
  assert.ok(
    r.errors.some((e) => /^交接降级\(context overflow: .*prompt is too long/i.test(e)),
    r.errors.join(' | '),
  );
  const doc = fs.readFileSync(path.join(p.ws, '.flower', 'notes', '交接-abc.md'), 'utf8');
  assert.match(doc, /\[降级:交接没写成\]/);
  assert.match(doc, /TASK-HEAD/);
  assert.doesNotMatch(doc, /TASK-TAIL/, 'only the first 1200 characters of the task');
  const succ = sim.messageRequests().filter((q) => q.body.messages?.length && lastUserText(q.body) !== '' && transcriptOf(q.body).join('').includes(TAKEOVER));
  assert.equal(succ.length, 1);
  assert.match(transcriptOf(succ[0]!.body).join('\n'), /降级/);
  const done = events.find((e) => e.kind === 'handoff' && e.payload.phase === 'done')!;
  assert.equal(done.payload.degraded, true);
  assert.ok(!events.some((e) => e.kind === 'handoff' && e.payload.phase === 'writing'), 'an overflowing session is not asked to write');
  const cal = readCalibration(testEnv(p, sim.url));
  assert.deepEqual(Object.entries(cal), [[`${sim.url}|`, 40_100]]);
});

test('a Runtime without a workbench hands off without writing notes/交接-*.md: the successor and the event carry it, the manifest the retired session', async () => {
  const p = project('overflow-nowb');
  sim.reset();
  sim.enqueue(
    {
      type: 'tool_use',
      name: 'Bash',
      input: { command: 'echo one', description: 'one' },
      usage: { input_tokens: 100, cache_read_input_tokens: 40_000, output_tokens: 30 },
      match: { not: { firstUserIncludes: TAKEOVER } },
    },
    { ...TOO_LONG, match: (c: SimCall) => !c.firstUser.includes(TAKEOVER) },
    { type: 'text', text: 'recovered', usage: small, match: { firstUserIncludes: TAKEOVER } },
  );
  const events: FlowerEvent[] = [];
  const rt = runtime(p);
  let r;
  try {
    r = await rt.run(worker, 'tidy up (TASK-NOWB)', { stepName: 'tidy', onEvent: (e) => events.push(e) });
  } finally {
    rt.close();
  }
  assert.equal(r.ok, true, r.error ?? '');
  assert.equal(r.text, 'recovered');
  assert.equal(fs.existsSync(path.join(p.ws, '.flower')), false, 'no .flower/ in the workspace');
  const done = events.find((e) => e.kind === 'handoff' && e.payload.phase === 'done')!;
  assert.equal(done.payload.path, null);
  assert.equal(done.payload.degraded, true);
  const succ = sim.messageRequests().find((q) => transcriptOf(q.body).join('').includes(TAKEOVER))!;
  assert.match(transcriptOf(succ.body).join('\n'), /TASK-NOWB/);
  const row = (await Manifest.read(p.runs))[0]!;
  assert.equal(row.retired.length, 1);
});

test('handoffs that keep degrading stop the step after two in a row, with the window and threshold in the message', async () => {
  const p = project('degrade');
  sim.reset();
  sim.enqueue(TOO_LONG);
  const rt = runtime(p, {}, { workbench: true });
  let r;
  try {
    r = await rt.run(worker, 'anything', { stepName: 'loop' });
  } finally {
    rt.close();
  }
  assert.equal(r.ok, false);
  assert.match(r.error ?? '', /2 degraded handoffs in a row/);
  // nothing to calibrate from: no reading before the overflow, and the CLI states no limit
  assert.match(r.error ?? '', /window 60000, threshold 45000, room 15000/);
  assert.match(r.error ?? '', /FLOWER_WINDOW or --window/);
  assert.equal(r.retired.length, 2);
  assert.equal(new Set(sim.messageRequests().map(sid)).size, 2, 'two sessions, no third');
  assert.equal(r.attempts, 1);
  const archived = fs.readdirSync(path.join(p.ws, '.flower', 'notes', 'archive', '交接'));
  assert.equal(archived.length, 1, 'the first handoff was archived when the second was written');
  assert.match(archived[0]!, /^loop-\d{8}-\d{6}\.md$/);
});

test('sessions that are full at once stop at maxGenerations with the start-up floor message', async () => {
  const p = project('gens');
  sim.reset();
  sim.enqueue(
    {
      type: 'tool_use',
      name: HANDOFF_TOOL,
      usage: small,
      sticky: true,
      match: { lastUserIncludes: 'submit_handoff' },
      input: { doing: 'starting', decided: '', deadends: '', next: 'start again', scene: '' },
    },
    { type: 'text', text: 'Submitted.', usage: small, sticky: true, match: { lastUserIncludes: 'Handoff received' } },
    // a tool turn (a final answer past the threshold just ends the step): the cut lands mid-stream
    {
      type: 'tool_use',
      text: 'Starting.',
      name: 'Bash',
      input: { command: HOLD, description: 'wait' },
      usage: { input_tokens: 50_000 },
      chunkDelayMs: 150,
      sticky: true,
    },
  );
  const rt = runtime(p, {}, { handoff: { window: WINDOW, headroom: 15_000, maxGenerations: 1 } });
  let r;
  try {
    r = await rt.run(worker, 'anything', { stepName: 'gens' });
  } finally {
    rt.close();
  }
  assert.equal(r.ok, false);
  assert.match(r.error ?? '', /retired 1 sessions/);
  assert.match(r.error ?? '', /start-up floor/);
  assert.match(r.error ?? '', /--window N .*--no-handoff/);
  assert.equal(r.retired.length, 1);
});

test('a resumed session counts only its own turns: resuming twice costs about the same each time, not the running total', async () => {
  const p = project('cost');
  sim.reset();
  sim.enqueue({ type: 'text', text: 'turn', usage: { input_tokens: 3000, output_tokens: 200 }, sticky: true });
  const rt = runtime(p);
  try {
    const a = await rt.run(worker, 'one', { stepName: 'c1' });
    const b = await rt.run(worker, 'two', { stepName: 'c2', resume: a.session_id! });
    const c = await rt.run(worker, 'three', { stepName: 'c3', resume: a.session_id! });
    assert.ok(a.cost_usd > 0);
    for (const x of [b, c]) assert.ok(Math.abs(x.cost_usd - a.cost_usd) < a.cost_usd * 0.05, `${x.step}: ${x.cost_usd} vs ${a.cost_usd}`);
    assert.ok(Math.abs(rt.totalCost() - 3 * a.cost_usd) < a.cost_usd * 0.1);
  } finally {
    rt.close();
  }
  const rows = await Manifest.read(p.runs);
  assert.ok(Math.abs(rows[2]!.cost_usd - rows[0]!.cost_usd) < rows[0]!.cost_usd * 0.05);
});

async function cliRun(p: Project, args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(['once', ...args, '-t', 'Bash', '-w', p.ws, '-r', p.runs], {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env: testEnv(p, sim.url, fast),
    cwd: p.dir,
  });
  return { code, out, err };
}

test('once --window 60000: a markdown handoff (no tool call) is parsed, and the successor finishes', async () => {
  const p = project('cli-md');
  sim.reset();
  sim.enqueue(
    // a 60000 window hands off at 45000 (25 % room: the 50k floor never takes over half a small window)
    // a tool turn that cannot finish on its own (the cut interrupts the sleep): a text answer past the
    // threshold raced the cut on a loaded machine, and a finished answer just ends the step
    {
      type: 'tool_use',
      text: 'working',
      name: 'Bash',
      input: { command: HOLD, description: 'work' },
      usage: { input_tokens: 46_000 },
      match: { not: { firstUserIncludes: TAKEOVER } },
    },
    {
      type: 'text',
      match: { lastUserIncludes: 'submit_handoff' },
      usage: small,
      text: '## Doing now\nwiring the CLI\n\n## Dead ends\nnone yet\n\n## Next step\nrun the e2e test\n\n## Scene\nsrc/cli/once.ts',
    },
    { type: 'text', text: 'done after markdown', usage: small, match: { firstUserIncludes: TAKEOVER } },
  );
  const r = await cliRun(p, ['do it', '--window', '60000']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /done after markdown/);
  assert.match(r.out, /handed off from [0-9a-f-]{36}/);
  assert.match(r.err, /# handoff written/);
  // `once` has no workbench: no notes/ on disk; the handoff reaches the successor's first prompt
  assert.equal(fs.existsSync(path.join(p.ws, '.flower')), false, 'a Runtime without a workbench leaves no .flower/');
  const succ = sim.messageRequests().find((q) => transcriptOf(q.body).join('').includes(TAKEOVER))!;
  const first = transcriptOf(succ.body).join('\n');
  assert.match(first, /wiring the CLI/);
  assert.match(first, /run the e2e test/);
  const row = (await Manifest.read(p.runs))[0]!;
  assert.equal(row.retired.length, 1);
  assert.notEqual(row.session_id, row.retired[0]);
});

test('once --no-handoff: no handoff at any size', async () => {
  const p = project('cli-off');
  sim.reset();
  sim.enqueue({ type: 'text', text: 'big but fine', usage: { input_tokens: 900_000 } });
  const r = await cliRun(p, ['do it', '--no-handoff', '--window', '60000']);
  assert.equal(r.code, 0, r.err);
  assert.equal(sim.messageRequests().length, 1);
  assert.equal((await Manifest.read(p.runs))[0]!.retired.length, 0);
  assert.equal(fs.existsSync(path.join(p.ws, '.flower')), false);
});

test('in a workflow, lineage.json names the successor, and a rerun continues the successor', async () => {
  const p = project('lineage');
  sim.reset();
  sim.enqueue(
    // matched on this test's own task: a late request from the previous test's process must not take it
    {
      type: 'tool_use',
      text: 'working',
      name: 'Bash',
      input: { command: HOLD, description: 'work' },
      usage: { input_tokens: 50_000 },
      match: { firstUserIncludes: 'do the work' },
    },
    { type: 'text', text: '## 现在在做什么\nhalf done\n\n## 下一步\nfinish it', usage: small, match: { lastUserIncludes: 'submit_handoff' } },
    { type: 'text', text: 'finished', usage: small, match: { firstUserIncludes: TAKEOVER } },
    { type: 'text', text: 'continued', usage: small },
  );
  const wf = () => new Workflow([new Step('干活', worker, 'do the work')]);
  const rt1 = runtime(p);
  try {
    const ctx = await wf().run(rt1);
    assert.equal(ctx._failedAt, undefined);
  } finally {
    rt1.close();
  }
  const row = (await Manifest.read(p.runs))[0]!;
  assert.equal(row.retired.length, 1);
  const lin = readJson<{ steps: Record<string, string> }>(path.join(p.runs, 'lineage.json'));
  assert.equal(lin.steps['干活'], row.session_id, 'lineage follows the successor');
  const before = sim.messageRequests().length;
  const rt2 = runtime(p);
  try {
    await wf().run(rt2);
  } finally {
    rt2.close();
  }
  const again = sim.messageRequests().slice(before);
  assert.ok(again.length >= 1);
  for (const q of again) assert.equal(sid(q), row.session_id, 'the rerun resumes the successor, not the retired session');
});
