/**
 * The run lock: one run per folder. Holder = pid + process start time + host, so a dead holder (kill -9)
 * or a recycled pid is taken over, and the refused process can say who holds the folder.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { acquireRunLock, processStartTime, runLockHolder, type LockHolder } from '../../src/state/index.js';

const lockIn = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'flower-lock-')), 'runs', 'run.lock');
const SRC = JSON.stringify(path.resolve('src/state/index.ts'));

/** A child that takes the lock (waiting when `wait`), prints its verdict as one JSON line, and holds it until stdin closes. */
function holder(file: string, wait = false): { child: ChildProcess; verdict: Promise<{ got: boolean; heldBy?: LockHolder }> } {
  const code = `
    import { acquireRunLock } from ${SRC};
    const r = await acquireRunLock(${JSON.stringify(file)}, { wait: ${wait ? 'true' : 'false'}, pollMs: 20 });
    if ('release' in r) {
      console.log(JSON.stringify({ got: true }));
      process.stdin.resume();
      process.stdin.on('end', async () => { await r.release(); process.exit(0); });
    } else {
      console.log(JSON.stringify({ got: false, heldBy: r.heldBy }));
    }
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  const verdict = new Promise<{ got: boolean; heldBy?: LockHolder }>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) resolve(JSON.parse(out.slice(0, nl)));
    });
    child.on('exit', (c) => {
      if (!out.includes('\n')) reject(new Error(`holder exited ${c} without a verdict`));
    });
  });
  return { child, verdict };
}
const exited = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));

test('a held lock is refused at once, naming the holder; after release it is free', async () => {
  const file = lockIn();
  const a = await acquireRunLock(file);
  assert.ok('release' in a);
  assert.equal(a.holder.pid, process.pid);
  assert.equal(a.holder.host, os.hostname());
  const b = await acquireRunLock(file);
  assert.ok('heldBy' in b);
  assert.deepEqual(b.heldBy, a.holder);
  assert.deepEqual(runLockHolder(file), a.holder);
  await a.release();
  await a.release(); // idempotent
  assert.equal(runLockHolder(file), null);
  const c = await acquireRunLock(file);
  assert.ok('release' in c);
  await c.release();
  assert.equal(fs.existsSync(file), false);
});

test('another process holding the lock is named; once it is killed -9 its stale lock is taken over', async () => {
  const file = lockIn();
  const h = holder(file);
  assert.deepEqual(await h.verdict, { got: true });
  const refused = await acquireRunLock(file);
  assert.ok('heldBy' in refused);
  assert.equal(refused.heldBy.pid, h.child.pid);
  assert.equal(refused.heldBy.startedAt, processStartTime(h.child.pid!));
  h.child.kill('SIGKILL');
  await exited(h.child);
  const mine = await acquireRunLock(file);
  assert.ok('release' in mine, "the dead holder's lock was taken over");
  await mine.release();
});

test('a recycled pid is not mistaken for the holder: same pid, other start time → stale', async () => {
  const file = lockIn();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // our own (alive) pid, but a start time that is not ours: the process that wrote it is gone
  fs.writeFileSync(file, JSON.stringify({ pid: process.pid, startedAt: '1', host: os.hostname(), since: '2020-01-01T00:00:00.000Z' }));
  const r = await acquireRunLock(file);
  assert.ok('release' in r);
  await r.release();
});

test('a lock of a process that no longer exists is taken over; a damaged lock file too, once it is not fresh', async () => {
  const file = lockIn();
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const gone = spawn(process.execPath, ['-e', '0']);
  await exited(gone);
  fs.writeFileSync(file, JSON.stringify({ pid: gone.pid, startedAt: null, host: os.hostname(), since: '' }));
  const r = await acquireRunLock(file);
  assert.ok('release' in r);
  await r.release();
  fs.writeFileSync(file, '{"pid": 12');
  const old = new Date(Date.now() - 60_000);
  fs.utimesSync(file, old, old);
  const r2 = await acquireRunLock(file);
  assert.ok('release' in r2);
  await r2.release();
});

test('wait: a second process waits and gets the lock when the first releases it', async () => {
  const file = lockIn();
  const first = holder(file);
  assert.deepEqual(await first.verdict, { got: true });
  const second = holder(file, true);
  // the waiter must not get it while the first holds it: it has printed nothing, the lock names the first
  assert.equal(runLockHolder(file)?.pid, first.child.pid);
  first.child.stdin!.end();
  await exited(first.child);
  assert.deepEqual(await second.verdict, { got: true });
  assert.equal(runLockHolder(file)?.pid, second.child.pid);
  second.child.stdin!.end();
  await exited(second.child);
  assert.equal(runLockHolder(file), null);
});

test('four processes racing for one folder: exactly one gets it, the others name it', async () => {
  const file = lockIn();
  const hs = [holder(file), holder(file), holder(file), holder(file)];
  const verdicts = await Promise.all(hs.map((h) => h.verdict));
  const winners = hs.filter((_h, i) => verdicts[i]!.got);
  assert.equal(winners.length, 1, JSON.stringify(verdicts));
  for (const v of verdicts.filter((x) => !x.got)) assert.equal(v.heldBy?.pid, winners[0]!.child.pid);
  for (const h of hs) h.child.stdin!.end();
  await Promise.all(hs.map((h) => exited(h.child)));
});
