// Bench for flower's per-session overhead: the same scripted 20-call session (19 Bash `echo n` tool
// turns, then a final text) run four ways against one sim on 127.0.0.1:
//   bare+floor — the SDK's query() iterated to the end, no store, with the floor flower sets (its sandbox,
//                permission rules and scrub script, built by bench/floor.ts as flower builds them): the baseline
//   runtime    — new Runtime(...).run(spec, prompt) in this process (store, views, guards, events), sandbox on
//   cli        — `node bin/flower.js once … -t Bash` as a child process (the user's path: + node startup)
//   bare       — query() with no floor at all: only for the floor's price row (bare+floor vs bare)
// Run: npm run build && node --import tsx bench/once.ts [runs=5]
// Goals: runtime <= 1.05x bare+floor (flower's own overhead, same sandbox on both sides); cli <= 1.10x
// runtime (the same run as a process: node's start, module loading — bench/start.ts counts the modules —
// and the process's own set-up, against the Runtime in a process that has loaded everything already).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { query, type Options } from '@anthropic-ai/claude-agent-sdk';
import { AgentSpec, Runtime } from '../src/runtime/index.js';
import { startSim, type Sim, type SimScriptItem } from '../src/sim/index.js';
import { bareFloor, freshConfigDir } from './floor.js';
import { argInt, fmtMs, fmtRatio, isMain, median, table, timed, type BenchRow } from './measure.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'flower.js');
export const CALLS = 20;
const GOAL = 1.05;
const CLI_GOAL = 1.1;
const RUN_TIMEOUT_MS = 90_000;
const PROMPT = 'Echo the numbers 1 to 19, one Bash call each, then say done.';
export const FINAL = 'done: echoed 1 to 19';
/** flower's step name; the bare runs' floor protects the same handoff file */
const STEP = 'ad-hoc';

export type Variant = 'bare' | 'bare+floor' | 'runtime' | 'cli' | 'cli-before';
// FLOWER_BEFORE=<another checkout, built>: its `flower once` runs in the same rounds too, so a change to the
// CLI's start is measured paired (before vs after, the same sim, the same load)
const BEFORE = process.env.FLOWER_BEFORE ? path.resolve(process.env.FLOWER_BEFORE, 'bin', 'flower.js') : undefined;

export interface OnceBenchOptions {
  runs?: number;
  log?: (line: string) => void;
}

export interface RunDirs {
  root: string;
  home: string;
  ws: string;
  runs: string;
  tmp: string;
}

export function dirs(): RunDirs {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-bench-once-'));
  const d = { root, home: path.join(root, 'home'), ws: path.join(root, 'ws'), runs: path.join(root, 'runs'), tmp: path.join(root, 'tmp') };
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

export function script(): SimScriptItem[] {
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

/** The bare run (`extra`: a part of what flower adds, for bench/phases.ts to price one part at a time). */
export async function bare(d: RunDirs, url: string, floor: boolean, extra: (env: Record<string, string>) => Partial<Options> = () => ({})): Promise<string> {
  const abortController = new AbortController();
  const { env, options } = bareFloor(d, baseEnv(d, url), floor ? 'sandbox' : 'none', 'on', { step: STEP });
  const run = async () => {
    let final = '';
    for await (const m of query({
      prompt: PROMPT,
      options: {
        cwd: d.ws,
        env,
        allowedTools: ['Bash'],
        settingSources: [],
        systemPrompt: { type: 'preset', preset: 'claude_code' },
        abortController,
        ...options,
        ...extra(env),
      },
    })) {
      if (m.type === 'result') final = m.subtype === 'success' ? m.result : `error: ${m.subtype}`;
    }
    return final;
  };
  return withTimeout('bare query()', run(), () => abortController.abort());
}

/** The runtime's classes: this checkout's, or another's (bench/phases.ts pairs a checkout before a change with this one). */
export interface FlowerModule {
  AgentSpec: typeof AgentSpec;
  Runtime: typeof Runtime;
}

async function inProcess(d: RunDirs, url: string, mod: FlowerModule = { AgentSpec, Runtime }): Promise<string> {
  const spec = new mod.AgentSpec({ name: 'ad-hoc', instructions: '', allowedTools: ['Bash'], permissionMode: 'default' });
  const rt = new mod.Runtime({
    workspace: d.ws,
    runDir: d.runs,
    env: { ...baseEnv(d, url), ...FLOWER_ENV },
    onWarning: (m) => process.stderr.write(`! ${m}\n`),
  });
  try {
    const r = await withTimeout('Runtime.run()', rt.run(spec, PROMPT, { stepName: STEP }), () => rt.close());
    return r.ok ? r.text : `error: ${r.error ?? 'unknown'}`;
  } finally {
    rt.close();
  }
}

async function cli(d: RunDirs, url: string, bin = BIN): Promise<string> {
  const child = spawn(process.execPath, [bin, 'once', PROMPT, '-t', 'Bash', '-w', d.ws, '-r', d.runs], {
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

export { inProcess as runtimeRun };

export const RUNNERS: Record<Variant, (d: RunDirs, url: string) => Promise<string>> = {
  bare: (d, u) => bare(d, u, false),
  'bare+floor': (d, u) => bare(d, u, true),
  runtime: (d, u) => inProcess(d, u),
  cli: (d, u) => cli(d, u),
  'cli-before': (d, u) => cli(d, u, BEFORE),
};

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
    freshConfigDir();
    fs.rmSync(d.root, { recursive: true, force: true });
  }
}

export async function main(o: OnceBenchOptions = {}): Promise<BenchRow[]> {
  const RUNS = Math.max(1, o.runs ?? 5);
  const log = o.log ?? console.log;
  if (!fs.existsSync(path.join(ROOT, 'dist', 'cli', 'index.js'))) throw new Error('dist/ is missing: run `npm run build` first (bin/flower.js loads dist/)');
  const sim = await startSim({ port: 0, onUnexpected: 'error' });
  const variants: Variant[] = ['bare+floor', 'runtime', 'cli', 'bare', ...(BEFORE ? (['cli-before'] as const) : [])];
  const times = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
  const cpu = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
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
  const m = (v: Variant) => median(times[v]);
  // per-round ratios: each pair ran back to back, so they shrug off slow drifts in the machine's load
  const paired = (v: Variant, base: Variant) => median(times[v].map((t, i) => t / times[base][i]!));
  const best = (v: Variant) => Math.min(...times[v]);
  const line = (label: string, v: Variant, base?: Variant) =>
    log(
      `${label.padEnd(24)} median ${fmtMs(m(v))}` +
        (base
          ? `  ratio ${fmtRatio(m(v) / m(base))} (per-round ${fmtRatio(paired(v, base))})  best ${fmtMs(best(v))} ${fmtRatio(best(v) / best(base))}`
          : `  best ${fmtMs(best(v))}`) +
        `  (runs: ${times[v].map(Math.round).join(', ')})`,
    );
  line('bare query() + floor', 'bare+floor');
  line('Runtime.run() in-proc', 'runtime', 'bare+floor');
  line('flower once (process)', 'cli', 'bare+floor');
  line('  … vs in-process', 'cli', 'runtime');
  if (BEFORE) {
    line(`before (${process.env.FLOWER_BEFORE})`, 'cli-before', 'runtime');
    line('  after vs before', 'cli', 'cli-before');
  }
  line('bare query(), no floor', 'bare');
  log(
    `the floor's price: bare+floor vs bare ${fmtRatio(paired('bare+floor', 'bare'))}, ${((m('bare+floor') - m('bare')) / (CALLS - 1)).toFixed(1)} ms per command`,
  );
  // CPU of this process barely depends on what else the machine runs: the runtime's own work (store
  // appends, event handling) shows here even when wall-time noise hides it
  const cpuBare = median(cpu['bare+floor']);
  const cpuRt = median(cpu.runtime);
  log(
    `CPU of this process     bare+floor ${fmtMs(cpuBare)}, runtime ${fmtMs(cpuRt)} (+${fmtMs(cpuRt - cpuBare)} per session, ${fmtRatio(cpuRt / cpuBare)}; includes the sim)`,
  );
  const rt = paired('runtime', 'bare+floor');
  const c = paired('cli', 'bare+floor');
  const cr = paired('cli', 'runtime');
  const floor = paired('bare+floor', 'bare');
  return [
    {
      key: 'once.runtime.vs-bare-floor',
      measure: `${CALLS}-call session, Runtime.run() (sandbox on both sides)`,
      baseline: `${fmtMs(m('bare+floor'))} bare+floor`,
      flower: fmtMs(m('runtime')),
      ratio: fmtRatio(rt),
      goal: `≤ ${GOAL}x`,
      met: rt <= GOAL,
      figures: { unit: 'ms', baseline: m('bare+floor'), flower: m('runtime'), ratio: rt },
    },
    {
      key: 'once.cli.vs-bare-floor',
      measure: `${CALLS}-call session, flower once CLI (sandbox on both sides)`,
      baseline: `${fmtMs(m('bare+floor'))} bare+floor`,
      flower: fmtMs(m('cli')),
      ratio: fmtRatio(c),
      goal: '(report)',
      met: null,
      figures: { unit: 'ms', baseline: m('bare+floor'), flower: m('cli'), ratio: c },
    },
    {
      key: 'once.cli.vs-runtime',
      measure: `${CALLS}-call session, flower once CLI vs the same run in-process`,
      baseline: `${fmtMs(m('runtime'))} Runtime.run()`,
      flower: fmtMs(m('cli')),
      ratio: fmtRatio(cr),
      goal: `≤ ${CLI_GOAL.toFixed(2)}x`,
      met: cr <= CLI_GOAL,
      figures: { unit: 'ms', baseline: m('runtime'), flower: m('cli'), ratio: cr },
    },
    {
      key: 'once.floor-price',
      measure: `${CALLS}-call session, the floor's price (bare+floor vs bare)`,
      baseline: `${fmtMs(m('bare'))} bare`,
      flower: `${fmtMs(m('bare+floor'))} (+${((m('bare+floor') - m('bare')) / (CALLS - 1)).toFixed(1)} ms/cmd)`,
      ratio: fmtRatio(floor),
      goal: '(report)',
      met: null,
      figures: { unit: 'ms', baseline: m('bare'), flower: m('bare+floor'), ratio: floor },
    },
    {
      key: 'once.runtime.parent-cpu',
      measure: `${CALLS}-call session, parent CPU, runtime`,
      baseline: `${fmtMs(cpuBare)} bare+floor`,
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
