/**
 * A store that cannot be written stops the run before any model call, with one line naming the file
 * and the reason — read-only, locked longer than the busy timeout, not SQLite, disk full.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { startSim, type Sim } from '../../src/sim/index.js';
import { SqliteSessionStore } from '../../src/store/index.js';
import { StoreError } from '../../src/errors.js';
import { cli, project, testEnv, type Project } from '../helpers/e2e.js';

let sim: Sim;
before(async () => {
  sim = await startSim({ port: 0 });
});
after(async () => {
  await sim.close();
});

const once = (p: Project) => cli(['once', 'hi', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url) });
const go = (p: Project) => cli(['write a script', '--timeout', '0', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url) });

async function withDb(p: Project): Promise<string> {
  sim.reset();
  sim.enqueue({ type: 'text', text: 'first' });
  assert.equal((await once(p)).code, 0);
  return path.join(p.runs, 'sessions.db');
}

test('a read-only sessions.db (chmod a-w, as root too): once and the flow exit 1 naming the file and "read-only", no model call', async () => {
  const p = project('store-ro');
  const db = await withDb(p);
  fs.chmodSync(db, 0o444);
  for (const f of ['-wal', '-shm']) if (fs.existsSync(db + f)) fs.chmodSync(db + f, 0o444);
  sim.reset();
  for (const run of [once, go]) {
    const r = await run(p);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.ok(r.stderr.includes(db), r.stderr);
    assert.match(r.stderr, /read-only/);
    assert.equal(
      r.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('x ')).length,
      1,
      'one line',
    );
  }
  assert.equal(sim.messageRequests().length, 0, 'no model call');
});

test('a sessions.db whose write lock another process holds: exit 1 within seconds naming the file and "locked", no model call', async () => {
  const p = project('store-locked');
  const db = await withDb(p);
  const holder = new Database(db);
  holder.prepare('BEGIN IMMEDIATE').run();
  try {
    sim.reset();
    const r = await once(p);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.ok(r.stderr.includes(db), r.stderr);
    assert.match(r.stderr, /locked by another process for longer than 5 s/);
    assert.equal(sim.messageRequests().length, 0, 'no model call');
  } finally {
    holder.prepare('ROLLBACK').run();
    holder.close();
  }
});

test('a sessions.db that is not SQLite: exit 1 naming the file, no model call, the file untouched', async () => {
  const p = project('store-notdb');
  fs.mkdirSync(p.runs, { recursive: true });
  const db = path.join(p.runs, 'sessions.db');
  fs.writeFileSync(db, 'my notes, not a database\n'.repeat(200));
  sim.reset();
  const r = await once(p);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.ok(r.stderr.includes(db), r.stderr);
  assert.match(r.stderr, /not a SQLite database/);
  assert.equal(sim.messageRequests().length, 0);
  assert.equal(fs.readFileSync(db, 'utf8'), 'my notes, not a database\n'.repeat(200));
});

test('checkWritable: a disk with less free space than needed is a store-disk-full StoreError naming the file', () => {
  const p = project('store-full');
  const s = new SqliteSessionStore(path.join(p.runs, 'sessions.db'));
  try {
    s.checkWritable();
    assert.throws(
      () => s.checkWritable({ minFreeBytes: Number.MAX_SAFE_INTEGER }),
      (e: unknown) => StoreError.is(e) && e.code === 'store-disk-full' && e.message.includes(path.join(p.runs, 'sessions.db')),
    );
  } finally {
    s.close();
  }
});
