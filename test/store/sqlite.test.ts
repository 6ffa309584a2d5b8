// What only the SQLite file adds to the store contract (test/store/contract.test.ts runs the rest
// against SQLite and PostgreSQL): WAL mode, the on-disk schema, refusing files that are not ours.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import type { SessionKey, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import { SCHEMA_VERSION, SqliteSessionStore, StoreOpenError } from '../../src/store/index.js';

const root = mkdtempSync(join(tmpdir(), 'flower-store-test-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshPath = () => join(root, `d${n++}`, 'sessions.db');

const P = '-home-me-proj';
const main = (sessionId = 's1', projectKey = P): SessionKey => ({ projectKey, sessionId });
const u = (uuid: string, extra: Record<string, unknown> = {}): SessionStoreEntry => ({ type: 'user', uuid, ...extra });
const tags = (es: SessionStoreEntry[] | null) => es?.map((e) => e.uuid ?? `~${String(e.tag)}`) ?? null;

describe('opening the db file', () => {
  test('parent folders are created and the db is in WAL mode', async () => {
    const path = join(root, 'deep', 'er', 'runs', 'sessions.db');
    const s = new SqliteSessionStore(path);
    await s.append(main(), [u('a')]);
    const raw = new Database(path, { readonly: true });
    assert.equal(raw.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(raw.pragma('user_version', { simple: true }), SCHEMA_VERSION);
    const cols = (t: string) => (raw.pragma(`table_info(${t})`) as Array<{ name: string }>).map((c) => c.name);
    assert.deepEqual(
      [cols('entries'), cols('meta'), cols('summaries')],
      [
        ['store_key', 'seq', 'uid', 'payload'],
        ['store_key', 'mtime', 'next_seq'],
        ['project_key', 'session_id', 'mtime', 'data'],
      ],
    );
    const idx = raw.prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'entries' AND sql IS NOT NULL").pluck().all();
    assert.deepEqual(idx, ['CREATE UNIQUE INDEX entries_uid ON entries(store_key, uid) WHERE uid IS NOT NULL']);
    raw.close();
    s.close();
  });

  test('a file that is not SQLite is refused with the path named, and left untouched', () => {
    const path = freshPath();
    new SqliteSessionStore(path).close();
    const garbage = Buffer.from('this is not a database\n'.repeat(300));
    writeFileSync(path, garbage);
    rmSync(`${path}-wal`, { force: true });
    rmSync(`${path}-shm`, { force: true });
    assert.throws(
      () => new SqliteSessionStore(path),
      (e: unknown) => {
        assert.ok(e instanceof StoreOpenError);
        assert.equal(e.reason, 'not-sqlite');
        assert.equal(e.path, path);
        assert.ok(e.message.includes(path));
        return true;
      },
    );
    assert.deepEqual(readFileSync(path), garbage);
    assert.equal(existsSync(`${path}-wal`), false);
  });

  test('a db from a future schema version is refused', () => {
    const path = freshPath();
    new SqliteSessionStore(path).close();
    const raw = new Database(path);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    assert.throws(
      () => new SqliteSessionStore(path),
      (e: unknown) =>
        e instanceof StoreOpenError && e.reason === 'future-version' && e.message.includes(path) && e.message.includes(`version ${SCHEMA_VERSION + 1}`),
    );
  });

  test("a SQLite file with someone else's `entries` table is refused, not mixed into", () => {
    const path = freshPath();
    mkdirSync(dirname(path), { recursive: true });
    const raw = new Database(path);
    raw.exec('CREATE TABLE entries(id INTEGER PRIMARY KEY, body TEXT)');
    raw.close();
    assert.throws(
      () => new SqliteSessionStore(path),
      (e: unknown) => e instanceof StoreOpenError && e.reason === 'foreign-schema',
    );
    const after = new Database(path, { readonly: true });
    assert.equal(after.pragma('user_version', { simple: true }), 0);
    assert.deepEqual(after.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all(), ['entries']);
    after.close();
  });

  test('a db written by the Python flower (same tables, no version) is adopted', async () => {
    const path = freshPath();
    mkdirSync(dirname(path), { recursive: true });
    const raw = new Database(path);
    raw.exec(`CREATE TABLE entries(store_key TEXT, seq INTEGER, uid TEXT, payload TEXT, PRIMARY KEY(store_key, seq));
      CREATE TABLE meta(store_key TEXT PRIMARY KEY, mtime INTEGER, next_seq INTEGER);
      CREATE TABLE summaries(project_key TEXT, session_id TEXT, mtime INTEGER, data TEXT, PRIMARY KEY(project_key, session_id));
      INSERT INTO entries VALUES('${P}/s1', 0, 'a', '{"type":"user","uuid":"a"}');
      INSERT INTO meta VALUES('${P}/s1', 5, 1);`);
    raw.close();
    const s = new SqliteSessionStore(path);
    await s.append(main(), [u('a'), u('b')]);
    assert.deepEqual(tags(await s.load(main())), ['a', 'b']);
    assert.ok(await s.hasSession('s1'));
    s.close();
  });
});

describe('loading', () => {
  test('a long session comes back whole and in order, across the ranges a load reads', async () => {
    const s = new SqliteSessionStore(freshPath());
    const ids = Array.from({ length: 1300 }, (_, i) => `e${i}`);
    for (let i = 0; i < ids.length; i += 100)
      await s.append(
        main(),
        ids.slice(i, i + 100).map((id) => u(id)),
      );
    assert.deepEqual(tags(await s.load(main())), ids);
    assert.equal(await s.load(main('never')), null);
    s.close();
  });

  test('rows with gaps between their seqs (a file another writer made) are all loaded, in seq order', async () => {
    const path = freshPath();
    const s = new SqliteSessionStore(path);
    await s.append(main(), [u('first')]);
    s.close();
    const raw = new Database(path);
    const put = raw.prepare('INSERT INTO entries(store_key, seq, uid, payload) VALUES(?, ?, ?, ?)');
    for (const [seq, id] of [
      [7, 'b'],
      [100_000, 'c'],
      [3, 'a'],
      [5_000_000_000, 'd'],
    ] as const)
      put.run(`${P}/s1`, seq, id, JSON.stringify(u(id)));
    raw.close();
    const again = new SqliteSessionStore(path);
    assert.deepEqual(tags(await again.load(main())), ['first', 'a', 'b', 'c', 'd']);
    again.close();
  });
});
