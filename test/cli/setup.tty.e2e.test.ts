/**
 * `flower setup` on a real terminal (a pty from util-linux `script`): the key never appears on the
 * screen, a malformed URL is refused and asked again, and the credential is probed — four outcomes, each
 * its own message. The first run on a terminal with no credentials offers setup instead of only exiting.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { classifyProbe, probeCredentials } from '../../src/config/index.js';
import { main } from '../../src/cli/index.js';
import { startSim, type Sim } from '../../src/sim/index.js';
import { BIN, project, testEnv, until } from '../helpers/e2e.js';

let sim: Sim;
before(async () => {
  sim = await startSim({ port: 0 });
});
after(async () => {
  await sim.close();
});

const hasScript = (() => {
  try {
    execFileSync('script', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/** A command on a pty: what the screen shows, and a way to type. */
function onTerminal(
  args: string[],
  cwd: string,
  env: Record<string, string>,
): { child: ChildProcess; screen: () => string; type: (s: string) => void; done: Promise<number | null> } {
  const cmd = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  // -q quiet, -f flush, -e the child's exit code; the transcript file is not needed
  const child = spawn('script', ['-qfec', cmd, '/dev/null'], { cwd, env: { ...env, TERM: 'xterm' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (out += d));
  const done = new Promise<number | null>((r) => child.on('close', r));
  return { child, screen: () => out, type: (s: string) => child.stdin!.write(s), done };
}

test('the probe sorts answers into ok / authentication / configuration / network', () => {
  const cases: Array<[Parameters<typeof classifyProbe>[0], string]> = [
    [{ status: 200, body: JSON.stringify({ type: 'message', content: [] }) }, 'ok'],
    [{ status: 200, body: '<html>welcome to my gateway</html>' }, 'config'],
    [{ status: 401, body: JSON.stringify({ type: 'error', error: { type: 'authentication_error', message: 'invalid x-api-key' } }) }, 'auth'],
    [{ status: 403, body: '{}' }, 'auth'],
    [{ status: 404, body: JSON.stringify({ type: 'error', error: { type: 'not_found_error', message: 'model: nope' } }) }, 'config'],
    [{ status: 400, body: 'bad' }, 'config'],
    [{ status: 429, body: '' }, 'limited'],
    [{ status: 529, body: '' }, 'unavailable'],
    [{ status: 503, body: '' }, 'unavailable'],
    [{ status: 408, body: '' }, 'unavailable'],
    [{ error: 'ECONNREFUSED' }, 'network'],
  ];
  for (const [answer, kind] of cases) assert.equal(classifyProbe(answer).kind, kind, JSON.stringify(answer));
  assert.equal(classifyProbe(cases[2]![0]).detail, 'authentication_error: invalid x-api-key');
});

test('the probe against the sim: one tiny call, each outcome from a real answer', async () => {
  sim.reset();
  sim.enqueue({ type: 'text', text: 'pong' });
  const ok = await probeCredentials({ baseUrl: sim.url, token: 'sk-ant-good', model: 'claude-x' });
  assert.equal(ok.kind, 'ok');
  const body = sim.messageRequests()[0]!.body as { max_tokens: number; model: string; thinking?: unknown; stream?: unknown };
  // 16, not 1: with 1 a model that always thinks took 30 s instead of 3.6 s (spec surface-config §3.3)
  assert.deepEqual([body.max_tokens, body.model, body.thinking, body.stream], [16, 'claude-x', undefined, undefined]);
  assert.equal(sim.messageRequests()[0]!.headers['x-api-key'], 'sk-ant-good');

  sim.enqueue({ type: 'error', status: 401, errorType: 'authentication_error', message: 'invalid x-api-key' });
  const auth = await probeCredentials({ baseUrl: `${sim.url}/v1/`, token: 'gw-token' });
  assert.deepEqual([auth.kind, auth.status], ['auth', 401]);
  assert.equal(sim.messageRequests().at(-1)!.headers.authorization, 'Bearer gw-token', 'a gateway token goes as a bearer token');

  sim.enqueue({ type: 'error', status: 404, errorType: 'not_found_error', message: 'model: claude-nope' });
  const config = await probeCredentials({ baseUrl: sim.url, token: 'sk-ant-x', model: 'claude-nope' });
  assert.deepEqual([config.kind, config.status], ['config', 404]);
  assert.match(config.detail, /claude-nope/);

  const free = await freePort();
  const network = await probeCredentials({ baseUrl: `http://127.0.0.1:${free}`, token: 'sk-ant-x' });
  assert.equal(network.kind, 'network');
  assert.match(network.detail, /ECONNREFUSED/);
});

/** A port nobody listens on. */
function freePort(): Promise<number> {
  return new Promise<number>((r) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => r(port));
    });
  });
}

test('flower setup prints a distinct message for each outcome; FLOWER_NO_PROBE=1 skips the call', async () => {
  const closed = `http://127.0.0.1:${await freePort()}`;
  const outcomes: Array<[string, () => void, RegExp, number, string?]> = [
    ['ok', () => sim.enqueue({ type: 'text', text: 'pong' }), /\+ ok: .*accepted the credential/, 0],
    [
      'auth',
      () => sim.enqueue({ type: 'error', status: 401, errorType: 'authentication_error', message: 'invalid x-api-key' }),
      /x authentication: .*refused the credential \(401/,
      1,
    ],
    ['config', () => sim.enqueue({ type: 'raw', status: 200, body: '<html>a web page</html>' }), /x configuration: .*check the gateway URL/, 1],
    [
      'limited',
      () => sim.enqueue({ type: 'error', status: 429, errorType: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' }),
      /\+ ok, rate limited: .*accepted the credential but answered 429/,
      0,
    ],
    [
      'unavailable',
      () => sim.enqueue({ type: 'error', status: 529, errorType: 'overloaded_error', message: 'Overloaded' }),
      /x unavailable: .*answered 529/,
      1,
    ],
    ['network', () => {}, /x network: no answer from .*ECONNREFUSED/, 1, closed],
  ];
  const seen = new Set<string>();
  for (const [name, script, want, code, url] of outcomes) {
    const p = project(`probe-${name}`);
    sim.reset();
    script();
    const env = testEnv(p, sim.url);
    delete (env as Record<string, string | undefined>).ANTHROPIC_API_KEY;
    delete (env as Record<string, string | undefined>).ANTHROPIC_BASE_URL;
    const child = spawn(process.execPath, [BIN, 'setup'], { cwd: p.dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdin.end(`sk-ant-probe-secret\n${url ?? sim.url}\n\n`);
    assert.equal(await new Promise<number | null>((r) => child.on('close', r)), code, `${name}: ${err}`);
    assert.match(err, want, name);
    assert.doesNotMatch(err, /probe-secret/);
    assert.equal(sim.messageRequests().length, url ? 0 : 1, `${name}: exactly one probe call`);
    // a refusal stores nothing; an answer that could not check the key keeps what was typed
    const stored = fs.existsSync(path.join(p.home, '.config', 'flower', '.env'));
    assert.equal(stored, name !== 'auth' && name !== 'config', `${name}: stored`);
    seen.add(
      err
        .split('\n')
        .find((l) => /^[+x] (ok|ok, rate limited|authentication|configuration|unavailable|network):/.test(l))!
        .split(':')[0]!,
    );
  }
  assert.equal(seen.size, 6, 'six distinct messages');
  const p = project('no-probe');
  sim.reset();
  const child = spawn(process.execPath, [BIN, 'setup'], { cwd: p.dir, env: { ...testEnv(p, sim.url), FLOWER_NO_PROBE: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(`sk-ant-x\n${sim.url}\n\n`);
  assert.equal(await new Promise<number | null>((r) => child.on('close', r)), 0);
  assert.equal(sim.messageRequests().length, 0);
});

test('on a terminal the key is never shown, a malformed URL is refused and asked again', {
  skip: !hasScript && 'util-linux script is not installed',
}, async () => {
  const p = project('setup-tty');
  sim.reset();
  sim.enqueue({ type: 'text', text: 'pong' });
  const env = testEnv(p, sim.url);
  delete (env as Record<string, string | undefined>).ANTHROPIC_API_KEY;
  delete (env as Record<string, string | undefined>).ANTHROPIC_BASE_URL;
  const key = 'sk-ant-NEVER-ON-SCREEN-4242';
  const t = onTerminal(['setup'], p.dir, env);
  await until('the key prompt', () => /not shown as you type/.test(t.screen()), 60_000);
  // typed one character at a time, as a person does, with a typo fixed by Backspace
  for (const c of `${key}X`) t.type(c);
  t.type('\u007f\r');
  await until('the URL prompt', () => /Gateway URL/.test(t.screen()), 60_000);
  t.type('not a url\r');
  await until('the refusal', () => /'not a url' refused/.test(t.screen()), 60_000);
  await until('the URL asked again', () => (t.screen().match(/Gateway URL/g) ?? []).length === 2, 60_000);
  t.type(`${sim.url}\r`);
  await until('the model prompt', () => /Model \(Enter/.test(t.screen()), 60_000);
  t.type('\r');
  assert.equal(await t.done, 0, t.screen());
  const screen = t.screen();
  assert.doesNotMatch(screen, /NEVER-ON-SCREEN/, 'the key never reaches the screen');
  assert.doesNotMatch(screen, /\*{5}/, 'not even as stars');
  assert.match(screen, /\+ ok: /);
  const file = fs.readFileSync(path.join(p.home, '.config', 'flower', '.env'), 'utf8');
  assert.match(file, new RegExp(`ANTHROPIC_API_KEY="${key}"`), 'Backspace removed the typo');
  assert.match(file, new RegExp(`ANTHROPIC_BASE_URL="${sim.url}"`));
  assert.doesNotMatch(file, /not a url/);
});

test('the first `flower "…"` on a terminal with no credentials offers setup; declining exits 1 with the message', {
  skip: !hasScript && 'util-linux script is not installed',
}, async () => {
  const p = project('offer');
  const env = testEnv(p, sim.url);
  delete (env as Record<string, string | undefined>).ANTHROPIC_API_KEY;
  const t = onTerminal(['write a script', '--timeout', '0', '-w', p.ws, '-r', p.runs], p.dir, env);
  await until('the offer', () => /no credentials yet .* Set them up now\? \[Y\/n\]/s.test(t.screen()), 60_000);
  t.type('n\r');
  assert.equal(await t.done, 1);
  assert.match(t.screen(), /No credentials: set ANTHROPIC_API_KEY/);
  assert.equal(fs.existsSync(p.runs), false);
});

test('off a terminal `flower once` and `flower run` fail at once: one line naming `flower setup`, exit 1', async () => {
  for (const args of [
    ['once', 'hi'],
    ['run', 'flow.mjs'],
  ]) {
    const p = project('no-offer-once');
    const marker = path.join(p.dir, 'LOADED');
    fs.writeFileSync(path.join(p.dir, 'flow.mjs'), `import fs from 'node:fs';\nfs.writeFileSync(${JSON.stringify(marker)}, 'x');\nexport default {};\n`);
    let err = '';
    const code = await main([...args, '-w', p.ws, '-r', p.runs], {
      stdout: { write: () => true },
      stderr: { write: (s: string) => (err += s) },
      env: { HOME: p.home, XDG_CONFIG_HOME: path.join(p.home, '.config'), FLOWER_LANG: 'en' },
      cwd: p.dir,
    });
    assert.equal(code, 1, args.join(' '));
    assert.equal(err.trim().split('\n').length, 1, `one line: ${err}`);
    assert.match(err, /No credentials: .*Run `flower setup`/);
    assert.doesNotMatch(err, /Set them up now/);
    assert.equal(fs.existsSync(marker), false, 'nothing was loaded');
    assert.equal(fs.existsSync(p.runs), false, 'nothing was started');
  }
});

test('off a terminal there is no offer: exit 1 with the message', async () => {
  const p = project('no-offer');
  let err = '';
  const code = await main(['write a script', '--timeout', '0', '-w', p.ws, '-r', p.runs], {
    stdout: { write: () => true },
    stderr: { write: (s: string) => (err += s) },
    env: { HOME: p.home, XDG_CONFIG_HOME: path.join(p.home, '.config'), FLOWER_LANG: 'en' },
    cwd: p.dir,
  });
  assert.equal(code, 1);
  assert.match(err, /No credentials/);
  assert.doesNotMatch(err, /Set them up now/);
});

test('`flower once` on a terminal with no credentials offers setup; yes stores them and the run goes on with them', {
  skip: !hasScript && 'util-linux script is not installed',
}, async () => {
  const p = project('once-offer');
  sim.reset();
  sim.enqueue({ type: 'text', text: 'ANSWER-AFTER-SETUP' });
  const env = { ...testEnv(p, sim.url), FLOWER_NO_PROBE: '1' };
  delete (env as Record<string, string | undefined>).ANTHROPIC_API_KEY;
  delete (env as Record<string, string | undefined>).ANTHROPIC_BASE_URL;
  const t = onTerminal(['once', 'hi', '-w', p.ws, '-r', p.runs], p.dir, env);
  await until('the offer', () => /no credentials yet .* Set them up now\? \[Y\/n\]/s.test(t.screen()), 60_000);
  t.type('\r'); // Enter = yes
  await until('the key prompt', () => /not shown as you type/.test(t.screen()), 60_000);
  t.type('sk-ant-once-key-31\r');
  await until('the URL prompt', () => /Gateway URL/.test(t.screen()), 60_000);
  t.type(`${sim.url}\r`);
  await until('the model prompt', () => /Model \(Enter/.test(t.screen()), 60_000);
  t.type('\r');
  assert.equal(await t.done, 0, t.screen());
  assert.match(t.screen(), /ANSWER-AFTER-SETUP/);
  assert.equal(sim.messageRequests()[0]!.headers['x-api-key'], 'sk-ant-once-key-31', 'the run used what was just stored');
  assert.doesNotMatch(t.screen(), /once-key-31/);
});

test('`flower run` on a terminal with no credentials offers setup; declining exits 1 before the workflow is loaded', {
  skip: !hasScript && 'util-linux script is not installed',
}, async () => {
  const p = project('run-offer');
  const flow = path.join(p.dir, 'flow.mjs');
  const marker = path.join(p.dir, 'LOADED');
  fs.writeFileSync(flow, `import fs from 'node:fs';\nfs.writeFileSync(${JSON.stringify(marker)}, 'x');\nexport default {};\n`);
  const env = testEnv(p, sim.url);
  delete (env as Record<string, string | undefined>).ANTHROPIC_API_KEY;
  const t = onTerminal(['run', flow, '-w', p.ws, '-r', p.runs], p.dir, env);
  await until('the offer', () => /no credentials yet .* Set them up now\? \[Y\/n\]/s.test(t.screen()), 60_000);
  t.type('n\r');
  assert.equal(await t.done, 1);
  assert.match(t.screen(), /No credentials: .*Run `flower setup`/s);
  assert.equal(fs.existsSync(marker), false, 'the workflow file was never imported');
});

test('a model the endpoint does not serve, mid-run on a terminal, leads back to setup', {
  skip: !hasScript && 'util-linux script is not installed',
}, async () => {
  const p = project('model-gone');
  sim.reset();
  sim.enqueue({ type: 'error', status: 404, errorType: 'not_found_error', message: 'model: claude-gone', sticky: true });
  const env = { ...testEnv(p, sim.url, { ANTHROPIC_MODEL: 'claude-gone' }), FLOWER_NO_PROBE: '1' };
  const t = onTerminal(['write a script', '--timeout', '0', '--clarify-only', '-w', p.ws, '-r', p.runs], p.dir, env);
  await until('the offer', () => /does not serve the configured model\. Set up now .*\[Y\/n\]/.test(t.screen()), 120_000);
  assert.match(t.screen(), /'claude-gone': run `flower setup`/);
  t.type('n\r');
  assert.equal(await t.done, 1);
  assert.equal(fs.existsSync(path.join(p.home, '.config', 'flower', '.env')), false, 'declined: nothing written');
});

test('a 401 mid-run on a terminal offers setup again; yes stores the new key, checked before it is kept', {
  skip: !hasScript && 'util-linux script is not installed',
}, async () => {
  const p = project('refused');
  sim.reset();
  sim.enqueue({ type: 'error', status: 401, errorType: 'authentication_error', message: 'invalid x-api-key' });
  const env = { ...testEnv(p, sim.url), FLOWER_NO_PROBE: '1' };
  const t = onTerminal(['write a script', '--timeout', '0', '--clarify-only', '-w', p.ws, '-r', p.runs], p.dir, env);
  await until('the offer after the refusal', () => /refused the credential\. Set up new credentials now\? \[Y\/n\]/.test(t.screen()), 120_000);
  t.type('y\r');
  await until('the key prompt', () => /not shown as you type/.test(t.screen()), 60_000);
  t.type('sk-ant-fresh-key-77\r');
  await until('the URL prompt', () => /Gateway URL/.test(t.screen()), 60_000);
  t.type(`${sim.url}\r`);
  await until('the model prompt', () => /Model \(Enter/.test(t.screen()), 60_000);
  t.type('\r');
  assert.equal(await t.done, 1, 'the run itself still failed');
  assert.match(t.screen(), /run `flower` here again to continue/);
  assert.doesNotMatch(t.screen(), /fresh-key-77/);
  assert.match(fs.readFileSync(path.join(p.home, '.config', 'flower', '.env'), 'utf8'), /ANTHROPIC_API_KEY="sk-ant-fresh-key-77"/);
});
