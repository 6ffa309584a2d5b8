/**
 * What only the PostgreSQL store adds to the store contract (test/store/contract.test.ts runs the
 * rest on both backends): its own schema, versioned; one distinct line per connection failure; and
 * a server that drops mid-run loses nothing (entries wait in order and are written when it is back).
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import type { SessionKey, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import { PG_SCHEMA_VERSION, PgStoreError, PostgresSessionStore } from '../../src/store/postgres/index.js';
import { PG_SKIP, PG_URL, adminSql, dropDatabases, freshDatabase, pgUrlWith } from '../helpers/pg.js';

after(() => dropDatabases());

const key: SessionKey = { projectKey: '-ws', sessionId: '6f1c2a9e-0000-4000-8000-000000000001' };
const u = (uuid: string): SessionStoreEntry => ({ type: 'user', uuid, message: { role: 'user', content: uuid } });
const dbOf = (url: string) => new URL(url).pathname.slice(1);

async function refusal(url: string): Promise<PgStoreError> {
  const s = new PostgresSessionStore(url);
  try {
    await s.open();
  } catch (e) {
    assert.ok(e instanceof PgStoreError, `expected a PgStoreError, got ${String(e)}`);
    assert.ok(!e.message.includes('\n'), `one line: ${e.message}`);
    return e;
  } finally {
    s.close();
  }
  assert.fail(`${url} was accepted`);
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

describe('PostgreSQL store', { skip: PG_SKIP }, () => {
  test('flower creates its tables under the schema "flower", versioned, with session ids as plain text', async () => {
    const url = await freshDatabase('schema');
    const s = await new PostgresSessionStore(url).open();
    await s.append(key, [u('a')]);
    await s.append({ ...key, subpath: 'subagents/agent-x' }, [u('b')]);
    s.close();
    const db = dbOf(url);
    const tables = (await adminSql(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'flower' ORDER BY 1`, [], db)).rows.map(
      (r) => r.table_name,
    );
    assert.deepEqual(tables, ['entries', 'inbox', 'lineage', 'manifest', 'meta', 'runlock', 'summaries', 'transcripts', 'waiting', 'wakes']);
    const other = await adminSql(`SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`, [], db);
    assert.equal(other.rows[0].n, 0, 'nothing in public');
    assert.deepEqual((await adminSql(`SELECT value FROM flower.meta WHERE key = 'schema_version'`, [], db)).rows, [{ value: String(PG_SCHEMA_VERSION) }]);
    const ids = await adminSql(`SELECT session_id, pg_typeof(session_id)::text AS t, subpath FROM flower.transcripts ORDER BY subpath`, [], db);
    assert.deepEqual(ids.rows, [
      { session_id: key.sessionId, t: 'text', subpath: '' },
      { session_id: key.sessionId, t: 'text', subpath: 'subagents/agent-x' },
    ]);
    const payload = await adminSql(`SELECT payload FROM flower.entries ORDER BY transcript, seq LIMIT 1`, [], db);
    assert.deepEqual(JSON.parse(payload.rows[0].payload), u('a'));
  });

  test('many processes opening a fresh database at once create the schema once', async () => {
    const url = await freshDatabase('race');
    const stores = Array.from({ length: 6 }, () => new PostgresSessionStore(`${url}?application_name=s`));
    // distinct URLs are distinct pools: six connections race for the schema
    const distinct = stores.map((_, i) => new PostgresSessionStore(`${url}?application_name=r${i}`));
    await Promise.all(distinct.map((s) => s.open()));
    await Promise.all(distinct.map((s, i) => s.append({ ...key, sessionId: `s${i}` }, [u(`e${i}`)])));
    assert.deepEqual(
      (await distinct[0]!.listSessions('-ws')).map((x) => x.sessionId),
      ['s0', 's1', 's2', 's3', 's4', 's5'],
    );
    for (const s of [...stores, ...distinct]) s.close();
  });

  test('a schema from a future flower is refused, not altered', async () => {
    const url = await freshDatabase('future');
    const s = await new PostgresSessionStore(url).open();
    s.close();
    await adminSql(`UPDATE flower.meta SET value = $1 WHERE key = 'schema_version'`, [String(PG_SCHEMA_VERSION + 1)], dbOf(url));
    const e = await refusal(url);
    assert.equal(e.reason, 'future-version');
    assert.match(e.message, new RegExp(`version ${PG_SCHEMA_VERSION + 1}`));
    assert.deepEqual((await adminSql(`SELECT value FROM flower.meta`, [], dbOf(url))).rows, [{ value: String(PG_SCHEMA_VERSION + 1) }]);
  });

  test('tables in schema "flower" that are not flower\'s are refused, not mixed into', async () => {
    const url = await freshDatabase('foreign');
    await adminSql('CREATE SCHEMA flower; CREATE TABLE flower.entries(id int PRIMARY KEY, body text)', [], dbOf(url));
    const e = await refusal(url);
    assert.equal(e.reason, 'foreign-schema');
    assert.match(e.message, /flower\.entries\(id, body\)/);
    const left = await adminSql(`SELECT table_name FROM information_schema.tables WHERE table_schema = 'flower'`, [], dbOf(url));
    assert.deepEqual(
      left.rows.map((r) => r.table_name),
      ['entries'],
    );
  });

  describe('each connection failure has its own line', () => {
    test('nobody listening: "cannot reach" naming host:port', async () => {
      const port = await freePort();
      const e = await refusal(pgUrlWith({ port }));
      assert.equal(e.reason, 'unreachable');
      assert.ok(e.retryable);
      assert.match(e.message, new RegExp(`cannot reach PostgreSQL at 127\\.0\\.0\\.1:${port}`));
    });

    test('wrong password', async () => {
      const e = await refusal(pgUrlWith({ password: 'not-the-password' }));
      assert.equal(e.reason, 'auth');
      assert.ok(!e.retryable);
      assert.match(e.message, /refused user "flower": wrong password/);
      assert.ok(!e.message.includes('not-the-password'), 'the password is never printed');
    });

    test('a database that does not exist', async () => {
      const e = await refusal(pgUrlWith({ database: 'flower_nowhere' }));
      assert.equal(e.reason, 'no-database');
      assert.match(e.message, /database "flower_nowhere" does not exist on 127\.0\.0\.1:\d+; create it first/);
    });

    test("a user without the right to create flower's schema", async () => {
      const url = await freshDatabase('perm');
      await adminSql(
        `DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'flower_ro') THEN CREATE ROLE flower_ro LOGIN PASSWORD 'ro'; END IF; END $$`,
      );
      const e = await refusal(pgUrlWith({ database: dbOf(url), user: 'flower_ro', password: 'ro' }));
      assert.equal(e.reason, 'permission');
      assert.match(e.message, /user "flower_ro" has no permission/);
    });

    test('the four messages are distinct', async () => {
      const port = await freePort();
      const url = await freshDatabase('perm2');
      await adminSql(
        `DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'flower_ro') THEN CREATE ROLE flower_ro LOGIN PASSWORD 'ro'; END IF; END $$`,
      );
      const lines = await Promise.all([
        refusal(pgUrlWith({ port })),
        refusal(pgUrlWith({ password: 'x' })),
        refusal(pgUrlWith({ database: 'flower_nowhere' })),
        refusal(pgUrlWith({ database: dbOf(url), user: 'flower_ro', password: 'ro' })),
      ]);
      assert.deepEqual(
        lines.map((e) => e.reason),
        ['unreachable', 'auth', 'no-database', 'permission'],
      );
      assert.equal(new Set(lines.map((e) => e.message.split(' ').slice(0, 3).join(' '))).size, 4);
    });
  });

  test('a server that drops mid-run: appends wait in order, reads fail as unreachable, and everything lands when it is back', async () => {
    const url = await freshDatabase('drop');
    const pgPort = Number(new URL(PG_URL!).port);
    const proxy = tcpProxy(pgPort);
    const port = await proxy.up(0);
    const s = await new PostgresSessionStore(pgUrlWith({ database: dbOf(url), port }), { readWaitMs: 0 }).open();
    await s.append(key, [u('1'), u('2')]);
    await proxy.down();
    // the SDK's batcher would drop a batch after three failed tries: the store keeps it instead
    await s.append(key, [u('3')]);
    await s.append(key, [u('4'), u('2')]);
    await s.append({ ...key, subpath: 'subagents/agent-x' }, [u('s')]);
    assert.equal(s.buffered, 4);
    await assert.rejects(s.load(key), (e: unknown) => e instanceof PgStoreError && e.reason === 'unreachable' && e.message.includes(`127.0.0.1:${port}`));
    await assert.rejects(Promise.resolve(s.hasSession(key.sessionId)), (e: unknown) => e instanceof PgStoreError && e.retryable);
    await proxy.up(port);
    await s.drain();
    assert.equal(s.buffered, 0);
    assert.deepEqual(
      (await s.load(key))?.map((e) => e.uuid),
      ['1', '2', '3', '4'],
    );
    assert.deepEqual(
      (await s.load({ ...key, subpath: 'subagents/agent-x' }))?.map((e) => e.uuid),
      ['s'],
    );
    s.close();
    await proxy.down();
  });

  test('a read during an outage waits for the server and sees every buffered entry', async () => {
    const url = await freshDatabase('wait');
    const proxy = tcpProxy(Number(new URL(PG_URL!).port));
    const port = await proxy.up(0);
    const s = await new PostgresSessionStore(pgUrlWith({ database: dbOf(url), port })).open();
    await s.append(key, [u('1')]);
    await proxy.down();
    await s.append(key, [u('2')]);
    let settled = false;
    const loading = s.load(key).finally(() => {
      settled = true;
    });
    const checking = Promise.resolve(s.hasSession(key.sessionId));
    // the read is still waiting while the server is away (no timing: it can only finish after up())
    assert.equal(settled, false);
    await proxy.up(port);
    assert.deepEqual(
      (await loading)?.map((e) => e.uuid),
      ['1', '2'],
    );
    assert.equal(await checking, true);
    s.close();
    await proxy.down();
  });

  test('close() with entries buffered keeps trying, and they land when the server is back', async () => {
    const url = await freshDatabase('close');
    const proxy = tcpProxy(Number(new URL(PG_URL!).port));
    const port = await proxy.up(0);
    const s = await new PostgresSessionStore(pgUrlWith({ database: dbOf(url), port })).open();
    await proxy.down();
    await s.append(key, [u('x'), u('y')]);
    s.close();
    await proxy.up(port);
    const check = await new PostgresSessionStore(url).open();
    for (let i = 0; i < 600 && (await check.load(key))?.length !== 2; i++) await new Promise((r) => setTimeout(r, 100));
    assert.deepEqual(
      (await check.load(key))?.map((e) => e.uuid),
      ['x', 'y'],
    );
    check.close();
    await proxy.down();
  });

  test('end() writes what was buffered once the server is back', async () => {
    const url = await freshDatabase('end');
    const proxy = tcpProxy(Number(new URL(PG_URL!).port));
    const port = await proxy.up(0);
    const target = pgUrlWith({ database: dbOf(url), port });
    const s = await new PostgresSessionStore(target).open();
    await proxy.down();
    await s.append(key, [u('late')]);
    const ending = s.end(60_000);
    await proxy.up(port);
    assert.equal(await ending, 0, 'nothing left unwritten');
    const again = await new PostgresSessionStore(url).open();
    assert.deepEqual(
      (await again.load(key))?.map((e) => e.uuid),
      ['late'],
    );
    again.close();
    await proxy.down();
  });
});

/** A loopback TCP proxy to the test server that can be taken down (every connection cut) and up again. */
function tcpProxy(targetPort: number) {
  let server: net.Server | undefined;
  const sockets = new Set<net.Socket>();
  return {
    up(port: number): Promise<number> {
      server = net.createServer((client) => {
        const upstream = net.connect(targetPort, '127.0.0.1');
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on('close', () => sockets.delete(s));
          s.on('error', () => {});
        }
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
      return new Promise((resolve) => server!.listen(port, '127.0.0.1', () => resolve((server!.address() as net.AddressInfo).port)));
    },
    down(): Promise<void> {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => (server ? server.close(() => resolve()) : resolve()));
    },
  };
}
