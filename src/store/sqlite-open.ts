// Opening sessions.db: the file made private, the pragmas set (retried while another process converts the
// file to WAL), the schema created or adopted, and every reason it cannot be used as one StoreOpenError
// that leaves the file untouched.
import { chmodSync, closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { StoreError } from '../errors.js';

/** Version of the on-disk contract, kept in `PRAGMA user_version`. Bump on any schema change. */
export const SCHEMA_VERSION = 1;
/** How long a writer waits for another process' transaction before failing with SQLITE_BUSY. */
export const BUSY_TIMEOUT_MS = 5000;
const WAL_AUTOCHECKPOINT_PAGES = 40000;
const WAL_SIZE_LIMIT_BYTES = 64 * 1024 * 1024;
// the driver (CommonJS, a native addon: ~7 ms) loads with the first database opened, not with every
// command that might open one (`flower status` in a folder with no sessions.db opens none)
const requireCjs = createRequire(import.meta.url);
let driver: typeof Database | undefined;
const sqlite = (): typeof Database => (driver ??= requireCjs('better-sqlite3') as typeof Database);
const MMAP_BYTES = 1024 * 1024 * 1024;
// A synchronous sleep for the set-up's retry loop (the store's constructor cannot await).
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

/**
 * The database at `path`, set up and at SCHEMA_VERSION. Whatever fails, the file is left as it was and
 * the error is a StoreOpenError (the handle is closed first).
 */
export function openDatabase(path: string): Database.Database {
  if (path !== ':memory:') {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    // it holds every tool output of every session: private (SQLite gives -wal/-shm the main file's mode)
    privateFile(path);
  }
  let db: Database.Database;
  try {
    db = new (sqlite())(path, { timeout: BUSY_TIMEOUT_MS });
  } catch (e) {
    throw openError(path, e);
  }
  try {
    setUp(db, path);
  } catch (e) {
    db.close();
    throw e instanceof StoreOpenError ? e : openError(path, e);
  }
  return db;
}

/** What a failure to open or prepare says: not a database at all, or cannot be opened (and why). */
export function openError(path: string, e: unknown): StoreOpenError {
  const code = sqliteCode(e);
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT') {
    return new StoreOpenError(
      path,
      'not-sqlite',
      `session store ${path} is not a SQLite database (${code}); move it aside or point flower at another run dir`,
      { cause: e },
    );
  }
  const msg = e instanceof Error ? e.message : String(e);
  return new StoreOpenError(path, 'cannot-open', `cannot open session store ${path}: ${msg}`, { cause: e });
}

export function sqliteCode(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}

// ---- helpers ----

function setUp(db: Database.Database, path: string): void {
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
      // Random v4 uuids make every entry dirty its own page of the uid index, so a commit of 100
      // entries writes ~100 index pages to the WAL next to ~26 data pages, and the WAL holds many
      // versions of the same index pages. Each checkpoint re-copies the live ones and fsyncs twice:
      // every 1000 pages (the default) cut append throughput by about a third, every 10000 by ~15 %
      // against every 40000 (160 MB of WAL; bench/store.ts, 100k entries in batches of 100).
      // journal_size_limit bounds the WAL file left on disk after a checkpoint.
      db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
      db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
      // Reads of the main file through a memory map (the first GiB; address space, not memory): a resume's
      // load reads the whole transcript, and each page then costs no read() call and no copy (~15 % of a
      // load's SQLite time, bench/store.ts). Writes still go through the WAL with write(), so what a commit
      // makes durable is unchanged; an I/O error while reading a mapped page ends the process (SIGBUS)
      // instead of failing the read — loud either way.
      db.pragma(`mmap_size = ${MMAP_BYTES}`);
      migrate(db, path);
      return;
    } catch (e) {
      if (!sqliteCode(e)?.startsWith('SQLITE_BUSY') || Date.now() >= deadline) throw e;
      Atomics.wait(SLEEPER, 0, 0, Math.min(10 * attempt, 100));
    }
  }
}

function version(db: Database.Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

function checkVersion(path: string, v: number): void {
  if (v > SCHEMA_VERSION) {
    throw new StoreOpenError(
      path,
      'future-version',
      `session store ${path} has schema version ${v}, this flower understands up to ${SCHEMA_VERSION}; upgrade flower to use it`,
    );
  }
}

function migrate(db: Database.Database, path: string): void {
  const v = version(db);
  checkVersion(path, v);
  if (v === SCHEMA_VERSION) return;
  // Several processes may open a fresh file at once: re-check inside the write lock.
  db.transaction(() => {
    const now = version(db);
    checkVersion(path, now);
    if (now === SCHEMA_VERSION) return;
    // An older flower (Python) wrote the same tables without a version: adopt them. Any other
    // table of the same name belongs to someone else; refuse before touching the file.
    for (const [table, cols] of Object.entries(EXPECTED_COLUMNS)) {
      const have = (db.pragma(`table_info(${table})`) as Array<{ name: string }>).map((c) => c.name);
      if (have.length > 0 && have.join(',') !== cols.join(',')) {
        throw new StoreOpenError(
          path,
          'foreign-schema',
          `session store ${path} has a table ${table}(${have.join(', ')}) that is not flower's ${table}(${cols.join(', ')}); use another run dir`,
        );
      }
    }
    db.exec(SCHEMA_SQL);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
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
