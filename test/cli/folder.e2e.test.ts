/**
 * One run per folder, and a bare `flower` continues whatever a kill cut short — even a run killed in
 * its first seconds, before its brief existed. The real CLI processes, the real claude binary, the sim.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import type { SimItem } from '../../src/sim/index.js';
import { cli, project, readJson, startCli, testEnv, transcriptOf, until, type Project } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

interface Row {
  step: string;
  session_id: string;
  ok: boolean;
  run: string;
  started_at: string;
  ended_at: string | null;
}
interface Lin {
  woke: number;
  steps: Record<string, string>;
  request?: { text: string };
}

const clarifier = { firstUserIncludes: 'submit_brief' };
const goalSetter = { firstUserIncludes: 'submit_goal' };
const judge = { firstUserIncludes: 'submit_verdict' };
const coordinator = { toolsInclude: 'Agent' };
const brief = (): SimItem[] => [
  {
    type: 'tool_use',
    match: clarifier,
    name: 'mcp__human__submit_brief',
    input: { goal: 'write result.txt', acceptance: ['result.txt exists'], boundaries: ['nothing else'], unknowns: ['none'] },
  },
  { type: 'text', match: clarifier, text: 'done' },
];
const rest = (): SimItem[] => [
  { type: 'tool_use', match: goalSetter, name: 'mcp__human__submit_goal', input: { statement: 'result.txt exists', checks: [{ text: 'ls result.txt' }] } },
  { type: 'text', match: goalSetter, text: 'done' },
  { type: 'text', match: coordinator, text: 'written' },
  {
    type: 'tool_use',
    match: judge,
    name: 'mcp__human__submit_verdict',
    input: { state: 'achieved', reason: '', checks: [{ item: 'ls result.txt', pass: true, evidence: 'seen' }] },
  },
  { type: 'text', match: judge, text: 'judged' },
];
const args = (p: Project, extra: string[]) => [...extra, '--timeout', '0', '-w', p.ws, '-r', p.runs];
const env = (p: Project) => testEnv(p, sim.url);
const rows = (p: Project) => readJson<Row[]>(path.join(p.runs, 'manifest.json'));
const lineage = (p: Project) => readJson<Lin>(path.join(p.runs, 'lineage.json'));
const stored = (p: Project, sid: string): number => {
  if (!fs.existsSync(path.join(p.runs, 'sessions.db'))) return 0;
  const db = new Database(path.join(p.runs, 'sessions.db'), { readonly: true });
  try {
    return db.prepare('select count(*) from entries where store_key like ?').pluck().get(`%/${sid}`) as number;
  } finally {
    db.close();
  }
};

test('two flower runs started together in one folder: one runs, the other exits 1 naming the holder; never both; the wake number stays right', async () => {
  const p = project('two');
  sim.reset();
  // one flow's worth of answers, plus a hang that keeps the first run busy while the second starts
  sim.enqueue({ type: 'tool_use', match: clarifier, name: 'Bash', input: { command: 'sleep 3', description: 'think' } }, ...brief(), ...rest());
  const a = startCli(args(p, ['write result.txt']), { cwd: p.dir, env: env(p) });
  const b = startCli(args(p, ['write result.txt']), { cwd: p.dir, env: env(p) });
  const first = await Promise.race([a.done.then((r) => ({ who: 'a', r })), b.done.then((r) => ({ who: 'b', r }))]);
  const [ra, rb] = await Promise.all([a.done, b.done]);
  const loser = ra.code === 0 ? rb : ra;
  const winner = ra.code === 0 ? ra : rb;
  assert.equal(winner.code, 0, winner.stderr + winner.stdout);
  assert.equal(loser.code, 1, loser.stderr + loser.stdout);
  assert.equal(first.r, loser, 'the loser exits first, at once, not after the winner');
  assert.match(loser.stderr, /another flower run holds .*runs: pid \d+ on \S+, since \S+ \(\d+ s ago\)/);
  assert.match(loser.stderr, /--wait/);
  assert.equal(new Set(rows(p).map((r) => r.run)).size, 1, 'only one run wrote rows');
  assert.equal(lineage(p).woke, 1);
  assert.deepEqual(sim.unexpected(), []);
  assert.ok(!fs.existsSync(path.join(p.runs, 'run.lock')) || fs.readFileSync(path.join(p.runs, 'run.lock'), 'utf8') === '', 'the lock is released');
});

test('--wait: the second run waits for the first to finish, then runs as the next wake', async () => {
  const p = project('wait');
  sim.reset();
  sim.enqueue({ type: 'tool_use', match: clarifier, name: 'Bash', input: { command: 'sleep 2', description: 'think' } }, ...brief(), ...rest());
  const a = startCli(args(p, ['write result.txt']), { cwd: p.dir, env: env(p) });
  await until('the first run holds the folder', () => sim.messageRequests().length >= 1, 60_000);
  sim.enqueue({ type: 'text', match: coordinator, text: 'again' }, ...rest().slice(3));
  const b = startCli(args(p, ['--wait']), { cwd: p.dir, env: env(p) });
  const [ra, rb] = await Promise.all([a.done, b.done]);
  assert.equal(ra.code, 0, ra.stderr + ra.stdout);
  assert.equal(rb.code, 0, rb.stderr + rb.stdout);
  assert.match(rb.stderr, /another flower run holds .* waiting for it to finish/);
  const rs = rows(p);
  const runs = [...new Set(rs.map((r) => r.run))];
  assert.equal(runs.length, 2);
  const lastOfA = rs
    .filter((r) => r.run === runs[0])
    .map((r) => Date.parse(r.ended_at!))
    .sort()
    .at(-1)!;
  const firstOfB = rs
    .filter((r) => r.run === runs[1])
    .map((r) => Date.parse(r.started_at))
    .sort()[0]!;
  assert.ok(firstOfB >= lastOfA, 'never both at once');
  assert.equal(lineage(p).woke, 2);
});

test('killed while the clarifier waits on the model: a bare flower resumes the clarify session with its resume prompt', async () => {
  const p = project('kill-clarify');
  sim.reset();
  sim.enqueue({ type: 'hang', match: clarifier });
  const a = startCli(args(p, ['write result.txt please']), { cwd: p.dir, env: env(p) });
  await until('the clarifier request', () => sim.messageRequests().length >= 1, 60_000);
  const sid = lineage(p).steps['确认需求']!;
  assert.ok(sid);
  await until('the prompt in sessions.db', () => stored(p, sid) > 0, 60_000);
  a.child.kill('SIGKILL');
  await a.done;
  assert.ok(!fs.existsSync(path.join(p.ws, '.flower', 'notes', '需求.md')), 'no brief yet');
  sim.reset();
  sim.enqueue(...brief(), ...rest());
  const r = await cli(args(p, []), { cwd: p.dir, env: env(p), timeoutMs: 120_000 });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const firstCall = sim.messageRequests()[0]!;
  assert.equal(firstCall.headers['x-claude-code-session-id'], sid, 'the same clarify session continues');
  assert.match(transcriptOf(firstCall.body).join('\n'), /write result\.txt please/, 'its history holds the request');
  assert.match(transcriptOf(firstCall.body).at(-1)!, /Continue the clarification/);
  assert.equal(lineage(p).woke, 2);
  assert.ok(fs.existsSync(path.join(p.ws, '.flower', 'notes', '需求.md')));
});

test('killed before the clarify session reached the store: a bare flower starts it fresh from the request recorded before the spawn', async () => {
  const p = project('kill-early');
  fs.mkdirSync(p.runs, { recursive: true });
  // what a kill within the first ~100 ms leaves: lineage names a session sessions.db never received
  fs.writeFileSync(
    path.join(p.runs, 'lineage.json'),
    JSON.stringify({
      version: 1,
      workspace: p.ws,
      woke: 1,
      steps: { 确认需求: '0b8f2c1e-1111-4222-8333-944455556666' },
      request: { text: 'write result.txt in uppercase', at: new Date().toISOString() },
    }),
  );
  sim.reset();
  sim.enqueue(...brief(), ...rest());
  const r = await cli(args(p, []), { cwd: p.dir, env: env(p), timeoutMs: 120_000 });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const firstCall = sim.messageRequests()[0]!;
  assert.notEqual(firstCall.headers['x-claude-code-session-id'], '0b8f2c1e-1111-4222-8333-944455556666');
  assert.match(transcriptOf(firstCall.body)[0]!, /write result\.txt in uppercase/, 'the recorded request is what the clarifier hears');
});

test('a new sentence is recorded in lineage before the clarifier spawns', async () => {
  const p = project('record');
  sim.reset();
  sim.enqueue({ type: 'hang', match: clarifier });
  const a = startCli(args(p, ['make me a result file']), { cwd: p.dir, env: env(p) });
  await until('the clarifier request', () => sim.messageRequests().length >= 1, 60_000);
  assert.equal(lineage(p).request?.text, 'make me a result file');
  a.child.kill('SIGKILL');
  await a.done;
});
