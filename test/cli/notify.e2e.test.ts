/**
 * Notifications end to end: `flower` processes, the real claude binary, the scripted model, and a
 * receiver on 127.0.0.1. Each event kind arrives once with the documented fields and no secret; a
 * command gets the JSON on stdin and no secret variable; a dead receiver (a closed port, one that
 * never answers) changes nothing in the run and delays its end by at most the retry budget.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { RETRY, notificationSchema, type Notification } from '../../src/notify/index.js';
import type { SimItem } from '../../src/sim/index.js';
import { project, readJson, startCli, testEnv, type CliRun, type Project } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

const clarifier = { firstUserIncludes: 'submit_brief' };
const goalSetter = { firstUserIncludes: 'submit_goal' };
const judge = { firstUserIncludes: 'submit_verdict' };
const coordinator = { toolsInclude: 'Agent' };

// a secret the environment holds by name, and one a .env file of the chain holds (not a flower key)
const ENV_SECRET = 'tok-e2e-9f8e7d6c5b4a';
const FILE_SECRET = 'dotenv-pw-1a2b3c4d5e';

function flow(state: 'achieved' | 'unreachable'): SimItem[] {
  return [
    {
      type: 'tool_use',
      match: clarifier,
      name: 'mcp__human__submit_brief',
      input: { goal: 'md2html', acceptance: ['a.md → html'], boundaries: ['no deps'], unknowns: ['stdout'] },
    },
    { type: 'text', match: clarifier, text: 'ok' },
    {
      type: 'tool_use',
      match: goalSetter,
      name: 'mcp__human__submit_goal',
      input: { statement: 'md becomes html', checks: [{ text: 'output has <h1>' }, { text: 'no deps' }] },
    },
    { type: 'text', match: goalSetter, text: 'ok' },
    { type: 'text', match: coordinator, text: 'done' },
    {
      type: 'tool_use',
      match: judge,
      name: 'mcp__human__submit_verdict',
      // the model quoting both secrets: what leaves must not
      input: {
        state,
        reason: state === 'unreachable' ? `needs the key ${ENV_SECRET} and the password ${FILE_SECRET}` : 'all there',
        checks: [
          { item: 'output has <h1>', pass: true, evidence: 'ran it' },
          { item: 'no deps', pass: state === 'achieved', evidence: 'read package.json' },
        ],
      },
    },
    { type: 'text', match: judge, text: 'judged' },
  ];
}

/** A webhook receiver: every POST's JSON, with when it arrived; `hang` never answers. */
async function receiver(o: { hang?: boolean } = {}) {
  const got: Array<{ at: number; body: Notification; type: string }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      got.push({ at: Date.now(), body: JSON.parse(body) as Notification, type: req.headers['content-type'] ?? '' });
      if (!o.hang) res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/topic-${Math.random().toString(36).slice(2)}`;
  const close = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return { got, url, close };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const s = http.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

function envFor(p: Project, extra: Record<string, string> = {}): Record<string, string> {
  const config = path.join(p.home, '.config', 'flower');
  fs.mkdirSync(config, { recursive: true });
  fs.writeFileSync(path.join(config, '.env'), `OTHER_PASSWORD=${FILE_SECRET}\n${extra.CONFIG_LINES ?? ''}`);
  const { CONFIG_LINES: _c, ...rest } = extra;
  return testEnv(p, sim.url, { MY_SERVICE_TOKEN: ENV_SECRET, ...rest });
}

/** Run flower; also when its closing line (the total and the manifest) appeared on stdout. */
async function run(p: Project, args: string[], env: Record<string, string>): Promise<CliRun & { tailMs: number; ms: number }> {
  const t0 = Date.now();
  const { child, done } = startCli([...args, '-w', p.ws, '-r', p.runs], { cwd: p.dir, env });
  let closingAt = 0;
  let out = '';
  child.stdout!.on('data', (c: Buffer | string) => {
    out += String(c);
    if (!closingAt && /manifest\.json/.test(out)) closingAt = Date.now();
  });
  const kill = setTimeout(() => child.kill('SIGKILL'), 240_000);
  const r = await done.finally(() => clearTimeout(kill));
  const end = Date.now();
  return { ...r, tailMs: closingAt ? end - closingAt : Number.NaN, ms: end - t0 };
}

const rows = (p: Project) => readJson<Array<{ step: string; run: string; ok: boolean }>>(path.join(p.runs, 'manifest.json'));

test('a webhook from the config file gets verdict, question, stopped and finished once each, with the documented fields and no secret', async () => {
  const p = project('notify');
  const hook = await receiver();
  try {
    sim.reset();
    sim.enqueue(...flow('unreachable'));
    // the question waits 2 s with nobody to answer: long enough to be a waiting question, then the run stops
    const r = await run(p, ['write md2html', '--timeout', '2'], envFor(p, { CONFIG_LINES: `FLOWER_NOTIFY=${hook.url}\n` }));
    assert.equal(r.code, 1, r.stderr + r.stdout);
    const kinds = hook.got.map((g) => g.body.kind);
    assert.deepEqual(kinds, ['verdict', 'question', 'stopped', 'finished']);
    const run1 = rows(p)[0]!.run;
    for (const { body, type } of hook.got) {
      assert.equal(type, 'application/json');
      notificationSchema.parse(body);
      assert.equal(body.version, 1);
      assert.equal(body.run, run1);
      assert.equal(body.folder, p.dir);
      assert.equal(body.host, os.hostname());
      assert.equal(typeof body.cost_usd, 'number');
      assert.ok(body.step, `${body.kind} names its step`);
    }
    const [v, q, s, f] = hook.got.map((g) => g.body) as [
      Extract<Notification, { kind: 'verdict' }>,
      Extract<Notification, { kind: 'question' }>,
      Extract<Notification, { kind: 'stopped' }>,
      Extract<Notification, { kind: 'finished' }>,
    ];
    assert.equal(v.verdict, 'unreachable');
    assert.deepEqual([v.passed, v.total], [1, 2]);
    assert.match(v.step, /判定#1/);
    assert.match(q.question, /UNREACHABLE/);
    assert.equal(q.options.length, 3);
    assert.equal(q.timeout_s, 2);
    assert.equal(q.answer, 'flower answer 1');
    assert.equal(s.reason, 'unanswered');
    assert.equal(s.continue, 'flower');
    assert.equal(s.step, '干活');
    assert.equal(f.ok, false);
    assert.deepEqual([f.verdict, f.passed, f.total], ['unreachable', 1, 2]);
    assert.ok(f.duration_s > 0 && f.cost_usd > 0);
    const all = JSON.stringify(hook.got);
    assert.ok(!all.includes(ENV_SECRET), 'the environment secret never leaves');
    assert.ok(!all.includes(FILE_SECRET), 'the .env secret never leaves');
    assert.match(v.reason, /needs the key \[secret\] and the password \[secret\]/);
    assert.doesNotMatch(r.stdout + r.stderr, /not delivered/);
  } finally {
    await hook.close();
  }
});

test('--notify-cmd after the command gets the JSON on stdin, and no secret variable in its environment', async () => {
  const p = project('notify-cmd');
  const out = path.join(p.dir, 'got.ndjson');
  const envOut = path.join(p.dir, 'env.txt');
  sim.reset();
  sim.enqueue(...flow('achieved'));
  const r = await run(p, ['write md2html', '--timeout', '0', '--notify-cmd', `cat >> '${out}'; echo >> '${out}'; env > '${envOut}'`], envFor(p));
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const lines = fs.readFileSync(out, 'utf8').split('\n').filter(Boolean);
  assert.equal(lines.length, 1, 'only the end: nothing needed the person');
  const f = notificationSchema.parse(JSON.parse(lines[0]!));
  assert.equal(f.kind, 'finished');
  assert.ok(f.kind === 'finished' && f.ok && f.verdict === 'achieved' && f.passed === 2 && f.total === 2);
  const env = fs.readFileSync(envOut, 'utf8');
  assert.match(env, /^PATH=/m);
  for (const name of ['MY_SERVICE_TOKEN', 'ANTHROPIC_API_KEY', 'FLOWER_NOTIFY_CMD']) assert.doesNotMatch(env, new RegExp(`^${name}=`, 'm'), name);
  assert.ok(!env.includes(ENV_SECRET));
});

/** The same unreachable run with no notification at all: what a dead receiver's run must equal (run once, shared). */
let baseline: Promise<{ r: CliRun & { tailMs: number; ms: number }; p: Project }> | undefined;
function withoutNotifications() {
  baseline ??= (async () => {
    const p = project('notify-base');
    sim.reset();
    sim.enqueue(...flow('unreachable'));
    return { r: await run(p, ['write md2html', '--timeout', '0'], envFor(p)), p };
  })();
  return baseline;
}

for (const dead of ['a closed port', 'a receiver that never answers'] as const) {
  test(`${dead} changes nothing in the run's outcome and delays its end by at most the retry budget`, async () => {
    const hang = dead === 'a receiver that never answers' ? await receiver({ hang: true }) : null;
    const url = hang?.url ?? `http://127.0.0.1:${await closedPort()}/topic`;
    try {
      const { r: without, p: base } = await withoutNotifications();
      const p = project('notify-dead');
      sim.reset();
      sim.enqueue(...flow('unreachable'));
      // the flag before the command once, after it once
      const args = dead === 'a closed port' ? ['write md2html', '--timeout', '0', '--notify', url] : ['--notify', url, 'write md2html', '--timeout', '0'];
      const withDead = await run(p, args, envFor(p));
      assert.equal(withDead.code, without.code, withDead.stderr);
      assert.deepEqual(
        rows(p).map((x) => [x.step, x.ok]),
        rows(base).map((x) => [x.step, x.ok]),
      );
      // the same failure line, and one warning per notification that could not go
      assert.equal(withDead.stderr.split('\n').filter((l) => l.includes('干活')).length, without.stderr.split('\n').filter((l) => l.includes('干活')).length);
      const warnings = withDead.stdout.split('\n').filter((l) => /^! notification '\w+' not delivered to http:\/\/127\.0\.0\.1:\d+/.test(l));
      assert.deepEqual(
        warnings.map((l) => /'(\w+)'/.exec(l)![1]),
        ['verdict', 'stopped', 'finished'],
      );
      assert.ok(!withDead.stdout.includes('/topic'), 'the webhook path (its key) is never shown');
      // the end waits at most the retry budget (plus a process exit on a loaded machine)
      assert.ok(withDead.tailMs <= RETRY.budgetMs + 3000, `ended ${withDead.tailMs} ms after its closing line (budget ${RETRY.budgetMs} ms)`);
      console.log(
        `# ${dead}: run ${withDead.ms} ms (without: ${without.ms} ms), end ${withDead.tailMs} ms after the closing line (without: ${without.tailMs} ms)`,
      );
      if (hang) assert.ok(hang.got.length >= 1, 'the hanging receiver was tried');
    } finally {
      await hang?.close();
    }
  });
}
