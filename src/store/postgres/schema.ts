// flower's tables in PostgreSQL, all under the schema `flower`, created on first use and versioned by
// one row in flower.meta. The database itself must exist (flower never creates databases). A schema
// written by a newer flower is refused, never altered; tables of the same name that are not flower's
// are refused too.
import type pg from 'pg';
import { PgStoreError, asPgStoreError, targetText } from './errors.js';
import { withClient, type SharedPool } from './pool.js';

/**
 * Version of the PostgreSQL layout, in flower.meta('schema_version'). Bump on any change.
 * 1: transcripts, entries, summaries, lineage, wakes, runlock, manifest.
 * 2: + inbox (items posted from outside a run) and waiting (the questions a run is asking now).
 *    A version-1 database is upgraded in place: the new tables are created, nothing else changes.
 */
export const PG_SCHEMA_VERSION = 2;
export const PG_SCHEMA = 'flower';

// Every text column holds what flower was given, as is: session ids as plain text, payloads as the
// JSON text the SDK handed over (text, not jsonb: jsonb reorders keys and refuses \u0000).
const CREATE = `
CREATE TABLE IF NOT EXISTS flower.transcripts(
  id bigserial PRIMARY KEY,
  project_key text NOT NULL,
  session_id text NOT NULL,
  subpath text NOT NULL DEFAULT '',
  mtime bigint NOT NULL,
  next_seq bigint NOT NULL,
  UNIQUE(project_key, session_id, subpath));
CREATE INDEX IF NOT EXISTS transcripts_session ON flower.transcripts(session_id) WHERE subpath = '';
CREATE TABLE IF NOT EXISTS flower.entries(
  transcript bigint NOT NULL REFERENCES flower.transcripts(id) ON DELETE CASCADE,
  seq bigint NOT NULL,
  uid text,
  payload text NOT NULL,
  PRIMARY KEY(transcript, seq));
CREATE UNIQUE INDEX IF NOT EXISTS entries_uid ON flower.entries(transcript, uid) WHERE uid IS NOT NULL;
CREATE TABLE IF NOT EXISTS flower.summaries(
  project_key text NOT NULL,
  session_id text NOT NULL,
  mtime bigint NOT NULL,
  data text NOT NULL,
  PRIMARY KEY(project_key, session_id));
CREATE TABLE IF NOT EXISTS flower.lineage(
  project text NOT NULL,
  step text NOT NULL,
  session_id text NOT NULL,
  workspace text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY(project, step));
CREATE TABLE IF NOT EXISTS flower.wakes(
  project text PRIMARY KEY,
  woke integer NOT NULL CHECK (woke >= 0),
  workspace text NOT NULL,
  workbench text,
  updated_at timestamptz NOT NULL DEFAULT now());
CREATE TABLE IF NOT EXISTS flower.runlock(
  project text PRIMARY KEY,
  holder text NOT NULL);
CREATE TABLE IF NOT EXISTS flower.manifest(
  run text NOT NULL,
  idx integer NOT NULL,
  project text NOT NULL,
  step text NOT NULL,
  started_at text NOT NULL,
  row text NOT NULL,
  PRIMARY KEY(run, idx));
CREATE INDEX IF NOT EXISTS manifest_project ON flower.manifest(project, started_at);
CREATE TABLE IF NOT EXISTS flower.inbox(
  id bigserial PRIMARY KEY,
  project text NOT NULL,
  body text NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'claimed', 'done', 'kept')),
  posted_at timestamptz NOT NULL DEFAULT now(),
  claimed_by text,
  outcome text);
CREATE INDEX IF NOT EXISTS inbox_pending ON flower.inbox(project, id) WHERE state = 'pending';
CREATE TABLE IF NOT EXISTS flower.waiting(
  project text PRIMARY KEY,
  owner text NOT NULL,
  data text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now());
`;

/** Columns of flower's tables as this version creates them: anything else there is not ours. */
export const PG_TABLES: Record<string, string[]> = {
  meta: ['key', 'value'],
  transcripts: ['id', 'project_key', 'session_id', 'subpath', 'mtime', 'next_seq'],
  entries: ['transcript', 'seq', 'uid', 'payload'],
  summaries: ['project_key', 'session_id', 'mtime', 'data'],
  lineage: ['project', 'step', 'session_id', 'workspace', 'updated_at'],
  wakes: ['project', 'woke', 'workspace', 'workbench', 'updated_at'],
  runlock: ['project', 'holder'],
  manifest: ['run', 'idx', 'project', 'step', 'started_at', 'row'],
  inbox: ['id', 'project', 'body', 'state', 'posted_at', 'claimed_by', 'outcome'],
  waiting: ['project', 'owner', 'data', 'updated_at'],
};

async function versionOf(c: pg.PoolClient): Promise<number | null> {
  const r = await c.query<{ value: string }>(`SELECT value FROM flower.meta WHERE key = 'schema_version'`);
  return r.rows[0] ? Number(r.rows[0].value) : null;
}

function refuseFuture(p: SharedPool, v: number): void {
  if (v > PG_SCHEMA_VERSION) {
    throw new PgStoreError(
      'future-version',
      `the flower schema in ${targetText(p.target)} has version ${v}, this flower understands up to ${PG_SCHEMA_VERSION}; upgrade flower to use it`,
      p.target,
    );
  }
}

async function foreignTables(c: pg.PoolClient): Promise<string | null> {
  const r = await c.query<{ table_name: string; cols: string[] }>(
    `SELECT table_name, array_agg(column_name::text ORDER BY ordinal_position) AS cols
       FROM information_schema.columns WHERE table_schema = 'flower' GROUP BY table_name`,
  );
  for (const { table_name, cols } of r.rows) {
    const want = PG_TABLES[table_name];
    if (want && want.join(',') !== cols.join(',')) return `flower.${table_name}(${cols.join(', ')})`;
  }
  return null;
}

const UNDEFINED = new Set(['42P01', '3F000']); // undefined_table, invalid_schema_name

/**
 * Make sure flower's schema is there and current. Cheap when it is (one SELECT); otherwise creates it
 * under a transaction-scoped advisory lock, so many processes starting at once create it once.
 */
export async function ensureSchema(p: SharedPool): Promise<void> {
  p.ready ??= withClient(p, async (c) => {
    let v: number | null = null;
    try {
      v = await versionOf(c);
    } catch (e) {
      if (!UNDEFINED.has((e as { code?: string }).code ?? '')) throw e;
    }
    if (v !== null) refuseFuture(p, v);
    if (v === PG_SCHEMA_VERSION) return;
    await c.query('BEGIN');
    try {
      await c.query(`SELECT pg_advisory_xact_lock(hashtext('flower.schema'))`);
      await c.query('CREATE SCHEMA IF NOT EXISTS flower');
      await c.query('CREATE TABLE IF NOT EXISTS flower.meta(key text PRIMARY KEY, value text NOT NULL)');
      const now = await versionOf(c);
      if (now !== null) refuseFuture(p, now);
      if (now !== PG_SCHEMA_VERSION) {
        const foreign = await foreignTables(c);
        if (foreign) {
          throw new PgStoreError(
            'foreign-schema',
            `${targetText(p.target)} has a table ${foreign} that is not flower's; flower keeps its tables in the schema "flower" — use another database`,
            p.target,
          );
        }
        await c.query(CREATE);
        await c.query(
          `INSERT INTO flower.meta(key, value) VALUES('schema_version', $1)
          ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
          [String(PG_SCHEMA_VERSION)],
        );
      }
      await c.query('COMMIT');
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    }
  }).catch((e: unknown) => {
    // a failed check is not memoised: the server may come back, or a person may fix the grant
    p.ready = undefined;
    throw asPgStoreError(e, p.target);
  });
  return p.ready;
}
