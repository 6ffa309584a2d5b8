/**
 * The RunRecords contract — lineage, manifest rows, run lock — as ONE suite run against the files
 * in a run dir and against PostgreSQL. PostgreSQL adds: the project (not the path) is the identity,
 * and many writers at once never lose a row.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { FileRunRecords, RunLayout, StateCorrupt, type ManifestRow, type RunRecords } from '../../src/state/index.js';
import { PostgresRunRecords } from '../../src/store/postgres/index.js';
import { PG_SKIP, dropDatabases, freshDatabase } from '../helpers/pg.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-records-'));
after(async () => {
  fs.rmSync(root, { recursive: true, force: true });
  await dropDatabases();
});
let n = 0;

interface Backend {
  name: string;
  skip: false | string;
  /** fresh, empty records; `again()` opens the same place a second time (another process would) */
  fresh(): Promise<{ records: RunRecords; again(): RunRecords; close(): void }>;
}

const BACKENDS: Backend[] = [
  {
    name: 'files',
    skip: false,
    fresh: async () => {
      const layout = RunLayout.of({ workspace: path.join(root, `ws${n}`), runDir: path.join(root, `runs${n++}`) });
      return { records: new FileRunRecords(layout), again: () => new FileRunRecords(layout), close: () => {} };
    },
  },
  {
    name: 'PostgreSQL',
    skip: PG_SKIP,
    fresh: async () => {
      const url = await freshDatabase('rec');
      const opened: PostgresRunRecords[] = [];
      const make = () => {
        const r = new PostgresRunRecords(url, 'proj');
        opened.push(r);
        return r;
      };
      return {
        records: await make().open(),
        again: make,
        close: () => {
          for (const r of opened) r.close();
        },
      };
    },
  },
];

const WS = '/work/place';
const row = (step: string, extra: Partial<ManifestRow> = {}): ManifestRow => ({
  step,
  session_id: `sid-${step}`,
  ok: true,
  cost_usd: 0.01,
  num_turns: 1,
  text: '',
  error: null,
  started_at: '2026-12-01T07:00:00.000Z',
  ended_at: '2026-12-01T07:00:01.000Z',
  attempts: 1,
  errors: [],
  resumed: false,
  retired: [],
  context: 0,
  duration_s: 1,
  run: 'r',
  ...extra,
});

for (const be of BACKENDS) {
  describe(`run records contract on ${be.name}`, { skip: be.skip }, () => {
    test('no lineage yet reads as null; an update creates it and every reader sees it', async () => {
      const t = await be.fresh();
      assert.equal(await t.records.readLineage(WS), null);
      const d = await t.records.updateLineage(WS, (x) => {
        x.woke = 1;
        x.steps['干活'] = 's-1';
      });
      assert.deepEqual({ woke: d.woke, steps: d.steps }, { woke: 1, steps: { 干活: 's-1' } });
      const other = t.again();
      assert.deepEqual((await other.readLineage(WS))?.steps, { 干活: 's-1' });
      assert.equal((await other.readLineage(WS))?.woke, 1);
      t.close();
    });

    test("updates merge step by step: two writers keep each other's steps", async () => {
      const t = await be.fresh();
      const x = t.records;
      const y = t.again();
      await x.updateLineage(WS, (d) => {
        d.steps['确认需求'] = 'a';
      });
      await y.updateLineage(WS, (d) => {
        d.steps['干活'] = 'b';
        d.woke = Math.max(d.woke, 0) + 1;
      });
      await x.updateLineage(WS, (d) => {
        d.steps['设定目标'] = 'c';
      });
      const d = await y.readLineage(WS);
      assert.deepEqual(d?.steps, { 确认需求: 'a', 干活: 'b', 设定目标: 'c' });
      assert.equal(d?.woke, 1);
      t.close();
    });

    test("manifest: a run's rows are replaced as a whole, other runs' rows are kept", async () => {
      const t = await be.fresh();
      await t.records.upsertRows('r1', [row('确认需求', { run: 'r1' }), row('设定目标', { run: 'r1' })]);
      await t.again().upsertRows('r2', [row('ad-hoc', { run: 'r2', started_at: '2026-12-01T08:00:00.000Z' })]);
      await t.records.upsertRows('r1', [row('确认需求', { run: 'r1', ok: false, error: 'x' })]);
      // (the order across runs is the backend's: write order in the file, start time in PostgreSQL)
      const rows = (await t.again().readRows()).sort((p, q) => p.run.localeCompare(q.run));
      assert.deepEqual(
        rows.map((r) => [r.run, r.step, r.ok]),
        [
          ['r1', '确认需求', false],
          ['r2', 'ad-hoc', true],
        ],
      );
      assert.deepEqual(rows[0], row('确认需求', { run: 'r1', ok: false, error: 'x' }), 'a row comes back as written');
      t.close();
    });

    test('the run lock: one holder at a time, the second learns who holds it, and it is free again after release', async () => {
      const t = await be.fresh();
      const first = await t.records.acquireRunLock();
      assert.ok('release' in first);
      const second = await t.again().acquireRunLock();
      assert.ok('heldBy' in second);
      assert.equal(second.heldBy.pid, process.pid);
      assert.equal(second.heldBy.host, os.hostname());
      await first.release();
      const third = await t.again().acquireRunLock();
      assert.ok('release' in third);
      await third.release();
      t.close();
    });
  });
}

describe('PostgreSQL records beyond the files', { skip: PG_SKIP }, () => {
  test('the project is the identity: another workspace path continues the same lineage', async () => {
    const url = await freshDatabase('ident');
    const a = await new PostgresRunRecords(url, 'team-md').open();
    await a.updateLineage('/host-a/ws', (d) => {
      d.woke = 1;
      d.steps['干活'] = 's-a';
    });
    const b = await new PostgresRunRecords(url, 'team-md').open();
    const seen = await b.readLineage('/host-b/elsewhere');
    assert.deepEqual({ woke: seen?.woke, steps: seen?.steps, workspace: seen?.workspace }, { woke: 1, steps: { 干活: 's-a' }, workspace: '/host-b/elsewhere' });
    const other = await new PostgresRunRecords(url, '/host-b/elsewhere').open();
    assert.equal(await other.readLineage('/host-b/elsewhere'), null, 'an unnamed project (its path) starts fresh');
    for (const r of [a, b, other]) r.close();
  });

  test('forty concurrent writers on one project lose no lineage step and no manifest row', async () => {
    const url = await freshDatabase('many');
    const writers = Array.from({ length: 40 }, (_, i) => new PostgresRunRecords(`${url}?application_name=w${i % 4}`, 'p'));
    await Promise.all(
      writers.map((w, i) =>
        w.updateLineage(WS, (d) => {
          d.steps[`step-${i}`] = `sid-${i}`;
          d.woke = Math.max(d.woke, i);
        }),
      ),
    );
    await Promise.all(writers.map((w, i) => w.upsertRows(`run-${i}`, [row('ad-hoc', { run: `run-${i}` })])));
    const d = await writers[0]!.readLineage(WS);
    assert.equal(Object.keys(d!.steps).length, 40);
    assert.equal(d!.woke, 39);
    assert.equal((await writers[0]!.readRows()).length, 40);
    for (const w of writers) w.close();
  });

  test('a manifest row flower did not write is skipped by a run, and named by a read-only command (strict)', async () => {
    const url = await freshDatabase('bad');
    const r = await new PostgresRunRecords(url, 'p').open();
    await r.upsertRows('r1', [row('确认需求', { run: 'r1' })]);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    // one row that is not JSON, one that is JSON but not a row
    await c.query(
      `INSERT INTO flower.manifest(run, idx, project, step, started_at, row) VALUES ('r2', 0, 'p', 'x', '2026-12-01T09:00:00Z', '{"step":'), ('r2', 1, 'p', 'y', '2026-12-01T09:00:01Z', '{"step":"y"}')`,
    );
    await c.end();
    assert.deepEqual(
      (await r.readRows()).map((x) => x.step),
      ['确认需求'],
    );
    await assert.rejects(r.readRows({ strict: true }), (e: unknown) => {
      assert.ok(StateCorrupt.is(e));
      assert.equal((e as StateCorrupt).code, 'state-corrupt');
      assert.match((e as Error).message, /flower\.manifest row r2#0 .*not JSON/);
      return true;
    });
    r.close();
  });

  test('--new: the lineage goes to lineage.json in the archive folder and the project starts from zero', async () => {
    const url = await freshDatabase('arch');
    const r = await new PostgresRunRecords(url, 'p').open();
    await r.updateLineage(WS, (d) => {
      d.woke = 3;
      d.steps['干活'] = 's';
    });
    const into = path.join(root, 'archive-pg');
    const file = await r.archiveLineage(WS, into);
    assert.equal(file, path.join(into, 'lineage.json'));
    assert.deepEqual(JSON.parse(fs.readFileSync(file!, 'utf8')), { version: 1, workspace: WS, woke: 3, steps: { 干活: 's' }, project: 'p' });
    assert.equal(await r.readLineage(WS), null);
    assert.equal(await r.archiveLineage(WS, into), null);
    r.close();
  });
});
