// SqliteSessionStore: the SDK's SessionStore on one SQLite file (`<runDir>/sessions.db`).
// Rows are append-only: later layers (trim/prune on resume) filter what `load()` returns in
// their own wrappers, so a later resume can apply a different policy to the same history.
// Opening it (pragmas, schema, why it cannot be used) is sqlite-open.ts; the check that it can take an
// append, before any model call, is sqlite-writable.ts.
import type Database from 'better-sqlite3';
import type { SessionKey, SessionStore, SessionStoreEntry, SessionSummaryEntry } from '@anthropic-ai/claude-agent-sdk';
import { foldNow, loadFold } from './fold.js';
import { assertKeySegment, childRange, storeKeyOf } from './keys.js';
import { openDatabase, openError } from './sqlite-open.js';
import { checkWritable, MIN_FREE_BYTES } from './sqlite-writable.js';
import { contextOfTail, parsed } from './usage.js';

export { BUSY_TIMEOUT_MS, SCHEMA_VERSION, SqliteStoreError, StoreOpenError, type StoreOpenFailure } from './sqlite-open.js';
export { MIN_FREE_BYTES } from './sqlite-writable.js';

type MetaRow = { mtime: number; next_seq: number };

/**
 * An append's two statements (bench/store.ts times the same SQL bare). Conflicts on the uid index are
 * replays and are skipped; a (store_key, seq) conflict would be a bug and must raise, so no blanket OR IGNORE.
 */
export const INSERT_SQL = 'INSERT INTO entries(store_key, seq, uid, payload) VALUES(?, ?, ?, ?) ON CONFLICT(store_key, uid) WHERE uid IS NOT NULL DO NOTHING';
export const PUT_META_SQL =
  'INSERT INTO meta(store_key, mtime, next_seq) VALUES(?, ?, ?) ON CONFLICT(store_key) DO UPDATE SET mtime = excluded.mtime, next_seq = excluded.next_seq';

/** Rows per range a load reads (seqs are dense: append gives each new row the next one). */
const LOAD_CHUNK = 256;
type SummaryRow = { session_id: string; mtime: number; data: string };

export interface LastContextOptions {
  /** Limit the lookup to one project; default: whichever project wrote the session last. */
  projectKey?: string;
  /** How many of the newest entries to look through. */
  scan?: number;
}

export class SqliteSessionStore implements SessionStore {
  readonly path: string;
  private readonly db: Database.Database;
  private readonly st: ReturnType<SqliteSessionStore['prepare']>;
  private readonly appendTx: (key: SessionKey, sk: string, entries: SessionStoreEntry[]) => number;
  private readonly deleteTx: (sk: string, main: SessionKey | undefined) => void;
  private readonly loadTx: (sk: string) => SessionStoreEntry[] | null;

  constructor(path: string) {
    this.path = path;
    const db = openDatabase(path);
    this.db = db;
    try {
      this.st = this.prepare();
    } catch (e) {
      db.close();
      throw openError(path, e);
    }
    this.appendTx = db.transaction(this.appendInTx.bind(this)).immediate;
    this.deleteTx = db.transaction(this.deleteInTx.bind(this)).immediate;
    this.loadTx = db.transaction(this.loadInTx.bind(this)).deferred;
  }

  /**
   * Fail now — before any model call — when an append would fail later: a read-only file, a write
   * lock another process holds longer than the busy timeout, a full disk. One StoreError naming the
   * file and the reason (codes store-read-only, store-locked, store-disk-full, store-unwritable).
   * A write transaction is begun and rolled back: nothing is written.
   */
  checkWritable(o: { minFreeBytes?: number } = {}): void {
    checkWritable(this.db, this.path, o.minFreeBytes ?? MIN_FREE_BYTES);
  }

  private prepare() {
    const db = this.db;
    return {
      getMeta: db.prepare<[string], MetaRow>('SELECT mtime, next_seq FROM meta WHERE store_key = ?'),
      putMeta: db.prepare<[string, number, number]>(PUT_META_SQL),
      insert: db.prepare<[string, number, string | null, string]>(INSERT_SQL),
      // a load reads seq ranges of LOAD_CHUNK rows with .all(): one call into SQLite per range, and only a
      // range's payload strings alive at a time (bench/store.ts: ~10 % less than iterating row by row)
      load: db.prepare<[string, number, number], string>('SELECT payload FROM entries WHERE store_key = ? AND seq >= ? AND seq < ? ORDER BY seq').pluck(),
      seqRange: db.prepare<[string], { lo: number | null; hi: number | null }>('SELECT min(seq) AS lo, max(seq) AS hi FROM entries WHERE store_key = ?'),
      seqFrom: db.prepare<[string, number], number | null>('SELECT min(seq) FROM entries WHERE store_key = ? AND seq >= ?').pluck(),
      tail: db.prepare<[string, number], string>('SELECT payload FROM entries WHERE store_key = ? ORDER BY seq DESC LIMIT ?').pluck(),
      // walks the (store_key, seq) key backwards and stops at the first match: the cost-state is in
      // the session's last batch, so this reads a handful of rows, never the whole transcript
      lastCost: db
        .prepare<[string], number | null>(
          "SELECT json_extract(payload, '$.totalCostUSD') FROM entries WHERE store_key = ? AND json_extract(payload, '$.type') = 'cost-state' ORDER BY seq DESC LIMIT 1",
        )
        .pluck(),
      getSummary: db.prepare<[string, string], SummaryRow>('SELECT session_id, mtime, data FROM summaries WHERE project_key = ? AND session_id = ?'),
      putSummary: db.prepare<[string, string, number, string]>(
        'INSERT INTO summaries(project_key, session_id, mtime, data) VALUES(?, ?, ?, ?) ' +
          'ON CONFLICT(project_key, session_id) DO UPDATE SET mtime = excluded.mtime, data = excluded.data',
      ),
      summaries: db.prepare<[string], SummaryRow>('SELECT session_id, mtime, data FROM summaries WHERE project_key = ?'),
      metaRange: db.prepare<[string, string], { store_key: string; mtime: number }>(
        'SELECT store_key, mtime FROM meta WHERE store_key >= ? AND store_key < ? ORDER BY store_key',
      ),
      metaHas: db.prepare<[string], number>('SELECT 1 FROM meta WHERE store_key = ?').pluck(),
      metaEndingWith: db.prepare<[number, string], { store_key: string; mtime: number }>('SELECT store_key, mtime FROM meta WHERE substr(store_key, -?) = ?'),
      projects: db.prepare<[], string>("SELECT DISTINCT substr(store_key, 1, instr(store_key, '/') - 1) FROM meta ORDER BY 1").pluck(),
      delEntries: db.prepare<[string]>('DELETE FROM entries WHERE store_key = ?'),
      delEntriesRange: db.prepare<[string, string]>('DELETE FROM entries WHERE store_key >= ? AND store_key < ?'),
      delMeta: db.prepare<[string]>('DELETE FROM meta WHERE store_key = ?'),
      delMetaRange: db.prepare<[string, string]>('DELETE FROM meta WHERE store_key >= ? AND store_key < ?'),
      delSummary: db.prepare<[string, string]>('DELETE FROM summaries WHERE project_key = ? AND session_id = ?'),
    };
  }

  private appendInTx(key: SessionKey, sk: string, entries: SessionStoreEntry[]): number {
    const st = this.st;
    const meta = st.getMeta.get(sk);
    let seq = meta?.next_seq ?? 0;
    const added: SessionStoreEntry[] = [];
    for (const e of entries) {
      const uid = typeof e.uuid === 'string' ? e.uuid : null;
      // Duplicates inside one batch hit the index too: the first copy is already inserted.
      if (st.insert.run(sk, seq, uid, JSON.stringify(e)).changes === 1) {
        seq++;
        added.push(e);
      }
    }
    // A pure replay (SDK retry, importSessionToStore) must not look like new activity.
    if (added.length === 0) return 0;
    const mtime = Math.max(Date.now(), (meta?.mtime ?? 0) + 1);
    st.putMeta.run(sk, mtime, seq);
    if (key.subpath === undefined) {
      const row = st.getSummary.get(key.projectKey, key.sessionId);
      const prev: SessionSummaryEntry | undefined = row
        ? { sessionId: row.session_id, mtime: row.mtime, data: JSON.parse(row.data) as Record<string, unknown> }
        : undefined;
      const next = foldNow()(prev, key, added, { mtime });
      st.putSummary.run(key.projectKey, key.sessionId, mtime, JSON.stringify(next.data));
    }
    return added.length;
  }

  private deleteInTx(sk: string, main: SessionKey | undefined): void {
    const st = this.st;
    st.delEntries.run(sk);
    st.delMeta.run(sk);
    if (main === undefined) return;
    const [lo, hi] = childRange(sk);
    st.delEntriesRange.run(lo, hi);
    st.delMetaRange.run(lo, hi);
    st.delSummary.run(main.projectKey, main.sessionId);
  }

  /**
   * Synchronous append; returns how many entries were new. One IMMEDIATE transaction per call. Needs the
   * SDK's fold loaded (src/store/fold.ts): a store from src/store/index.ts has it, append() loads it.
   */
  appendSync(key: SessionKey, entries: SessionStoreEntry[]): number {
    const sk = storeKeyOf(key);
    if (entries.length === 0) return 0;
    return this.appendTx(key, sk, entries);
  }

  /** append() that says how many entries were new (the same as PostgreSQL's, for `flower store copy`). */
  async appendNow(key: SessionKey, entries: SessionStoreEntry[]): Promise<number> {
    await loadFold();
    return this.appendSync(key, entries);
  }

  async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    await loadFold();
    this.appendSync(key, entries);
  }

  /** Entries in append order, or null for a key that was never written. */
  loadSync(key: SessionKey): SessionStoreEntry[] | null {
    // JSON.parse per row (bench/store.ts): one `.all()` of the whole session keeps every payload string
    // alive until the end (GC pressure), and one JSON.parse over '[' + rows.join(',') + ']' was ~1.8x
    // slower still and risks V8's max string length on huge sessions.
    return this.loadTx(storeKeyOf(key));
  }

  /** The rows of `sk` in seq order, in one read transaction: the ranges see one snapshot of the file. */
  private loadInTx(sk: string): SessionStoreEntry[] | null {
    const st = this.st;
    const { lo, hi } = st.seqRange.get(sk)!;
    if (lo === null || hi === null) return null;
    const out: SessionStoreEntry[] = [];
    for (let from = lo; from <= hi; ) {
      const rows = st.load.all(sk, from, from + LOAD_CHUNK);
      for (const payload of rows) out.push(JSON.parse(payload) as SessionStoreEntry);
      from += LOAD_CHUNK;
      // a gap in the seqs (a file another writer made): go on at the next row there is
      if (rows.length === 0) from = st.seqFrom.get(sk, from) ?? hi + 1;
    }
    return out;
  }

  async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
    return this.loadSync(key);
  }

  private childKeys(prefix: string): Array<{ rest: string; mtime: number }> {
    const [lo, hi] = childRange(prefix);
    return this.st.metaRange.all(lo, hi).map((r) => ({ rest: r.store_key.slice(lo.length), mtime: r.mtime }));
  }

  async listSessions(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>> {
    assertKeySegment('projectKey', projectKey);
    return this.childKeys(projectKey)
      .filter((r) => !r.rest.includes('/'))
      .map((r) => ({ sessionId: r.rest, mtime: r.mtime }));
  }

  async listSessionSummaries(projectKey: string): Promise<SessionSummaryEntry[]> {
    return this.st.summaries.all(projectKey).map((r) => ({
      sessionId: r.session_id,
      mtime: r.mtime,
      data: JSON.parse(r.data) as Record<string, unknown>,
    }));
  }

  /** Deleting a main transcript also deletes its subkeys and summary; a subkey goes alone. */
  async delete(key: SessionKey): Promise<void> {
    const sk = storeKeyOf(key);
    this.deleteTx(sk, key.subpath === undefined ? key : undefined);
  }

  async listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    return this.childKeys(storeKeyOf(key)).map((r) => r.rest);
  }

  /** Main-transcript store keys holding `sessionId`, newest write first. Reads `meta` only. */
  private mainKeysOf(sessionId: string, projectKey?: string): string[] {
    if (projectKey !== undefined) {
      const sk = storeKeyOf({ projectKey, sessionId });
      return this.st.metaHas.get(sk) === undefined ? [] : [sk];
    }
    assertKeySegment('sessionId', sessionId);
    const tail = `/${sessionId}`;
    return (
      this.st.metaEndingWith
        .all(tail.length, tail)
        // Exactly one '/': a subkey ending in the same id is not a main transcript.
        .filter((r) => r.store_key.indexOf('/') === r.store_key.length - tail.length)
        .sort((a, b) => b.mtime - a.mtime)
        .map((r) => r.store_key)
    );
  }

  /** Whether a main transcript for `sessionId` exists (in `projectKey`, or in any project). */
  async hasSession(sessionId: string, projectKey?: string): Promise<boolean> {
    return this.mainKeysOf(sessionId, projectKey).length > 0;
  }

  /**
   * Context size of the session's last real main-thread model call: input + cache creation +
   * cache read tokens of the newest assistant entry within the last `scan` entries. Synthetic
   * (API error) and sidechain entries are skipped: their usage is zero or someone else's.
   * 0 when there is none.
   */
  async lastContext(sessionId: string, options: LastContextOptions = {}): Promise<number> {
    const scan = options.scan ?? 60;
    const sk = this.mainKeysOf(sessionId, options.projectKey)[0];
    if (sk === undefined || scan <= 0) return 0;
    return contextOfTail(parsed(this.st.tail.all(sk, scan)));
  }

  /**
   * The session's running cost as the CLI saved it (its last `cost-state` entry's totalCostUSD), 0 when
   * none: what a resumed attempt's `total_cost_usd` counts on from — without loading the transcript.
   */
  lastCost(sessionId: string, options: { projectKey?: string } = {}): number {
    const sk = this.mainKeysOf(sessionId, options.projectKey)[0];
    if (sk === undefined) return 0;
    const v = this.st.lastCost.get(sk);
    return typeof v === 'number' && Number.isFinite(v) ? v : 0;
  }

  /** Every projectKey with at least one stored transcript. */
  projects(): string[] {
    return this.st.projects.all();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}
