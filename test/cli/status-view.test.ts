/**
 * How `flower status` and `flower log` show rows: the judge's verdict with its pass count, the run id
 * column, and nothing a file can plant — escapes and line breaks in step names, ids and errors never
 * reach the terminal.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli/index.js';

function folder() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-statusview-'));
  const ws = path.join(dir, 'ws');
  const runs = path.join(dir, 'runs');
  fs.mkdirSync(ws, { recursive: true });
  fs.mkdirSync(runs, { recursive: true });
  return { dir, ws, runs };
}

async function run(argv: string[], cwd: string, lang = 'en') {
  let out = '';
  let err = '';
  const code = await main(argv, {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    env: { FLOWER_LANG: lang },
    cwd,
  });
  return { code, out, err };
}

const row = (step: string, run: string, o: Record<string, unknown> = {}) => ({
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

const PLANT = '\x1b]0;owned\x07\x1b[2J\x1b[31mred\r\nforged line';

test('status and log show the verdict with its pass count; log has the run id column', async () => {
  const f = folder();
  fs.writeFileSync(
    path.join(f.runs, 'manifest.json'),
    JSON.stringify([
      row('干活', '20261129-100000-aaaaaa'),
      row('干活·判定#1', '20261129-100000-aaaaaa', { verdict: { outcome: 'not_yet', passed: 3, total: 5 } }),
      row('干活#round2', '20261129-100000-aaaaaa'),
      row('干活·判定#2', '20261129-100000-aaaaaa', { verdict: { outcome: 'achieved', passed: 5, total: 5 } }),
    ]),
  );
  const s = await run(['status', '-w', f.ws, '-r', f.runs], f.dir);
  assert.equal(s.code, 0, s.err);
  assert.match(s.out, /last verdict: achieved 5\/5 \(work · judge #2 \(干活·判定#2\), run 20261129-100000-aaaaaa\)/);
  const zh = await run(['status', '-w', f.ws, '-r', f.runs], f.dir, 'zh');
  assert.match(zh.out, /最近判定: 达成 5\/5/);
  const l = await run(['log', '-r', f.runs], f.dir);
  const lines = l.out.trim().split('\n');
  assert.equal(lines.length, 4);
  for (const line of lines) assert.match(line, /^2026-11-29 10:00:00 {2}20261129-100000-aaaaaa {2}[+x] /, 'every row carries its run id');
  assert.match(lines[1]!, /干活·判定#1\) .* verdict not yet 3\/5/);
  assert.match(lines[3]!, /干活·判定#2\) .* verdict achieved 5\/5/);
  const j = JSON.parse((await run(['status', '--json', '-w', f.ws, '-r', f.runs], f.dir)).out) as {
    verdict: { outcome: string; passed: number; total: number };
  };
  assert.deepEqual([j.verdict.outcome, j.verdict.passed, j.verdict.total], ['achieved', 5, 5]);
});

test('escapes and line breaks planted in the files never reach the terminal', async () => {
  const f = folder();
  fs.writeFileSync(path.join(f.runs, 'lineage.json'), JSON.stringify({ workspace: f.ws, woke: 1, steps: { [`step${PLANT}`]: `sid${PLANT}` } }));
  fs.writeFileSync(path.join(f.runs, 'manifest.json'), JSON.stringify([row(`step${PLANT}`, `run${PLANT}`, { ok: false, error: `boom${PLANT}` })]));
  for (const argv of [
    ['status', '-w', f.ws, '-r', f.runs],
    ['log', '-r', f.runs],
  ]) {
    const r = await run(argv, f.dir);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out, /[\x00-\x08\x0b-\x1f\x7f]/, `${argv[0]}: no escape, no control byte`);
    assert.doesNotMatch(r.out, /^forged line/m, `${argv[0]}: a planted line break cannot start a line of its own`);
  }
});
