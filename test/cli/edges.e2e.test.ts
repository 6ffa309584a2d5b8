/**
 * The command line's edges: a typo of a command costs nothing, --json is NDJSON on every command, a
 * closed pipe ends quietly, status/log find the project like git and respect -w, and a request can come
 * on stdin.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { main } from '../../src/cli/index.js';
import { nearMiss, editDistance } from '../../src/cli/nearmiss.js';
import { COMMANDS } from '../../src/cli/program.js';
import { startSim, type Sim, type SimItem } from '../../src/sim/index.js';
import { BIN, cli, project, startCli, testEnv, until } from '../helpers/e2e.js';

let sim: Sim;
before(async () => {
  sim = await startSim({ port: 0 });
});
after(async () => {
  await sim.close();
});

async function inProcess(argv: string[], cwd: string, env: Record<string, string | undefined>) {
  let out = '';
  let err = '';
  const code = await main(argv, { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, env, cwd });
  return { code, out, err };
}

const clarifier = { firstUserIncludes: 'submit_brief' };
const brief = (goal: string): SimItem[] => [
  {
    type: 'tool_use',
    match: clarifier,
    name: 'mcp__human__submit_brief',
    input: { goal, acceptance: ['运行 x 得到 y'], boundaries: ['无'], unknowns: ['无'] },
  },
  { type: 'text', match: clarifier, text: 'ok' },
];

test('edit distance counts a swap of neighbours as one edit', () => {
  const cases: Array<[string, string, number]> = [
    ['statsu', 'status', 1],
    ['stauts', 'status', 1],
    ['dmeo', 'demo', 1],
    ['setpu', 'setup', 1],
    ['', 'go', 2],
    ['fix', 'sim', 2],
    ['status', 'status', 0],
    ['sttaus', 'status', 1],
    ['satus', 'status', 1],
  ];
  for (const [a, b, d] of cases) assert.equal(editDistance(a, b), d, `${a} → ${b}`);
});

test('a single bare word near a command is a typo; sentences and other words are requests', () => {
  const typos: Array<[string, string]> = [
    ['statsu', 'status'],
    ['stauts', 'status'],
    ['dmeo', 'demo'],
    ['setpu', 'setup'],
    ['Status', 'status'],
    ['STATUS', 'status'],
    ['sttaus', 'status'],
    ['stat', 'status'],
    ['lgo', 'log'],
    ['logs', 'log'],
    ['rnu', 'run'],
    ['onec', 'once'],
    ['smi', 'sim'],
    ['hepl', 'help'],
    ['demos', 'demo'],
    ['bequset', 'bequest'],
  ];
  for (const [w, cmd] of typos) assert.equal(nearMiss([w], COMMANDS), cmd, w);
  const requests: string[][] = [
    ['fix'],
    ['refactor'],
    ['test'],
    ['lint'],
    ['build'],
    ['deploy'],
    ['translate'],
    ['benchmark'],
    ['写个脚本'],
    ['statsu', 'the', 'server'],
    ['fix the status page'],
    ['status?'],
    ['status.md'],
    ['./setup'],
    ['go'],
  ];
  for (const words of requests) assert.equal(nearMiss(words, COMMANDS), null, words.join(' '));
});

test('`flower statsu` and friends: exit 2 with the suggestion, no model call, nothing created', async () => {
  for (const word of ['statsu', 'stauts', 'dmeo', 'setpu', 'lgo']) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-typo-'));
    sim.reset();
    const before = sim.requests.length;
    const r = await inProcess([word], dir, { FLOWER_LANG: 'en', ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: 'sk-test', HOME: dir });
    assert.equal(r.code, 2, `${word}: ${r.err}`);
    assert.match(r.err, new RegExp(`unknown command '${word}' — did you mean \`\\w+\`\\? To ask flower to work on it, quote a sentence`));
    assert.equal(r.out, '');
    assert.deepEqual(fs.readdirSync(dir), [], `${word} created nothing`);
    assert.equal(sim.requests.length, before, `${word} made no model call`);
  }
  const zh = await inProcess(['statsu'], os.tmpdir(), { FLOWER_LANG: 'zh' });
  assert.equal(zh.code, 2);
  assert.match(zh.err, /没有 'statsu' 这个命令——是想用 `status` 吗/);
});

test('a folder in progress is not woken by a typo: the lineage and the manifest stay as they were', async () => {
  const p = project('typo-wake');
  fs.mkdirSync(p.runs, { recursive: true });
  const lineage = JSON.stringify({ workspace: p.ws, woke: 3, steps: { 干活: 'sid-w' } });
  fs.writeFileSync(path.join(p.runs, 'lineage.json'), lineage);
  const r = await cli(['stauts', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url) });
  assert.equal(r.code, 2, r.stderr);
  assert.equal(fs.readFileSync(path.join(p.runs, 'lineage.json'), 'utf8'), lineage);
  assert.deepEqual(fs.readdirSync(p.runs), ['lineage.json']);
  assert.deepEqual(fs.readdirSync(p.ws), []);
});

test('a real one-word request still runs: it reaches the model as the request', async () => {
  const p = project('one-word');
  sim.reset();
  sim.enqueue(...brief('refactor'));
  const r = await cli(['refactor', '--clarify-only', '--timeout', '0', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url), timeoutMs: 120_000 });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.match(JSON.stringify(sim.messageRequests()[0]!.body), /refactor/);
  // and `flower go statsu` says it on purpose
  sim.reset();
  sim.enqueue(...brief('statsu'));
  const q = project('go-typo');
  const g = await cli(['go', 'statsu', '--clarify-only', '--timeout', '0', '-w', q.ws, '-r', q.runs], {
    cwd: q.dir,
    env: testEnv(q, sim.url),
    timeoutMs: 120_000,
  });
  assert.equal(g.code, 0, g.stderr + g.stdout);
  assert.match(JSON.stringify(sim.messageRequests()[0]!.body), /statsu/);
});

test('a request piped on stdin runs the flow (echo "…" | flower --timeout 0)', async () => {
  const p = project('stdin');
  sim.reset();
  sim.enqueue(...brief('stdin request'));
  const env = testEnv(p, sim.url);
  // a real shell pipe: stdin is a FIFO, as in a terminal
  const child = spawn(
    '/bin/sh',
    ['-c', `printf '%s\\n' 'convert notes from stdin to html' | "${process.execPath}" "${BIN}" --timeout 0 --clarify-only -w "${p.ws}" -r "${p.runs}"`],
    { cwd: p.dir, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  assert.equal(code, 0, err + out);
  assert.match(JSON.stringify(sim.messageRequests()[0]!.body), /convert notes from stdin to html/);
  assert.ok(fs.existsSync(path.join(p.ws, '.flower', 'notes', '需求.md')));
});

test('an empty pipe is still "nothing to do" (a usage error: exit 2), and creates nothing', async () => {
  const p = project('stdin-empty');
  const child = spawn('/bin/sh', ['-c', `printf '' | "${process.execPath}" "${BIN}" --timeout 0 -w "${p.ws}" -r "${p.runs}"`], {
    cwd: p.dir,
    env: testEnv(p, sim.url),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
  assert.equal(await new Promise<number | null>((r) => child.on('close', r)), 2);
  assert.match(err, /nothing to do/);
  assert.equal(fs.existsSync(p.runs), false);
});

function manifestRows(n: number) {
  return Array.from({ length: n }, (_, i) => ({
    step: `step-${i}`,
    session_id: 's',
    ok: true,
    cost_usd: 0.01,
    num_turns: 1,
    text: '',
    error: null,
    started_at: '2026-11-29T10:00:00.000Z',
    ended_at: '2026-11-29T10:00:01.000Z',
    attempts: 1,
    errors: [],
    resumed: false,
    retired: [],
    context: 10,
    duration_s: 1,
    run: 'r1',
  }));
}

function projectWithRecords(rows = 3) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-find-'));
  const runs = path.join(dir, 'runs');
  fs.mkdirSync(path.join(dir, 'src', 'deep'), { recursive: true });
  fs.mkdirSync(runs);
  fs.writeFileSync(path.join(runs, 'lineage.json'), JSON.stringify({ workspace: dir, woke: 2, steps: { 干活: 'sid-work' } }));
  fs.writeFileSync(path.join(runs, 'manifest.json'), JSON.stringify(manifestRows(rows)));
  return { dir, runs };
}

test('status and log from a subfolder find the project upward, like git', async () => {
  const f = projectWithRecords();
  const sub = path.join(f.dir, 'src', 'deep');
  const s = await inProcess(['status'], sub, { FLOWER_LANG: 'en' });
  assert.equal(s.code, 0, s.err);
  assert.match(s.out, /woken 2 times/);
  assert.doesNotMatch(s.out, /has not run here yet/);
  const j = JSON.parse((await inProcess(['status', '--json'], sub, { FLOWER_LANG: 'en' })).out) as { workspace: string; runDir: string };
  assert.equal(j.workspace, f.dir);
  assert.equal(j.runDir, f.runs);
  const l = await inProcess(['log', '-n', '2'], sub, { FLOWER_LANG: 'en' });
  // one line per row, in order (the columns around the step name belong to the log's own layout)
  assert.deepEqual(
    l.out
      .trim()
      .split('\n')
      .map((x) => /\bstep-\d\b/.exec(x)?.[0]),
    ['step-1', 'step-2'],
  );
  assert.deepEqual(fs.readdirSync(sub), [], 'nothing written in the subfolder');
});

test('status -w OTHER reports OTHER, not the current folder; a missing -w folder fails in one line', async () => {
  const here = projectWithRecords();
  const other = projectWithRecords();
  fs.writeFileSync(path.join(other.runs, 'lineage.json'), JSON.stringify({ workspace: other.dir, woke: 7, steps: {} }));
  const s = JSON.parse((await inProcess(['status', '--json', '-w', other.dir], here.dir, { FLOWER_LANG: 'en' })).out) as { workspace: string; woke: number };
  assert.equal(s.workspace, other.dir);
  assert.equal(s.woke, 7);
  const fresh = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-fresh-'));
  const n = await inProcess(['status', '-w', fresh], here.dir, { FLOWER_LANG: 'en' });
  assert.equal(n.code, 0);
  assert.match(n.out, /has not run here yet/);
  assert.doesNotMatch(n.out, /woken/);
  const missing = path.join(here.dir, 'no', 'such');
  for (const cmd of ['status', 'log']) {
    const m = await inProcess([cmd, '-w', missing], here.dir, { FLOWER_LANG: 'en' });
    assert.equal(m.code, 1, cmd);
    assert.equal(m.err, `x no such folder: ${missing}\n`);
    assert.equal(m.out, '');
  }
  assert.equal(fs.existsSync(missing), false, 'status does not create the folder');
});

test('status -w finds the runs a `flower -w OTHER` run kept in the folder it started from', async () => {
  const start = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-start-'));
  const other = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-other-'));
  fs.mkdirSync(path.join(start, 'runs'));
  fs.writeFileSync(path.join(start, 'runs', 'lineage.json'), JSON.stringify({ workspace: other, woke: 4, steps: {} }));
  const s = JSON.parse((await inProcess(['status', '--json', '-w', other], start, { FLOWER_LANG: 'en' })).out) as {
    workspace: string;
    woke: number;
    runDir: string;
  };
  assert.deepEqual([s.workspace, s.woke, s.runDir], [other, 4, path.join(start, 'runs')]);
});

test('--json: status, log, setup and sim print only JSON lines on stdout', async () => {
  const f = projectWithRecords(4);
  const parse = (out: string) =>
    out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  assert.equal(parse((await inProcess(['status', '--json'], f.dir, {})).out).length, 1);
  assert.equal(parse((await inProcess(['log', '--json'], f.dir, {})).out).length, 4);
  // setup: prompts on stderr, one JSON line on stdout
  const p = project('setup-json');
  const setup = spawn(process.execPath, [BIN, 'setup', '--json'], {
    cwd: p.dir,
    env: { ...testEnv(p, sim.url), FLOWER_NO_PROBE: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let sOut = '';
  setup.stdout.setEncoding('utf8').on('data', (d: string) => (sOut += d));
  setup.stdin.end('sk-ant-json-secret\n\n\n');
  assert.equal(await new Promise<number | null>((r) => setup.on('close', r)), 0);
  const [row] = parse(sOut);
  assert.deepEqual([row!.kind, row!.written, row!.probe], ['setup', true, null]);
  assert.doesNotMatch(sOut, /json-secret/);
  // sim: the listening line is JSON with the URL and the env to export
  const script = path.join(p.dir, 'scenario.json');
  fs.writeFileSync(script, JSON.stringify([{ type: 'text', text: 'hi' }]));
  const { child, done } = startCli(['sim', '--json', '--script', script], { cwd: p.dir, env: testEnv(p, sim.url) });
  let simOut = '';
  child.stdout!.on('data', (d: Buffer) => (simOut += d.toString()));
  await until('the sim to listen', () => simOut.includes('\n'));
  const listening = parse(simOut)[0]!;
  assert.equal(listening.kind, 'listening');
  assert.match(String(listening.url), /^http:\/\/127\.0\.0\.1:\d+$/);
  child.kill('SIGTERM');
  await done;
});

test('flower demo --json prints only JSON lines, and they tell the whole story', async () => {
  const p = project('demo-json');
  const env = testEnv(p, 'http://127.0.0.1:9');
  delete (env as Record<string, string | undefined>).ANTHROPIC_API_KEY;
  const r = await cli(['demo', '--json', '--dir', path.join(p.dir, 'demo')], { cwd: p.dir, env, timeoutMs: 240_000 });
  assert.equal(r.code, 0, r.stderr);
  const lines = r.stdout.trim().split('\n');
  const events = lines.map((l, i) => {
    try {
      return JSON.parse(l) as { kind: string; text?: string };
    } catch {
      throw new Error(`line ${i + 1} is not JSON: ${l}`);
    }
  });
  assert.ok(events.filter((e) => e.kind === 'step_result').length >= 5, "both runs' steps are there");
  assert.ok(events.some((e) => e.kind === 'note' && /flower demo/.test(e.text ?? '')));
  assert.ok(events.some((e) => e.kind === 'note' && /md2html\.mjs/.test(e.text ?? '')));
});

test('a closed pipe ends quietly: `flower log --json | head -1` leaves no stack trace', async () => {
  const f = projectWithRecords(20_000);
  for (const args of ['log --json -n 100000', 'log -n 100000', 'status --json']) {
    const child = spawn('/bin/bash', ['-c', `"${process.execPath}" "${BIN}" ${args} | head -c 1 >/dev/null; echo "flower=\${PIPESTATUS[0]}" >&2`], {
      cwd: f.dir,
      env: { PATH: process.env.PATH ?? '', HOME: f.dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    await new Promise((r) => child.on('close', r));
    assert.match(err, /flower=0\s*$/, `${args}: ${err}`);
    assert.doesNotMatch(err, /Error|EPIPE|at /, args);
  }
});

test("--help, usage errors and flower's own errors speak the terminal's language", async () => {
  const zh = await inProcess(['--help'], os.tmpdir(), { FLOWER_LANG: 'zh' });
  assert.equal(zh.code, 0);
  assert.match(zh.out, /^用法: flower/m);
  assert.match(zh.out, /默认流程:确认需求\(需求\.md\)/);
  assert.match(zh.out, /选项:/);
  assert.doesNotMatch(zh.out, /the default flow/);
  const zhLocale = await inProcess(['setup', '--help'], os.tmpdir(), { LANG: 'zh_CN.UTF-8' });
  assert.match(zhLocale.out, /把 API key 或网关 token/);
  for (const env of [{ LANG: 'C.UTF-8' }, { LC_ALL: 'C', LANG: 'zh_CN.UTF-8' }, {}]) {
    const en = await inProcess(['--help'], os.tmpdir(), env);
    assert.match(en.out, /^Usage: flower/m, JSON.stringify(env));
    assert.doesNotMatch(en.out.replace(/[^\n]*\.md[^\n]*|确认需求|设定目标|干活/g, ''), /[\u4e00-\u9fff]/, `${JSON.stringify(env)}: no Chinese but file names`);
  }
  const bad = await inProcess(['log', '-n', 'abc'], os.tmpdir(), { FLOWER_LANG: 'zh' });
  assert.equal(bad.code, 2);
  assert.match(bad.err, /^x 选项 '-n, --limit <n>' 的值 'abc' 无效。'abc' 不是正整数 —— 见 flower log --help$/m);
  const noKey = await inProcess(['write a script', '--timeout', '0'], fs.mkdtempSync(path.join(os.tmpdir(), 'flower-zh-')), {
    FLOWER_LANG: 'zh',
    HOME: os.tmpdir() + '/no-such-home',
  });
  assert.equal(noKey.code, 1);
  assert.match(noKey.err, /没有凭据/);
});
