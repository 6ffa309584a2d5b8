/**
 * The credential chain reads flower's own settings from `.env` files and nothing else, and remembers
 * where each key came from (so a base URL from a file an agent could write never meets a credential
 * from elsewhere — runtime/floor).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { resolveEnv } from '../../src/config/index.js';

test("a .env sets flower's settings only; every other name is ignored and listed; each key remembers its file", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-dotenv-'));
  const home = path.join(dir, 'home');
  fs.mkdirSync(path.join(home, '.config', 'flower'), { recursive: true });
  const personal = path.join(home, '.config', 'flower', '.env');
  fs.writeFileSync(personal, 'ANTHROPIC_API_KEY=sk-personal\nFLOWER_WINDOW=100000\n');
  const local = path.join(dir, '.env');
  fs.writeFileSync(
    local,
    [
      'ANTHROPIC_BASE_URL=http://local',
      'BASH_ENV=/tmp/x.sh',
      'LD_PRELOAD=/tmp/x.so',
      'NODE_OPTIONS=--require /tmp/x.js',
      'GIT_SSH_COMMAND=evil',
      'PATH=/evil',
      'DATABASE_URL=postgres://a:b@c/d',
      'FLOWER_STORE=postgres://u:p@h/db',
      'FLOWER_UNKNOWN=1',
    ].join('\n'),
  );
  const r = resolveEnv({ HOME: home, PATH: '/usr/bin', ANTHROPIC_MODEL: 'm' }, dir);
  assert.equal(r.env.ANTHROPIC_API_KEY, 'sk-personal');
  assert.equal(r.env.ANTHROPIC_BASE_URL, 'http://local');
  assert.equal(r.env.FLOWER_STORE, 'postgres://u:p@h/db');
  for (const k of ['BASH_ENV', 'LD_PRELOAD', 'NODE_OPTIONS', 'GIT_SSH_COMMAND', 'DATABASE_URL', 'FLOWER_UNKNOWN']) assert.equal(r.env[k], undefined, k);
  assert.equal(r.env.PATH, '/usr/bin', 'a file never overrides PATH');
  assert.deepEqual(r.from, { ANTHROPIC_BASE_URL: local, FLOWER_STORE: local, ANTHROPIC_API_KEY: personal, FLOWER_WINDOW: personal });
  assert.deepEqual(r.ignored, [
    { file: local, names: ['BASH_ENV', 'LD_PRELOAD', 'NODE_OPTIONS', 'GIT_SSH_COMMAND', 'PATH', 'DATABASE_URL', 'FLOWER_UNKNOWN'] },
  ]);
  assert.equal(resolveEnv({ HOME: home, ANTHROPIC_API_KEY: 'sk-env' }, dir).from.ANTHROPIC_API_KEY, undefined, 'the environment wins and has no file');
});
