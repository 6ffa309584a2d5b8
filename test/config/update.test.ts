/**
 * The once-a-day update notice, against a registry on 127.0.0.1 (FLOWER_UPDATE_REGISTRY) — never the network.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { checkForUpdate, isNewer, updateStateFile, updateWanted, UPDATE_INTERVAL_MS } from '../../src/config/index.js';
import { withUpdateNotice } from '../../src/cli/update-notice.js';

const PKG = JSON.parse(fs.readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
let server: http.Server;
let url = '';
let latest = '9.9.9';
let hang = false;
const asked: string[] = [];
before(async () => {
  server = http.createServer((req, res) => {
    asked.push(req.url ?? '');
    if (hang) return; // never answers: the client's timeout must end it
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: PKG.name, version: latest }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const home = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-update-'));
  return { HOME: dir, XDG_CONFIG_HOME: path.join(dir, '.config'), FLOWER_UPDATE_REGISTRY: url, FLOWER_LANG: 'en' };
};

test('when a check is wanted: a terminal, no FLOWER_NO_UPDATE, not in CI', () => {
  const cases: Array<[Record<string, string>, boolean, boolean]> = [
    [{}, true, true],
    [{}, false, false],
    [{ FLOWER_NO_UPDATE: '1' }, true, false],
    [{ CI: 'true' }, true, false],
    [{ CI: '' }, true, true],
  ];
  for (const [env, tty, want] of cases) assert.equal(updateWanted(env, tty), want, JSON.stringify([env, tty]));
});

test('which versions are newer', () => {
  const cases: Array<[string, string, boolean]> = [
    ['0.2.0', '0.1.0', true],
    ['0.1.10', '0.1.9', true],
    ['1.0.0', '0.99.99', true],
    ['0.1.0', '0.1.0', false],
    ['0.0.9', '0.1.0', false],
    ['0.2.0-beta.1', '0.1.0', false],
    ['garbage', '0.1.0', false],
  ];
  for (const [a, b, want] of cases) assert.equal(isNewer(a, b), want, `${a} > ${b}`);
});

test("one check per 24 h, for the package.json name, with the state written atomically in flower's config dir", async () => {
  const env = home();
  asked.length = 0;
  latest = '9.9.9';
  const t0 = 1_800_000_000_000;
  assert.equal(await checkForUpdate(env, PKG, t0), '9.9.9');
  assert.deepEqual(asked, [`/${PKG.name}/latest`]);
  assert.deepEqual(JSON.parse(fs.readFileSync(updateStateFile(env), 'utf8')), { checked: t0, latest: '9.9.9' });
  assert.equal(path.dirname(updateStateFile(env)), path.join(env.XDG_CONFIG_HOME, 'flower'));
  assert.equal(await checkForUpdate(env, PKG, t0 + UPDATE_INTERVAL_MS - 1), null, 'not due yet');
  assert.equal(asked.length, 1, 'no second request within 24 h');
  latest = PKG.version;
  assert.equal(await checkForUpdate(env, PKG, t0 + UPDATE_INTERVAL_MS), null, 'due again, but not newer');
  assert.equal(asked.length, 2);
});

test('a registry that never answers gives up within the timeout; a damaged state file is kept aside', async () => {
  const env = home();
  fs.mkdirSync(path.dirname(updateStateFile(env)), { recursive: true });
  fs.writeFileSync(updateStateFile(env), '{not json');
  hang = true;
  const started = Date.now();
  try {
    assert.equal(await checkForUpdate(env, PKG), null);
  } finally {
    hang = false;
  }
  assert.ok(Date.now() - started < 15_000, 'bounded by the 1.5 s timeout');
  const kept = fs.readdirSync(path.dirname(updateStateFile(env))).filter((f) => f.startsWith('.update-check.corrupt-'));
  assert.equal(kept.length, 1);
  assert.equal(fs.readFileSync(path.join(path.dirname(updateStateFile(env)), kept[0]!), 'utf8'), '{not json');
  // a registry that cannot be reached at all
  assert.equal(await checkForUpdate({ ...home(), FLOWER_UPDATE_REGISTRY: 'http://127.0.0.1:1' }, PKG), null);
});

test("after the command: one dim line on a terminal; the exit code is the command's; off in CI and off a terminal", async () => {
  latest = '9.9.9';
  const tty = { isTTY: true } as unknown as NodeJS.ReadableStream & { isTTY: boolean };
  const run = async (env: Record<string, string>, terminal: boolean, code: number) => {
    let err = '';
    const io = { stdout: { write: () => true }, stderr: { write: (s: string) => (err += s), isTTY: terminal }, stdin: terminal ? tty : undefined, env };
    const got = await withUpdateNotice(io, false, async () => code);
    return { got, err };
  };
  asked.length = 0;
  const shown = await run(home(), true, 1);
  assert.equal(shown.got, 1);
  assert.equal(shown.err, `\u001b[2m. flower 9.9.9 is available (this is ${PKG.version}): npm install -g ${PKG.name}\u001b[22m\n`);
  assert.equal((await run({ ...home(), FLOWER_LANG: 'zh' }, true, 0)).err.includes('有新版本 9.9.9'), true);
  asked.length = 0;
  assert.deepEqual(await run({ ...home(), CI: '1' }, true, 0), { got: 0, err: '' });
  assert.deepEqual(await run({ ...home(), FLOWER_NO_UPDATE: '1' }, true, 0), { got: 0, err: '' });
  assert.deepEqual(await run(home(), false, 0), { got: 0, err: '' });
  assert.equal(asked.length, 0, 'no request when off');
  // a command that throws still throws, and the check never turns it into something else
  const io = { stdout: { write: () => true }, stderr: { write: () => true, isTTY: true }, stdin: tty, env: home() };
  await assert.rejects(
    withUpdateNotice(io, false, async () => Promise.reject(new Error('boom'))),
    /boom/,
  );
});
