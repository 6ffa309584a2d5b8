#!/usr/bin/env node
/**
 * The fuzz suite (`npm run fuzz`, not part of `npm test`): flower's default flow (and, on some seeds,
 * examples/team.mjs) on the fuzzing model (src/sim/fuzz, docs/sim.md "The fuzzing model"), then a bare
 * `flower` in the same folder. Every run must end within its bound as one of:
 *
 *   achieved    exit 0 and the last judge row's verdict is achieved
 *   clean stop  exit 1, exactly one stderr line `x step '<step>' failed: <reason>`, and that step's
 *               manifest row is ok:false with a typed `failure`
 *   BUG         anything else: a hang, a stack trace, a corrupt or kept-aside file, a row ok:true whose
 *               document failed its schema, an achieved verdict that did not judge, spending past limits,
 *               the bare `flower` afterwards crashing or hanging (it may continue, or exit 1 saying why)
 *
 *   node scripts/fuzz.mjs [--seeds N] [--seed S] [--jobs J] [--only KIND|none] [--flow default|team|both]
 *                         [--team-every K] [--rate R] [--timeout SEC] [--keep] [--verbose] [--report FILE]
 *
 * Seeds S..S+N-1 (default 1..100; `--seed S` alone runs just S). Each seed's fault kind is drawn from the
 * catalogue's weights (plus `none`, a fault-free baseline) unless --only names one; the model then spoils
 * a `--rate` share of the requests with that kind. Every BUG line prints its replay command.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'flower.js');
const TEAM = path.join(ROOT, 'examples', 'team.mjs');
const { startSim, fuzzModel, fuzzRoleOf, FAULTS, FAULT_KINDS } = await import(path.join(ROOT, 'dist', 'sim', 'index.js'));
const { Brief, Goal, Verdict, FAILURE_KINDS } = await import(path.join(ROOT, 'dist', 'index.js'));

// ── options ──────────────────────────────────────────────────────────────────────────────────
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};
const flag = (name) => argv.includes(`--${name}`);
const SEED_GIVEN = opt('seed', null) !== null;
const BASE_SEED = Number(opt('seed', '1'));
const SEEDS = Number(opt('seeds', SEED_GIVEN ? '1' : '100'));
const JOBS = Math.max(1, Number(opt('jobs', '1')));
const ONLY = opt('only', null);
const FLOW = opt('flow', 'both');
const TEAM_EVERY = Math.max(1, Number(opt('team-every', '5')));
const RATE = Number(opt('rate', '0.25'));
const BOUND_S = Number(opt('timeout', '300'));
const KEEP = flag('keep');
const VERBOSE = flag('verbose');
const ASK = 'write a markdown-to-html script';
// the limits a run must stay within (flower's defaults; the env below does not change them)
const ROUNDS = 3;
const MAX_ATTEMPTS = 6;
const REQUEST_CAP = 1000;
const NONE_WEIGHT = 6;

// `--only a,b` mixes kinds in one run (a coordinator's stray verdict only matters when the judge then gives none)
const ONLY_KINDS = ONLY && ONLY !== 'none' ? ONLY.split(',').map((k) => k.trim()) : [];
if (ONLY_KINDS.some((k) => !FAULT_KINDS.includes(k))) {
  console.error(`--only ${ONLY}: not a fault kind; use none, one of ${FAULT_KINDS.join(', ')}, or several joined by commas`);
  process.exit(2);
}
if (!['default', 'team', 'both'].includes(FLOW)) {
  console.error(`--flow ${FLOW}: use default, team or both`);
  process.exit(2);
}

// mulberry32 over a string hash: the seed's fault kind is a function of the seed alone
function draw(key) {
  let a = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) a = Math.imul(a ^ key.charCodeAt(i), 0x01000193) >>> 0;
  a = (a + 0x6d2b79f5) >>> 0;
  let t = a;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

function kindOf(seed) {
  if (ONLY) return ONLY;
  const weights = [['none', NONE_WEIGHT], ...FAULT_KINDS.map((k) => [k, FAULTS[k].weight])];
  let x = draw(`kind|${seed}`) * weights.reduce((s, [, w]) => s + w, 0);
  for (const [k, w] of weights) if ((x -= w) < 0) return k;
  return 'none';
}

function plan() {
  const runs = [];
  for (let seed = BASE_SEED; seed < BASE_SEED + SEEDS; seed++) {
    const kind = kindOf(seed);
    if (FLOW !== 'team') runs.push({ seed, flow: 'default', kind });
    if (FLOW === 'team' || (FLOW === 'both' && (SEED_GIVEN && SEEDS === 1 ? false : seed % TEAM_EVERY === 0))) runs.push({ seed, flow: 'team', kind });
  }
  return runs;
}

const replayOf = (r) => `npm run fuzz -- --seed ${r.seed} --flow ${r.flow} --only ${r.kind}`;

// ── processes ────────────────────────────────────────────────────────────────────────────────
function envFor(dir, url) {
  return {
    PATH: process.env.PATH ?? '',
    HOME: path.join(dir, 'home'),
    XDG_CONFIG_HOME: path.join(dir, 'home', '.config'),
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'sk-test',
    FLOWER_ENV: path.join(dir, '.no-env'),
    FLOWER_LANG: 'en',
    FLOWER_CLI_RETRIES: '0',
    FLOWER_WATCHDOG: '60',
    // failures are waited out quickly (the defaults wait up to an hour)
    FLOWER_BASE_DELAY: '0.2',
    FLOWER_MAX_DELAY: '1',
    FLOWER_PROBE_INTERVAL: '0.5',
    FLOWER_PROBE_TIMEOUT: '1',
    FLOWER_MAX_OFFLINE_WAIT: '60',
  };
}

const stripAnsi = (s) => s.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');

/** One flower command in its own process group, killed (and marked) when it outlives the bound. */
function flower(args, dir, url, log) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: path.join(dir, 'ws'),
      env: envFor(dir, url),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    const t0 = Date.now();
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }, BOUND_S * 1000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      // the process group may outlive flower (a claude child): nothing of a run may linger into the next
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
      const ms = Date.now() - t0;
      fs.appendFileSync(
        log,
        `\n$ flower ${args.map((a) => (/\s/.test(a) ? JSON.stringify(a) : a)).join(' ')}   (exit ${code ?? signal}${timedOut ? ', TIMED OUT' : ''}, ${(ms / 1000).toFixed(1)} s)\n--- stdout\n${stdout}--- stderr\n${stderr}`,
      );
      resolve({ args, code, signal, timedOut, stdout: stripAnsi(stdout), stderr: stripAnsi(stderr), ms });
    });
  });
}

// ── checks on disk ───────────────────────────────────────────────────────────────────────────
function walk(dir) {
  let out = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'home' && e.name !== 'node_modules') out = out.concat(walk(p));
    } else out.push(p);
  }
  return out;
}

function integrity(dir) {
  const problems = [];
  for (const f of walk(dir)) {
    const rel = path.relative(dir, f);
    if (/\.corrupt-|\.aside-|\.kept-/.test(path.basename(f)) || f.split(path.sep).includes('aside')) problems.push({ reason: `kept aside: ${rel}`, file: rel });
    if (f.endsWith('.json')) {
      try {
        JSON.parse(fs.readFileSync(f, 'utf8'));
      } catch (e) {
        problems.push({ reason: `does not parse: ${rel} (${e.message})`, file: rel });
      }
    }
  }
  const db = path.join(dir, 'ws', 'runs', 'sessions.db');
  if (fs.existsSync(db)) {
    const d = new Database(db, { readonly: true });
    try {
      const r = d.pragma('integrity_check', { simple: true });
      if (r !== 'ok') problems.push({ reason: `sessions.db integrity_check: ${r}`, file: 'ws/runs/sessions.db' });
    } finally {
      d.close();
    }
  }
  return problems;
}

const readJson = (f, dflt) => {
  try {
    return JSON.parse(fs.readFileSync(f, 'utf8'));
  } catch {
    return dflt;
  }
};

// ── classification ───────────────────────────────────────────────────────────────────────────
const STOP_LINE = /^x step '([^']+)' failed: (.+)$/;
const CRASH = [
  [/Unhandled|UnhandledPromiseRejection/, 'an unhandled rejection'],
  [/\b(?:TypeError|ReferenceError|RangeError|SyntaxError)\b:/, 'a JavaScript error'],
  [/^\s+at (?:.+ \()?(?:file:\/\/|node:|\/)[^\s)]+:\d+(?::\d+)?\)?$/, 'a stack trace'],
];
const isJudge = (step) => /判定#\d+$/.test(step);
const stepOf = (rows, name) => [...rows].reverse().find((r) => r.step === name || r.step.startsWith(`${name}#`));

function crashLines(res) {
  const out = [];
  for (const [stream, text] of [
    ['stdout', res.stdout],
    ['stderr', res.stderr],
  ]) {
    for (const line of text.split('\n')) {
      const hit = CRASH.find(([re]) => re.test(line));
      if (hit) out.push({ reason: `${hit[1]} on ${stream}`, line: line.trim().slice(0, 300) });
    }
  }
  return out.slice(0, 3);
}

/** How one command ended: achieved, a clean stop, or bugs. */
function classify(res, mine, all, bare) {
  const bugs = [...crashLines(res)];
  const cmd = `flower ${res.args.join(' ')}`.trim();
  if (res.timedOut) return { outcome: 'bug', bugs: [...bugs, { reason: `${cmd}: timed out after ${BOUND_S} s (a hang)` }] };
  if (res.code !== 0 && res.code !== 1)
    return { outcome: 'bug', bugs: [...bugs, { reason: `${cmd}: exit ${res.code ?? res.signal}`, line: res.stderr.trim().split('\n').at(-1) }] };
  const errLines = res.stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  if (res.code === 0) {
    const judge = [...all].reverse().find((r) => isJudge(r.step));
    if (judge?.verdict?.outcome === 'achieved') return { outcome: 'achieved', bugs };
    if (bare && mine.length === 0) return { outcome: 'nothing to do', bugs };
    return {
      outcome: 'bug',
      bugs: [
        ...bugs,
        { reason: `${cmd}: exit 0 but the last judge row is ${judge ? `${judge.step} (${judge.verdict?.outcome ?? 'no verdict'})` : 'missing'}` },
      ],
    };
  }
  const stops = errLines.filter((l) => STOP_LINE.test(l));
  if (stops.length === 0) {
    // a bare flower may refuse with its reason ("nothing to continue here"); the first run must name a step
    if (bare && errLines.length === 1) return { outcome: 'clean stop', line: errLines[0], bugs };
    return { outcome: 'bug', bugs: [...bugs, { reason: `${cmd}: exit 1 without a step line (${errLines.length} stderr lines)`, line: errLines.at(-1) }] };
  }
  if (errLines.length !== 1) bugs.push({ reason: `${cmd}: ${errLines.length} stderr lines, not one`, line: errLines.find((l) => !STOP_LINE.test(l)) });
  const [, step, why] = STOP_LINE.exec(stops[0]);
  const row = stepOf(mine, step);
  if (!row) bugs.push({ reason: `${cmd}: the stop line names '${step}', which has no row of this run`, line: stops[0] });
  else if (row.ok !== false) bugs.push({ reason: `${cmd}: the stop line names '${step}' but its row ${row.step} is ok:${row.ok}`, line: stops[0] });
  else if (!row.failure || !FAILURE_KINDS.includes(row.failure.kind)) {
    bugs.push({
      reason: `${cmd}: the failed row ${row.step} has no typed failure (error: ${JSON.stringify((row.error ?? '').slice(0, 120))})`,
      label: 'untyped-failure',
      file: 'ws/runs/manifest.json',
    });
  }
  if (/判定者没有给出明确结论/.test(why))
    bugs.push({ reason: `${cmd}: the stop line of an English run is in Chinese`, line: stops[0], known: 'verdict-unclear-zh' });
  return { outcome: bugs.length ? 'bug' : 'clean stop', line: stops[0], bugs };
}

/** The last submit_verdict the judge's session got accepted, from the last request of that session. */
function acceptedVerdict(messages) {
  const results = new Map();
  for (const m of messages ?? [])
    for (const b of Array.isArray(m.content) ? m.content : []) if (b?.type === 'tool_result') results.set(b.tool_use_id, b.is_error === true);
  let last = null;
  for (const m of messages ?? []) {
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    for (const b of m.content) if (b?.type === 'tool_use' && /submit_verdict$/.test(b.name) && results.get(b.id) === false) last = b.input;
  }
  return last;
}

const plainCheck = (t) =>
  String(t ?? '')
    .replace(/\s*\[(?:此环境无法验证|cannot verify here)[^\]]*\]\s*$/, '')
    .trim();

/** Rows ok:true whose document is not valid, verdicts that did not judge, limits overspent. */
function rowProblems(rows, ws, judges) {
  const bugs = [];
  const notes = path.join(ws, '.flower', 'notes');
  const goal = Goal.load(path.join(notes, '目标.md'));
  for (const r of rows) {
    if (r.step === '确认需求' && r.ok && !Brief.load(path.join(notes, '需求.md'))?.complete())
      bugs.push({ reason: `row ${r.step} is ok without a complete brief file`, file: 'ws/.flower/notes/需求.md' });
    if (r.step === '设定目标' && r.ok && !Goal.load(path.join(notes, '目标.md'))?.complete())
      bugs.push({ reason: `row ${r.step} is ok without a complete goal file`, file: 'ws/.flower/notes/目标.md' });
    if ((r.attempts ?? 1) > MAX_ATTEMPTS) bugs.push({ reason: `row ${r.step} spent ${r.attempts} attempts (limit ${MAX_ATTEMPTS})` });
    if (!isJudge(r.step) || !r.ok) continue;
    if (!r.verdict) {
      bugs.push({ reason: `judge row ${r.step} is ok:true without a verdict`, known: 'judge-ok-without-verdict', file: 'ws/runs/manifest.json' });
      continue;
    }
    if (r.verdict.outcome !== 'achieved') continue;
    const sub = acceptedVerdict(judges.get(r.session_id));
    const wanted = (goal?.checks ?? []).map(plainCheck);
    if (!sub) {
      // no submission of its own: the verdict must be in its reply, or it came from another session
      if (Verdict.parse(r.text ?? '').state !== 'achieved')
        bugs.push({
          reason: `judge row ${r.step} is achieved, but this judge submitted no verdict and its reply ${JSON.stringify(String(r.text ?? '').slice(0, 60))} says none: the verdict came from another session`,
        });
      else if (r.verdict.total && r.verdict.passed < r.verdict.total)
        bugs.push({ reason: `judge row ${r.step} achieved with ${r.verdict.passed}/${r.verdict.total} checks (no structured verdict)` });
      continue;
    }
    const checks = Array.isArray(sub.checks) ? sub.checks : [];
    if (checks.length === 0) bugs.push({ reason: `judge row ${r.step}: achieved accepted with no checks at all`, known: 'hollow-achieved' });
    else if (checks.some((c) => c.pass === true && !String(c.evidence ?? '').trim()))
      bugs.push({ reason: `judge row ${r.step}: achieved accepted with a pass:true check without evidence`, known: 'no-evidence' });
    const judged = new Set(checks.map((c) => plainCheck(c.item)));
    const missed = wanted.filter((w) => !judged.has(w));
    if (checks.length > 0 && missed.length > 0)
      bugs.push({
        reason: `judge row ${r.step}: achieved accepted judging ${wanted.length - missed.length} of ${wanted.length} goal checks`,
        known: 'partial-verdict',
      });
  }
  // a round is a label (干活·判定#N): the reminder after a round with no verdict is a second row of the same round
  const perRun = new Map();
  for (const r of rows) if (isJudge(r.step)) perRun.set(r.run, (perRun.get(r.run) ?? new Set()).add(r.step));
  for (const [run, labels] of perRun) if (labels.size > ROUNDS) bugs.push({ reason: `run ${run} spent ${labels.size} judge rounds (limit ${ROUNDS})` });
  return bugs;
}

// ── one run ──────────────────────────────────────────────────────────────────────────────────
async function runOne(p, base) {
  const dir = path.join(base, `s${p.seed}-${p.flow}-${p.kind}`);
  const ws = path.join(dir, 'ws');
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'home'), { recursive: true });
  fs.mkdirSync(ws, { recursive: true });
  const log = path.join(dir, 'log.txt');
  const model = fuzzModel(p.kind === 'none' ? { seed: p.seed, rate: 0 } : { seed: p.seed, rate: RATE, only: p.kind.split(',') });
  // the judge sessions' latest requests, to read back which verdict the tool accepted
  const judges = new Map();
  const sim = await startSim({
    port: 0,
    // --keep keeps every request too (sim.jsonl), to see what a replay did differently
    ...(KEEP ? { logFile: path.join(dir, 'sim.jsonl') } : {}),
    defaultItem: (call) => {
      if (fuzzRoleOf(call) === 'judge') judges.set(String(call.headers['x-claude-code-session-id'] ?? ''), call.body.messages);
      return model(call);
    },
  });
  const res = { ...p, dir, replay: replayOf(p), bugs: [], faults: [], requests: 0 };
  const t0 = Date.now();
  try {
    const args = p.flow === 'team' ? ['run', TEAM, '--timeout', '0'] : [ASK, '--timeout', '0'];
    const steps = [];
    for (const [which, cmdArgs] of [
      ['first', args],
      ['bare', []],
    ]) {
      const before = readJson(path.join(ws, 'runs', 'manifest.json'), []).length;
      model.trace.length = 0;
      const r = await flower(cmdArgs, dir, sim.url, log);
      const all = readJson(path.join(ws, 'runs', 'manifest.json'), []);
      const c = classify(r, all.slice(before), all, which === 'bare');
      const faulted = model.trace.filter((d) => d.fault);
      res.requests += model.trace.length;
      res.faults.push(...faulted.map((d) => ({ cmd: which, n: d.n, role: d.role, fault: d.fault, variant: d.variant, what: d.what })));
      if (model.trace.length > REQUEST_CAP) c.bugs.push({ reason: `flower ${cmdArgs.join(' ')}: ${model.trace.length} model requests (cap ${REQUEST_CAP})` });
      steps.push({
        which,
        exit: r.code ?? r.signal,
        timedOut: r.timedOut,
        s: Math.round(r.ms / 100) / 10,
        outcome: c.outcome,
        line: c.line,
        requests: model.trace.length,
        faults: faulted.length,
      });
      res.bugs.push(...c.bugs.map((b) => ({ ...b, cmd: which })));
      if (KEEP) fs.writeFileSync(path.join(dir, `trace-${which}.json`), JSON.stringify(model.trace, null, 1));
      sim.reset();
    }
    res.steps = steps;
    const rows = readJson(path.join(ws, 'runs', 'manifest.json'), []);
    res.bugs.push(...rowProblems(rows, ws, judges), ...integrity(dir));
  } catch (e) {
    res.bugs.push({ reason: `harness: ${e.stack ?? e.message}` });
  } finally {
    await sim.close();
  }
  res.ms = Date.now() - t0;
  const first = res.steps?.[0]?.outcome;
  const fresh = res.bugs.filter((b) => !b.known && !b.label);
  res.outcome = res.bugs.length === 0 ? first : 'bug';
  res.bugClass = res.bugs.length === 0 ? null : fresh.length ? 'new' : res.bugs.some((b) => b.known) ? 'known' : 'untyped';
  if (res.bugs.length === 0 && !KEEP) fs.rmSync(dir, { recursive: true, force: true });
  return res;
}

// ── the table and the report ─────────────────────────────────────────────────────────────────
function table(results) {
  const kinds = [...new Set(['none', ...FAULT_KINDS, ...results.map((r) => r.kind)])].filter((k) => results.some((r) => r.kind === k));
  const head = ['kind', 'runs', 'achieved', 'clean stop', 'bug', 'new', 'known', 'untyped'];
  const rows = kinds.map((k) => {
    const rs = results.filter((r) => r.kind === k);
    const n = (f) => rs.filter(f).length;
    return [
      k,
      rs.length,
      n((r) => r.outcome === 'achieved'),
      n((r) => r.outcome === 'clean stop'),
      n((r) => r.outcome === 'bug'),
      n((r) => r.bugClass === 'new'),
      n((r) => r.bugClass === 'known'),
      n((r) => r.bugClass === 'untyped'),
    ];
  });
  const sum = (i) => rows.reduce((s, r) => s + r[i], 0);
  rows.push(['total', sum(1), sum(2), sum(3), sum(4), sum(5), sum(6), sum(7)]);
  const width = head.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(width[i]) : String(c).padStart(width[i]))).join('  ');
  return [line(head), line(width.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function show(r) {
  const s = (r.steps ?? [])
    .map((x) => `${x.which}: exit ${x.exit}${x.timedOut ? ' (timed out)' : ''} ${x.outcome} ${x.s}s ${x.faults}/${x.requests} faulted`)
    .join(' · ');
  console.log(
    `${r.outcome === 'bug' ? 'BUG ' : 'ok  '} seed ${String(r.seed).padStart(4)} ${r.flow.padEnd(7)} ${r.kind.padEnd(14)} ${r.outcome === 'bug' ? `(${r.bugClass}) ` : `${r.outcome} `}— ${s}`,
  );
  for (const b of r.bugs) {
    console.log(
      `     ${b.known ? `[known: ${b.known}] ` : b.label ? `[${b.label}] ` : ''}${b.reason}${b.line ? `\n       > ${b.line}` : ''}${b.file ? `\n       file: ${path.join(r.dir, b.file)}` : ''}`,
    );
  }
  if (r.outcome === 'bug') console.log(`     replay: ${r.replay}   (folder ${r.dir})`);
  if (VERBOSE && r.outcome === 'bug' && fs.existsSync(path.join(r.dir, 'log.txt'))) console.log(fs.readFileSync(path.join(r.dir, 'log.txt'), 'utf8'));
}

async function main() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-fuzz-'));
  const runs = plan();
  console.log(
    `flower fuzz: ${runs.length} runs (seeds ${BASE_SEED}..${BASE_SEED + SEEDS - 1}, flow ${FLOW}${ONLY ? `, only ${ONLY}` : ''}, rate ${RATE}, bound ${BOUND_S} s per command), ${JOBS} at a time`,
  );
  console.log(`folders: ${base}${KEEP ? '' : ' (runs without a bug are removed)'}`);
  const results = [];
  const queue = [...runs];
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: JOBS }, async () => {
      for (let p = queue.shift(); p; p = queue.shift()) {
        const r = await runOne(p, base);
        results.push(r);
        show(r);
      }
    }),
  );
  results.sort((a, b) => a.seed - b.seed || a.flow.localeCompare(b.flow));
  const t = table(results);
  console.log(`\n${t}\n`);
  const report = opt('report', path.join(base, 'report.json'));
  fs.writeFileSync(
    report,
    JSON.stringify(
      {
        options: { seeds: [BASE_SEED, BASE_SEED + SEEDS - 1], only: ONLY, flow: FLOW, rate: RATE, boundS: BOUND_S, jobs: JOBS },
        minutes: (Date.now() - t0) / 60000,
        table: t,
        results,
      },
      null,
      1,
    ),
  );
  const bugs = results.filter((r) => r.outcome === 'bug');
  console.log(
    `${results.length} runs in ${((Date.now() - t0) / 60000).toFixed(1)} min · ${bugs.length} with bugs (${bugs.filter((r) => r.bugClass === 'new').length} new, ${bugs.filter((r) => r.bugClass === 'known').length} known only, ${bugs.filter((r) => r.bugClass === 'untyped').length} untyped-failure only)`,
  );
  console.log(`report: ${report}`);
  process.exit(bugs.length ? 1 : 0);
}

await main();
