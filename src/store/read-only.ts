/**
 * Reading a sessions.db that someone else writes (the ui, src/ui/sqlite.ts): the reader opens the file
 * read-only and never migrates it, so before it runs a query it asks here whether this flower knows the
 * file's schema. The version is the store's own SCHEMA_VERSION (src/store/sqlite.ts), the one place that
 * knows the schema.
 */
import type Database from 'better-sqlite3';
import { SCHEMA_VERSION } from './sqlite.js';

/**
 * Why `db` cannot be read by this flower, or null when it can. A file from a newer flower is refused
 * (its tables may mean something else); version 0 is an older, unversioned flower's file, read as it is
 * (the store adopts it when it next opens it for writing).
 * @example readOnlySchemaProblem(new Database(file, { readonly: true })) // null, or 'has schema version 2, …'
 */
export function readOnlySchemaProblem(db: Database.Database): string | null {
  const v = db.pragma('user_version', { simple: true });
  if (typeof v !== 'number' || v <= SCHEMA_VERSION) return null;
  return `has schema version ${v}, this flower understands up to ${SCHEMA_VERSION}; upgrade flower to read it`;
}
