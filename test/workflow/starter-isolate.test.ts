/**
 * starterFlow({ isolate: true }) outside a git work tree is refused at once with the CLI's typed error
 * (ConfigError 'not-a-git-repo', guards/isolate requireGitRepo), before anything is written (issue 22).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '../../src/errors.js';
import { starterFlow } from '../../src/workflow/index.js';

const fresh = (tag: string): { ws: string; runDir: string; dir: string } => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `flower-${tag}-`));
  const ws = path.join(dir, 'ws');
  fs.mkdirSync(ws);
  return { dir, ws, runDir: path.join(dir, 'runs') };
};

test('isolate outside a git repository: ConfigError not-a-git-repo naming the folder, and nothing on disk', async () => {
  const p = fresh('iso-nogit');
  await assert.rejects(starterFlow('add a flag', { workspace: p.ws, runDir: p.runDir, isolate: true, lang: 'en', timeoutS: 0 }), (e: unknown) => {
    assert.ok(ConfigError.is(e), String(e));
    assert.equal(e.code, 'not-a-git-repo');
    assert.match(e.message, /not inside a git work tree/);
    assert.ok(e.message.includes(p.ws));
    return true;
  });
  assert.deepEqual(fs.readdirSync(p.dir), ['ws'], 'no run dir, no external workbench');
  assert.deepEqual(fs.readdirSync(p.ws), []);
});

test('isolate inside a git repository: the flow is built, its workers isolated', async () => {
  const p = fresh('iso-git');
  execFileSync('git', ['init', '-q'], { cwd: p.ws });
  const flow = await starterFlow('add a flag', { workspace: p.ws, runDir: p.runDir, isolate: true, lang: 'en', timeoutS: 0 });
  assert.deepEqual(
    flow.workflow.steps.map((s) => s.name),
    ['确认需求', '设定目标', '干活'],
  );
  assert.equal(flow.layout.root, path.join(p.dir, '.flower-ws'));
  (flow.channel as { close?: () => void }).close?.();
});
