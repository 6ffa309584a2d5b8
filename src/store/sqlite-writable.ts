// Whether sessions.db can take an append, asked before the first model call: a run that fails mid-step
// on a full disk or a read-only file has spent money for nothing.
import { statSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { BUSY_TIMEOUT_MS, SqliteStoreError, sqliteCode } from './sqlite-open.js';

/** Below this much free space a run would fail mid-step: refuse before the first model call. */
export const MIN_FREE_BYTES = 16 * 1024 * 1024;

/**
 * Fail now — before any model call — when an append would fail later: a read-only file, a write
 * lock another process holds longer than the busy timeout, a full disk. One StoreError naming the
 * file and the reason (codes store-read-only, store-locked, store-disk-full, store-unwritable).
 * A write transaction is begun and rolled back: nothing is written.
 */
export function checkWritable(db: Database.Database, path: string, minFree: number): void {
  if (path === ':memory:') return;
  let free: number | undefined;
  try {
    const st = statfsSync(dirname(path));
    free = Number(st.bavail) * Number(st.bsize);
  } catch {
    /* no statfs here: the write test below still catches SQLITE_FULL */
  }
  if (free !== undefined && free < minFree) {
    throw new SqliteStoreError(
      'store-disk-full',
      `session store ${path}: the disk is full (${Math.floor(free / 1024)} KiB free, flower needs ${Math.ceil(minFree / 1024)} KiB); free some space or choose another run dir with -r`,
      { path },
    );
  }
  // a file nobody may write (chmod a-w) is read-only by the person's decision — root included, whom
  // the kernel would let write it anyway
  let mode = 0o600;
  try {
    mode = statSync(path).mode;
  } catch {
    /* a fresh file: created writable */
  }
  if ((mode & 0o222) === 0) {
    throw new SqliteStoreError(
      'store-read-only',
      `session store ${path} is read-only (mode ${(mode & 0o777).toString(8)}); make it writable (chmod u+w) or choose another run dir with -r`,
      { path },
    );
  }
  try {
    db.prepare('BEGIN IMMEDIATE').run();
    db.prepare('ROLLBACK').run();
  } catch (e) {
    if (db.inTransaction)
      try {
        db.prepare('ROLLBACK').run();
      } catch {
        /* nothing begun */
      }
    const code = sqliteCode(e) ?? '';
    const ctx = { path: path, cause: e };
    if (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') {
      throw new SqliteStoreError(
        'store-read-only',
        `session store ${path} is read-only (${code}); make it writable (chmod u+w) or choose another run dir with -r`,
        ctx,
      );
    }
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
      throw new SqliteStoreError(
        'store-locked',
        `session store ${path} is locked by another process for longer than ${BUSY_TIMEOUT_MS / 1000} s (${code}); wait for it or choose another run dir with -r`,
        ctx,
      );
    }
    if (code === 'SQLITE_FULL') {
      throw new SqliteStoreError(
        'store-disk-full',
        `session store ${path}: the disk is full (${code}); free some space or choose another run dir with -r`,
        ctx,
      );
    }
    throw new SqliteStoreError('store-unwritable', `session store ${path} cannot be written: ${e instanceof Error ? e.message : String(e)}`, ctx);
  }
}
