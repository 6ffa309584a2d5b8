/**
 * Resilience end to end: the network drops, flower waits, resumes the same session, and the model
 * never sees the debris. The real claude binary, flower's CLI, the sim — waits shortened through env.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startSim, type Sim } from '../../src/sim/index.js';
import { cli, project, readJson, startCli, testEnv, transcriptOf, until } from '../helpers/e2e.js';

let sim: Sim;
before(async () => {
  sim = await startSim({ port: 0 });
});
after(async () => {
  await sim.close();
});

interface Row {
  ok: boolean;
  session_id: string;
  attempts: number;
  resumed: boolean;
  errors: string[];
  error: string | null;
  failure?: { kind: string; retryable: boolean; message: string; status?: number };
}

const fast = { FLOWER_BASE_DELAY: '0.05', FLOWER_MAX_DELAY: '0.2', FLOWER_PROBE_INTERVAL: '0.3', FLOWER_PROBE_TIMEOUT: '1', FLOWER_MAX_OFFLINE_WAIT: '60' };

test('the endpoint goes away after a tool turn and comes back: the same session resumes, with no API error in what the model sees', async () => {
  const p = project('outage');
  sim.reset();
  sim.enqueue(
    { type: 'tool_use', name: 'Bash', input: { command: 'echo first-turn-done', description: 'marker' } },
    { type: 'shutdown' },
    { type: 'text', text: 'finished after the outage' },
  );
  const { done } = startCli(['once', 'do the thing', '-t', 'Bash', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url, fast) });
  await until('the outage', () => sim.messageRequests().length >= 2);
  await new Promise((r) => setTimeout(r, 3000));
  const before = sim.messageRequests().length;
  await sim.restart();
  const r = await done;
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /finished after the outage/);
  const row = readJson<Row[]>(path.join(p.runs, 'manifest.json'))[0]!;
  assert.equal(row.ok, true);
  assert.ok(row.attempts >= 2, `attempts ${row.attempts}`);
  assert.equal(row.resumed, true);
  const afterOutage = sim.messageRequests().slice(before);
  assert.ok(afterOutage.length >= 1);
  const seen = transcriptOf(afterOutage[0]!.body).join('\n');
  assert.doesNotMatch(seen, /API Error/);
  assert.doesNotMatch(seen, /ECONNREFUSED/);
  assert.match(seen, /do the thing/);
  assert.match(seen, /first-turn-done/, 'the earlier tool turn is intact');
  for (const req of afterOutage) assert.equal(req.headers['x-claude-code-session-id'], row.session_id);
});

test('a 401 stops at once with a message about authentication and an ok:false row', async () => {
  const p = project('auth');
  sim.reset();
  sim.enqueue({ type: 'error', status: 401, sticky: true });
  const r = await cli(['once', 'hi', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url, fast) });
  // "at once" counted, not timed (a wall-clock bound failed at load 9: a cold start alone took 18 s)
  assert.equal(sim.messageRequests().length, 1, 'one model call: neither the binary nor flower tried again');
  assert.equal(r.code, 1);
  assert.match(r.stderr, /authentication/i);
  const row = readJson<Row[]>(path.join(p.runs, 'manifest.json'))[0]!;
  assert.equal(row.ok, false);
  assert.equal(row.attempts, 1);
  // typed where it happened (the binary's authentication_failed), readable text kept in `error`
  assert.equal(row.failure?.kind, 'auth');
  assert.equal(row.failure?.retryable, false);
  assert.equal(row.failure?.status, 401);
  assert.match(row.error ?? '', /authentication/i);
  sim.reset();
});

test('529 twice then an answer: ok, with every attempt recorded', async () => {
  const p = project('overload');
  sim.reset();
  sim.enqueue({ type: 'error', status: 529, times: 2 }, { type: 'text', text: 'made it' });
  const r = await cli(['once', 'hi', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url, fast) });
  assert.equal(r.code, 0, r.stderr);
  const row = readJson<Row[]>(path.join(p.runs, 'manifest.json'))[0]!;
  assert.equal(row.ok, true);
  assert.equal(row.failure, undefined, 'an ok row carries no failure');
  assert.equal(row.attempts, 3);
  assert.equal(row.errors.filter((e) => /529|overloaded/i.test(e)).length, 2);
  assert.equal(row.resumed, true, 'the session existed, so it was resumed rather than restarted');
});

test('a model that never answers is interrupted by the watchdog, and the step resumes and completes', async () => {
  const p = project('hang');
  sim.reset();
  sim.enqueue({ type: 'hang' }, { type: 'text', text: 'answered at last' });
  const r = await cli(['once', 'hi', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url, { ...fast, FLOWER_WATCHDOG: '2' }) });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /answered at last/);
  const row = readJson<Row[]>(path.join(p.runs, 'manifest.json'))[0]!;
  assert.equal(row.attempts, 2);
  assert.ok(row.errors.some((e) => /watchdog/.test(e)));
});
