// One connection pool per process and URL, shared by every store and record set that names the same
// database (a Runtime, the lineage, the manifest, `flower status` all open it). Counted: the pool
// ends when the last user releases it. Idle connections never keep a finished CLI process alive.
import { createRequire } from 'node:module';
import type pg from 'pg';
import { PgStoreError, asPgStoreError, isConnectionLoss, type PgTarget } from './errors.js';

/** Seconds before a connection attempt to a silent host counts as unreachable. */
export const CONNECT_TIMEOUT_MS = 10_000;
const POOL_MAX = 6;

// the driver loads with the first pool, not with the module: `flower status` on files never pays for it
let driver: typeof pg | undefined;
const pgDriver = (): typeof pg => (driver ??= createRequire(import.meta.url)('pg') as typeof pg);

/** True for the URLs that name a PostgreSQL store (everything else is a folder). */
export function isPostgresUrl(s: string | undefined): s is string {
  return typeof s === 'string' && /^postgres(?:ql)?:\/\//i.test(s.trim());
}

/** host, port, database and user from a postgres:// URL (for messages; the driver parses it itself). */
export function targetOf(url: string): PgTarget {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new PgStoreError('bad-url', `FLOWER_STORE is not a valid URL (expected postgres://user:password@host:port/database)`, undefined);
  }
  if (!/^postgres(?:ql)?:$/i.test(u.protocol)) {
    throw new PgStoreError('bad-url', `FLOWER_STORE must start with postgres:// (got ${u.protocol}//)`, undefined);
  }
  const q = u.searchParams;
  const host = q.get('host') ?? (decodeURIComponent(u.hostname).replace(/^\[|\]$/g, '') || 'localhost');
  const database = decodeURIComponent(u.pathname.replace(/^\//, '')) || q.get('dbname') || decodeURIComponent(u.username) || 'postgres';
  if (database.includes('/')) throw new PgStoreError('bad-url', `FLOWER_STORE names the database "${database}"; use postgres://host:port/database`, undefined);
  return {
    host,
    port: Number(u.port || q.get('port') || 5432),
    database,
    user: decodeURIComponent(u.username) || process.env.PGUSER || process.env.USER || 'postgres',
  };
}

/** The URL with its password replaced, for logs and `describe()`. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparseable)';
  }
}

export interface SharedPool {
  readonly pool: pg.Pool;
  readonly target: PgTarget;
  readonly url: string;
  /** The schema check, memoised per pool once it succeeded (see schema.ts). */
  ready: Promise<void> | undefined;
  refs: number;
}

const pools = new Map<string, SharedPool>();

/** Take (or create) the process' pool for `url`. Pair with `releasePool`. */
export function acquirePool(url: string): SharedPool {
  const target = targetOf(url);
  let p = pools.get(url);
  if (!p) {
    const pool = new (pgDriver().Pool)({
      connectionString: url,
      max: POOL_MAX,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      idleTimeoutMillis: 10_000,
      allowExitOnIdle: true,
      application_name: 'flower',
    });
    // An idle connection dropped by the server (restart, failover) is reported here; without a
    // listener node would crash the process. The next query simply opens a new connection.
    pool.on('error', () => {});
    p = { pool, target, url, ready: undefined, refs: 0 };
    pools.set(url, p);
  }
  p.refs++;
  return p;
}

/** Give the pool back; the last user ends it. */
export async function releasePool(p: SharedPool): Promise<void> {
  p.refs = Math.max(0, p.refs - 1);
  if (p.refs > 0 || pools.get(p.url) !== p) return;
  pools.delete(p.url);
  await p.pool.end().catch(() => {});
}

/** Run `fn` on one connection of the pool; driver errors come back classified. */
export async function withClient<T>(p: SharedPool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  let client: pg.PoolClient;
  try {
    client = await p.pool.connect();
  } catch (e) {
    throw asPgStoreError(e, p.target);
  }
  // a checked-out connection that the server drops emits 'error' besides failing the query; without a
  // listener that event would crash the process
  const ignore = () => {};
  client.on('error', ignore);
  let broken: unknown;
  try {
    return await fn(client);
  } catch (e) {
    broken = e;
    throw asPgStoreError(e, p.target);
  } finally {
    // a connection that failed mid-transaction is not given back to the pool
    client.off('error', ignore);
    client.release(broken instanceof Error ? broken : undefined);
  }
}

/** One transaction: BEGIN, `fn`, COMMIT — or ROLLBACK on any failure. */
export function inTransaction<T>(p: SharedPool, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  return withClient(p, async (c) => {
    await c.query('BEGIN');
    try {
      const out = await fn(c);
      await c.query('COMMIT');
      return out;
    } catch (e) {
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    }
  });
}

/** Retry delays (ms) while the server is away: quick at first, then every few seconds. */
export const RETRY_MS = [100, 250, 500, 1000, 2000, 4000] as const;

/**
 * `fn`, again and again while the server is unreachable, for at most `waitMs` (then the
 * "unreachable" error goes to the caller). Any other failure goes to the caller at once.
 */
export async function retryOnLoss<T>(fn: () => Promise<T>, waitMs: number, gaveUp: () => boolean = () => false): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!isConnectionLoss(e) || Date.now() >= deadline || gaveUp()) throw e;
      const pause = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]!;
      await new Promise((r) => setTimeout(r, Math.min(pause, Math.max(0, deadline - Date.now()))));
    }
  }
}
