/**
 * The CLI's side of notifications, in-process: which secret values a payload is scrubbed of, what
 * environment a `--notify-cmd` gets, and a bad setting as a usage error before any work.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli/index.js';
import { commandEnv, secretValuesOf } from '../../src/cli/notify.js';
import { resolveEnv } from '../../src/config/index.js';
import { redactDeep } from '../../src/guards/index.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'flower-notify-cli-'));

test('the scrub list holds the environment secrets, the credential, every secret of each .env file read and of the .env files below the workspace', () => {
  const home = tmp();
  const config = path.join(home, '.config', 'flower');
  fs.mkdirSync(config, { recursive: true });
  fs.writeFileSync(path.join(config, '.env'), 'ANTHROPIC_API_KEY=sk-ant-file-0123456789abcdef\nAPP_DB_PASSWORD=file-pw-123456\nCOLOR=blue\n');
  const ws = tmp();
  fs.mkdirSync(path.join(ws, 'api'));
  fs.writeFileSync(path.join(ws, 'api', '.env'), 'STRIPE_SECRET=ws-secret-24680\n');
  const r = resolveEnv({ HOME: home, GITHUB_TOKEN: 'ghp_envtoken_0123456789', DATABASE_URL: 'postgres://app:db-pw-98765@db/app', LANG: 'en_US.UTF-8' }, tmp());
  const values = secretValuesOf(r, { workspace: ws });
  for (const v of ['sk-ant-file-0123456789abcdef', 'file-pw-123456', 'ghp_envtoken_0123456789', 'db-pw-98765', 'ws-secret-24680'])
    assert.ok(values.includes(v), v);
  assert.ok(!values.includes('blue') && !values.includes('en_US.UTF-8'));
  const payload = { text: 'needs file-pw-123456 and db-pw-98765', options: ['ghp_envtoken_0123456789'] };
  assert.deepEqual(redactDeep(payload, values).value, { text: 'needs [secret] and [secret]', options: ['[secret]'] });
});

test("a command's environment is the person's, minus every secret variable and the notify settings themselves", () => {
  const env = commandEnv(
    {
      PATH: '/usr/bin',
      DISPLAY: ':0',
      ANTHROPIC_API_KEY: 'sk-ant-0123456789abcdef',
      SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/X',
      COPY: 'has sk-ant-0123456789abcdef inside',
      FLOWER_NOTIFY: 'https://ntfy.sh/topic',
      FLOWER_NOTIFY_CMD: 'curl …',
      UNSET: undefined,
    },
    ['sk-ant-0123456789abcdef'],
  );
  assert.deepEqual(env, { PATH: '/usr/bin', DISPLAY: ':0' });
});

test('a bad FLOWER_NOTIFY is a usage error naming it, before any model call', async () => {
  const dir = tmp();
  let err = '';
  const code = await main(['write a script', '--timeout', '0', '-w', dir, '-r', path.join(dir, 'runs')], {
    stdout: { write: () => true },
    stderr: { write: (s: string) => (err += s) },
    env: { FLOWER_LANG: 'en', HOME: dir, FLOWER_NOTIFY: 'ntfy.sh/topic', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', ANTHROPIC_API_KEY: 'sk-test' },
    cwd: dir,
  });
  assert.equal(code, 2);
  assert.match(err, /^x FLOWER_NOTIFY is "ntfy\.sh\/topic": give an http:\/\/ or https:\/\/ address/);
});

test('--notify with a bad URL is a usage error naming the flag, before or after the command', async () => {
  for (const argv of [
    ['--notify', 'ftp://x', 'status'],
    ['status', '--notify', 'ftp://x'],
  ]) {
    let err = '';
    const code = await main(argv, { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s) }, env: { FLOWER_LANG: 'en' }, cwd: tmp() });
    assert.equal(code, 2, argv.join(' '));
    assert.match(err, /--notify is "ftp:\/\/x"/);
  }
});
