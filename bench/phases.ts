// Where a session's time goes, phase by phase, for flower and for the bare SDK run with the same floor: the
// sessions of bench/once.ts (20 calls) and bench/guards.ts (120 turns with the workbench), run the same way,
// with the `claude` child watched from this process:
//   start   — the call → the child's spawn (flower's work before it: store, manifest, options)
//   boot    — spawn → the child's answer to the SDK's `initialize` (hooks and in-process MCP servers registered)
//   init    — that answer → `system/init`
//   first   — `system/init` → the sim's first model request
//   calls   — first → last model request, per call (tool, hooks, the binary's own work between requests)
//   last    — the last request → the `result` line on the child's stdout
//   exit    — `result` → the child's exit
//   after   — exit → the call returned (the store's last writes, the manifest row)
// plus what crossed the control channel: lines by type, the hook callbacks and how long flower took to
// answer each, the bytes. The child is watched by wrapping child_process.spawn (every spawn, the SDK's own
// and flower's), so both sides run exactly as their benches run them.
// Run: npm run build && node --import tsx bench/phases.ts [once|guards|parts] [runs=3]
//      (PHASES_DEBUG=1 adds the binary's own per-call timings; PHASES_ONLY=v1,v2 keeps the base and those)
//      (add --cpu-prof before --import for a profile of this process)
import fs from 'node:fs';
import os from 'node:os';
import * as guards from './guards.js';
import { freshConfigDir } from './floor.js';
import { median } from './measure.js';
import { binaryCalls, now, watchNext, type Phases, type Probe } from './probe.js';
import * as once from './once.js';
import type { HookCallbackMatcher, Options } from '@anthropic-ai/claude-agent-sdk';
import { failClosed } from '../src/guards/failclosed.js';
import { startSim, type Sim, type SimScriptItem } from '../src/sim/index.js';
import { SqliteSessionStore } from '../src/store/index.js';

interface Session {
  calls: number;
  final: string;
  dirs: () => { root: string; ws: string };
  script: (ws: string) => SimScriptItem[];
  runners: Record<string, (d: never, url: string) => Promise<string>>;
  variants: string[];
}

/** A PreToolUse matcher on every tool that allows, failing closed as flower's do: one round trip per call. */
const noop = (): HookCallbackMatcher => failClosed({ hooks: [async () => ({})] }, { lang: 'en' });

/** The bare run plus one part of what flower adds (the store as the child must see it: the parent's config dir is the child's). */
const PARTS: Record<string, (env: Record<string, string>, d: once.RunDirs) => Partial<Options>> = {
  '+partials': () => ({ includePartialMessages: true }),
  '+1 pre hook': () => ({ hooks: { PreToolUse: [noop()] } }),
  '+1 pre plain': () => ({ hooks: { PreToolUse: [{ hooks: [async () => ({})] }] } }),
  '+2 pre hooks': () => ({ hooks: { PreToolUse: [noop(), noop()] } }),
  '+post hook': () => ({ hooks: { PostToolUse: [{ hooks: [async () => ({})] }] } }),
  '+store': (env, d) => {
    // the SDK maps mirror frames to keys through the PARENT's config dir: it must be the child's (restored after the run)
    process.env.CLAUDE_CONFIG_DIR = env.CLAUDE_CONFIG_DIR;
    fs.mkdirSync(d.runs, { recursive: true });
    return { sessionStore: new SqliteSessionStore(`${d.runs}/sessions.db`), sessionStoreFlush: 'eager' };
  },
  // flower's other flags: ToolSearch pre-approved (guards/allowlist), the permission mode named, auto-compact off
  '+flags': (env) => {
    env.DISABLE_AUTO_COMPACT = '1';
    return { allowedTools: ['Bash', 'ToolSearch'], permissionMode: 'default' };
  },
  // every SDK feature flower turns on, on the bare run: `runtime` minus this is flower's own work
  '+all': (env, d) => ({ ...PARTS['+partials']!(env, d), ...PARTS['+1 pre hook']!(env, d), ...PARTS['+flags']!(env, d), ...PARTS['+store']!(env, d) }),
};

const partRunners = Object.fromEntries(
  Object.entries(PARTS).map(([k, extra]) => [
    k,
    async (d: once.RunDirs, url: string) => {
      const cfg = process.env.CLAUDE_CONFIG_DIR;
      let store: SqliteSessionStore | undefined;
      try {
        return await once.bare(d, url, true, (env) => {
          const o = extra(env, d);
          if (o.sessionStore instanceof SqliteSessionStore) store = o.sessionStore;
          return o;
        });
      } finally {
        store?.close();
        if (cfg === undefined) delete process.env.CLAUDE_CONFIG_DIR;
        else process.env.CLAUDE_CONFIG_DIR = cfg;
      }
    },
  ]),
);

/**
 * FLOWER_BEFORE=<another checkout>: its Runtime runs as the variant `before`, in the same rounds as this
 * checkout's, so a change is measured against what it changed on the same machine at the same moment. Each
 * copy keeps its own private config dir, and the parent's must be the child's (docs/sdk-facts.md §0).
 */
const BEFORE = process.env.FLOWER_BEFORE;
type OptionsModule = { privateConfigDir: () => string };
const ours = (await import('../src/runtime/options.js')) as OptionsModule;
const before = BEFORE
  ? {
      mod: (await import(`${BEFORE}/src/runtime/index.ts`)) as once.FlowerModule,
      options: (await import(`${BEFORE}/src/runtime/options.ts`)) as OptionsModule,
    }
  : undefined;
const withConfig = <T>(o: OptionsModule, run: () => Promise<T>): Promise<T> => {
  process.env.CLAUDE_CONFIG_DIR = o.privateConfigDir();
  return run();
};
const beforeRunners = before
  ? {
      'before:once': (d: once.RunDirs, u: string) => withConfig(before.options, () => once.runtimeRun(d, u, before.mod)),
      'before:guards': (d: guards.RunDirs, u: string) => withConfig(before.options, () => guards.flower(d, u, true, before.mod)),
    }
  : {};

const SESSIONS: Record<string, Session> = {
  once: {
    calls: once.CALLS,
    final: once.FINAL,
    dirs: once.dirs,
    script: () => once.script(),
    runners: {
      ...once.RUNNERS,
      runtime: (d: once.RunDirs, u: string) => withConfig(ours, () => once.RUNNERS.runtime(d, u)),
      ...(before ? { before: beforeRunners['before:once']! } : {}),
    },
    variants: ['bare+floor', ...(before ? ['before'] : []), 'runtime'],
  },
  parts: {
    calls: once.CALLS,
    final: once.FINAL,
    dirs: once.dirs,
    script: () => once.script(),
    runners: { ...once.RUNNERS, ...partRunners },
    variants: ['bare+floor', ...Object.keys(PARTS), 'runtime'],
  },
  guards: {
    calls: guards.TURNS,
    final: guards.FINAL,
    dirs: guards.dirs,
    script: guards.script,
    runners: {
      ...guards.RUNNERS,
      flower: (d: guards.RunDirs, u: string) => withConfig(ours, () => guards.RUNNERS.flower(d, u)),
      ...(before ? { before: beforeRunners['before:guards']! } : {}),
    },
    variants: ['bare+sandbox', ...(before ? ['before'] : []), 'flower'],
  },
};

async function one(sim: Sim, s: Session, v: string): Promise<{ phases: Phases; p: Probe }> {
  const d = s.dirs();
  try {
    sim.reset();
    sim.enqueue(s.script(d.ws));
    const p: Probe = { t0: now(), lines: new Map(), bytesOut: 0, bytesIn: 0, hookMs: [], pendingHooks: new Map(), turn: {}, toolTurns: [] };
    watchNext(p);
    const c0 = process.cpuUsage();
    const final = await s.runners[v]!(d as never, sim.url);
    p.end = now();
    const c = process.cpuUsage(c0);
    watchNext(undefined);
    const reqs = sim.messageRequests().map((r) => r.t);
    if (final !== s.final || reqs.length !== s.calls) throw new Error(`${v}: ${reqs.length} calls, final ${final}`);
    const at = (x: number | undefined, what: string) => {
      if (x === undefined) throw new Error(`${v}: never saw ${what}`);
      return x;
    };
    const phases: Phases = {
      start: at(p.spawn, 'the spawn') - p.t0,
      boot: at(p.initialized, 'the initialize answer') - p.spawn!,
      init: at(p.sysInit, 'system/init') - p.initialized!,
      first: reqs[0]! - p.sysInit!,
      'calls/call': (reqs.at(-1)! - reqs[0]!) / (reqs.length - 1),
      last: at(p.result, 'the result') - reqs.at(-1)!,
      exit: at(p.exit, 'the exit') - p.result!,
      after: p.end - p.exit!,
      total: p.end - p.t0,
      'c:tool_use→result': median(p.toolTurns.map((x) => x.toResult)),
      ...(p.toolTurns.some((x) => x.toHook !== undefined)
        ? {
            'c:tool_use→hook': median(p.toolTurns.flatMap((x) => (x.toHook !== undefined ? [x.toHook] : []))),
            'c:answer→result': median(p.toolTurns.flatMap((x) => (x.afterAnswer !== undefined ? [x.afterAnswer] : []))),
          }
        : {}),
      'cpu child': at(p.childCpu, "the child's CPU"),
      'cpu parent': (c.user + c.system) / 1000,
    };
    if (p.debugFile) {
      Object.assign(phases, binaryCalls(fs.readFileSync(p.debugFile, 'utf8')));
      fs.rmSync(p.debugFile, { force: true });
    }
    return { phases, p };
  } finally {
    freshConfigDir();
    fs.rmSync(d.root, { recursive: true, force: true });
  }
}

const f1 = (x: number) => x.toFixed(1).padStart(8);

async function main(): Promise<void> {
  const name = process.argv[2] ?? 'once';
  const runs = Number(process.argv[3] ?? 3);
  const s = SESSIONS[name];
  if (!s) throw new Error(`no session ${name}: ${Object.keys(SESSIONS).join(', ')}`);
  // PHASES_ONLY=a,b: only these variants (the first stays the base)
  const only = process.env.PHASES_ONLY?.split(',');
  if (only) s.variants = s.variants.filter((v, i) => i === 0 || only.includes(v));
  console.log(
    `session ${name}, ${runs} rounds, load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(', ')}`,
  );
  const sim = await startSim({ port: 0, onUnexpected: 'error' });
  const got: Record<string, { phases: Phases[]; last?: Probe }> = Object.fromEntries(s.variants.map((v) => [v, { phases: [] }]));
  try {
    for (let r = 0; r <= runs; r++) {
      for (let i = 0; i < s.variants.length; i++) {
        const v = s.variants[(i + r) % s.variants.length]!;
        const o = await one(sim, s, v);
        if (r > 0) {
          got[v]!.phases.push(o.phases);
          got[v]!.last = o.p;
        }
      }
    }
  } finally {
    await sim.close();
  }
  const base = s.variants[0]!;
  console.log(`${'phase (median ms)'.padEnd(18)}${s.variants.map((v) => v.padStart(13)).join('')}   (each: minus ${base})`);
  const keys = [...new Set(s.variants.flatMap((v) => Object.keys(got[v]!.phases[0]!)))];
  for (const k of keys) {
    const of = (v: string) => {
      const xs = got[v]!.phases.flatMap((x) => (x[k] === undefined ? [] : [x[k]!]));
      return xs.length ? median(xs) : undefined;
    };
    const mb = of(base);
    const cells = s.variants.map((v, i) => {
      const m = of(v);
      const cell = m === undefined ? '-' : i === 0 || mb === undefined ? f1(m).trim() : `${m - mb >= 0 ? '+' : ''}${(m - mb).toFixed(1)}`;
      return cell.padStart(13);
    });
    console.log(`${k.padEnd(18)}${cells.join('')}`);
  }
  // per round, each variant's total over the base's of the same round: they ran back to back
  const paired = (v: string) => median(got[v]!.phases.map((x, i) => x.total! / got[base]!.phases[i]!.total!));
  console.log(
    `${'total / base'.padEnd(18)}${s.variants.map((v, i) => (i === 0 ? '' : `${paired(v).toFixed(3)}x`).padStart(13)).join('')}   (paired per round, median)`,
  );
  for (const v of s.variants) {
    const p = got[v]!.last!;
    const kinds = [...p.lines.entries()].sort((x, y) => y[1] - x[1]).map(([k, n]) => `${k} ${n}`);
    console.log(
      `\n${v}: child → parent ${(p.bytesOut / 1024).toFixed(0)} KiB, parent → child ${(p.bytesIn / 1024).toFixed(0)} KiB; lines: ${kinds.join(', ')}`,
    );
    if (p.hookMs.length) {
      const h = [...p.hookMs].sort((x, y) => x - y);
      console.log(`  hook callbacks ${h.length}: flower's answer median ${median(h).toFixed(2)} ms, max ${h.at(-1)!.toFixed(2)} ms`);
    }
  }
}

await main();
