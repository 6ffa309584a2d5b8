/**
 * `flower status` and `flower log` read what a folder remembers and write nothing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli/index.js';
import { Brief, Goal } from '../../src/docs/index.js';

function folder() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-status-'));
  const ws = path.join(dir, 'ws');
  const runs = path.join(dir, 'runs');
  fs.mkdirSync(ws, { recursive: true });
  fs.mkdirSync(runs, { recursive: true });
  return { dir, ws, runs };
}

async function run(argv: string[], cwd: string) {
  let out = '';
  let err = '';
  const code = await main(argv, {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env: { FLOWER_LANG: 'en' },
    cwd,
  });
  return { code, out, err };
}

const row = (step: string, run: string, o: Partial<Record<string, unknown>> = {}) => ({
  step,
  session_id: 's1',
  ok: true,
  cost_usd: 0.25,
  num_turns: 3,
  text: '',
  error: null,
  started_at: '2026-11-29T10:00:00.000Z',
  ended_at: '2026-11-29T10:01:00.000Z',
  attempts: 1,
  errors: [],
  resumed: false,
  retired: [],
  context: 12345,
  duration_s: 60,
  run,
  ...o,
});

test('status on a folder flower never ran in says so and writes nothing', async () => {
  const f = folder();
  const r = await run(['status', '-w', f.ws, '-r', f.runs], f.dir);
  assert.equal(r.code, 0);
  assert.match(r.out, /has not run here yet/);
  assert.deepEqual(fs.readdirSync(f.runs), []);
  assert.deepEqual(fs.readdirSync(f.ws), []);
});

test('status tells the brief, the goal, the wake count, the step sessions and the spend; --json gives the same', async () => {
  const f = folder();
  const notes = path.join(f.ws, '.flower', 'notes');
  new Brief({ goal: 'g', acceptance: 'a', boundaries: 'b', unknowns: 'u' }).write(path.join(notes, '需求.md'));
  new Goal({ statement: 's', checks: ['one', 'two [此环境无法验证:no macOS]'] }).write(path.join(notes, '目标.md'));
  fs.writeFileSync(path.join(f.runs, 'lineage.json'), JSON.stringify({ workspace: f.ws, woke: 2, steps: { 干活: 'sid-work' } }));
  fs.writeFileSync(path.join(f.runs, 'manifest.json'), JSON.stringify([row('确认需求', 'r1'), row('干活', 'r2', { ok: false, error: 'boom', attempts: 3 })]));
  const r = await run(['status', '-w', f.ws, '-r', f.runs], f.dir);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /brief confirmed/);
  assert.match(r.out, /goal: 2 checks, 1 not verifiable here/);
  assert.match(r.out, /woken 2 times; the next run is wake #3/);
  assert.match(r.out, /干活 -> sid-work/);
  assert.match(r.out, /spent here in all \$0\.5000 over 2 runs/);
  assert.match(r.out, /had failures/);
  const j = JSON.parse((await run(['status', '--json', '-w', f.ws, '-r', f.runs], f.dir)).out) as {
    woke: number;
    total_cost_usd: number;
    goal: { checks: number };
  };
  assert.equal(j.woke, 2);
  assert.equal(j.total_cost_usd, 0.5);
  assert.equal(j.goal.checks, 2);
  assert.equal(fs.existsSync(path.join(f.runs, 'sessions.db')), false, 'status creates no database');
});

test('log prints one line per step run, newest last, and NDJSON with --json', async () => {
  const f = folder();
  fs.writeFileSync(
    path.join(f.runs, 'manifest.json'),
    JSON.stringify([row('a', 'r1'), row('b', 'r1', { resumed: true }), row('c', 'r2', { ok: false, error: 'x failed\nmore' })]),
  );
  const r = await run(['log', '-r', f.runs, '-n', '2'], f.dir);
  assert.equal(r.code, 0);
  const lines = r.out.trim().split('\n');
  assert.equal(lines.length, 2);
  assert.match(lines[0]!, /\+ b .*resumed/);
  assert.match(lines[1]!, /x c .*x failed$/);
  const nd = (await run(['log', '--json', '-r', f.runs], f.dir)).out
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { step: string });
  assert.deepEqual(
    nd.map((x) => x.step),
    ['a', 'b', 'c'],
  );
  assert.equal((await run(['log', '-n', '0', '-r', f.runs], f.dir)).code, 2, 'a bad -n is a usage error');
});
