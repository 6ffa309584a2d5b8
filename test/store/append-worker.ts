// Child process for concurrent.test.ts: appends to a shared store as fast as it can.
// argv: <dbPath | postgres://…> <workerId> <rounds> <startAtMs>. Starts at startAtMs (so both workers open the
// fresh file and write at the same time); prints one JSON line {added, t0, t1} on success.
import assert from 'node:assert/strict';
import type { SessionKey, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import { SqliteSessionStore } from '../../src/store/index.js';
import { PostgresSessionStore } from '../../src/store/postgres/index.js';

const [dbPath, id, roundsArg, startAt] = process.argv.slice(2);
if (!dbPath || !id || !roundsArg || !startAt) throw new Error('usage: append-worker.ts <dbPath> <workerId> <rounds> <startAtMs>');
const rounds = Number(roundsArg);
await new Promise((r) => setTimeout(r, Math.max(0, Math.min(10_000, Number(startAt) - Date.now()))));
const t0 = Date.now();
const pg = dbPath.startsWith('postgres://') ? await new PostgresSessionStore(dbPath).open() : undefined;
const sqlite = pg ? undefined : new SqliteSessionStore(dbPath);
const store = (pg ?? sqlite)!;
const appendCount = async (k: SessionKey, es: SessionStoreEntry[]): Promise<number> => (pg ? pg.appendNow(k, es) : sqlite!.appendSync(k, es));
const key = { projectKey: '-ws', sessionId: 'shared' };
let added = 0;
for (let i = 0; i < rounds; i++) {
  added += await appendCount(key, [
    { type: 'user', uuid: `w${id}-${i}-a`, worker: id },
    { type: 'attachment', uuid: `w${id}-${i}-b`, worker: id },
    // both workers append this one: exactly one copy must survive
    { type: 'assistant', uuid: `both-${i}`, worker: id },
    { type: 'mode', worker: id, i },
  ]);
  if (i % 10 === 0) added += await appendCount({ ...key, subpath: `subagents/agent-${id}` }, [{ type: 'user', uuid: `sub-${i}` }]);
  await store.append({ projectKey: '-ws', sessionId: `own-${id}` }, [{ type: 'user', uuid: `own-${i}` }]);
  added += 1;
}
if (pg) assert.equal(await pg.end(), 0);
else store.close();
process.stdout.write(`${JSON.stringify({ added, t0, t1: Date.now() })}\n`);
