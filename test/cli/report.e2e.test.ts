/**
 * `flower report` end to end: a `flower once` run on the real claude binary against the scripted model
 * with explicit token usage and a few tool calls, then the report's cache hit rate and tool counts.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { startSim, type Sim } from '../../src/sim/index.js';
import { cli, project, readJson, testEnv, type Project } from '../helpers/e2e.js';

let sim: Sim;
after(async () => {
  await sim.close();
});

const usage = (input_tokens: number, cache_creation_input_tokens: number, cache_read_input_tokens: number) => ({
  input_tokens,
  cache_creation_input_tokens,
  cache_read_input_tokens,
  output_tokens: 10,
});

let p: Project;
let run: string;
before(async () => {
  sim = await startSim({ port: 0, onUnexpected: 'error' });
  p = project('report');
  const file = path.join(p.ws, 'notes.txt');
  fs.writeFileSync(file, 'one line\n');
  sim.reset();
  sim.enqueue(
    { type: 'tool_use', name: 'Bash', input: { command: 'echo hi', description: 'say hi' }, usage: usage(100, 300, 0) },
    { type: 'tool_use', name: 'Read', input: { file_path: file }, usage: usage(50, 0, 400) },
    { type: 'tool_use', name: 'Bash', input: { command: 'echo there', description: 'say there' }, usage: usage(50, 0, 400) },
    { type: 'text', text: 'Done.', usage: usage(50, 100, 400) },
  );
  const r = await cli(['once', 'look around', '-t', 'Bash,Read', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url), timeoutMs: 120_000 });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.deepEqual(sim.unexpected(), []);
  run = readJson<Array<{ run: string }>>(path.join(p.runs, 'manifest.json'))[0]!.run;
});

const report = (args: string[], env: Record<string, string> = {}) =>
  cli(['report', ...args, '-r', p.runs], { cwd: p.dir, env: { ...testEnv(p, sim.url), ...env }, timeoutMs: 60_000 });

test('the report of the last run prints the exact cache hit rate and the tool counts, and exits 0', async () => {
  const r = await report([]);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  // 1200 cache read of 250 + 400 + 1200 input tokens
  assert.match(r.stdout, /cache hits 64\.9% \(cache read 1\.2K of 1\.9K input tokens, 4 model calls\)/);
  assert.match(r.stdout, /tools \(main thread\): Bash 2, Read 1\n/);
  assert.match(r.stdout, /tools \(subagents\): none/);
  assert.match(r.stdout, /the coordinator's Bash commands: 2\n {4}\$ echo hi\n {4}\$ echo there/);
  assert.match(r.stdout, new RegExp(`run ${run} `));
});

test('--json is one JSON object with the token sums, and the run can be named', async () => {
  const r = await report([run, '--json']);
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 1);
  const j = JSON.parse(lines[0]!) as {
    run: string;
    cache_hit_rate: number;
    tokens: Record<string, number>;
    tools: { main: Record<string, number> };
    steps: unknown[];
  };
  assert.equal(j.run, run);
  assert.deepEqual(j.tokens, { calls: 4, input: 250, cacheCreation: 400, cacheRead: 1200, output: 40 });
  assert.equal(j.cache_hit_rate, 1200 / 1850);
  assert.deepEqual(j.tools.main, { Bash: 2, Read: 1 });
  assert.equal(j.steps.length, 1);
});

test('in Chinese the same figures', async () => {
  const r = await report([], { FLOWER_LANG: 'zh' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /缓存命中 64\.9%/);
  assert.match(r.stdout, /工具\(主线程\): Bash 2, Read 1/);
});

test('an unknown run id: one line, exit 1', async () => {
  const r = await report(['no-such-run']);
  assert.equal(r.code, 1);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /no run no-such-run here/);
});

test('a damaged transcript: one line naming sessions.db and the session, exit 1', async () => {
  const q = project('report-torn');
  fs.cpSync(p.runs, q.runs, { recursive: true });
  const db = new Database(path.join(q.runs, 'sessions.db'));
  db.prepare("UPDATE entries SET payload = '{torn' WHERE rowid = (SELECT max(rowid) FROM entries)").run();
  db.close();
  const r = await cli(['report', '-r', q.runs], { cwd: q.dir, env: testEnv(q, sim.url), timeoutMs: 60_000 });
  assert.equal(r.code, 1, r.stdout);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /sessions\.db cannot be read .*; session [0-9a-f-]{36}/);
});

test('a damaged manifest: one line naming the file, exit 1 — not an empty report', async () => {
  const q = project('report-damaged');
  fs.mkdirSync(q.runs, { recursive: true });
  fs.writeFileSync(path.join(q.runs, 'manifest.json'), '[{"step": "干活"');
  const r = await cli(['report', '-r', q.runs], { cwd: q.dir, env: testEnv(q, sim.url), timeoutMs: 60_000 });
  assert.equal(r.code, 1, r.stdout);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /manifest\.json is not valid JSON/);
});

test('the default flow: the coordinator’s denied call, its own glance, the worker’s tools apart, and a spilled output', async () => {
  const q = project('report-flow');
  const worker = { firstUserIncludes: '[report-worker]' };
  const coordinator = { toolsInclude: 'Agent', not: worker };
  sim.reset();
  sim.enqueue(
    {
      type: 'tool_use',
      match: { firstUserIncludes: 'submit_brief' },
      name: 'mcp__human__submit_brief',
      input: { goal: 'g', acceptance: ['a'], boundaries: ['b'], unknowns: ['u'] },
    },
    { type: 'text', match: { firstUserIncludes: 'submit_brief' }, text: 'ok' },
    { type: 'tool_use', match: coordinator, name: 'Write', input: { file_path: path.join(q.ws, 'x.txt'), content: 'x\n' } },
    { type: 'tool_use', match: coordinator, name: 'Bash', input: { command: 'ls', description: 'look' } },
    {
      type: 'tool_use',
      match: coordinator,
      name: 'Agent',
      input: { description: 'x', subagent_type: 'worker', run_in_background: false, prompt: '[report-worker] say hi' },
    },
    { type: 'tool_use', match: worker, name: 'Bash', input: { command: 'echo hi', description: 'hi' } },
    // 10,000 characters: over the spill threshold, so the worker reads a pointer
    { type: 'tool_use', match: worker, name: 'Bash', input: { command: "printf 'x%.0s' $(seq 1 10000)", description: 'big' } },
    { type: 'text', match: worker, text: '结论:done' },
    { type: 'text', match: coordinator, text: 'done' },
  );
  const r = await cli(['--no-goal', '写个脚本', '-w', q.ws, '-r', q.runs, '--timeout', '0'], { cwd: q.dir, env: testEnv(q, sim.url), timeoutMs: 120_000 });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.deepEqual(sim.unexpected(), []);
  const rep = await cli(['report', '-r', q.runs], { cwd: q.dir, env: testEnv(q, sim.url), timeoutMs: 60_000 });
  assert.equal(rep.code, 0, rep.stderr);
  assert.match(rep.stdout, /steps: 2\n {2}\+ 确认需求 .*\n.*\n {2}\+ 干活 /);
  assert.match(rep.stdout, /tools \(main thread\): Agent 1, Bash 1, mcp__human__submit_brief 1, Write 1\n/);
  assert.match(rep.stdout, /tools \(subagents\): Bash 2\n/);
  assert.match(rep.stdout, /denied coordinator calls: 1\n {4}x 干活 · Write: You coordinate and do not do hands-on work/);
  assert.match(rep.stdout, /the coordinator's Bash commands: 1\n {4}\$ ls\n/);
  const spilled = /spilled 1 big output to files, ≈([\d.]+K?) tokens \(([\d.]+K) chars\) kept out of the context/.exec(rep.stdout);
  assert.ok(spilled, rep.stdout);
  const j = await cli(['report', '--json', '-r', q.runs], { cwd: q.dir, env: testEnv(q, sim.url), timeoutMs: 60_000 });
  const saved = (JSON.parse(j.stdout) as { spills: { count: number; saved_chars: number } }).spills;
  assert.equal(saved.count, 1);
  // the pointer and its head are a few hundred characters of the 10,000
  assert.ok(saved.saved_chars > 9000 && saved.saved_chars < 10_000, String(saved.saved_chars));
});
