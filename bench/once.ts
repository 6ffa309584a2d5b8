// Bench for flower's per-session overhead: the same scripted 20-call session (19 Bash `echo n` tool
// turns, then a final text) run three ways against one sim on 127.0.0.1:
//   bare     — the SDK's query() iterated to the end, no store (the baseline)
//   runtime  — new Runtime(...).run(spec, prompt) in this process (store, views, guards, events)
//   cli      — `node bin/flower.js once … -t Bash` as a child process (the user's path: + node startup)
// Run: npm run build && node --import tsx bench/once.ts [runs=5]
// Goal: runtime <= 1.05x bare. The CLI ratio is reported as is (it also pays node + module loading).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { AgentSpec, Runtime } from '../src/runtime/index.js';
import { startSim, type Sim, type SimScriptItem } from '../src/sim/index.js';
import { argInt, fmtMs, fmtRatio, isMain, median, table, timed, type BenchRow } from './measure.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'flower.js');
const CALLS = 20;
const GOAL = 1.05;
const RUN_TIMEOUT_MS = 90_000;
const PROMPT = 'Echo the numbers 1 to 19, one Bash call each, then say done.';
const FINAL = 'done: echoed 1 to 19';

type Variant = 'bare' | 'runtime' | 'cli';

export interface OnceBenchOptions {
  runs?: number;
  log?: (line: string) => void;
}

interface RunDirs {
  root: string;
  home: string;
  ws: string;
  runs: string;
}

function dirs(): RunDirs {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-bench-once-'));
  const d = { root, home: path.join(root, 'home'), ws: path.join(root, 'ws'), runs: path.join(root, 'runs') };
  for (const p of [d.home, d.ws]) fs.mkdirSync(p, { recursive: true });
  return d;
}

/** The environment every variant's claude child gets (flower adds its own private CLAUDE_CONFIG_DIR). */
function baseEnv(d: RunDirs, url: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: d.home,
    XDG_CONFIG_HOME: path.join(d.home, '.config'),
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'sk-test',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
  };
}
// flower sets CLAUDE_CODE_MAX_RETRIES from its own knob; 0 keeps the child env identical to the bare one
const FLOWER_ENV = { FLOWER_CLI_RETRIES: '0', FLOWER_WATCHDOG: '60', FLOWER_LANG: 'en' };

function script(): SimScriptItem[] {
  const items: SimScriptItem[] = [];
  for (let i = 1; i < CALLS; i++) {
    items.push({ type: 'tool_use', name: 'Bash', id: `toolu_echo_${String(i).padStart(2, '0')}`, input: { command: `echo ${i}`, description: `echo ${i}` } });
  }
  items.push({ type: 'text', text: FINAL });
  return items;
}

function withTimeout<T>(what: string, p: Promise<T>, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`${what} took over ${RUN_TIMEOUT_MS / 1000} s: is the sim reachable and the script consumed?`));
    }, RUN_TIMEOUT_MS);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

async function bare(d: RunDirs, url: string): Promise<string> {
  const abortController = new AbortController();
  const env = { ...baseEnv(d, url), CLAUDE_CONFIG_DIR: path.join(d.home, '.claude') };
  const run = async () => {
    let final = '';
    for await (const m of query({
      prompt: PROMPT,
      options: { cwd: d.ws, env, allowedTools: ['Bash'], settingSources: [], systemPrompt: { type: 'preset', preset: 'claude_code' }, abortController },
    })) {
      if (m.type === 'result') final = m.subtype === 'success' ? m.result : `error: ${m.subtype}`;
    }
    return final;
  };
  return withTimeout('bare query()', run(), () => abortController.abort());
}

async function inProcess(d: RunDirs, url: string): Promise<string> {
  const spec = new AgentSpec({ name: 'ad-hoc', instructions: '', allowedTools: ['Bash'], permissionMode: 'default' });
  const rt = new Runtime({ workspace: d.ws, runDir: d.runs, env: { ...baseEnv(d, url), ...FLOWER_ENV }, onWarning: (m) => process.stderr.write(`! ${m}\n`) });
  try {
    const r = await withTimeout('Runtime.run()', rt.run(spec, PROMPT, { stepName: 'ad-hoc' }), () => rt.close());
    return r.ok ? r.text : `error: ${r.error ?? 'unknown'}`;
  } finally {
    rt.close();
    // flower keeps one private config dir per process: empty it so the next run starts as fresh as the
    // others (removing it would make flower create another and add one more exit listener per run)
    const cfg = process.env.CLAUDE_CONFIG_DIR;
    if (cfg && path.basename(cfg).startsWith('flower-claude-') && path.dirname(cfg) === os.tmpdir()) {
      for (const f of fs.readdirSync(cfg)) fs.rmSync(path.join(cfg, f), { recursive: true, force: true });
    }
  }
}

async function cli(d: RunDirs, url: string): Promise<string> {
  const child = spawn(process.execPath, [BIN, 'once', PROMPT, '-t', 'Bash', '-w', d.ws, '-r', d.runs], {
    cwd: d.root,
    env: { ...baseEnv(d, url), ...FLOWER_ENV },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const code = await withTimeout('flower once', new Promise<number | null>((resolve) => child.on('close', resolve)), () => child.kill('SIGKILL'));
  return code === 0 ? stdout.split('\n')[0]! : `error: exit ${code}: ${stderr.trim().slice(-400)}`;
}

const RUNNERS: Record<Variant, (d: RunDirs, url: string) => Promise<string>> = { bare, runtime: inProcess, cli };

/** Wall ms, and this process's CPU ms (user + system) over the run: the sim's share is the same for every variant. */
async function once(sim: Sim, v: Variant): Promise<{ wall: number; cpu: number }> {
  const d = dirs();
  try {
    sim.reset();
    sim.enqueue(script());
    const c0 = process.cpuUsage();
    const t = await timed(() => RUNNERS[v](d, sim.url));
    const c = process.cpuUsage(c0);
    const calls = sim.messageRequests().length;
    if (t.value !== FINAL || calls !== CALLS || sim.pending().length || sim.unexpected().length) {
      throw new Error(
        `${v}: expected ${CALLS} model calls ending in "${FINAL}", got ${calls} calls, ${sim.pending().length} items left, ` +
          `${sim.unexpected().length} unexpected, final: ${t.value}`,
      );
    }
    return { wall: t.ms, cpu: (c.user + c.system) / 1000 };
  } finally {
    fs.rmSync(d.root, { recursive: true, force: true });
  }
}

export async function main(o: OnceBenchOptions = {}): Promise<BenchRow[]> {
  const RUNS = Math.max(5, o.runs ?? 5);
  const log = o.log ?? console.log;
  if (!fs.existsSync(path.join(ROOT, 'dist', 'cli', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (bin/flower.js loads dist/)');
  const sim = await startSim({ port: 0, onUnexpected: 'error' });
  const times: Record<Variant, number[]> = { bare: [], runtime: [], cli: [] };
  const cpu: Record<Variant, number[]> = { bare: [], runtime: [], cli: [] };
  const variants: Variant[] = ['bare', 'runtime', 'cli'];
  try {
    // round 0 warms the disk cache for the claude binary and node modules and is not counted; the
    // order rotates each round so no variant always goes first (or always after the CLI's process)
    for (let r = 0; r <= RUNS; r++) {
      for (let i = 0; i < variants.length; i++) {
        const v = variants[(i + r) % variants.length]!;
        const t = await once(sim, v);
        if (r > 0) {
          times[v].push(t.wall);
          cpu[v].push(t.cpu);
        }
      }
      if (r > 0) log(`round ${r}: ${variants.map((v) => `${v} ${fmtMs(times[v][r - 1]!)}`).join(', ')}`);
    }
  } finally {
    await sim.close();
  }
  const base = median(times.bare);
  const rt = median(times.runtime);
  const c = median(times.cli);
  // per-round ratios: each pair ran back to back, so they shrug off slow drifts in the machine's load
  const paired = (v: Variant) => fmtRatio(median(times[v].map((t, i) => t / times.bare[i]!)));
  const best = (v: Variant) => Math.min(...times[v]);
  log(`bare query()            median ${fmtMs(base)}  best ${fmtMs(best('bare'))}  (runs: ${times.bare.map(Math.round).join(', ')})`);
  log(
    `Runtime.run() in-proc   median ${fmtMs(rt)}  ratio ${fmtRatio(rt / base)} (per-round ${paired('runtime')})  best ${fmtMs(best('runtime'))} ${fmtRatio(best('runtime') / best('bare'))}  (runs: ${times.runtime.map(Math.round).join(', ')})`,
  );
  log(
    `flower once (process)   median ${fmtMs(c)}  ratio ${fmtRatio(c / base)} (per-round ${paired('cli')})  best ${fmtMs(best('cli'))} ${fmtRatio(best('cli') / best('bare'))}  (runs: ${times.cli.map(Math.round).join(', ')})`,
  );
  // CPU of this process barely depends on what else the machine runs: the runtime's own work (store
  // appends, event handling) shows here even when wall-time noise hides it
  const cpuBare = median(cpu.bare);
  const cpuRt = median(cpu.runtime);
  log(
    `CPU of this process     bare ${fmtMs(cpuBare)}, runtime ${fmtMs(cpuRt)} (+${fmtMs(cpuRt - cpuBare)} per session, ${fmtRatio(cpuRt / cpuBare)}; includes the sim)`,
  );
  return [
    {
      measure: `${CALLS}-call session, Runtime.run()`,
      baseline: `${fmtMs(base)} bare`,
      flower: fmtMs(rt),
      ratio: fmtRatio(rt / base),
      goal: `≤ ${GOAL}x`,
      met: rt / base <= GOAL,
      figures: { unit: 'ms', baseline: base, flower: rt, ratio: rt / base },
    },
    {
      measure: `${CALLS}-call session, flower once CLI`,
      baseline: `${fmtMs(base)} bare`,
      flower: fmtMs(c),
      ratio: fmtRatio(c / base),
      goal: '(report)',
      met: null,
      figures: { unit: 'ms', baseline: base, flower: c, ratio: c / base },
    },
    {
      measure: `${CALLS}-call session, parent CPU, runtime`,
      baseline: `${fmtMs(cpuBare)} bare`,
      flower: fmtMs(cpuRt),
      ratio: fmtRatio(cpuRt / cpuBare),
      goal: '(info)',
      met: null,
      figures: { unit: 'ms', baseline: cpuBare, flower: cpuRt, ratio: cpuRt / cpuBare },
    },
  ];
}

if (isMain(import.meta.url)) {
  const rows = await main({ runs: argInt(0, 5) });
  console.log(`\n${table(rows)}`);
}
