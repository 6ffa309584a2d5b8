// Bench for the guards' cost (issue 10, item 4): one scripted 120-turn session (119 tool calls —
// Bash, Read, Grep, Glob, every tenth a long output that spills — then a final text), the same turns
// for every variant, against one sim on 127.0.0.1:
//   bare           — the SDK's query(), no hooks, no store, no sandbox (the baseline)
//   bare+sandbox   — the same with the floor flower sets: its sandbox (denyRead/denyWrite lists), the
//                    binary's permission rules (the path wall's second half) and the scrub script
//                    (CLAUDE_ENV_FILE) — built by bench/floor.ts (runtime/floor.ts) exactly as flower builds it
//   flower         — Runtime.run() with the workbench (allowlist + spill + index hooks, store, views), sandbox on
//   bare+scrub     — CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=1, the permission rules and the scrub script (what --no-sandbox keeps)
//   flower-nosb    — the same with --no-sandbox
//   bare+hooks     — bare plus a no-op Pre and Post hook on every tool: the price of the round trips alone
// The guards' cost is flower / bare+sandbox and flower-nosb / bare+scrub (same floor on both sides). Goal ≤ 1.05x
// (issue 24: flower's own overhead). One round's pair varies ±8 % on 2 cores (the binary's own CPU for the same
// 120 turns does), so run.ts takes the median of 5 paired rounds.
// Run: npm run build && node --import tsx bench/guards.ts [runs=3]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { query, type HookCallbackMatcher, type HookEvent } from '@anthropic-ai/claude-agent-sdk';
import { AgentSpec, Runtime } from '../src/runtime/index.js';
import { startSim, type Sim, type SimScriptItem } from '../src/sim/index.js';
import { bareFloor, freshConfigDir } from './floor.js';
import type { FlowerModule } from './once.js';
import { argInt, fmtMs, fmtRatio, isMain, median, table, timed, type BenchRow } from './measure.js';

export const TURNS = 120;
const GOAL = 1.05;
const RUN_TIMEOUT_MS = 300_000;
const PROMPT = 'Look around the project: one tool call per turn as scripted, then say done.';
export const FINAL = 'done looking';
/** flower's step name; the bare runs' floor protects the same handoff file */
const STEP = 'look';

export type Variant = 'bare' | 'bare+sandbox' | 'bare+scrub' | 'flower' | 'flower-nosb' | 'bare+hooks';

export interface RunDirs {
  root: string;
  home: string;
  ws: string;
  runs: string;
  tmp: string;
}

export function dirs(): RunDirs {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-bench-guards-'));
  const d = { root, home: path.join(root, 'home'), ws: path.join(root, 'ws'), runs: path.join(root, 'runs'), tmp: path.join(root, 'tmp') };
  for (const p of [d.home, d.ws, d.tmp]) fs.mkdirSync(p, { recursive: true });
  for (let i = 0; i < 20; i++) fs.writeFileSync(path.join(d.ws, `f${i}.txt`), `file ${i}\n${'line of text\n'.repeat(40)}`);
  return d;
}

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
const FLOWER_ENV = { FLOWER_CLI_RETRIES: '0', FLOWER_WATCHDOG: '120', FLOWER_LANG: 'en' };
const TOOLS = ['Bash', 'Read', 'Grep', 'Glob'];

export function script(ws: string): SimScriptItem[] {
  const items: SimScriptItem[] = [];
  for (let i = 1; i < TURNS; i++) {
    const id = `toolu_g_${String(i).padStart(3, '0')}`;
    const k = i % 10;
    if (k === 0) items.push({ type: 'tool_use', id, name: 'Bash', input: { command: 'seq 1 2000', description: 'long output' } });
    else if (k <= 5) items.push({ type: 'tool_use', id, name: 'Bash', input: { command: `echo ${i}`, description: `echo ${i}` } });
    else if (k <= 7) items.push({ type: 'tool_use', id, name: 'Read', input: { file_path: path.join(ws, `f${i % 20}.txt`) } });
    else if (k === 8) items.push({ type: 'tool_use', id, name: 'Grep', input: { pattern: `file ${i % 20}`, path: ws } });
    else items.push({ type: 'tool_use', id, name: 'Glob', input: { pattern: '*.txt', path: ws } });
  }
  items.push({ type: 'text', text: FINAL });
  return items;
}

function withTimeout<T>(what: string, p: Promise<T>, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout();
      reject(new Error(`${what} took over ${RUN_TIMEOUT_MS / 1000} s`));
    }, RUN_TIMEOUT_MS);
  });
  return Promise.race([p, t]).finally(() => clearTimeout(timer));
}

/** A hook that does nothing, on every tool, Pre and Post: the price of the round trips alone. */
const noopHooks: Partial<Record<HookEvent, HookCallbackMatcher[]>> = {
  PreToolUse: [{ hooks: [async () => ({})] }],
  PostToolUse: [{ hooks: [async () => ({})] }],
};

async function bare(d: RunDirs, url: string, o: { sandbox?: boolean; hooks?: boolean; scrub?: boolean } = {}): Promise<string> {
  const abortController = new AbortController();
  // the same floor flower builds (bench/floor.ts over runtime/floor.ts): like for like, the guards' cost is what remains
  const { env, options: floor } = bareFloor(d, baseEnv(d, url), o.sandbox ? 'sandbox' : o.scrub ? 'scrub' : 'none', 'on', { step: STEP, workbench: true });
  const run = async () => {
    let final = '';
    for await (const m of query({
      prompt: PROMPT,
      options: {
        cwd: d.ws,
        env,
        allowedTools: TOOLS,
        settingSources: [],
        systemPrompt: { type: 'preset', preset: 'claude_code' },
        abortController,
        ...floor,
        ...(o.hooks ? { hooks: noopHooks } : {}),
      },
    })) {
      if (m.type === 'result') final = m.subtype === 'success' ? m.result : `error: ${m.subtype}`;
    }
    return final;
  };
  return withTimeout('bare query()', run(), () => abortController.abort());
}

export async function flower(d: RunDirs, url: string, sandbox: boolean, mod: FlowerModule = { AgentSpec, Runtime }): Promise<string> {
  const spec = new mod.AgentSpec({ name: 'looker', allowedTools: TOOLS, workbench: false });
  const rt = new mod.Runtime({
    workspace: d.ws,
    runDir: d.runs,
    env: { ...baseEnv(d, url), ...FLOWER_ENV },
    workbench: true,
    onWarning: () => {},
    ...(sandbox ? {} : { sandbox: false as const }),
  });
  try {
    const r = await withTimeout('Runtime.run()', rt.run(spec, PROMPT, { stepName: STEP }), () => rt.close());
    return r.ok ? r.text : `error: ${r.error ?? 'unknown'}`;
  } finally {
    rt.close();
  }
}

export const RUNNERS: Record<Variant, (d: RunDirs, url: string) => Promise<string>> = {
  bare: (d, u) => bare(d, u),
  'bare+hooks': (d, u) => bare(d, u, { hooks: true }),
  'bare+sandbox': (d, u) => bare(d, u, { sandbox: true }),
  'bare+scrub': (d, u) => bare(d, u, { scrub: true }),
  flower: (d, u) => flower(d, u, true),
  'flower-nosb': (d, u) => flower(d, u, false),
};

async function once(sim: Sim, v: Variant): Promise<number> {
  const d = dirs();
  try {
    sim.reset();
    sim.enqueue(script(d.ws));
    const t = await timed(() => RUNNERS[v](d, sim.url));
    const calls = sim.messageRequests().length;
    if (t.value !== FINAL || calls !== TURNS || sim.pending().length || sim.unexpected().length) {
      throw new Error(`${v}: expected ${TURNS} model calls ending in "${FINAL}", got ${calls}, ${sim.pending().length} left, final: ${t.value}`);
    }
    return t.ms;
  } finally {
    freshConfigDir();
    fs.rmSync(d.root, { recursive: true, force: true });
  }
}

export async function main(o: { runs?: number; log?: (line: string) => void } = {}): Promise<BenchRow[]> {
  const RUNS = Math.max(1, o.runs ?? 3);
  const log = o.log ?? console.log;
  const sim = await startSim({ port: 0, onUnexpected: 'error' });
  const variants: Variant[] = ['bare', 'bare+hooks', 'bare+sandbox', 'bare+scrub', 'flower', 'flower-nosb'];
  const times = Object.fromEntries(variants.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
  try {
    // round 0 warms caches and is not counted; the order rotates so no variant always goes first
    for (let r = 0; r <= RUNS; r++) {
      for (let i = 0; i < variants.length; i++) {
        const v = variants[(i + r) % variants.length]!;
        const t = await once(sim, v);
        if (r > 0) times[v].push(t);
      }
      if (r > 0) log(`round ${r}: ${variants.map((v) => `${v} ${fmtMs(times[v][r - 1]!)}`).join(', ')}`);
    }
  } finally {
    await sim.close();
  }
  const m = (v: Variant) => median(times[v]);
  const paired = (v: Variant, base: Variant) => median(times[v].map((t, i) => t / times[base][i]!));
  for (const v of variants) log(`${v.padEnd(13)} median ${fmtMs(m(v))}  (runs: ${times[v].map(Math.round).join(', ')})`);
  const perCall = (v: Variant, base: Variant) => `${((m(v) - m(base)) / (TURNS - 1)).toFixed(1)} ms per tool call`;
  log(`hook round trips alone (no-op Pre+Post on every tool): ${perCall('bare+hooks', 'bare')}`);
  log(`sandbox alone: ${perCall('bare+sandbox', 'bare')}; env scrub alone: ${perCall('bare+scrub', 'bare')}`);
  return [
    {
      key: 'guards.sandbox.vs-bare-floor',
      measure: `${TURNS}-turn session, guards (flower, sandbox on)`,
      baseline: `${fmtMs(m('bare+sandbox'))} bare+sandbox`,
      flower: fmtMs(m('flower')),
      ratio: fmtRatio(paired('flower', 'bare+sandbox')),
      goal: `≤ ${GOAL}x`,
      met: paired('flower', 'bare+sandbox') <= GOAL,
      figures: { unit: 'ms', baseline: m('bare+sandbox'), flower: m('flower'), ratio: paired('flower', 'bare+sandbox') },
    },
    {
      key: 'guards.no-sandbox.vs-bare-floor',
      measure: `${TURNS}-turn session, guards (flower, --no-sandbox)`,
      baseline: `${fmtMs(m('bare+scrub'))} bare+scrub`,
      flower: fmtMs(m('flower-nosb')),
      ratio: fmtRatio(paired('flower-nosb', 'bare+scrub')),
      goal: `≤ ${GOAL}x`,
      met: paired('flower-nosb', 'bare+scrub') <= GOAL,
      figures: { unit: 'ms', baseline: m('bare+scrub'), flower: m('flower-nosb'), ratio: paired('flower-nosb', 'bare+scrub') },
    },
    {
      key: 'guards.floor-price.env-scrub',
      measure: `${TURNS}-turn session, the env scrub itself`,
      baseline: `${fmtMs(m('bare'))} bare`,
      flower: fmtMs(m('bare+scrub')),
      ratio: fmtRatio(paired('bare+scrub', 'bare')),
      goal: '(report)',
      met: null,
      figures: { unit: 'ms', baseline: m('bare'), flower: m('bare+scrub'), ratio: paired('bare+scrub', 'bare') },
    },
    {
      key: 'guards.floor-price.sandbox',
      measure: `${TURNS}-turn session, the sandbox itself`,
      baseline: `${fmtMs(m('bare'))} bare`,
      flower: fmtMs(m('bare+sandbox')),
      ratio: fmtRatio(paired('bare+sandbox', 'bare')),
      goal: '(report)',
      met: null,
      figures: { unit: 'ms', baseline: m('bare'), flower: m('bare+sandbox'), ratio: paired('bare+sandbox', 'bare') },
    },
    {
      key: 'guards.noop-hooks',
      measure: `${TURNS}-turn session, no-op hooks on every tool`,
      baseline: `${fmtMs(m('bare'))} bare`,
      flower: fmtMs(m('bare+hooks')),
      ratio: fmtRatio(paired('bare+hooks', 'bare')),
      goal: '(info)',
      met: null,
      figures: { unit: 'ms', baseline: m('bare'), flower: m('bare+hooks'), ratio: paired('bare+hooks', 'bare') },
    },
  ];
}

if (isMain(import.meta.url)) {
  const rows = await main({ runs: argInt(0, 3) });
  console.log(`\n${table(rows)}`);
}
