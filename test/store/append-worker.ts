// Child process for concurrent.test.ts: appends to a shared db as fast as it can.
// argv: <dbPath> <workerId> <rounds> <startAtMs>. Starts at startAtMs (so both workers open the
// fresh file and write at the same time); prints one JSON line {added, t0, t1} on success.
import { SqliteSessionStore } from '../../src/store/index.js';

const [dbPath, id, roundsArg, startAt] = process.argv.slice(2);
if (!dbPath || !id || !roundsArg || !startAt) throw new Error('usage: append-worker.ts <dbPath> <workerId> <rounds> <startAtMs>');
const rounds = Number(roundsArg);
await new Promise((r) => setTimeout(r, Math.max(0, Math.min(10_000, Number(startAt) - Date.now()))));
const t0 = Date.now();
const store = new SqliteSessionStore(dbPath);
const key = { projectKey: '-ws', sessionId: 'shared' };
let added = 0;
for (let i = 0; i < rounds; i++) {
  added += store.appendSync(key, [
    { type: 'user', uuid: `w${id}-${i}-a`, worker: id },
    { type: 'attachment', uuid: `w${id}-${i}-b`, worker: id },
    // both workers append this one: exactly one copy must survive
    { type: 'assistant', uuid: `both-${i}`, worker: id },
    { type: 'mode', worker: id, i },
  ]);
  if (i % 10 === 0) added += store.appendSync({ ...key, subpath: `subagents/agent-${id}` }, [{ type: 'user', uuid: `sub-${i}` }]);
  await store.append({ projectKey: '-ws', sessionId: `own-${id}` }, [{ type: 'user', uuid: `own-${i}` }]);
  added += 1;
}
store.close();
process.stdout.write(`${JSON.stringify({ added, t0, t1: Date.now() })}\n`);
