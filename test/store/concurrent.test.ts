import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { SqliteSessionStore } from '../../src/store/index.js';
import { PostgresSessionStore } from '../../src/store/postgres/index.js';
import { PG_SKIP, adminSql, dropDatabases, freshDatabase } from '../helpers/pg.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'flower-store-conc-'));
after(async () => {
  rmSync(root, { recursive: true, force: true });
  await dropDatabases();
});

function worker(dbPath: string, id: string, rounds: number, startAt: number): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'append-worker.ts'), dbPath, id, String(rounds), String(startAt)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

interface Target {
  name: string;
  skip: false | string;
  /** a location nobody has written yet (the SQLite folder does not even exist) */
  fresh(): Promise<string>;
  open(where: string): Promise<SqliteSessionStore | PostgresSessionStore>;
  /** seq of every row of the shared key, in order; and the key's next_seq */
  seqs(where: string): Promise<{ seqs: number[]; next: number }>;
}

const TARGETS: Target[] = [
  {
    name: 'one fresh SQLite file',
    skip: false,
    fresh: async () => join(root, `runs-${Math.random().toString(36).slice(2)}`, 'sessions.db'),
    open: async (p) => new SqliteSessionStore(p),
    seqs: async (p) => {
      const raw = new Database(p, { readonly: true });
      const seqs = raw.prepare("SELECT seq FROM entries WHERE store_key = '-ws/shared' ORDER BY seq").pluck().all() as number[];
      const next = raw.prepare("SELECT next_seq FROM meta WHERE store_key = '-ws/shared'").pluck().get() as number;
      raw.close();
      return { seqs, next };
    },
  },
  {
    name: 'one fresh PostgreSQL database',
    skip: PG_SKIP,
    fresh: () => freshDatabase('conc'),
    open: (url) => new PostgresSessionStore(url).open(),
    seqs: async (url) => {
      const db = new URL(url).pathname.slice(1);
      const rows = await adminSql(
        `SELECT e.seq::int AS seq FROM flower.entries e JOIN flower.transcripts t ON t.id = e.transcript
        WHERE t.project_key = '-ws' AND t.session_id = 'shared' AND t.subpath = '' ORDER BY e.seq`,
        [],
        db,
      );
      const next = await adminSql(
        `SELECT next_seq::int AS n FROM flower.transcripts WHERE project_key = '-ws' AND session_id = 'shared' AND subpath = ''`,
        [],
        db,
      );
      return { seqs: rows.rows.map((r) => r.seq as number), next: next.rows[0].n as number };
    },
  },
];

for (const target of TARGETS)
  test(`two processes appending to ${target.name} lose nothing and never fail`, { timeout: 90_000, skip: target.skip }, async () => {
    const dbPath = await target.fresh();
    const rounds = 1000;
    const startAt = Date.now() + 2500; // after both have loaded tsx
    const results = await Promise.all([worker(dbPath, '1', rounds, startAt), worker(dbPath, '2', rounds, startAt)]);
    for (const r of results) assert.equal(r.code, 0, `worker failed: ${r.err}`);
    const reports = results.map((r) => JSON.parse(r.out) as { added: number; t0: number; t1: number });
    const added = reports.map((r) => r.added);
    assert.ok(Math.max(reports[0]!.t0, reports[1]!.t0) < Math.min(reports[0]!.t1, reports[1]!.t1), `the workers did not overlap: ${JSON.stringify(reports)}`);
    // per round each worker adds its 2 own uuids + the uuid-less one; the shared uuid once in total
    const mainRows = rounds * 2 * 3 + rounds;
    assert.equal(added[0]! + added[1]!, mainRows + 2 * (rounds / 10) + 2 * rounds);

    const store = await target.open(dbPath);
    const key = { projectKey: '-ws', sessionId: 'shared' };
    const entries = (await store.load(key))!;
    assert.equal(entries.length, mainRows);
    const uuids = entries.map((e) => e.uuid).filter((x): x is string => typeof x === 'string');
    assert.equal(new Set(uuids).size, uuids.length, 'no uuid stored twice');
    for (let i = 0; i < rounds; i++) assert.ok(uuids.includes(`both-${i}`), `both-${i} missing`);
    // each worker's own entries keep their order
    for (const w of ['1', '2']) {
      const mine = entries.filter((e) => e.worker === w && e.type === 'user').map((e) => e.uuid);
      assert.deepEqual(
        mine,
        Array.from({ length: rounds }, (_, i) => `w${w}-${i}-a`),
      );
    }
    assert.deepEqual((await store.listSubkeys(key)).sort(), ['subagents/agent-1', 'subagents/agent-2']);
    assert.deepEqual((await store.listSessions('-ws')).map((s) => s.sessionId).sort(), ['own-1', 'own-2', 'shared']);
    store.close();

    const { seqs, next } = await target.seqs(dbPath);
    assert.deepEqual(
      seqs,
      Array.from({ length: mainRows }, (_, i) => i),
      'seq is dense: no batch interleaved mid-way',
    );
    assert.equal(next, mainRows);
  });
