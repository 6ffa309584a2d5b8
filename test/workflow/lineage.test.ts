import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { StateCorrupt, type StateNotice } from '../../src/state/index.js';
import { Lineage } from '../../src/workflow/index.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'flower-lin-'));

test('the first run wakes 1, and each later run one more', async () => {
  const d = tmp();
  assert.equal(await (await Lineage.open(d, d)).bump(), 1);
  assert.equal(await (await Lineage.open(d, d)).bump(), 2);
  assert.equal((await Lineage.peek(d, d)).woke, 2);
  assert.equal(JSON.parse(fs.readFileSync(Lineage.fileIn(d), 'utf8')).version, 1, 'written as version 1');
});

test('a lineage written for another workspace is kept aside with a notice, never replaced (a copied folder starts fresh)', async () => {
  const d = tmp();
  const foreign = JSON.stringify({ workspace: '/elsewhere', woke: 7, steps: { s: 'old' } });
  fs.writeFileSync(Lineage.fileIn(d), foreign);
  const notices: StateNotice[] = [];
  const lin = await Lineage.open(d, d, { onNotice: (n) => notices.push(n) });
  assert.deepEqual([lin.woke, lin.steps], [0, {}]);
  assert.equal(notices.length, 0, 'reading alone moves nothing');
  assert.equal(fs.readFileSync(Lineage.fileIn(d), 'utf8'), foreign);
  assert.equal(await lin.bump(), 1);
  assert.equal(notices.length, 1);
  assert.equal(notices[0]!.kind, 'foreign');
  assert.match(notices[0]!.keptAt, /lineage\.json\.kept-\d{8}-\d{6}/);
  assert.equal(fs.readFileSync(notices[0]!.keptAt, 'utf8'), foreign, "the other workspace's lineage survives byte for byte");
  assert.equal((await Lineage.peek(d, d)).woke, 1);
});

test('a damaged lineage file is kept aside, reported once, and a fresh one is written', async () => {
  for (const garbage of ['{not json', '[]', JSON.stringify({ workspace: 1, woke: 'x', steps: [] }), '']) {
    const d = tmp();
    fs.writeFileSync(Lineage.fileIn(d), garbage);
    const reports: string[] = [];
    const lin = await Lineage.open(d, d, { onCorrupt: (kept) => reports.push(kept) });
    assert.equal(reports.length, 1, garbage);
    assert.equal(fs.readFileSync(reports[0]!, 'utf8'), garbage);
    assert.equal(await lin.bump(), 1);
    assert.equal((await Lineage.peek(d, d)).woke, 1);
  }
});

test('remember() writes at once and never throws, even when the run dir is unwritable', async () => {
  const d = tmp();
  const lin = await Lineage.open(d, d);
  await lin.remember('s', 'sid-1');
  assert.deepEqual((await Lineage.peek(d, d)).steps, { s: 'sid-1' });
  const ro = path.join(d, 'file-not-dir');
  fs.writeFileSync(ro, 'x');
  const bad = await Lineage.open(path.join(ro, 'runs'), d);
  await assert.doesNotReject(() => bad.remember('s', 'sid-2'));
});

test('a lineage from a newer flower is neither read nor overwritten: the run stops with a clear error', async () => {
  const d = tmp();
  const future = JSON.stringify({ version: 99, workspace: d, woke: 3, steps: {} });
  fs.writeFileSync(Lineage.fileIn(d), future);
  await assert.rejects(
    () => Lineage.open(d, d),
    (e: unknown) => e instanceof StateCorrupt && e.code === 'state-future-version' && e.message.includes('newer flower'),
  );
  await assert.rejects(() => Lineage.peek(d, d), StateCorrupt);
  assert.equal(fs.readFileSync(Lineage.fileIn(d), 'utf8'), future);
  assert.deepEqual(fs.readdirSync(d), ['lineage.json'], 'nothing kept aside, nothing written');
});

test("two processes remembering different steps in one folder keep each other's entries", async () => {
  const d = tmp();
  const script = (who: string) => `
    import { Lineage } from ${JSON.stringify(path.resolve('src/workflow/index.ts'))};
    const lin = await Lineage.open(${JSON.stringify(d)}, ${JSON.stringify(d)});
    await lin.bump();
    for (let i = 0; i < 40; i++) await lin.remember('${who}-' + i, '${who}-sid-' + i);
  `;
  const runOne = (who: string) =>
    new Promise<number>((resolve, reject) => {
      const p = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script(who)], { stdio: 'inherit' });
      p.on('exit', (c) => resolve(c ?? 1));
      p.on('error', reject);
    });
  const codes = await Promise.all([runOne('a'), runOne('b')]);
  assert.deepEqual(codes, [0, 0]);
  const onDisk = await Lineage.peek(d, d);
  assert.equal(Object.keys(onDisk.steps).length, 80);
  assert.equal(onDisk.woke, 2);
});

test('archive moves lineage and the notes together into one timestamped folder and starts from zero', async () => {
  const d = tmp();
  const notes = path.join(d, '.flower', 'notes');
  fs.mkdirSync(notes, { recursive: true });
  fs.writeFileSync(path.join(notes, '需求.md'), 'brief');
  fs.writeFileSync(path.join(notes, '目标.md'), 'goal');
  const lin = await Lineage.open(d, d);
  await lin.bump();
  await lin.remember('s', 'sid');
  const dir = await lin.archive(path.join(notes, 'archive'), [path.join(notes, '需求.md'), path.join(notes, '目标.md'), path.join(notes, 'absent.md')]);
  assert.ok(dir && /archive\/\d{8}-\d{6}/.test(dir));
  assert.deepEqual(fs.readdirSync(dir!).sort(), ['lineage.json', '目标.md', '需求.md'].sort());
  assert.equal(fs.existsSync(Lineage.fileIn(d)), false);
  assert.deepEqual([lin.woke, lin.steps], [0, {}]);
  assert.equal(await (await Lineage.open(d, d)).bump(), 1);
});
