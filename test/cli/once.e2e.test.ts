/**
 * `flower once` end to end: the real claude binary, our CLI process, the sim on 127.0.0.1.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { width } from '../../src/cli/term.js';
import { startSim, type Sim } from '../../src/sim/index.js';
import { cli, project, readJson, startCli, testEnv, transcriptOf, until, type Project } from '../helpers/e2e.js';

let sim: Sim;
before(async () => {
  sim = await startSim({ port: 0 });
});
after(async () => {
  await sim.close();
});

interface Row {
  step: string;
  session_id: string;
  ok: boolean;
  run: string;
  attempts: number;
  cost_usd: number;
  num_turns: number;
  text: string;
  error: string | null;
  duration_s: number;
  ended_at: string | null;
  context: number;
}

function entries(p: Project): { key: string; payload: string }[] {
  const db = new Database(path.join(p.runs, 'sessions.db'), { readonly: true });
  try {
    return db.prepare('select store_key as key, payload from entries order by rowid').all() as { key: string; payload: string }[];
  } finally {
    db.close();
  }
}

test('once runs a tool, prints the answer, and leaves the transcript and one complete manifest row', async () => {
  const p = project('once');
  const file = path.join(p.ws, 'hello.txt');
  sim.reset();
  sim.enqueue(
    { type: 'tool_use', text: 'Writing.', name: 'Write', input: { file_path: file, content: 'hello\n' } },
    { type: 'text', text: 'Wrote hello.txt.' },
  );
  const r = await cli(['once', 'write hello', '-t', 'Write', '-p', 'acceptEdits', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url) });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(fs.readFileSync(file, 'utf8'), 'hello\n');
  assert.match(r.stdout, /Wrote hello\.txt\./);
  const sid = /session ([0-9a-f-]{36})/.exec(r.stdout)?.[1];
  assert.ok(sid, r.stdout);
  assert.match(r.stdout, /\$\d+\.\d{4} · 2 turns/);
  const rows = readJson<Row[]>(path.join(p.runs, 'manifest.json'));
  assert.equal(rows.length, 1);
  const row = rows[0]!;
  assert.equal(row.step, 'ad-hoc');
  assert.equal(row.ok, true);
  assert.equal(row.session_id, sid);
  assert.equal(row.attempts, 1);
  assert.ok(row.cost_usd > 0 && row.num_turns === 2 && row.context > 0 && row.ended_at && row.duration_s > 0);
  assert.match(row.run, /^\d{8}-\d{6}-[0-9a-f]{6}$/);
  assert.equal((row as unknown as { request?: string }).request, 'write hello', 'the request as typed (flower ui shows it)');
  for (const k of [
    'step',
    'session_id',
    'ok',
    'cost_usd',
    'num_turns',
    'text',
    'error',
    'started_at',
    'ended_at',
    'attempts',
    'errors',
    'resumed',
    'retired',
    'context',
    'duration_s',
    'run',
  ]) {
    assert.ok(k in row, `manifest row lacks ${k}`);
  }
  const stored = entries(p).filter((e) => e.key.endsWith(`/${sid}`));
  assert.ok(
    stored.some((e) => e.payload.includes('"tool_use"') && e.payload.includes('"Write"')),
    'the tool call is in sessions.db',
  );
  assert.ok(stored.some((e) => e.payload.includes('Wrote hello.txt.')));
});

test('--resume sends the earlier conversation and keeps the id; --fork gives a new id with the old history', async () => {
  const p = project('resume');
  const env = testEnv(p, sim.url);
  const base = ['-w', p.ws, '-r', p.runs];
  sim.reset();
  sim.enqueue({ type: 'text', text: 'the answer is 4271' }, { type: 'text', text: 'still 4271' }, { type: 'text', text: 'forked 4271' });
  const first = await cli(['once', 'remember 4271', ...base], { cwd: p.dir, env });
  const sid = /session ([0-9a-f-]{36})/.exec(first.stdout)![1]!;
  const second = await cli(['once', 'what was it?', '--resume', sid, ...base], { cwd: p.dir, env });
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, new RegExp(`session ${sid}`));
  const seen = transcriptOf(sim.messageRequests()[1]!.body).join('\n');
  assert.match(seen, /remember 4271/);
  assert.match(seen, /the answer is 4271/);
  const third = await cli(['once', 'fork it', '--resume', sid, '--fork', ...base], { cwd: p.dir, env });
  assert.equal(third.code, 0, third.stderr);
  const forked = /session ([0-9a-f-]{36})/.exec(third.stdout)![1]!;
  assert.notEqual(forked, sid);
  const seen3 = transcriptOf(sim.messageRequests()[2]!.body).join('\n');
  assert.match(seen3, /remember 4271/);
  assert.match(seen3, /still 4271/);
  const rows = readJson<Row[]>(path.join(p.runs, 'manifest.json'));
  assert.deepEqual(
    rows.map((r) => r.session_id),
    [sid, sid, forked],
  );
});

test('two once processes at the same time in one folder both keep their manifest row', async () => {
  const p = project('parallel');
  const env = testEnv(p, sim.url);
  sim.reset();
  sim.enqueue({ type: 'text', text: 'one', delayMs: 300 }, { type: 'text', text: 'two', delayMs: 300 });
  const [a, b] = await Promise.all([
    cli(['once', 'a', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env }),
    cli(['once', 'b', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env }),
  ]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  const rows = readJson<Row[]>(path.join(p.runs, 'manifest.json'));
  assert.equal(rows.length, 2);
  assert.notEqual(rows[0]!.run, rows[1]!.run);
  assert.ok(rows.every((r) => r.ok));
});

test('bad input: no credentials exit 1 naming the variables; an unknown permission mode exits 2 with usage', async () => {
  const p = project('bad');
  const env = testEnv(p, sim.url);
  delete (env as Record<string, string | undefined>).ANTHROPIC_API_KEY;
  const noKey = await cli(['once', 'hi', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env });
  assert.equal(noKey.code, 1);
  assert.match(noKey.stderr, /ANTHROPIC_API_KEY/);
  assert.match(noKey.stderr, /ANTHROPIC_AUTH_TOKEN/);
  assert.match(noKey.stderr, /\.env/);
  assert.doesNotMatch(noKey.stderr, /\n\s+at /, 'no stack trace');
  const yolo = await cli(['once', 'hi', '-p', 'yolo'], { cwd: p.dir, env: testEnv(p, sim.url) });
  assert.equal(yolo.code, 2);
  assert.match(yolo.stderr, /yolo/);
  assert.match(yolo.stderr, /default, acceptEdits, plan, bypassPermissions/);
});

test('a key in ./.env is found when the environment has none', async () => {
  const p = project('dotenv');
  const env = testEnv(p, sim.url);
  delete (env as Record<string, string | undefined>).ANTHROPIC_API_KEY;
  fs.writeFileSync(path.join(p.dir, '.env'), 'ANTHROPIC_API_KEY="sk-from-dotenv"\n');
  sim.reset();
  sim.enqueue({ type: 'text', text: 'ok' });
  const r = await cli(['once', 'hi', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(sim.messageRequests()[0]!.headers['x-api-key'], 'sk-from-dotenv');
  const manifest = fs.readFileSync(path.join(p.runs, 'manifest.json'), 'utf8');
  assert.doesNotMatch(manifest, /sk-from-dotenv/, 'no secret in the manifest');
});

test('an unwritable run dir exits 1 naming the path; a corrupt manifest is kept aside with a warning', async () => {
  const p = project('dirs');
  const env = testEnv(p, sim.url);
  const blocker = path.join(p.dir, 'blocker');
  fs.writeFileSync(blocker, 'a file, not a folder');
  const bad = await cli(['once', 'hi', '-r', path.join(blocker, 'runs')], { cwd: p.dir, env });
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, new RegExp(path.join(blocker, 'runs').replace(/[/.]/g, '\\$&')));
  assert.doesNotMatch(bad.stderr, /\n\s+at /);

  fs.mkdirSync(p.runs, { recursive: true });
  fs.writeFileSync(path.join(p.runs, 'manifest.json'), '[{"step": "half-writ');
  sim.reset();
  sim.enqueue({ type: 'text', text: 'ok' });
  const r = await cli(['once', 'hi', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /manifest.*corrupt|kept it as/);
  const aside = fs.readdirSync(p.runs).filter((f) => f.startsWith('manifest.json.corrupt-'));
  assert.equal(aside.length, 1);
  assert.equal(fs.readFileSync(path.join(p.runs, aside[0]!), 'utf8'), '[{"step": "half-writ');
  assert.equal(readJson<Row[]>(path.join(p.runs, 'manifest.json')).length, 1);
});

test('-v prints the effective configuration with the key masked, never the key itself', async () => {
  const p = project('verbose');
  sim.reset();
  sim.enqueue({ type: 'text', text: 'ok' });
  const env = { ...testEnv(p, sim.url), ANTHROPIC_API_KEY: 'sk-ant-very-secret-value', COLUMNS: '60' };
  const r = await cli(['once', 'hi', '-v', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`^\\. endpoint ${sim.url.replace(/[.]/g, '\\.')}$`, 'm'));
  assert.match(r.stderr, /^\. credential ANTHROPIC_API_KEY sk-a… \(24 chars\)$/m);
  // one labelled line per setting, each fitting 60 columns (a lone long path may stand wider, whole)
  for (const label of ['model', 'handoff', 'store', '.env files read:', 'tools write only:', 'commands never see:']) {
    assert.match(r.stderr, new RegExp(`^\\. ${label.replace(/[.]/g, '\\.')} `, 'm'), label);
  }
  for (const l of r.stderr.split('\n')) assert.ok(width(l) <= 60 || !/\s/.test(l.trim()), `${width(l)}: ${l}`);
  assert.doesNotMatch(r.stderr + r.stdout, /very-secret/);
  for (const f of ['manifest.json']) assert.doesNotMatch(fs.readFileSync(path.join(p.runs, f), 'utf8'), /very-secret/);
});

test('--json prints the run as NDJSON events ending in the step result', async () => {
  const p = project('json');
  sim.reset();
  sim.enqueue({ type: 'tool_use', name: 'Bash', input: { command: 'echo hi', description: 'hi' } }, { type: 'text', text: 'said hi' });
  const r = await cli(['once', 'say hi', '--json', '-t', 'Bash', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url) });
  assert.equal(r.code, 0, r.stderr);
  const events = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { kind: string; tool?: string; text?: string; raw?: unknown; ok?: boolean });
  assert.ok(events.some((e) => e.kind === 'tool_call' && e.tool === 'Bash'));
  assert.ok(events.some((e) => e.kind === 'text' && e.text === 'said hi'));
  assert.ok(
    events.every((e) => e.raw === undefined),
    'no raw SDK messages',
  );
  assert.deepEqual([events.at(-1)!.kind, events.at(-1)!.ok], ['step_result', true]);
});

for (const [what, id] of [
  ['a malformed id', 'nonsense'],
  ['an unknown well-formed uuid', '0b8f2c1e-1111-4222-8333-944455556666'],
] as const) {
  test(`--resume with ${what}: exit 1 at once naming the id and flower log, no model call, no binary usage text`, async () => {
    const p = project('resume-bad');
    sim.reset();
    // a first session, so sessions.db exists and holds something else
    sim.enqueue({ type: 'text', text: 'first' });
    assert.equal((await cli(['once', 'hi', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url, { FLOWER_MAX_ATTEMPTS: '6' }) })).code, 0);
    const before = sim.messageRequests().length;
    const r = await cli(['once', 'x', '--resume', id, '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url, { FLOWER_MAX_ATTEMPTS: '6' }) });
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.ok(r.stderr.includes(id), r.stderr);
    assert.match(r.stderr, /flower log/);
    assert.match(r.stderr, /sessions\.db/);
    assert.doesNotMatch(r.stdout + r.stderr, /Usage:|--print|Options:/, 'no usage text of the binary');
    assert.equal(sim.messageRequests().length, before, 'no model call');
    const rows = readJson<Row[]>(path.join(p.runs, 'manifest.json'));
    assert.equal(rows.length, 1, 'nothing recorded for a resume that never ran');
  });
}

test('an unreachable endpoint: once says so at once (host:port unreachable; waiting), as the default flow does', async () => {
  const p = project('once-offline');
  // a port that was just free: nothing listens on it
  const port = await new Promise<number>((resolve) => {
    const srv = net.createServer().listen(0, '127.0.0.1', () => {
      const { port: free } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(free));
    });
  });
  const env = testEnv(p, `http://127.0.0.1:${port}`);
  // the binary's own retries as a person has them
  delete (env as Record<string, string | undefined>).FLOWER_CLI_RETRIES;
  const run = startCli(['once', 'hi', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env });
  let stderr = '';
  run.child.stderr!.on('data', (c: string) => (stderr += c));
  try {
    await until('the reachability notice', () => stderr.includes(`! 127.0.0.1:${port} unreachable; waiting up to 60 min`), 60_000);
  } finally {
    run.child.kill('SIGTERM');
  }
  await run.done;
});
