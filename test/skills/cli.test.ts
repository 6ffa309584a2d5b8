import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { main } from '../../src/cli/program.js';

function io(cwd: string, env: Record<string, string> = {}) {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (c) => (stdout += c));
  err.on('data', (c) => (stderr += c));
  const home = path.join(cwd, 'home');
  return {
    io: { stdout: out, stderr: err, env: { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), FLOWER_LANG: 'en', ...env }, cwd },
    text: () => ({ stdout, stderr }),
  };
}

test('flower skills new NAME writes a template that is a valid skill, never over an existing one', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-skills-cli-'));
  const a = io(dir);
  assert.equal(await main(['skills', 'new', 'deploy-checklist'], a.io as never), 0);
  const file = path.join(dir, '.flower', 'skills', 'deploy-checklist', 'SKILL.md');
  assert.match(fs.readFileSync(file, 'utf8'), /^---\nname: deploy-checklist\ndescription: /);
  fs.appendFileSync(file, 'MINE\n');
  const b = io(dir);
  assert.equal(await main(['skills', 'new', 'deploy-checklist'], b.io as never), 1);
  assert.match(b.text().stderr, /already exists/);
  assert.match(fs.readFileSync(file, 'utf8'), /MINE/);
  const c = io(dir);
  assert.equal(await main(['skills', 'new', '../escape'], c.io as never), 2);
  assert.ok(!fs.existsSync(path.join(dir, '.flower', 'escape')));
  // listed by `flower skills`, with its source; a broken one is a warning naming the file
  fs.mkdirSync(path.join(dir, '.flower', 'skills', 'bad'));
  fs.writeFileSync(path.join(dir, '.flower', 'skills', 'bad', 'SKILL.md'), 'oops\n');
  const d = io(dir);
  assert.equal(await main(['skills'], d.io as never), 0);
  assert.match(d.text().stdout, /deploy-checklist {2}\(project, [0-9a-f]{12}\)/);
  assert.match(d.text().stderr, new RegExp(`${path.join('bad', 'SKILL.md').replace(/\//g, '\\/')} has no front matter`));
  const e = io(dir);
  assert.equal(await main(['skills', '--json'], e.io as never), 0);
  assert.deepEqual(
    JSON.parse(e.text().stdout).skills.map((x: { name: string }) => x.name),
    ['deploy-checklist'],
  );
  // status lists them too
  const f = io(dir);
  assert.equal(await main(['status', '--json'], f.io as never), 0);
  assert.deepEqual(
    JSON.parse(f.text().stdout).skills.map((x: { name: string; source: string }) => `${x.name}:${x.source}`),
    ['deploy-checklist:project'],
  );
});

test('--plugin names a folder that must exist', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-skills-cli-'));
  const a = io(dir);
  assert.equal(await main(['skills', '--plugin', 'nope'], a.io as never), 1);
  assert.match(a.text().stderr, /--plugin \S*nope: no such folder/);
});
