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
import { width } from '../../src/cli/term.js';

function folder() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-status-'));
  const ws = path.join(dir, 'ws');
  const runs = path.join(dir, 'runs');
  fs.mkdirSync(ws, { recursive: true });
  fs.mkdirSync(runs, { recursive: true });
  return { dir, ws, runs };
}

async function run(argv: string[], cwd: string, env: Record<string, string> = { FLOWER_LANG: 'en' }) {
  let out = '';
  let err = '';
  const code = await main(argv, {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env,
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
  assert.match(r.out, /work \(干活\) -> sid-work/);
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

/** A folder the default flow ran in twice: the seed's step names, a judge's turn, long run ids and paths. */
function seeded() {
  const f = folder();
  const notes = path.join(f.ws, '.flower', 'notes');
  new Brief({ goal: 'g', acceptance: 'a', boundaries: 'b', unknowns: 'u' }).write(path.join(notes, '需求.md'));
  const steps = { 确认需求: 'b8b7cb5c-fd42-4656-b125-cd5de101f1c0', 干活: 'a7b94d81-2407-4371-86f1-1be18d9fa9e5' };
  fs.writeFileSync(path.join(f.runs, 'lineage.json'), JSON.stringify({ workspace: f.ws, woke: 2, steps }));
  const verdict = { outcome: 'achieved', passed: 3, total: 3 };
  const rows = [
    row('确认需求', '20261202-041845-e8285b', { cost_usd: 0.1395 }),
    row('干活', '20261202-041850-82c8ac', { cost_usd: 0.2817 }),
    row('干活·判定#1', '20261202-041850-82c8ac', { cost_usd: 0.1776, verdict }),
  ];
  fs.writeFileSync(path.join(f.runs, 'manifest.json'), JSON.stringify(rows));
  return f;
}

test('status and log: the seed names translated with the name beside them in English, as they are in Chinese', async () => {
  const f = seeded();
  const st = await run(['status', '-w', f.ws, '-r', f.runs], f.dir);
  assert.equal(st.code, 0, st.err);
  assert.match(st.out, /^ {2}clarify \(确认需求\) -> b8b7cb5c-/m);
  assert.match(st.out, /^ {2}work \(干活\) -> a7b94d81-/m);
  assert.match(st.out, /last step work · judge #1 \(干活·判定#1\)/);
  assert.match(st.out, /last verdict: achieved 3\/3 \(work · judge #1 \(干活·判定#1\), run 20261202-041850-82c8ac\)/);
  const log = await run(['log', '-r', f.runs], f.dir);
  assert.match(log.out, /\+ clarify \(确认需求\) {2}\$0\.1395/);
  assert.match(log.out, /\+ work · judge #1 \(干活·判定#1\) {2}\$0\.1776/);
  const zh = { FLOWER_LANG: 'zh' };
  const stz = await run(['status', '-w', f.ws, '-r', f.runs], f.dir, zh);
  assert.match(stz.out, /^ {2}确认需求 -> b8b7cb5c-/m);
  assert.doesNotMatch(stz.out, /clarify|judge/);
  const logz = await run(['log', '-r', f.runs], f.dir, zh);
  assert.match(logz.out, /\+ 干活·判定#1 {2}\$0\.1776/);
  assert.doesNotMatch(logz.out, /clarify|work|judge/);
});

test('status and log wrap at COLUMNS between words with a hanging indent, and not at all in a pipe without it', async () => {
  const f = seeded();
  for (const lang of ['en', 'zh']) {
    for (const cmd of [
      ['status', '-w', f.ws, '-r', f.runs],
      ['log', '-r', f.runs],
    ]) {
      const whole = await run(cmd, f.dir, { FLOWER_LANG: lang });
      const narrow = await run(cmd, f.dir, { FLOWER_LANG: lang, COLUMNS: '60' });
      assert.equal(narrow.code, 0, narrow.err);
      const lines = narrow.out.trimEnd().split('\n');
      assert.ok(lines.length > whole.out.trimEnd().split('\n').length, `${cmd[0]} ${lang} wraps:\n${narrow.out}`);
      for (const l of lines) {
        // wider only when the line is one word kept whole (a long path)
        if (width(l) > 60) assert.doesNotMatch(l.trim(), /\s/, `${cmd[0]} ${lang}: ${l}`);
      }
      // the same words in the same order: nothing cut, no token split
      assert.deepEqual(narrow.out.split(/\s+/).filter(Boolean), whole.out.split(/\s+/).filter(Boolean), `${cmd[0]} ${lang}`);
      for (const token of ['$0.1776', '$0.1395', '20261202-041850-82c8ac', 'a7b94d81-2407-4371-86f1-1be18d9fa9e5']) {
        if (whole.out.includes(token))
          assert.ok(
            lines.some((l) => l.includes(token)),
            `${token} whole in ${cmd[0]} ${lang}`,
          );
      }
      // continuation lines hang under the line's own text
      const cont = lines.filter((l, i) => i > 0 && /^ {4}/.test(l));
      assert.ok(cont.length > 0, narrow.out);
    }
  }
});
