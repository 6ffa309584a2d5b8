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

/**
 * A loopback TCP proxy to the test server that can drop the database mid-run: `cut()` ends every
 * open connection and refuses new ones (counting the attempts, so a test can wait for "flower is
 * retrying" without sleeping); `mend()` lets connections through again.
 */
export async function dropProxy(): Promise<{ url(database: string): string; cut(): void; mend(): void; refused(): number; close(): Promise<void> }> {
  const net = await import('node:net');
  const target = Number(new URL(PG_URL!).port);
  const open = new Set<import('node:net').Socket>();
  let cutOff = false;
  let refusals = 0;
  const server = net.createServer((client) => {
    client.on('error', () => {});
    if (cutOff) {
      refusals++;
      client.destroy();
      return;
    }
    const upstream = net.connect(target, '127.0.0.1');
    upstream.on('error', () => {});
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
    }
    client.pipe(upstream).pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as import('node:net').AddressInfo).port;
  return {
    url: (database) => pgUrlWith({ database, port }),
    cut: () => {
      cutOff = true;
      for (const s of open) s.destroy();
    },
    mend: () => {
      cutOff = false;
    },
    refused: () => refusals,
    close: () =>
      new Promise((r) => {
        for (const s of open) s.destroy();
        server.close(() => r());
      }),
  };
}
