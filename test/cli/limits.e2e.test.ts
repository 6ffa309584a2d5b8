/**
 * A run's limits end to end: `flower "…" --budget USD` and `FLOWER_DEADLINE` on the real binary and
 * the scripted model. A limit reached mid-work stops the step within one model call, records it with
 * failure kind `budget` / `deadline`, says what to do, and the next bare `flower` continues the SAME
 * work session.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import type { SimItem } from '../../src/sim/index.js';
import { cli, project, readJson, testEnv, transcriptOf, type Project } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

interface Row {
  run: string;
  step: string;
  session_id: string | null;
  ok: boolean;
  error: string | null;
  cost_usd: number;
  failure?: { kind: string } | null;
}

const clarifier = { firstUserIncludes: 'submit_brief' };
const goalSetter = { firstUserIncludes: 'submit_goal' };
const judge = { firstUserIncludes: 'submit_verdict' };
const coordinator = { toolsInclude: 'Agent' };

const start: SimItem[] = [
  {
    type: 'tool_use',
    match: clarifier,
    name: 'mcp__human__submit_brief',
    input: { goal: 'count', acceptance: ['it counts'], boundaries: ['none'], unknowns: ['none'] },
  },
  { type: 'text', match: clarifier, text: 'ok' },
  { type: 'tool_use', match: goalSetter, name: 'mcp__human__submit_goal', input: { statement: 'count', checks: [{ text: 'it counts' }] } },
  { type: 'text', match: goalSetter, text: 'ok' },
];
const finish: SimItem[] = [
  { type: 'text', match: coordinator, text: 'all counted' },
  {
    type: 'tool_use',
    match: judge,
    name: 'mcp__human__submit_verdict',
    input: { state: 'achieved', reason: '', checks: [{ item: 'it counts', pass: true, evidence: 'seen' }] },
  },
  { type: 'text', match: judge, text: 'done' },
];
/** a coordinator's expensive calls: the same usage each, so one call's price is the work row's cost / its calls */
const BIG = { input_tokens: 100_000, output_tokens: 50, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
const counting = (from: number, n: number, command = (i: number) => `echo count-${i}`): SimItem[] =>
  Array.from({ length: n }, (_, k) => ({ type: 'tool_use', match: coordinator, name: 'Bash', input: { command: command(from + k) }, usage: BIG }) as SimItem);

/** A webhook receiver on 127.0.0.1: every POSTed JSON object, in order. */
async function receiver(): Promise<{ url: string; got: Array<Record<string, unknown>>; close: () => Promise<void> }> {
  const got: Array<Record<string, unknown>> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      got.push(JSON.parse(body) as Record<string, unknown>);
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return { url, got, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const env = (p: Project, extra: Record<string, string> = {}) => testEnv(p, sim.url, { ANTHROPIC_MODEL: 'claude-sonnet-4-5', ...extra });
const flower = (p: Project, args: string[], extra: Record<string, string> = {}) =>
  cli([...args, '-w', p.ws, '-r', p.runs, '--timeout', '0', '--no-sandbox'], { cwd: p.dir, env: env(p, extra), timeoutMs: 240_000 });
const rows = (p: Project) => readJson<Row[]>(path.join(p.runs, 'manifest.json'));
const workCalls = () => sim.messageRequests().filter((m) => (m.body as { tools?: { name: string }[] }).tools?.some((t) => t.name === 'Agent'));

test('--budget: the work stops within one model call of the cap, says so, and `flower --budget MORE` continues the same session', async () => {
  const p = project('budget');
  sim.reset();
  sim.enqueue(...start, ...counting(0, 30));
  const cap = 1;
  const hook = await receiver();
  const r1 = await flower(p, ['count to thirty', '--budget', String(cap), '--notify', hook.url]).finally(hook.close);
  assert.equal(r1.code, 1, r1.stderr + r1.stdout);
  const first = rows(p);
  const work1 = first.find((r) => r.step === '干活')!;
  assert.equal(work1.failure?.kind, 'budget', JSON.stringify(work1));
  assert.ok(work1.session_id, 'the work session is kept');
  const spent = first.reduce((a, r) => a + r.cost_usd, 0);
  const calls = workCalls().length;
  const perCall = work1.cost_usd / calls;
  assert.ok(calls > 0 && calls < 30, `stopped mid-work after ${calls} calls`);
  assert.ok(spent >= cap, `reached the cap: spent ${spent}`);
  assert.ok(spent - cap < perCall + 1e-9, `overshoot ${spent - cap} is at most one call (${perCall})`);
  assert.match(r1.stderr, /budget is spent: \$[\d.]+ of \$1\.00/);
  assert.match(r1.stderr, /flower --budget \d+/);
  // the person is called once for the stop, and once for the end of the run
  const stops = hook.got.filter((n) => n.kind === 'stopped');
  assert.equal(stops.length, 1, JSON.stringify(hook.got));
  assert.equal(stops[0]!.reason, 'budget', JSON.stringify(stops[0]));
  assert.equal(hook.got.filter((n) => n.kind === 'finished').length, 1);
  for (const f of ['version', 'run', 'step', 'folder', 'host', 'cost_usd']) assert.ok(f in stops[0]!, f);
  assert.deepEqual(sim.unexpected(), []);

  // the next wake, with more to spend and nothing else said: the same work session goes on
  sim.reset();
  sim.enqueue(...counting(100, 2), ...finish);
  const r2 = await flower(p, ['--budget', '50']);
  assert.equal(r2.code, 0, r2.stderr + r2.stdout);
  const work2 = rows(p).filter((r) => r.step === '干活' && r.run !== work1.run);
  assert.equal(work2.at(-1)?.session_id, work1.session_id, 'the same work session continued');
  const resumed = transcriptOf(workCalls()[0]!.body).join('\n');
  assert.match(resumed, new RegExp(`count-${calls - 1}`), 'the model saw the work done before the stop');
  assert.deepEqual(sim.unexpected(), []);
});

test('FLOWER_DEADLINE: a deadline reached mid-work stops it at a boundary with kind deadline, and a bare `flower` continues', async () => {
  const p = project('deadline');
  sim.reset();
  // slow commands: the deadline passes while the work is going on (and a cut waits for the running one)
  sim.enqueue(...start, ...counting(0, 60, (i) => `sleep 1; echo tick-${i}`));
  const r1 = await flower(p, ['tick for a while'], { FLOWER_DEADLINE: '40s' });
  assert.equal(r1.code, 1, r1.stderr + r1.stdout);
  const stopped = rows(p).find((r) => r.failure?.kind === 'deadline');
  assert.ok(stopped, JSON.stringify(rows(p)));
  assert.match(r1.stderr, /deadline passed/);
  sim.reset();
  sim.enqueue(...finish);
  const r2 = await flower(p, []);
  assert.equal(r2.code, 0, r2.stderr + r2.stdout);
  if (stopped.step === '干活' && stopped.session_id) {
    const again = rows(p).filter((r) => r.step === '干活' && r.run !== stopped.run);
    assert.equal(again.at(-1)?.session_id, stopped.session_id, 'the same work session continued');
  }
  assert.deepEqual(sim.unexpected(), []);
});

test('a bad limit is a usage error naming it (exit 2) before any model call, and read-only commands do not care', async () => {
  const p = project('badlimit');
  sim.reset();
  for (const [args, extra, named] of [
    [['count', '--budget', '0'], {}, /--budget/],
    [['--deadline', 'soon', 'count'], {}, /--deadline/],
    [['count'], { FLOWER_BUDGET: 'five dollars' }, /FLOWER_BUDGET/],
    [['count'], { FLOWER_DEADLINE: '25:00' }, /FLOWER_DEADLINE/],
  ] as const) {
    const r = await flower(p, [...args], extra);
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, named);
  }
  assert.deepEqual(sim.messageRequests(), [], 'no model call');
  const st = await cli(['status', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: env(p, { FLOWER_BUDGET: 'five dollars' }) });
  assert.doesNotMatch(st.stderr, /FLOWER_BUDGET/);
});
