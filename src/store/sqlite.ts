// SqliteSessionStore: the SDK's SessionStore on one SQLite file (`<runDir>/sessions.db`).
// Rows are append-only: later layers (trim/prune on resume) filter what `load()` returns in
// their own wrappers, so a later resume can apply a different policy to the same history.
import { chmodSync, closeSync, mkdirSync, openSync, statSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { foldSessionSummary } from '@anthropic-ai/claude-agent-sdk';
import type { SessionKey, SessionStore, SessionStoreEntry, SessionSummaryEntry } from '@anthropic-ai/claude-agent-sdk';
import { assertKeySegment, childRange, storeKeyOf } from './keys.js';
import { StoreError } from '../errors.js';
import { contextOfTail, parsed } from './usage.js';

/** Version of the on-disk contract, kept in `PRAGMA user_version`. Bump on any schema change. */
export const SCHEMA_VERSION = 1;
/** How long a writer waits for another process' transaction before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;
const WAL_AUTOCHECKPOINT_PAGES = 10000;
/** Below this much free space a run would fail mid-step: refuse before the first model call. */
export const MIN_FREE_BYTES = 16 * 1024 * 1024;
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
// A synchronous sleep for the constructor's retry loop (the constructor cannot await).
const SLEEPER = new Int32Array(new SharedArrayBuffer(4));

export type StoreOpenFailure = 'not-sqlite' | 'future-version' | 'foreign-schema' | 'cannot-open';

/** A failure of the SQLite session store (`<runDir>/sessions.db`). */
export class SqliteStoreError extends StoreError {}

/**
 * The db file at `path` cannot be used; the file is left untouched (kept where it is). A store failure
 * and also a damaged file flower reads: `StateCorrupt.is(e)` holds too (test/errors/errors.test.ts).
 */
export class StoreOpenError extends SqliteStoreError {
  override readonly path: string;
  /** where the original is: the file itself, untouched (as StateCorrupt's `keptAt`) */
  readonly keptAt: string;
  constructor(
    path: string,
    readonly reason: StoreOpenFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`store-${reason}`, message, { path, ...(options?.cause !== undefined ? { cause: options.cause } : {}) });
    this.path = path;
    this.keptAt = path;
    this.markStateCorrupt();
  }
}

const SCHEMA_SQL = `
CREATE TABLE IF NOT EXISTS entries(store_key TEXT, seq INTEGER, uid TEXT, payload TEXT, PRIMARY KEY(store_key, seq));
CREATE UNIQUE INDEX IF NOT EXISTS entries_uid ON entries(store_key, uid) WHERE uid IS NOT NULL;
CREATE TABLE IF NOT EXISTS meta(store_key TEXT PRIMARY KEY, mtime INTEGER, next_seq INTEGER);
CREATE TABLE IF NOT EXISTS summaries(project_key TEXT, session_id TEXT, mtime INTEGER, data TEXT, PRIMARY KEY(project_key, session_id));
`;
const EXPECTED_COLUMNS: Record<string, string[]> = {
  entries: ['store_key', 'seq', 'uid', 'payload'],
  meta: ['store_key', 'mtime', 'next_seq'],
  summaries: ['project_key', 'session_id', 'mtime', 'data'],
};

type MetaRow = { mtime: number; next_seq: number };
type SummaryRow = { session_id: string; mtime: number; data: string };

function sqliteCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}

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

  constructor(path: string) {
    this.path = path;
    if (path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      // it holds every tool output of every session: private (SQLite gives -wal/-shm the main file's mode)
      privateFile(path);
    }
    let db: Database.Database;
    try {
      db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
    } catch (e) {
      throw this.openError(e);
    }
    this.db = db;
    try {
      this.setUp(db);
      this.st = this.prepare();
    } catch (e) {
      db.close();
      throw e instanceof StoreOpenError ? e : this.openError(e);
    }
    this.appendTx = db.transaction(this.appendInTx.bind(this)).immediate;
    this.deleteTx = db.transaction(this.deleteInTx.bind(this)).immediate;
  }

  private setUp(db: Database.Database): void {
    // busy_timeout first: most lock waits then happen inside SQLite.
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    // Opening a WAL file while another process converts it to WAL or runs WAL recovery
    // fails with SQLITE_BUSY at once, without the busy handler (seen with two workers opening
    // a fresh sessions.db together), so the set-up is retried for as long as a write would wait.
    const deadline = Date.now() + BUSY_TIMEOUT_MS;
    for (let attempt = 1; ; attempt++) {
      try {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        // Random v4 uuids make every entry dirty its own page of the uid index, so the WAL
        // holds many versions of the same index pages; checkpointing every 1000 pages (the
        // default) re-copied and fsynced them far more often and cut append throughput by about
        // a third on 100k-entry sessions (bench/store.ts). journal_size_limit bounds the WAL
        // file left on disk after a checkpoint.
        db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
        db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
        this.migrate();
        return;
      } catch (e) {
        if (!sqliteCode(e)?.startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw e;
        Atomics.wait(SLEEPER, 0, 0, Math.min(10 * attempt, 100));
      }
    }
  }

  /**
   * Fail now — before any model call — when an append would fail later: a read-only file, a write
   * lock another process holds longer than the busy timeout, a full disk. One StoreError naming the
   * file and the reason (codes store-read-only, store-locked, store-disk-full, store-unwritable).
   * A write transaction is begun and rolled back: nothing is written.
   */
  checkWritable(o: { minFreeBytes?: number } = {}): void {
    if (this.path === ':memory:') return;
    const minFree = o.minFreeBytes ?? MIN_FREE_BYTES;
    let free: number | undefined;
    try {
      const st = statfsSync(dirname(this.path));
      free = Number(st.bavail) * Number(st.bsize);
    } catch {
      /* no statfs here: the write test below still catches SQLITE_FULL */
    }
    if (free !== undefined && free < minFree) {
      throw new SqliteStoreError(
        'store-disk-full',
        `session store ${this.path}: the disk is full (${Math.floor(free / 1024)} KiB free, flower needs ${Math.ceil(minFree / 1024)} KiB); free some space or choose another run dir with -r`,
        { path: this.path },
      );
    }
    // a file nobody may write (chmod a-w) is read-only by the person's decision — root included, whom
    // the kernel would let write it anyway
    let mode = 0o600;
    try {
      mode = statSync(this.path).mode;
    } catch {
      /* a fresh file: created writable */
    }
    if ((mode & 0o222) === 0) {
      throw new SqliteStoreError(
        'store-read-only',
        `session store ${this.path} is read-only (mode ${(mode & 0o777).toString(8)}); make it writable (chmod u+w) or choose another run dir with -r`,
        { path: this.path },
      );
    }
    try {
      this.db.prepare('BEGIN IMMEDIATE').run();
      this.db.prepare('ROLLBACK').run();
    } catch (e) {
      if (this.db.inTransaction)
        try {
          this.db.prepare('ROLLBACK').run();
        } catch {
          /* nothing begun */
        }
      const code = sqliteCode(e) ?? '';
      const ctx = { path: this.path, cause: e };
      if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') {
        throw new SqliteStoreError(
          'store-read-only',
          `session store ${this.path} is read-only (${code}); make it writable (chmod u+w) or choose another run dir with -r`,
          ctx,
        );
      }
      if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
        throw new SqliteStoreError(
          'store-locked',
          `session store ${this.path} is locked by another process for longer than ${BUSY_TIMEOUT_MS / 1000} s (${code}); wait for it or choose another run dir with -r`,
          ctx,
        );
      }
      if (code === 'SQLITE_FULL') {
        throw new SqliteStoreError(
          'store-disk-full',
          `session store ${this.path}: the disk is full (${code}); free some space or choose another run dir with -r`,
          ctx,
        );
      }
      throw new SqliteStoreError('store-unwritable', `session store ${this.path} cannot be written: ${e instanceof Error ? e.message : String(e)}`, ctx);
    }
  }

  private openError(e: unknown): StoreOpenError {
    const code = sqliteCode(e);
    if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
      return new StoreOpenError(
        this.path,
        'not-sqlite',
        `session store ${this.path} is not a SQLite database (${code}); move it aside or point flower at another run dir`,
        { cause: e },
      );
    }
    const msg = e instanceof Error ? e.message : String(e);
    return new StoreOpenError(this.path, 'cannot-open', `cannot open session store ${this.path}: ${msg}`, { cause: e });
  }

  private version(): number {
    return this.db.pragma('user_version', { simple: true }) as number;
  }

  private checkVersion(v: number): void {
    if (v > SCHEMA_VERSION) {
      throw new StoreOpenError(
        this.path,
        'future-version',
        `session store ${this.path} has schema version ${v}, this flower understands up to ${SCHEMA_VERSION}; upgrade flower to use it`,
      );
    }
  }

  private migrate(): void {
    const v = this.version();
    this.checkVersion(v);
    if (v === SCHEMA_VERSION) return;
    // Several processes may open a fresh file at once: re-check inside the write lock.
    this.db
      .transaction(() => {
        const now = this.version();
        this.checkVersion(now);
        if (now === SCHEMA_VERSION) return;
        // An older flower (Python) wrote the same tables without a version: adopt them. Any other
        // table of the same name belongs to someone else; refuse before touching the file.
        for (const [table, cols] of Object.entries(EXPECTED_COLUMNS)) {
          const have = (this.db.pragma(`table_info(${table})`) as Array<{ name: string }>).map((c) => c.name);
          if (have.length > 0 && have.join(',') !== cols.join(',')) {
            throw new StoreOpenError(
              this.path,
              'foreign-schema',
              `session store ${this.path} has a table ${table}(${have.join(', ')}) that is not flower's ${table}(${cols.join(', ')}); use another run dir`,
            );
          }
        }
        this.db.exec(SCHEMA_SQL);
        this.db.pragma(`user_version = ${SCHEMA_VERSION}`);
      })
      .immediate();
  }

  private prepare() {
    const db = this.db;
    return {
      getMeta: db.prepare<[string], MetaRow>('SELECT mtime, next_seq FROM meta WHERE store_key = ?'),
      putMeta: db.prepare<[string, number, number]>(
        'INSERT INTO meta(store_key, mtime, next_seq) VALUES(?, ?, ?) ' +
          'ON CONFLICT(store_key) DO UPDATE SET mtime = excluded.mtime, next_seq = excluded.next_seq',
      ),
      // Conflicts on the uid index are replays and are skipped; a (store_key, seq) conflict
      // would be a bug and must raise, so no blanket OR IGNORE.
      insert: db.prepare<[string, number, string | null, string]>(
        'INSERT INTO entries(store_key, seq, uid, payload) VALUES(?, ?, ?, ?) ' + 'ON CONFLICT(store_key, uid) WHERE uid IS NOT NULL DO NOTHING',
      ),
      load: db.prepare<[string], string>('SELECT payload FROM entries WHERE store_key = ? ORDER BY seq').pluck(),
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
      const next = foldSessionSummary(prev, key, added, { mtime });
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

  /** Synchronous append; returns how many entries were new. One IMMEDIATE transaction per call. */
  appendSync(key: SessionKey, entries: SessionStoreEntry[]): number {
    const sk = storeKeyOf(key);
    if (entries.length === 0) return 0;
    return this.appendTx(key, sk, entries);
  }

  /** append() that says how many entries were new (the same as PostgreSQL's, for `flower store copy`). */
  async appendNow(key: SessionKey, entries: SessionStoreEntry[]): Promise<number> {
    return this.appendSync(key, entries);
  }

  async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    this.appendSync(key, entries);
  }

  /** Entries in append order, or null for a key that was never written. */
  loadSync(key: SessionKey): SessionStoreEntry[] | null {
    // iterate + parse per row measured fastest (bench/store.ts): `.all()` keeps every payload
    // string alive until the end (GC pressure), and one JSON.parse over '[' + rows.join(',')
    // + ']' was ~1.8x slower still; it also risks V8's max string length on huge sessions.
    const out: SessionStoreEntry[] = [];
    for (const payload of this.st.load.iterate(storeKeyOf(key))) out.push(JSON.parse(payload) as SessionStoreEntry);
    return out.length === 0 ? null : out;
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

/**
 * Create `file` 0600 if absent, or narrow an existing one (and its -wal/-shm) to its owner's bits: the
 * group and others lose access, and nothing GAINS write — a file the person made read-only (chmod a-w)
 * must stay read-only, so the writability check can stop the run before any model call.
 */
function privateFile(file: string): void {
  try {
    closeSync(openSync(file, 'a', 0o600));
  } catch {
    return; /* unwritable: opening it reports that */
  }
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      chmodSync(f, statSync(f).mode & 0o700);
    } catch {
      /* absent */
    }
  }
}
