/**
 * Secrets by name and by value, as tables — and the scrub script run by real shells: whatever a
 * start-up file exports again, the command that follows sees no secret.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { isSecretName, isSecretValue, redact, scrubScript, secretsIn, startupFileHoldsSecret, urlPassword } from '../../src/guards/index.js';

const NAMES: Array<[string, boolean]> = [
  ['ANTHROPIC_API_KEY', true],
  ['ANTHROPIC_AUTH_TOKEN', true],
  ['GITHUB_TOKEN', true],
  ['GH_TOKEN', true],
  ['NPM_TOKEN', true],
  ['MYSQL_PWD', true],
  ['SENTRY_DSN', true],
  ['DB_PASSWORD', true],
  ['PGPASSWORD', true],
  ['CLIENTSECRET', true],
  ['AWS_ACCESS_KEY_ID', true],
  ['AWS_SECRET_ACCESS_KEY', true],
  ['AWS_SESSION_TOKEN', true],
  ['STRIPE_APIKEY', true],
  ['GOOGLE_APPLICATION_CREDENTIALS', true],
  ['SSH_AUTH_SOCK', true],
  ['NODE_AUTH_TOKEN', true],
  ['REDIS_PASS', true],
  ['PRIVATE_KEY_PATH', true],
  ['SESSION_COOKIE', true],
  ['GHTOKEN', true],
  ['SLACK_WEBHOOK_URL', true],
  ['FLOWER_NOTIFY', true],
  ['FLOWER_NOTIFY_CMD', true],
  ['PATH', false],
  ['HOME', false],
  ['PWD', false],
  ['OLDPWD', false],
  ['LANG', false],
  ['TOKENIZERS_PARALLELISM', false],
  ['ANTHROPIC_BASE_URL', false],
  ['ANTHROPIC_MODEL', false],
  ['KEYBOARD_LAYOUT', false],
  ['MONKEY', false],
  ['XDG_SESSION_ID', false],
  ['DATABASE_URL', false],
  ['FLOWER_STORE', false],
  ['NODE_ENV', false],
  ['TERM', false],
  ['GIT_CONFIG_KEY_0', false],
  ['GIT_CONFIG_VALUE_12', false],
];
for (const [name, secret] of NAMES) {
  test(`name ${name} → ${secret ? 'secret' : 'not secret'}`, () => assert.equal(isSecretName(name), secret));
}

const VALUES: Array<[string, boolean, string]> = [
  ['postgres://app:hunter2@db.internal:5432/app', true, 'a password in a URL'],
  ['redis://:s3cretpw@cache:6379/0', true, 'an empty user and a password'],
  ['mysql://root:pw@localhost/x?ssl=1', true, 'a short password counts: the URL shape says it'],
  ['postgres://db.internal/app', false, 'a URL without a password'],
  ['https://user@host/x', false, 'a user alone'],
  ['sk-ant-api03-abcdefghijklmnopqrstu', true, 'an Anthropic key'],
  ['ghp_0123456789abcdefghijABCDEFGHIJ', true, 'a GitHub token'],
  ['github_pat_11ABCDEFG0123456789_abcdefghij', true, 'a fine-grained GitHub token'],
  ['AKIAIOSFODNN7EXAMPLE', true, 'an AWS access key id'],
  ['xoxb-1234567890-abcdefghij', true, 'a Slack bot token'],
  ['eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NSJ9.abcdefghijklmnop', true, 'a JWT'],
  ['Bearer ghp_0123456789abcdefghijABCDEFGHIJ', true, 'a token behind a scheme'],
  ['-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaA==\n-----END OPENSSH PRIVATE KEY-----', true, 'a private key'],
  ['/usr/local/bin:/usr/bin', false, 'a PATH'],
  ['development', false, 'a plain word'],
  ['http://127.0.0.1:8765', false, 'a base URL'],
  ['0123456789abcdef0123456789abcdef01234567', false, 'a hex digest (a commit, not a secret by shape)'],
  ['Server=db;Database=app;User Id=sa;Password=Hunter2;', true, 'a password in a connection string'],
  ['jdbc:postgresql://db/app?user=app&password=hunter2', true, 'a password in a query'],
  ['https://api.example.com/v1?access_token=abc123', true, 'a token in a query'],
  ['https://example.com/search?q=password', false, 'the word in a query value'],
];
for (const [value, secret, what] of VALUES) {
  test(`value: ${what} → ${secret ? 'secret' : 'not secret'}`, () => assert.equal(isSecretValue(value), secret));
}

test('a value that carries a known credential is a secret whatever its name', () => {
  assert.equal(isSecretValue('header: x-api-key=sk-known-1234567', ['sk-known-1234567']), true);
  assert.equal(isSecretValue('short', ['abc']), false, 'a known value shorter than 8 characters matches nothing');
});

test('secretsIn: names by name or value, values whole and a URL password alone; --pass-env names never count', () => {
  const env = {
    PATH: '/bin',
    DATABASE_URL: 'postgres://app:hunter2pw@db/app',
    GITHUB_TOKEN: 'ghp_0123456789abcdefghijABCDEFGHIJ',
    MY_COPY: 'prefix-sk-ant-known-9999',
    HOME: '/h',
    SHORT_TOKEN: 'abc',
    PASSED_TOKEN: 'keepkeepkeep',
  };
  const s = secretsIn(env, { pass: ['PASSED_TOKEN'], known: ['sk-ant-known-9999'] });
  assert.deepEqual(s.names, ['DATABASE_URL', 'GITHUB_TOKEN', 'MY_COPY', 'SHORT_TOKEN']);
  assert.ok(s.values.includes('hunter2pw') && s.values.includes('postgres://app:hunter2pw@db/app'));
  assert.ok(s.values.includes('sk-ant-known-9999'));
  assert.ok(!s.values.includes('abc'), 'too short to redact');
  assert.ok(!s.values.includes('keepkeepkeep'));
  assert.equal(urlPassword('postgres://a:p%40ss@h/d'), 'p@ss');
});

test('redact replaces every occurrence, longest value first', () => {
  const r = redact('url=postgres://app:hunter2pw@db/app pw=hunter2pw', ['postgres://app:hunter2pw@db/app', 'hunter2pw']);
  assert.equal(r.text, 'url=[secret] pw=[secret]');
  assert.equal(r.hits, 2);
  assert.deepEqual(redact('nothing here', ['hunter2pw']), { text: 'nothing here', hits: 0 });
});

test('redact also replaces tokens by their shape and whole private key blocks, in linear time', () => {
  const r = redact('a ghp_0123456789abcdefghijABCDEFGHIJklmn b\n-----BEGIN RSA PRIVATE KEY-----\nMIIE\nabc\n-----END RSA PRIVATE KEY-----\nafter', []);
  assert.equal(r.text, 'a [secret] b\n[secret: private key]\nafter');
  assert.equal(r.hits, 2);
  assert.equal(redact('-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----', []).hits, 0, 'a public key stays');
  assert.equal(redact('sk-learn and sk-ant-short', []).hits, 0);
  const hostile = `${'-----BEGIN '.repeat(20000)}${'ghp_'.repeat(20000)}${'a'.repeat(200000)}`;
  const t = performance.now();
  redact(hostile, ['x'.repeat(10)]);
  assert.ok(performance.now() - t < 1000, 'no quadratic input');
});

const RC: Array<[string, boolean]> = [
  ['export ANTHROPIC_API_KEY=sk-ant-x\n', true],
  ['alias ll="ls -l"\nexport PATH=$HOME/bin:$PATH\n', false],
  ['export DATABASE_URL=postgres://a:pw@h/d\n', true],
  ['MYSQL_PWD=x; export MYSQL_PWD\n', true],
  ['declare -x GH_TOKEN=abc\n', true],
  ['setenv NPM_TOKEN abc\n', true],
  ['# export GITHUB_TOKEN=\nexport EDITOR=vim\n', false],
  ['echo known-value-12345\n', true],
];
for (const [text, holds] of RC) {
  test(`start-up file ${JSON.stringify(text).slice(0, 50)} → ${holds ? 'holds a secret' : 'clean'}`, () => {
    assert.equal(startupFileHoldsSecret(text, ['known-value-12345']), holds);
  });
}

for (const shell of ['bash', 'sh']) {
  test(`the scrub script, sourced by ${shell} after an rc that exports secrets again, leaves no secret and keeps the rest`, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-scrub-'));
    const rc = path.join(dir, 'rc');
    fs.writeFileSync(
      rc,
      [
        'export ANTHROPIC_API_KEY=sk-ant-from-rc',
        'export DATABASE_URL=postgres://app:pw@db/app',
        'export GITHUB_TOKEN=ghp_x',
        'export MYSQL_PWD=x',
        'export NEW_SECRET_THING=y',
        'export KEPT_TOKEN=keep',
        'export EDITOR=vim',
        'export ANTHROPIC_BASE_URL=http://h',
        'export GIT_CONFIG_COUNT=1',
        'export GIT_CONFIG_KEY_0=http.proxy',
        'export GIT_CONFIG_VALUE_0=http://localhost:3128',
      ].join('\n'),
    );
    const scrub = path.join(dir, 'scrub.sh');
    fs.writeFileSync(scrub, scrubScript(['ANTHROPIC_API_KEY', 'SOME_OTHER_NAME'], ['KEPT_TOKEN']));
    const out = execFileSync(shell, ['-c', `. ${rc}; . ${scrub}; env`], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '', HOME: dir, PWD: dir } });
    for (const gone of ['ANTHROPIC_API_KEY=', 'DATABASE_URL=', 'GITHUB_TOKEN=', 'MYSQL_PWD=', 'NEW_SECRET_THING=', '__flower'])
      assert.ok(!out.includes(gone), `${gone} still set`);
    for (const kept of ['KEPT_TOKEN=keep', 'EDITOR=vim', 'ANTHROPIC_BASE_URL=http://h', 'PATH=', 'GIT_CONFIG_KEY_0=http.proxy', 'GIT_CONFIG_VALUE_0=']) {
      assert.ok(out.includes(kept), `${kept} was dropped`);
    }
  });
}
