import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Lineage } from '../../src/workflow/index.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'flower-lin-'));

test('the first run wakes 1, and each later run one more', () => {
  const d = tmp();
  assert.equal(Lineage.open(d, d).bump(), 1);
  assert.equal(Lineage.open(d, d).bump(), 2);
  assert.equal(Lineage.peek(d, d).woke, 2);
});

test('a lineage written for another workspace path is ignored (a copied folder starts fresh)', () => {
  const d = tmp();
  fs.writeFileSync(Lineage.fileIn(d), JSON.stringify({ workspace: '/elsewhere', woke: 7, steps: { s: 'old' } }));
  const lin = Lineage.open(d, d);
  assert.deepEqual([lin.woke, lin.steps], [0, {}]);
  assert.equal(lin.bump(), 1);
});

test('a damaged lineage file is kept aside, reported once, and a fresh one is written', () => {
  for (const garbage of ['{not json', '[]', JSON.stringify({ workspace: 1, woke: 'x', steps: [] }), '']) {
    const d = tmp();
    fs.writeFileSync(Lineage.fileIn(d), garbage);
    const reports: string[] = [];
    const lin = Lineage.open(d, d, { onCorrupt: (kept) => reports.push(kept) });
    assert.equal(reports.length, 1, garbage);
    assert.equal(fs.readFileSync(reports[0]!, 'utf8'), garbage);
    assert.equal(lin.bump(), 1);
    assert.equal(Lineage.peek(d, d).woke, 1);
  }
});

test('remember() writes at once and never throws, even when the run dir is unwritable', () => {
  const d = tmp();
  const lin = Lineage.open(d, d);
  lin.remember('s', 'sid-1');
  assert.deepEqual(Lineage.peek(d, d).steps, { s: 'sid-1' });
  const ro = path.join(d, 'file-not-dir');
  fs.writeFileSync(ro, 'x');
  const bad = Lineage.open(path.join(ro, 'runs'), d);
  assert.doesNotThrow(() => bad.remember('s', 'sid-2'));
});

test('two processes remembering different steps in one folder keep each other\'s entries', async () => {
  const d = tmp();
  const script = (who: string) => `
    import { Lineage } from ${JSON.stringify(path.resolve('src/workflow/index.ts'))};
    const lin = Lineage.open(${JSON.stringify(d)}, ${JSON.stringify(d)});
    lin.bump();
    for (let i = 0; i < 40; i++) lin.remember('${who}-' + i, '${who}-sid-' + i);
  `;
  const runOne = (who: string) => new Promise<number>((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script(who)], { stdio: 'inherit' });
    p.on('exit', (c) => resolve(c ?? 1));
    p.on('error', reject);
  });
  const codes = await Promise.all([runOne('a'), runOne('b')]);
  assert.deepEqual(codes, [0, 0]);
  const onDisk = Lineage.peek(d, d);
  assert.equal(Object.keys(onDisk.steps).length, 80);
  assert.equal(onDisk.woke, 2);
});

test('archive moves lineage and the notes together into one timestamped folder and starts from zero', () => {
  const d = tmp();
  const notes = path.join(d, '.flower', 'notes');
  fs.mkdirSync(notes, { recursive: true });
  fs.writeFileSync(path.join(notes, '需求.md'), 'brief');
  fs.writeFileSync(path.join(notes, '目标.md'), 'goal');
  const lin = Lineage.open(d, d);
  lin.bump();
  lin.remember('s', 'sid');
  const dir = lin.archive(path.join(notes, 'archive'), [path.join(notes, '需求.md'), path.join(notes, '目标.md'), path.join(notes, 'absent.md')]);
  assert.ok(dir && /archive\/\d{8}-\d{6}/.test(dir));
  assert.deepEqual(fs.readdirSync(dir!).sort(), ['lineage.json', '目标.md', '需求.md'].sort());
  assert.equal(fs.existsSync(Lineage.fileIn(d)), false);
  assert.deepEqual([lin.woke, lin.steps], [0, {}]);
  assert.equal(Lineage.open(d, d).bump(), 1);
});
