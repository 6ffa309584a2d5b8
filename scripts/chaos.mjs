#!/usr/bin/env node
/**
 * The chaos suite (`npm run chaos`, not part of `npm test`): the default flow (`flower "…"`) on a
 * scripted model, killed at random moments, then continued by a bare `flower` in the same folder.
 * Every round must end achieved, with intact files, and the work session that was on disk at the kill
 * must be the one continued.
 *
 *   node scripts/chaos.mjs [--rounds N] [--seed S] [--jobs J] [--kinds kill,term,hup,outage] [--keep] [--verbose]
 *
 * Rounds (seeded, reproducible plan; the seed is printed):
 *   kill    SIGKILL of the whole process group at a random moment inside a phase (start, clarify,
 *           goal, work, worker, judge — spread evenly), then a bare `flower`
 *   term    SIGTERM to the group at a random moment, then a bare `flower`
 *   hup     SIGHUP to the group (a terminal that went away), then a bare `flower`
 *   outage  the model endpoint goes away during the work and comes back: no rerun needed
 *
 * The model is a stateless responder: every answer is computed from the request (which role, what it
 * has already done), so a kill anywhere leaves nothing for a queue to drift on. The judge's verdict is
 * computed from the workspace on disk, never assumed.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'flower.js');
const { startSim, mulberry32 } = await import(path.join(ROOT, 'dist', 'sim', 'index.js'));

// ── options ──────────────────────────────────────────────────────────────────────────────────
const argv = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = argv.indexOf(`--${name}`);
  return i >= 0 && argv[i + 1] !== undefined ? argv[i + 1] : dflt;
};
const flag = (name) => argv.includes(`--${name}`);
const ROUNDS = Number(opt('rounds', '60'));
const SEED = Number(opt('seed', String(Math.floor(Math.random() * 2 ** 31))));
const JOBS = Math.max(1, Number(opt('jobs', '1')));
const KINDS = opt('kinds', 'kill,term,hup,outage')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const KEEP = flag('keep');
const VERBOSE = flag('verbose');
const PROC_TIMEOUT_MS = Number(opt('timeout', '240')) * 1000;

// a tiny seeded generator (mulberry32), so the plan (phases, delays, signals) is reproducible
const rng = mulberry32;

// ── the scripted model ───────────────────────────────────────────────────────────────────────
const WORKER_MARK = '[chaos-worker]';
const RESULT = 'result.txt';
const RESULT_TEXT = 'chaos ok\n';
const ASK = 'write result.txt saying chaos ok';

const isObj = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
function roleOf(call) {
  if (call.firstUser.includes(WORKER_MARK)) return 'worker';
  if (call.firstUser.includes('submit_brief')) return 'clarify';
  if (call.firstUser.includes('submit_goal')) return 'goal';
  if (call.firstUser.includes('submit_verdict')) return 'judge';
  if (call.tools.includes('Agent')) return 'work';
  return 'other';
}
/** Names of the tools this conversation has already called (assistant tool_use blocks). */
function called(body) {
  const out = [];
  for (const m of body.messages ?? []) {
    if (m.role !== 'assistant' || !Array.isArray(m.content)) continue;
    for (const b of m.content) if (isObj(b) && b.type === 'tool_use') out.push(String(b.name));
  }
  return out;
}
const lastIsToolResult = (body) => {
  const last = (body.messages ?? []).at(-1);
  return last?.role === 'user' && Array.isArray(last.content) && last.content.some((b) => isObj(b) && b.type === 'tool_result');
};

const answered = (body, done, tool) => lastIsToolResult(body) && done.at(-1) === tool;

/** One responder per round folder: the worker writes into it, the judge reads it. */
function responder(wsOf) {
  return (call) => {
    const role = roleOf(call);
    const done = called(call.body);
    const ws = wsOf(call);
    switch (role) {
      case 'clarify':
        // like a model told to continue: a new prompt (a resume) → submit (again); the tool's answer → done
        if (answered(call.body, done, 'mcp__human__submit_brief')) return { type: 'text', text: 'Brief submitted.' };
        return {
          type: 'tool_use',
          name: 'mcp__human__submit_brief',
          input: {
            goal: 'a file result.txt that says chaos ok',
            acceptance: ['result.txt contains "chaos ok"'],
            boundaries: ['touch nothing else'],
            unknowns: ['none'],
          },
        };
      case 'goal':
        if (answered(call.body, done, 'mcp__human__submit_goal')) return { type: 'text', text: 'Goal submitted.' };
        return {
          type: 'tool_use',
          name: 'mcp__human__submit_goal',
          input: { statement: 'result.txt says chaos ok', checks: [{ text: 'cat result.txt prints chaos ok' }] },
        };
      case 'judge': {
        if (answered(call.body, done, 'mcp__human__submit_verdict')) return { type: 'text', text: 'Verdict submitted.' };
        let content = '';
        try {
          content = fs.readFileSync(path.join(ws, RESULT), 'utf8');
        } catch {
          /* not there yet */
        }
        const pass = content === RESULT_TEXT;
        return {
          type: 'tool_use',
          name: 'mcp__human__submit_verdict',
          input: {
            state: pass ? 'achieved' : 'not_yet',
            reason: pass ? '' : 'result.txt is missing or wrong',
            checks: [{ item: 'cat result.txt prints chaos ok', pass, evidence: `read ${JSON.stringify(content.slice(0, 40))}` }],
          },
        };
      }
      case 'worker':
        if (!done.includes('Write')) return { type: 'tool_use', name: 'Write', input: { file_path: path.join(ws, RESULT), content: RESULT_TEXT } };
        if (!done.includes('Bash')) return { type: 'tool_use', name: 'Bash', input: { command: `cat ${RESULT}`, description: 'check it' } };
        return { type: 'text', text: 'Conclusion: result.txt written and checked.\nEvidence: cat printed chaos ok.\nOutput: result.txt\nUnverified: none' };
      case 'work':
        // a tool result (the worker's report) → report; anything else (a new task, a resume, feedback) → delegate
        if (lastIsToolResult(call.body) && done.at(-1) === 'Agent') return { type: 'text', text: 'result.txt is written: cat result.txt prints chaos ok.' };
        return {
          type: 'tool_use',
          name: 'Agent',
          input: {
            description: 'write result.txt',
            subagent_type: 'worker',
            run_in_background: false,
            prompt: `${WORKER_MARK} write ${path.join(ws, RESULT)} containing "chaos ok", then cat it.`,
          },
        };
      default:
        return { type: 'text', text: 'ok' };
    }
  };
}

// ── processes ────────────────────────────────────────────────────────────────────────────────
function envFor(dir, url) {
  return {
    PATH: process.env.PATH ?? '',
    HOME: path.join(dir, 'home'),
    XDG_CONFIG_HOME: path.join(dir, 'home', '.config'),
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'sk-chaos',
    FLOWER_ENV: path.join(dir, '.no-env'),
    FLOWER_CLI_RETRIES: '0',
    FLOWER_WATCHDOG: '60',
    FLOWER_LANG: 'en',
    // an outage is waited out quickly (the defaults wait up to an hour)
    FLOWER_BASE_DELAY: '0.2',
    FLOWER_MAX_DELAY: '1',
    FLOWER_PROBE_INTERVAL: '0.5',
    FLOWER_PROBE_TIMEOUT: '1',
    FLOWER_MAX_OFFLINE_WAIT: '120',
  };
}

function startFlower(args, dir, url, log) {
  // its own process group, so a signal reaches flower and every claude child at once
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: path.join(dir, 'ws'),
    env: envFor(dir, url),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c) => (out += c));
  const t0 = Date.now();
  const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), PROC_TIMEOUT_MS);
  const done = new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      fs.appendFileSync(log, `\n$ flower ${args.join(' ')}   (exit ${code ?? signal}, ${((Date.now() - t0) / 1000).toFixed(1)} s)\n${out}`);
      resolve({ code, signal, out, ms: Date.now() - t0 });
    }),
  );
  return { child, done };
}

function signalGroup(child, sig) {
  try {
    process.kill(-child.pid, sig);
  } catch {
    /* gone */
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(cond, ms, what) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
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

function sessionOnDisk(runs, sid) {
  const db = path.join(runs, 'sessions.db');
  if (!sid || !fs.existsSync(db)) return false;
  const d = new Database(db, { readonly: true, fileMustExist: true });
  try {
    d.pragma('busy_timeout = 5000');
    // the main transcript only (`<project>/<sid>`): a worker's entries under `<sid>/subagents/…` do not
    // make a session resumable — the SDK resumes from the main chain
    return d.prepare('select count(*) as n from entries where store_key like ?').get(`%/${sid}`).n > 0;
  } finally {
    d.close();
  }
}

function integrity(dir) {
  const problems = [];
  const files = walk(dir);
  for (const f of files) {
    const base = path.basename(f);
    if (/\.corrupt-|\.aside-|\.kept-/.test(base) || f.split(path.sep).includes('aside')) problems.push(`kept aside: ${path.relative(dir, f)}`);
    if (f.endsWith('.json')) {
      try {
        JSON.parse(fs.readFileSync(f, 'utf8'));
      } catch (e) {
        problems.push(`does not parse: ${path.relative(dir, f)} (${e.message})`);
      }
    }
  }
  const db = path.join(dir, 'ws', 'runs', 'sessions.db');
  if (fs.existsSync(db)) {
    const d = new Database(db, { readonly: true });
    try {
      const r = d.pragma('integrity_check', { simple: true });
      if (r !== 'ok') problems.push(`sessions.db integrity_check: ${r}`);
    } finally {
      d.close();
    }
  } else problems.push('no sessions.db');
  return problems;
}

const readJson = (f, dflt) => {
  try {
    return JSON.parse(fs.readFileSync(f, 'utf8'));
  } catch {
    return dflt;
  }
};

// ── one round ────────────────────────────────────────────────────────────────────────────────
const PHASES = ['start', 'clarify', 'goal', 'work', 'worker', 'judge'];

async function round(plan, sim, base) {
  const dir = path.join(base, `r${String(plan.i).padStart(3, '0')}-${plan.kind}-${plan.phase}`);
  const ws = path.join(dir, 'ws');
  const runs = path.join(ws, 'runs');
  fs.mkdirSync(path.join(dir, 'home'), { recursive: true });
  fs.mkdirSync(ws, { recursive: true });
  const log = path.join(dir, 'log.txt');
  sim.wsFor = ws;
  sim.reset();
  const seen = (role) => sim.messageRequests().some((r) => r.role === role);
  const res = { ...plan, dir, ok: false, why: '', phaseAtKill: null, workOnDisk: null, continued: null, problems: [] };

  const first = startFlower([ASK], dir, sim.url, log);
  if (plan.kind === 'outage') {
    await until(() => seen('worker') || first.child.exitCode !== null, 120_000, 'the worker');
    await sim.close();
    await sleep(plan.delay * 2 + 1500);
    await sim.restart();
    const r = await first.done;
    if (r.code !== 0) res.why = `the run through the outage exited ${r.code ?? r.signal}`;
  } else {
    const t0 = Date.now();
    const target = plan.phase === 'start' ? null : plan.phase;
    if (!target) {
      // 'start': from the moment flower recorded the request (before that, Node is still loading and
      // nothing of the run exists: a bare flower rightly has nothing to continue)
      await until(() => readJson(path.join(runs, 'lineage.json'), {})?.request || first.child.exitCode !== null, 60_000, 'the recorded request');
    }
    if (target) {
      const exited = () => first.child.exitCode !== null || first.child.signalCode !== null;
      await until(() => seen(target) || exited(), 120_000, `phase ${target}`);
      if (exited()) {
        res.why = `the first run ended before phase ${target}`;
      }
    }
    await sleep(plan.delay);
    res.phaseAtKill = sim.messageRequests().at(-1)?.role ?? 'none';
    res.killAfterMs = Date.now() - t0;
    const sig = plan.kind === 'kill' ? 'SIGKILL' : plan.kind === 'term' ? 'SIGTERM' : 'SIGHUP';
    signalGroup(first.child, sig);
    const r1 = await first.done;
    // the moment after the kill: which work session is on disk
    const lin = readJson(path.join(runs, 'lineage.json'), {});
    const wsid = lin?.steps?.['干活'] ?? null;
    res.workOnDisk = wsid && sessionOnDisk(runs, wsid) ? wsid : null;
    res.firstExit = r1.code ?? r1.signal;
    const before = readJson(path.join(runs, 'manifest.json'), []).length;
    const again = startFlower([], dir, sim.url, log);
    const r2 = await again.done;
    const rows = readJson(path.join(runs, 'manifest.json'), []);
    const mine = rows.slice(before);
    if (r2.code !== 0) res.why ||= `the bare rerun exited ${r2.code ?? r2.signal}: ${r2.out.trim().split('\n').slice(-3).join(' | ')}`;
    if (res.workOnDisk) {
      const work = mine.find((x) => x.step === '干活' || x.step.startsWith('干活#'));
      res.continued = work?.session_id ?? null;
      if (res.continued !== res.workOnDisk) res.why ||= `work session on disk ${res.workOnDisk} was not continued (rerun used ${res.continued})`;
    }
  }
  let content = '';
  try {
    content = fs.readFileSync(path.join(ws, RESULT), 'utf8');
  } catch {
    /* missing */
  }
  if (content !== RESULT_TEXT) res.why ||= `${RESULT} is ${content ? JSON.stringify(content) : 'missing'}`;
  res.problems = integrity(dir);
  if (res.problems.length) res.why ||= res.problems.join('; ');
  res.ok = !res.why;
  if (res.ok && !KEEP) fs.rmSync(dir, { recursive: true, force: true });
  return res;
}

// ── the plan and the run ─────────────────────────────────────────────────────────────────────
function planOf(seed, n) {
  const r = rng(seed);
  const plans = [];
  const weights = { kill: 0.78, term: 0.08, hup: 0.08, outage: 0.06 };
  const kinds = KINDS.filter((k) => k in weights);
  let kills = 0;
  for (let i = 1; i <= n; i++) {
    // at least one of every kind asked for, the rest mostly SIGKILL
    let kind = kinds[i - 1] && i <= kinds.length && n >= kinds.length * 2 ? kinds[i - 1] : null;
    if (!kind) {
      const x = r() * kinds.reduce((s, k) => s + weights[k], 0);
      let acc = 0;
      kind = kinds.find((k) => (acc += weights[k]) >= x) ?? kinds[0];
    }
    const phase = kind === 'outage' ? 'worker' : PHASES[(kind === 'kill' ? kills++ : i) % PHASES.length];
    // the delay after the phase's first model call: within the phase's typical length (a kill within
    // ~100 ms of a spawn included); 'start' counts from the process spawn
    const span = { start: 1200, clarify: 700, goal: 700, work: 1200, worker: 1500, judge: 900 }[phase];
    const delay = Math.floor(r() < 0.2 ? r() * 150 : r() * span);
    plans.push({ i, kind, phase, delay });
  }
  return plans;
}

async function main() {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-chaos-'));
  const plans = planOf(SEED, ROUNDS);
  const cmd = `npm run chaos -- --seed ${SEED} --rounds ${ROUNDS}${KINDS.join(',') !== 'kill,term,hup,outage' ? ` --kinds ${KINDS.join(',')}` : ''}`;
  console.log(`flower chaos: ${ROUNDS} rounds, seed ${SEED}, ${JOBS} at a time — reproduce with: ${cmd}`);
  console.log(`folders: ${base}${KEEP ? '' : ' (passing rounds are removed)'}`);
  const results = [];
  const queue = [...plans];
  const t0 = Date.now();
  await Promise.all(
    Array.from({ length: JOBS }, async () => {
      // one sim per job, answering every call by computation (the queue stays empty); the responder
      // reads the current round's folder from `holder`
      const holder = { wsFor: '' };
      const use = await startSim({ port: 0, defaultItem: responder(() => holder.wsFor) });
      const raw = use.messageRequests.bind(use);
      use.messageRequests = () =>
        raw().map((r) => Object.assign(r, { role: r.role ?? roleOf({ firstUser: firstUser(r.body), tools: (r.body.tools ?? []).map((t) => t.name) }) }));
      Object.defineProperty(use, 'wsFor', {
        get: () => holder.wsFor,
        set: (v) => {
          holder.wsFor = v;
        },
      });
      try {
        for (let p = queue.shift(); p; p = queue.shift()) {
          let r;
          try {
            r = await round(p, use, base);
          } catch (e) {
            r = { ...p, ok: false, why: `harness: ${e.message}`, problems: [] };
            try {
              await use.restart();
            } catch {
              /* listening */
            }
          }
          results.push(r);
          const tag = r.ok ? 'ok  ' : 'FAIL';
          const at = r.phaseAtKill ? ` at ${r.phaseAtKill} +${r.delay}ms` : '';
          console.log(
            `${tag} #${String(r.i).padStart(3)} ${r.kind.padEnd(6)} ${r.phase.padEnd(7)}${at}${r.workOnDisk ? ' · work session continued' : ''}${r.ok ? '' : ` — ${r.why} (${r.dir})`}`,
          );
          if (VERBOSE && !r.ok) console.log(fs.existsSync(path.join(r.dir, 'log.txt')) ? fs.readFileSync(path.join(r.dir, 'log.txt'), 'utf8') : '');
        }
      } finally {
        await use.close();
      }
    }),
  );
  const achieved = results.filter((r) => r.ok).length;
  const corrupt = results.reduce((s, r) => s + (r.problems ?? []).filter((p) => p !== 'no sessions.db').length, 0);
  const byKind = {};
  for (const r of results) {
    const k = r.kind === 'kill' ? `kill@${r.phaseAtKill ?? r.phase}` : r.kind;
    byKind[k] ??= [0, 0];
    byKind[k][0]++;
    if (r.ok) byKind[k][1]++;
  }
  const continued = results.filter((r) => r.workOnDisk).length;
  console.log(
    `\n${achieved}/${results.length} rounds achieved · ${corrupt} corrupt or kept-aside files · ${continued} rounds had a work session on disk at the kill, all checked for continuation · ${((Date.now() - t0) / 60000).toFixed(1)} min`,
  );
  console.log(
    `by kind (rounds/achieved): ${Object.entries(byKind)
      .sort()
      .map(([k, [n, ok]]) => `${k} ${n}/${ok}`)
      .join(', ')}`,
  );
  console.log(`seed ${SEED} — reproduce with: ${cmd}`);
  process.exit(achieved === results.length ? 0 : 1);
}

function firstUser(body) {
  const u = (body.messages ?? []).find((m) => m.role === 'user');
  if (!u) return '';
  if (typeof u.content === 'string') return u.content;
  return (u.content ?? []).map((b) => (b.type === 'text' ? b.text : b.type === 'tool_result' ? JSON.stringify(b.content) : '')).join('\n');
}

await main();
