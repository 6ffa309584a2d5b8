/**
 * The manifest's writes, on the files and on a real PostgreSQL: one at a time (two transactions in
 * flight may commit in either order, and the step-start row committed last undid the session id
 * written after it — issue 25), each `record` resolved by the write that carries its row, a failed write
 * rejecting only its own records, and nothing written once sealed. Then a step's row over its life
 * (src/runtime/rows.ts): named with its session id the moment it exists, rescued on a signal, and not
 * overwritten by the step's own end after the rescue.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { Manifest, type StepResult } from '../../src/runtime/index.js';
import { newResult } from '../../src/runtime/result.js';
import { StepRows } from '../../src/runtime/rows.js';
import { FileRunRecords, RunLayout, type ManifestRow, type RunRecords } from '../../src/state/index.js';
import { PostgresRunRecords } from '../../src/store/postgres/index.js';
import { PG_SKIP, dropDatabases, freshDatabase } from '../helpers/pg.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-manifest-'));
after(async () => {
  fs.rmSync(root, { recursive: true, force: true });
  await dropDatabases();
});
let n = 0;

interface Backend {
  name: string;
  skip: false | string;
  open(): Promise<{ records: RunRecords; close(): void }>;
}

const BACKENDS: Backend[] = [
  {
    name: 'files',
    skip: false,
    open: async () => ({
      records: new FileRunRecords(RunLayout.of({ workspace: path.join(root, `ws${n}`), runDir: path.join(root, `runs${n++}`) })),
      close: () => {},
    }),
  },
  {
    name: 'PostgreSQL',
    skip: PG_SKIP,
    open: async () => {
      const r = await new PostgresRunRecords(await freshDatabase('man'), 'proj').open();
      return { records: r, close: () => r.close() };
    },
  },
];

/**
 * The real records with their first `upsertRows` held until `release()` (every later one passes at
 * once): what a slow first transaction looks like. Counts the writes and how many ran at once.
 */
function holdFirst(real: RunRecords) {
  let release!: () => void;
  const gate = new Promise<void>((r) => {
    release = r;
  });
  const seen: Array<Array<string | null>> = [];
  let running = 0;
  let most = 0;
  const records = new Proxy(real, {
    get(t, key) {
      if (key === 'upsertRows') {
        return async (run: string, rows: readonly ManifestRow[], o?: Parameters<RunRecords['upsertRows']>[2]) => {
          const first = seen.length === 0;
          seen.push(rows.map((r) => r.session_id));
          running++;
          most = Math.max(most, running);
          try {
            if (first) await gate;
            await t.upsertRows(run, rows, o);
          } finally {
            running--;
          }
        };
      }
      const v = Reflect.get(t, key, t) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
    },
  });
  return { records, release, seen, most: () => most };
}

const step = (name: string, sid: string | null = null): StepResult => ({ ...newResult(name, false), session_id: sid });

for (const be of BACKENDS) {
  describe(`manifest writes on ${be.name}`, { skip: be.skip }, () => {
    test('a record made while a write runs waits for it: the rows last recorded are the rows kept', async () => {
      const o = await be.open();
      const h = holdFirst(o.records);
      const m = new Manifest(h.records, 'run-1');
      const start = m.record(step('干活'), 0);
      const named = m.record(step('干活', 'sid-1'), 0);
      const next = m.record(step('干活·判定#1', 'sid-2'), 1);
      h.release();
      await Promise.all([start, named, next]);
      const rows = await Manifest.read(o.records);
      assert.deepEqual(
        rows.map((r) => [r.step, r.session_id]),
        [
          ['干活', 'sid-1'],
          ['干活·判定#1', 'sid-2'],
        ],
      );
      assert.equal(h.most(), 1, 'never two writes at once');
      assert.deepEqual(h.seen, [[null], ['sid-1', 'sid-2']], 'the records made during the first write went out as one write, with the rows as they stood');
      o.close();
    });

    test('settled() resolves after the queued write; once sealed nothing more is written', async () => {
      const o = await be.open();
      const h = holdFirst(o.records);
      const m = new Manifest(h.records, 'run-2');
      void m.record(step('干活'), 0);
      void m.record(step('干活', 'sid-k'), 0);
      const done = m.settled();
      m.seal();
      await m.record(step('干活', 'after-seal'), 0);
      h.release();
      await done;
      assert.deepEqual(
        (await Manifest.read(o.records)).map((r) => r.session_id),
        ['sid-k'],
      );
      assert.equal(h.seen.length, 2);
      o.close();
    });

    test('a failed write rejects the records it carried; the next record writes again', async () => {
      const o = await be.open();
      let fail = true;
      const records = new Proxy(o.records, {
        get(t, key) {
          if (key === 'upsertRows' && fail) {
            return async () => {
              fail = false;
              throw new Error('disk full');
            };
          }
          const v = Reflect.get(t, key, t) as unknown;
          return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
        },
      });
      const m = new Manifest(records, 'run-3');
      await assert.rejects(m.record(step('干活'), 0), /disk full/);
      await m.record(step('干活', 'sid-3'), 0);
      assert.deepEqual(
        (await Manifest.read(o.records)).map((r) => r.session_id),
        ['sid-3'],
      );
      o.close();
    });
  });
}

describe("a step's row", () => {
  const files = () => {
    const layout = RunLayout.of({ workspace: path.join(root, `ws${n}`), runDir: path.join(root, `runs${n++}`) });
    return { records: new FileRunRecords(layout), file: layout.manifest };
  };
  const onDisk = (file: string) => JSON.parse(fs.readFileSync(file, 'utf8')) as ManifestRow[];

  test('the files backend has written a row when `record` returns, before it is awaited (what a signal handler relies on)', () => {
    const f = files();
    const m = new Manifest(f.records, 'run-s');
    void m.record(step('干活', 'sid-s'), 0);
    assert.deepEqual(
      onDisk(f.file).map((r) => r.session_id),
      ['sid-s'],
    );
  });

  test('named with its session id the moment the id exists; the listeners hear it once', async () => {
    const f = files();
    const m = new Manifest(f.records, 'run-a');
    const rows = new StepRows(m, () => {});
    const row = await rows.begin(step('干活'));
    assert.equal(onDisk(f.file)[0]!.session_id, null);
    const heard: string[] = [];
    const announce = rows.announcer(row, () => [(sid) => void heard.push(sid)]);
    await announce('sid-a');
    assert.equal(onDisk(f.file)[0]!.session_id, 'sid-a', 'on disk when the announcement resolves');
    await announce('sid-a');
    assert.deepEqual(heard, ['sid-a']);
    await announce('sid-b');
    assert.equal(onDisk(f.file)[0]!.session_id, 'sid-b', "a handoff's successor renames the row");
  });

  test("a signal's rescue writes the row as killed, with its id; the step's own end after it changes nothing", async () => {
    const f = files();
    const m = new Manifest(f.records, 'run-r');
    const rows = new StepRows(m, () => {});
    const row = await rows.begin(step('干活', 'sid-r'));
    rows.rescue('killed-by-signal');
    m.seal();
    assert.deepEqual(
      onDisk(f.file).map((r) => [r.session_id, r.ok, r.error, r.failure?.kind]),
      [['sid-r', false, 'killed-by-signal', 'killed']],
    );
    row.result.ok = true;
    row.result.error = null;
    await rows.end(row);
    await rows.settled(1000);
    assert.equal(onDisk(f.file)[0]!.error, 'killed-by-signal');
    assert.equal(rows.current, undefined);
  });
});
