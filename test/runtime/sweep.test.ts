/**
 * The private folders of flower processes that died (kill -9) are removed by the next process, off
 * the path to its first model request: privateConfigDir() returns before the sweep has touched them,
 * and the sweep then removes the dead ones and leaves the living ones.
 * (Its own file: the sweep runs once per process, at the first privateConfigDir().)
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { deadDirsSwept, privateConfigDir, removeConfigDir } from '../../src/runtime/options.js';

test("a dead process's private folders go after privateConfigDir() returns; a living one's stay", async () => {
  // a pid that is certainly gone: a child that ran and was waited for
  const gone = spawnSync(process.execPath, ['-e', '0']).pid;
  assert.ok(gone && gone !== process.pid);
  const made = (name: string): string => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), name));
    fs.mkdirSync(path.join(dir, 'projects', 'p'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'projects', 'p', 's.jsonl'), '{}\n');
    return dir;
  };
  const dead = ['claude', 'tmp', 'home'].map((k) => made(`flower-${k}-${gone}-`));
  // the test runner's parent is alive for the whole test
  const living = made(`flower-claude-${process.ppid}-`);
  try {
    const mine = privateConfigDir();
    assert.ok(fs.existsSync(mine));
    for (const d of dead) assert.ok(fs.existsSync(d), `${d} was removed before privateConfigDir() returned: the sweep is on the path again`);
    await deadDirsSwept();
    for (const d of dead) assert.equal(fs.existsSync(d), false, `${d} (pid ${gone}, dead) is still there`);
    assert.ok(fs.existsSync(living), 'a living process lost its private folder');
    assert.ok(fs.existsSync(mine), "the sweep removed this process's own folder");
  } finally {
    for (const d of [...dead, living]) fs.rmSync(d, { recursive: true, force: true });
    removeConfigDir();
  }
});
