/**
 * The database drops mid-run: flower waits for it like for a lost network and resumes the same
 * session; nothing is lost (entries written while it was away land in order, idempotent by uuid).
 * The real claude binary and flower's CLI, the sim, a real PostgreSQL behind a proxy that can cut it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startSim, type Sim } from '../../src/sim/index.js';
import { PostgresRunRecords, PostgresSessionStore } from '../../src/store/postgres/index.js';
import { project, startCli, testEnv, transcriptOf, until } from '../helpers/e2e.js';
import { PG_SKIP, dropDatabases, dropProxy, freshDatabase } from '../helpers/pg.js';

let sim: Sim;
before(async () => {
  sim = await startSim({ port: 0 });
});
after(async () => {
  await sim.close();
  await dropDatabases();
});

const fast = { FLOWER_BASE_DELAY: '0.05', FLOWER_MAX_DELAY: '0.2', FLOWER_PROBE_INTERVAL: '0.3', FLOWER_PROBE_TIMEOUT: '1', FLOWER_MAX_OFFLINE_WAIT: '120' };

describe('PostgreSQL dropping mid-run', { skip: PG_SKIP }, () => {
  test('the store goes away after a tool turn: flower waits for it, resumes the same session, and nothing is lost', { timeout: 300_000 }, async () => {
    const url = await freshDatabase('drop');
    const db = new URL(url).pathname.slice(1);
    const proxy = await dropProxy();
    const p = project('pg-drop');
    sim.reset();
    sim.enqueue(
      { type: 'tool_use', name: 'Bash', input: { command: 'echo first-turn-done', description: 'marker' } },
      // the second model call: the database goes away now, and this attempt fails (a 500)
      () => {
        proxy.cut();
        return { type: 'error', status: 500 };
      },
      { type: 'text', text: 'finished after the outage' },
    );
    const env = testEnv(p, sim.url, { ...fast, FLOWER_STORE: proxy.url(db), FLOWER_PROJECT: 'drop' });
    const { done } = startCli(['once', 'do the thing', '-t', 'Bash', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env });
    // flower keeps knocking while the store is away; then it comes back
    await until('flower retrying the store', () => proxy.refused() >= 3, 120_000);
    proxy.mend();
    const r = await done;
    await proxy.close();
    assert.equal(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stdout, /finished after the outage/);

    const records = await new PostgresRunRecords(url, 'drop').open();
    const [row, ...more] = await records.readRows();
    records.close();
    assert.equal(more.length, 0);
    assert.equal(row!.ok, true);
    assert.equal(row!.resumed, true);
    assert.ok(row!.attempts >= 2, `attempts ${row!.attempts}`);
    const calls = sim.messageRequests();
    const last = calls.at(-1)!;
    assert.equal(last.headers['x-claude-code-session-id'], row!.session_id, 'the same session resumed');
    const seen = transcriptOf(last.body).join('\n');
    assert.match(seen, /do the thing/);
    assert.match(seen, /first-turn-done/, 'the tool turn from before the drop is intact');

    const store = await new PostgresSessionStore(url).open();
    const entries = (await store.load({ projectKey: 'flower-drop', sessionId: row!.session_id! }))!;
    store.close();
    const uuids = entries.map((e) => e.uuid).filter((u): u is string => typeof u === 'string');
    assert.equal(new Set(uuids).size, uuids.length, 'no entry stored twice');
    const text = JSON.stringify(entries);
    assert.ok(text.includes('first-turn-done') && text.includes('finished after the outage'), 'both sides of the outage are stored');
  });
});
