/**
 * Every format flower has shipped reads back (frozen fixtures under test/fixtures/state/ok), and every
 * damaged or foreign variant (test/fixtures/state/bad) is refused as it should be: damaged → kept aside
 * byte for byte and reported as StateCorrupt with where it went; from a newer flower → not read, not
 * moved, not overwritten.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import {
  FileRunRecords,
  LINEAGE_SCHEMAS,
  RunLayout,
  StateCorrupt,
  manifestSchema,
  readVersioned,
  type ManifestRow,
  type StateNotice,
} from '../../src/state/index.js';

const FIX = path.resolve('test/fixtures/state');
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'flower-state-'));

/** A run dir holding a copy of one fixture under its real name (fixtures stay frozen). */
function runDirWith(fixture: string, as: 'lineage' | 'manifest'): { layout: RunLayout; records: FileRunRecords; file: string; bytes: Buffer } {
  const layout = RunLayout.of({ cwd: tmp(), workspace: '/home/someone/proj' });
  fs.mkdirSync(layout.runDir, { recursive: true });
  const file = as === 'lineage' ? layout.lineage : layout.manifest;
  const bytes = fs.readFileSync(path.join(FIX, fixture));
  fs.writeFileSync(file, bytes);
  return { layout, records: new FileRunRecords(layout), file, bytes };
}

test('lineage v0 (the seed: no version field) reads as version 1 with the same three fields', async () => {
  const { records } = runDirWith('ok/lineage-v0.json', 'lineage');
  const d = await records.readLineage('/home/someone/proj');
  assert.deepEqual(d, {
    version: 1,
    workspace: '/home/someone/proj',
    woke: 3,
    steps: { 确认需求: '0b7e3c1a-5a52-4c8e-9f5e-1f6d2b1a9c01', 设定目标: '7d2f9e44-1c3b-4f0a-8a6e-2b9c4d5e6f02', 干活: 'c3a1b2d4-e5f6-4a7b-8c9d-0e1f2a3b4c03' },
  });
});

test('lineage v1 reads with its workbench; a write keeps it version 1 and merges', async () => {
  const { records, file } = runDirWith('ok/lineage-v1.json', 'lineage');
  const d = await records.readLineage('/home/someone/proj');
  assert.equal(d?.workbench, '/home/someone/.flower-proj');
  await records.updateLineage('/home/someone/proj', (x) => {
    x.woke += 1;
    x.steps.设定目标 = 'new';
  });
  const onDisk = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(onDisk.version, 1);
  assert.equal(onDisk.woke, 5);
  assert.deepEqual(Object.keys(onDisk.steps).sort(), ['干活', '确认需求', '设定目标'].sort());
  assert.equal(onDisk.workbench, '/home/someone/.flower-proj');
});

test('a step literally named "constructor" is just a step name', async () => {
  const layout = RunLayout.of({ cwd: tmp() });
  const records = new FileRunRecords(layout);
  const name: string = 'constructor';
  await records.updateLineage(layout.workspace, (d) => {
    d.steps[name] = 'sid-c';
  });
  const d = await records.readLineage(layout.workspace);
  assert.equal(d?.steps[name], 'sid-c');
  assert.ok(Object.hasOwn(d!.steps, name));
  assert.equal(Object.hasOwn(d!.steps, 'toString'), false);
});

test("today's manifest rows read back unchanged, and so do rows with the contract's optional fields", async () => {
  for (const f of ['ok/manifest-v0.json', 'ok/manifest-contract-fields.json', 'ok/manifest-request.json', 'ok/manifest-attempt-failures.json']) {
    const { records, bytes } = runDirWith(f, 'manifest');
    const rows = await records.readRows();
    assert.deepEqual(rows, JSON.parse(bytes.toString('utf8')), f);
  }
  // the request typed for the run (flower ui's overview reads it back)
  const withRequest = (await runDirWith('ok/manifest-request.json', 'manifest').records.readRows()).map((r) => r.request);
  assert.deepEqual(withRequest, ['写个 md 转 html 的脚本', '写个 md 转 html 的脚本']);
  // each retried attempt's typed failure (flower ui's step page names its kind)
  const typed = (await runDirWith('ok/manifest-attempt-failures.json', 'manifest').records.readRows())[0]!.attempt_failures;
  assert.deepEqual(
    typed?.map((f) => [f.attempt, f.kind, f.status]),
    [[1, 'overloaded', 529]],
  );
  const { records } = runDirWith('ok/manifest-contract-fields.json', 'manifest');
  const [row] = (await records.readRows()) as [ManifestRow];
  assert.deepEqual([row.failure?.kind, row.verdict?.outcome, row.sandboxed, row.skills?.[0]?.name], ['auth', 'not_yet', true, 'md2html']);
});

test("upserting rows keeps every other run's rows (and fields this flower does not know)", async () => {
  const { records, file } = runDirWith('ok/manifest-contract-fields.json', 'manifest');
  const mine: ManifestRow = {
    step: 's',
    session_id: null,
    ok: true,
    cost_usd: 0,
    num_turns: 0,
    text: '',
    error: null,
    started_at: '2026-12-01T00:00:00.000Z',
    ended_at: null,
    attempts: 1,
    errors: [],
    resumed: false,
    retired: [],
    context: 0,
    duration_s: 0,
    run: 'mine',
  };
  await records.upsertRows('mine', [mine]);
  await records.upsertRows('mine', [{ ...mine, ok: false }]);
  const onDisk = JSON.parse(fs.readFileSync(file, 'utf8')) as Array<Record<string, unknown>>;
  assert.equal(onDisk.length, 2);
  assert.deepEqual(onDisk[0]!.a_field_a_newer_flower_added, { kept: true });
  assert.equal(onDisk[1]!.ok, false);
});

const DAMAGED_LINEAGE = [
  'lineage-wrong-types.json',
  'lineage-negative-woke.json',
  'lineage-proto-key.json',
  'lineage-proto-top.json',
  'lineage-truncated.json',
  'lineage-version-string.json',
  'lineage-version-fraction.json',
  'lineage-empty.json',
];

for (const f of DAMAGED_LINEAGE) {
  test(`a damaged lineage (${f}) is a StateCorrupt naming the file, kept aside byte for byte`, () => {
    const { file, bytes } = runDirWith(`bad/${f}`, 'lineage');
    let err: unknown;
    try {
      readVersioned(file, LINEAGE_SCHEMAS);
    } catch (e) {
      err = e;
    }
    assert.ok(err instanceof StateCorrupt, `${f}: ${String(err)}`);
    assert.equal(err.code, 'state-corrupt');
    assert.equal(err.path, file);
    assert.match(err.keptAt ?? '', /lineage\.json\.corrupt-\d{8}-\d{6}/);
    assert.ok(err.message.includes(err.keptAt!), 'the message says where it went');
    assert.deepEqual(fs.readFileSync(err.keptAt!), bytes);
    assert.equal(fs.existsSync(file), false);
    assert.equal(({} as Record<string, unknown>).polluted, undefined, 'no prototype was touched');
  });
}

test('a damaged lineage is reported as a notice and a fresh one is written; read-only callers move nothing', async () => {
  const { records, file, bytes } = runDirWith('bad/lineage-truncated.json', 'lineage');
  assert.equal(await records.readLineage('/p', { keep: false }), null);
  assert.deepEqual(fs.readFileSync(file), bytes, 'keep: false leaves it in place');
  const notices: StateNotice[] = [];
  const d = await records.updateLineage(
    '/p',
    (x) => {
      x.woke = 1;
    },
    { onNotice: (n) => notices.push(n) },
  );
  assert.equal(d.woke, 1);
  assert.equal(notices.length, 1);
  assert.equal(notices[0]!.kind, 'corrupt');
  assert.deepEqual(fs.readFileSync(notices[0]!.keptAt), bytes);
});

test('a lineage from a newer flower is refused by readers AND writers, and stays exactly as it was', async () => {
  const { records, file, bytes, layout } = runDirWith('bad/lineage-future-version.json', 'lineage');
  const isFuture = (e: unknown) => e instanceof StateCorrupt && e.code === 'state-future-version' && e.keptAt === undefined && /newer flower/.test(e.message);
  await assert.rejects(() => records.readLineage('/p'), isFuture);
  await assert.rejects(
    () =>
      records.updateLineage('/p', (d) => {
        d.woke = 9;
      }),
    isFuture,
  );
  assert.deepEqual(fs.readFileSync(file), bytes);
  assert.deepEqual(fs.readdirSync(layout.runDir).sort(), ['lineage.json'], 'nothing kept aside, no lock left behind');
});

for (const f of ['manifest-wrong-types.json', 'manifest-proto-key.json', 'manifest-truncated.json', 'manifest-not-an-array.json']) {
  test(`a damaged manifest (${f}) reads as no rows; the next write keeps it aside with a notice`, async () => {
    const { records, file, bytes } = runDirWith(`bad/${f}`, 'manifest');
    assert.deepEqual(await records.readRows(), []);
    assert.deepEqual(fs.readFileSync(file), bytes, 'reading moves nothing');
    assert.throws(() => readVersioned(file, { 0: manifestSchema }, { keep: false }), StateCorrupt);
    const notices: StateNotice[] = [];
    await records.upsertRows('r', [], { onNotice: (n) => notices.push(n) });
    assert.equal(notices.length, 1);
    assert.deepEqual(fs.readFileSync(notices[0]!.keptAt), bytes);
    assert.deepEqual(JSON.parse(fs.readFileSync(file, 'utf8')), []);
  });
}

test('a manifest from a newer flower is never overwritten', async () => {
  const { records, file, bytes } = runDirWith('bad/manifest-future-version.json', 'manifest');
  await assert.rejects(
    () => records.upsertRows('r', []),
    (e: unknown) => e instanceof StateCorrupt && e.code === 'state-future-version',
  );
  assert.deepEqual(fs.readFileSync(file), bytes);
});
