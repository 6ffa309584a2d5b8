/**
 * A store that fails during a run is never swallowed. Measured: when SessionStore.append throws, the
 * SDK retries it three times, drops the batch, emits system/mirror_error and the turn ends "success".
 * flower turns that into a failed step with a `store` failure, recorded in the manifest. A store that
 * throws inside the step's own loop (any backend: every store error is a StoreError) ends the same way.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startSim, type Sim } from '../../src/sim/index.js';
import { AgentSpec, Runtime } from '../../src/runtime/index.js';
import { SqliteSessionStore } from '../../src/store/index.js';
import { PgStoreError } from '../../src/store/postgres/index.js';
import { project, readJson, storeOver, testEnv } from '../helpers/e2e.js';

let sim: Sim;
before(async () => {
  sim = await startSim({ port: 0 });
});
after(async () => {
  await sim.close();
});

test('an append that fails mid-run fails the step with a store failure, never retried, and the manifest says so', async () => {
  const p = project('store-fail');
  const inner = new SqliteSessionStore(path.join(p.runs, 'other.db'));
  let appends = 0;
  const store = storeOver(inner, {
    append: async () => {
      appends++;
      throw new Error('SQLITE_FULL: database or disk is full');
    },
  });
  sim.reset();
  sim.enqueue({ type: 'text', text: 'an answer that never reaches the store' });
  const env = testEnv(p, sim.url);
  const rt = new Runtime({ workspace: p.ws, runDir: p.runs, env, store, onWarning: () => {} });
  try {
    const r = await rt.run(new AgentSpec({ name: 'a', instructions: '' }), 'hi');
    assert.ok(appends > 0, 'the SDK tried to append');
    assert.equal(r.ok, false);
    assert.equal(r.failure?.kind, 'store');
    assert.equal(r.failure?.retryable, false);
    assert.match(r.error ?? '', /session store could not be written: SQLITE_FULL/);
    assert.equal(r.attempts, 1, 'a store failure is not retried');
    assert.equal(sim.messageRequests().length, 1);
    const row = readJson<Array<{ ok: boolean; failure?: { kind: string } }>>(path.join(p.runs, 'manifest.json'))[0]!;
    assert.equal(row.ok, false);
    assert.equal(row.failure?.kind, 'store');
  } finally {
    rt.close();
  }
  assert.ok(fs.existsSync(p.runs));
});

test('a PostgreSQL failure thrown inside the step (the retry asks the store for the session) ends the row with a store failure, not internal', async () => {
  const p = project('store-throw');
  const inner = new SqliteSessionStore(path.join(p.runs, 'other.db'));
  let asked = 0;
  const store = storeOver(inner, {
    // what PostgresSessionStore.hasSession throws when a grant was revoked mid-run (src/store/postgres/errors.ts)
    hasSession: async () => {
      asked++;
      throw new PgStoreError(
        'permission',
        'user "flower" has no permission for flower\'s tables in 127.0.0.1:5432/flower (permission denied for table transcripts)',
        { host: '127.0.0.1', port: 5432, database: 'flower', user: 'flower' },
      );
    },
  });
  sim.reset();
  // a retryable API failure: the loop then asks the store whether the session can be resumed
  sim.enqueue({ type: 'error', status: 500 }, { type: 'text', text: 'never reached' });
  const env = testEnv(p, sim.url);
  const rt = new Runtime({
    workspace: p.ws,
    runDir: p.runs,
    env,
    store,
    onWarning: () => {},
    resilience: { baseDelay: 0.05, maxDelay: 0.1, probeInterval: 0.1, probeTimeout: 1 },
  });
  try {
    const r = await rt.run(new AgentSpec({ name: 'a', instructions: '' }), 'hi');
    assert.equal(asked, 1, 'the store was asked once, after the failed attempt');
    assert.equal(r.ok, false);
    assert.equal(r.failure?.kind, 'store');
    assert.match(r.error ?? '', /no permission for flower's tables/);
    assert.equal(sim.messageRequests().length, 1, 'no second attempt after the store failed');
    const row = readJson<Array<{ ok: boolean; failure?: { kind: string } }>>(path.join(p.runs, 'manifest.json'))[0]!;
    assert.equal(row.ok, false);
    assert.equal(row.failure?.kind, 'store');
  } finally {
    rt.close();
  }
});
