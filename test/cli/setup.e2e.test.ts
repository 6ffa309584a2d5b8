/**
 * `flower setup` writes credentials privately, keeps what it doesn't manage, and the next run uses them.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { credentialValues, modelNotFound, windowForModel } from '../../src/config/index.js';
import { startSim, type Sim } from '../../src/sim/index.js';
import { BIN, cli, project, testEnv } from '../helpers/e2e.js';

let sim: Sim;
before(async () => {
  sim = await startSim({ port: 0 });
});
after(async () => {
  await sim.close();
});

test('which key a token becomes, and what is kept', () => {
  const cases: Array<[string, Record<string, string>, string, Record<string, string>]> = [
    ['sk-ant-abc', {}, '', { ANTHROPIC_API_KEY: 'sk-ant-abc' }],
    ['gw-token', {}, '', { ANTHROPIC_AUTH_TOKEN: 'gw-token' }],
    ['sk-ant-abc', { ANTHROPIC_AUTH_TOKEN: 'old', OTHER: 'kept' }, '', { OTHER: 'kept', ANTHROPIC_API_KEY: 'sk-ant-abc' }],
    [
      't',
      {},
      'claude-x',
      {
        ANTHROPIC_AUTH_TOKEN: 't',
        ANTHROPIC_MODEL: 'claude-x',
        ANTHROPIC_DEFAULT_OPUS_MODEL: 'claude-x',
        ANTHROPIC_DEFAULT_SONNET_MODEL: 'claude-x',
        FLOWER_WINDOW: '200000',
      },
    ],
    // a picked model replaces an old FLOWER_WINDOW; a gateway's own name writes none (calibration decides)
    [
      't',
      { FLOWER_WINDOW: '60000' },
      'glm-4',
      { ANTHROPIC_AUTH_TOKEN: 't', ANTHROPIC_MODEL: 'glm-4', ANTHROPIC_DEFAULT_OPUS_MODEL: 'glm-4', ANTHROPIC_DEFAULT_SONNET_MODEL: 'glm-4' },
    ],
    // no model picked: the person's own FLOWER_WINDOW stays
    ['t', { FLOWER_WINDOW: '60000' }, '', { FLOWER_WINDOW: '60000', ANTHROPIC_AUTH_TOKEN: 't' }],
  ];
  for (const [token, existing, model, want] of cases) assert.deepEqual(credentialValues({ token, model }, existing), want);
  assert.equal(credentialValues({ token: 't', baseUrl: 'https://gw.example/v1/' }).ANTHROPIC_BASE_URL, 'https://gw.example');
  assert.throws(() => credentialValues({ token: '  ' }), /required/);
});

test('setup from piped answers writes a 0600 file the next run reads; the token is never printed', async () => {
  const p = project('setup');
  const env = testEnv(p, sim.url);
  delete (env as Record<string, string | undefined>).ANTHROPIC_API_KEY;
  delete (env as Record<string, string | undefined>).ANTHROPIC_BASE_URL;
  const child = spawn(process.execPath, [BIN, 'setup'], { cwd: p.dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  sim.reset();
  sim.enqueue({ type: 'text', text: 'pong' }); // the probe's one tiny call
  child.stdin.end(`sk-ant-setup-secret-123\n${sim.url}\n\n`);
  const code = await new Promise<number | null>((r) => child.on('close', r));
  assert.equal(code, 0, err);
  assert.match(err, /\+ ok: .* accepted the credential/);
  assert.equal(sim.messageRequests()[0]!.headers['x-api-key'], 'sk-ant-setup-secret-123', 'the probe used the new key');
  const file = path.join(p.home, '.config', 'flower', '.env');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.match(fs.readFileSync(file, 'utf8'), /ANTHROPIC_API_KEY="sk-ant-setup-secret-123"/);
  assert.doesNotMatch(out + err, /setup-secret-123/);
  assert.match(err, /sk-a… \(23 chars\)/);
  assert.equal(out, '', 'human text goes to stderr');
  sim.reset();
  sim.enqueue({ type: 'text', text: 'configured' });
  const r = await cli(['once', 'hi', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(sim.messageRequests()[0]!.headers['x-api-key'], 'sk-ant-setup-secret-123');
});

test('the window written for a picked model', () => {
  const cases: Array<[string, number | undefined]> = [
    ['claude-sonnet-4-5[1m]', 1_000_000],
    ['claude-opus-4-1[1M]', 1_000_000],
    ['claude-sonnet-4-5', 200_000],
    ['claude-haiku-4-5-20251001', 200_000],
    ['opus', 200_000],
    ['glm-4.6', undefined],
    ['', undefined],
  ];
  for (const [model, want] of cases) assert.equal(windowForModel(model), want, model);
});

test('setup with a picked model writes its FLOWER_WINDOW, and the next run uses that window', async () => {
  const p = project('setup-window');
  const env = testEnv(p, sim.url);
  delete (env as Record<string, string | undefined>).ANTHROPIC_API_KEY;
  delete (env as Record<string, string | undefined>).ANTHROPIC_BASE_URL;
  delete (env as Record<string, string | undefined>).FLOWER_WINDOW;
  sim.reset();
  sim.enqueue({ type: 'text', text: 'pong' });
  const child = spawn(process.execPath, [BIN, 'setup'], { cwd: p.dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdin.end(`sk-ant-window\n${sim.url}\nclaude-sonnet-4-5[1m]\n`);
  assert.equal(await new Promise<number | null>((r) => child.on('close', r)), 0, err);
  assert.match(err, /FLOWER_WINDOW 1000000/, 'the person sees what was written');
  assert.match(fs.readFileSync(path.join(p.home, '.config', 'flower', '.env'), 'utf8'), /FLOWER_WINDOW="1000000"/);
  sim.reset();
  sim.enqueue({ type: 'text', text: 'done' });
  const r = await cli(['once', 'hi', '-v', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /window 1000000 \(hand off at 750000\)/, 'read back from the file');
});

test('which refusals name the model', () => {
  const cases: Array<[Parameters<typeof modelNotFound>[0], boolean]> = [
    [{ kind: 'config', status: 404, detail: 'not_found_error: model: claude-nope' }, true],
    [{ kind: 'config', status: 400, detail: 'invalid_request_error: unknown model glm-9' }, true],
    [{ kind: 'config', status: 404, detail: 'not_found_error: gpt-x does not exist', model: 'gpt-x' }, true],
    [{ kind: 'config', status: 404, detail: '<html>Not Found</html>', model: 'claude-x' }, false],
    [{ kind: 'auth', status: 401, detail: 'model: x' }, false],
    [{ kind: 'config', status: 200, detail: 'a 200 answer that is not a Messages API response' }, false],
  ];
  for (const [r, want] of cases) assert.equal(modelNotFound(r), want, JSON.stringify(r));
});

test('an unknown model is checked before it is stored: a clear line, nothing written, the old file kept', async () => {
  const p = project('setup-model');
  const dir = path.join(p.home, '.config', 'flower');
  fs.mkdirSync(dir, { recursive: true });
  const before = 'ANTHROPIC_API_KEY=sk-ant-old\nANTHROPIC_MODEL=claude-sonnet-4-5\n';
  fs.writeFileSync(path.join(dir, '.env'), before);
  const env = testEnv(p, sim.url);
  delete (env as Record<string, string | undefined>).ANTHROPIC_API_KEY;
  delete (env as Record<string, string | undefined>).ANTHROPIC_BASE_URL;
  sim.reset();
  sim.enqueue({ type: 'error', status: 404, errorType: 'not_found_error', message: 'model: claude-nope' });
  const child = spawn(process.execPath, [BIN, 'setup', '-y', '--json'], { cwd: p.dir, env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdin.end(`sk-ant-new-key\n${sim.url}\nclaude-nope\n`);
  assert.equal(await new Promise<number | null>((r) => child.on('close', r)), 1, err);
  assert.equal((sim.messageRequests()[0]!.body as { model: string }).model, 'claude-nope', 'the probe asked for the model typed');
  assert.match(err, /x model not found: .* does not serve the model 'claude-nope' \(404/);
  assert.match(err, /nothing written/);
  assert.equal(fs.readFileSync(path.join(dir, '.env'), 'utf8'), before, 'nothing stored');
  assert.equal(fs.existsSync(path.join(dir, '.env.previous')), false);
  const j = JSON.parse(out) as { written: boolean; probe: { kind: string; status: number } };
  assert.deepEqual([j.written, j.probe.kind, j.probe.status], [false, 'config', 404]);
});

test('a model mismatch is shown with only ANTHROPIC_DEFAULT_OPUS_MODEL set, and through a [1m] marker', async () => {
  const cases: Array<[Record<string, string>, string, boolean]> = [
    [{ ANTHROPIC_DEFAULT_OPUS_MODEL: 'claude-opus-test' }, 'glm-4.6', true],
    [{ ANTHROPIC_MODEL: 'claude-sonnet-4-5[1m]' }, 'claude-opus-4-1', true],
    [{ ANTHROPIC_MODEL: 'claude-sonnet-4-5[1m]' }, 'claude-sonnet-4-5-20250929', false],
  ];
  for (const [extra, served, shown] of cases) {
    const p = project('mismatch');
    sim.reset();
    sim.enqueue({ type: 'text', text: 'done', model: served });
    const r = await cli(['once', 'hi', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url, extra) });
    assert.equal(r.code, 0, r.stderr);
    const line = new RegExp(`the endpoint served ${served.replace(/[.[\]]/g, '\\$&')} although`);
    assert.equal(line.test(r.stderr), shown, `${JSON.stringify(extra)} / ${served}: ${r.stderr}`);
  }
});

test('a 404 for the model mid-run stops with a typed failure naming the model and `flower setup`', async () => {
  const p = project('run-404');
  sim.reset();
  sim.enqueue({ type: 'error', status: 404, errorType: 'not_found_error', message: 'model: claude-gone', sticky: true });
  const r = await cli(['once', 'hi', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url, { ANTHROPIC_MODEL: 'claude-gone' }) });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /does not serve the model 'claude-gone': run `flower setup`/);
  const row = (
    JSON.parse(fs.readFileSync(path.join(p.runs, 'manifest.json'), 'utf8')) as Array<{ failure: { kind: string; status: number }; attempts: number }>
  )[0]!;
  assert.deepEqual([row.failure.kind, row.failure.status, row.attempts], ['config', 404, 1], 'typed, and never retried');
});

test('setup keeps the previous file aside (private) and the keys it does not manage', async () => {
  const p = project('setup-keep');
  const dir = path.join(p.home, '.config', 'flower');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, '.env'), '# my notes\nFLOWER_WINDOW=200000\nANTHROPIC_AUTH_TOKEN=old\n');
  const child = spawn(process.execPath, [BIN, 'setup'], { cwd: p.dir, env: { ...testEnv(p, sim.url), FLOWER_NO_PROBE: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end('y\nsk-ant-new\n\n\n'); // "replace the existing credentials?" → y
  assert.equal(await new Promise<number | null>((r) => child.on('close', r)), 0);
  const now = fs.readFileSync(path.join(dir, '.env'), 'utf8');
  assert.match(now, /FLOWER_WINDOW="200000"/);
  assert.match(now, /ANTHROPIC_API_KEY="sk-ant-new"/);
  assert.doesNotMatch(now, /AUTH_TOKEN/);
  assert.match(fs.readFileSync(path.join(dir, '.env.previous'), 'utf8'), /# my notes/);
  assert.equal(fs.statSync(path.join(dir, '.env.previous')).mode & 0o777, 0o600);
});

test('with credentials stored, setup asks before replacing them: no = nothing written', async () => {
  const p = project('setup-ask');
  const dir = path.join(p.home, '.config', 'flower');
  fs.mkdirSync(dir, { recursive: true });
  const before = 'ANTHROPIC_API_KEY=sk-ant-keep-me\n';
  fs.writeFileSync(path.join(dir, '.env'), before);
  const child = spawn(process.execPath, [BIN, 'setup'], { cwd: p.dir, env: { ...testEnv(p, sim.url), FLOWER_NO_PROBE: '1' }, stdio: ['pipe', 'pipe', 'pipe'] });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  child.stdin.end('n\nsk-ant-other\n\n\n');
  assert.equal(await new Promise<number | null>((r) => child.on('close', r)), 1);
  assert.match(err, /Replace the existing credentials\? \[y\/N\]/);
  assert.match(err, /sk-a… \(14 chars\)/);
  assert.doesNotMatch(err, /keep-me/);
  assert.equal(fs.readFileSync(path.join(dir, '.env'), 'utf8'), before);
  assert.equal(fs.existsSync(path.join(dir, '.env.previous')), false);
});

test('a malformed gateway URL is refused and nothing is written', async () => {
  for (const bad of ['not a url', 'ftp://gw.example', 'gw.example.com', 'javascript:alert(1)', 'http://']) {
    const p = project('setup-url');
    const child = spawn(process.execPath, [BIN, 'setup'], {
      cwd: p.dir,
      env: { ...testEnv(p, sim.url), FLOWER_NO_PROBE: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    child.stdin.end(`sk-ant-x\n${bad}\n\n`);
    assert.equal(await new Promise<number | null>((r) => child.on('close', r)), 1, bad);
    assert.match(err, /refused/, bad);
    assert.equal(fs.existsSync(path.join(p.home, '.config', 'flower', '.env')), false, bad);
  }
});

test('setup with no token writes nothing and exits 1', async () => {
  const p = project('setup-empty');
  const child = spawn(process.execPath, [BIN, 'setup'], { cwd: p.dir, env: testEnv(p, sim.url), stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end('\n');
  const code = await new Promise<number | null>((r) => child.on('close', r));
  assert.equal(code, 1);
  assert.equal(fs.existsSync(path.join(p.home, '.config', 'flower', '.env')), false);
});
