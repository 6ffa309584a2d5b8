import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Runtime } from '../../src/runtime/index.js';

const SIGNALS = ['exit', 'beforeExit', 'SIGINT', 'SIGTERM', 'SIGHUP', 'uncaughtException', 'unhandledRejection', 'warning'] as const;
const listeners = () => Object.fromEntries(SIGNALS.map((s) => [s, process.listenerCount(s)]));
const resources = () => {
  const counts: Record<string, number> = {};
  for (const r of process.getActiveResourcesInfo()) counts[r] = (counts[r] ?? 0) + 1;
  return counts;
};
/** this process's own folders in the temp dir (flower names them with its pid), and everything in them (the scrub scripts) */
const ownTmp = () =>
  fs
    .readdirSync(os.tmpdir())
    .filter((n) => n.includes(`-${process.pid}-`))
    .flatMap((n) => [n, ...fs.readdirSync(path.join(os.tmpdir(), n), { recursive: true }).map((f) => path.join(n, String(f)))])
    .sort();

test('a Runtime leaves nothing behind when closed: 1,000 made and closed in one process add no listener, handle or temp folder', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-close-'));
  const env = { XDG_CONFIG_HOME: path.join(dir, 'cfg'), HOME: dir, PATH: process.env.PATH ?? '', ANTHROPIC_API_KEY: 'sk-test-close' };
  const make = () => new Runtime({ workspace: path.join(dir, 'ws'), runDir: path.join(dir, 'runs'), env, sandbox: false, onWarning: () => {} });
  try {
    // the first one may set up what a process keeps once (the private config dir, its 'exit' hook)
    make().close();
    const before = { listeners: listeners(), resources: resources(), tmp: ownTmp() };
    // no time asserted: ~7 s quiet, 40 s on a loaded 2-core box (Floor's lstat/realpath probes, SQLite opens)
    for (let i = 0; i < 1000; i++) make().close();
    assert.deepEqual(listeners(), before.listeners, 'process listeners');
    assert.deepEqual(resources(), before.resources, 'active handles and timers');
    assert.deepEqual(ownTmp(), before.tmp, 'temp folders');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a Runtime whose preparation fails part-way undoes what it made: 200 failed constructions leave nothing behind', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-close-'));
  const env = { XDG_CONFIG_HOME: path.join(dir, 'cfg'), HOME: dir, PATH: process.env.PATH ?? '', ANTHROPIC_API_KEY: 'sk-test-close' };
  // the store is chosen after the temp folder and the floor exist: a bad FLOWER_STORE fails there
  const bad = { ...env, FLOWER_STORE: 'ftp://nowhere/flower' };
  const make = () => new Runtime({ workspace: path.join(dir, 'ws'), runDir: path.join(dir, 'runs'), env: bad, sandbox: false, onWarning: () => {} });
  try {
    new Runtime({ workspace: path.join(dir, 'ws'), runDir: path.join(dir, 'runs'), env, sandbox: false, onWarning: () => {} }).close();
    const before = { listeners: listeners(), resources: resources(), tmp: ownTmp() };
    for (let i = 0; i < 200; i++) assert.throws(make, (e: Error) => /FLOWER_STORE|store/i.test(e.message));
    assert.deepEqual(listeners(), before.listeners, 'process listeners');
    assert.deepEqual(resources(), before.resources, 'active handles and timers');
    assert.deepEqual(ownTmp(), before.tmp, 'temp folders');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
