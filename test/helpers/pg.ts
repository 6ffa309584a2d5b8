/**
 * The PostgreSQL half of the suite: a real server, never a fake. `FLOWER_TEST_PG_URL` names a
 * throwaway cluster (started by scripts/test.mjs or .ci/run through scripts/pg-cluster.mjs) whose
 * user may create databases; every test gets a database of its own, dropped afterwards.
 * Without a server the PostgreSQL tests are skipped — loudly, with the reason.
 */
import crypto from 'node:crypto';
import pg from 'pg';

export const PG_URL = process.env.FLOWER_TEST_PG_URL || undefined;

/** false when the PostgreSQL half runs, else the reason it is skipped (node:test prints it). */
export const PG_SKIP: false | string = PG_URL
  ? false
  : 'SKIPPED PostgreSQL half: FLOWER_TEST_PG_URL is not set and no PostgreSQL server binaries were found (install `postgresql`, or run .ci/run)';
if (PG_SKIP) process.stderr.write(`\n!!! ${PG_SKIP}\n\n`);

/** The test cluster's URL with another database, user or password. */
export function pgUrlWith(o: { database?: string; user?: string; password?: string; port?: number }): string {
  const u = new URL(PG_URL!);
  if (o.database !== undefined) u.pathname = `/${o.database}`;
  if (o.user !== undefined) u.username = o.user;
  if (o.password !== undefined) u.password = o.password;
  if (o.port !== undefined) u.port = String(o.port);
  return u.toString();
}

/** Run SQL as the cluster's superuser, in `database` (default: the URL's). */
export async function adminSql(sql: string, params: unknown[] = [], database?: string): Promise<pg.QueryResult> {
  const c = new pg.Client({ connectionString: database ? pgUrlWith({ database }) : PG_URL! });
  await c.connect();
  try {
    return await c.query(sql, params);
  } finally {
    await c.end();
  }
}

const made: string[] = [];

/** A new empty database; returns its URL. Dropped by `dropDatabases()` (call it in `after`). */
export async function freshDatabase(tag = 't'): Promise<string> {
  const name = `flower_${tag}_${crypto.randomBytes(5).toString('hex')}`;
  await adminSql(`CREATE DATABASE ${name}`);
  made.push(name);
  return pgUrlWith({ database: name });
}

export async function dropDatabases(): Promise<void> {
  for (const name of made.splice(0)) {
    await adminSql(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  }
}
