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
// Run: npm run build && node --import tsx bench/phases.ts [once|guards] [runs=3]
//      (add --cpu-prof before --import for a profile of this process)
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import * as guards from './guards.js';
import { freshConfigDir } from './floor.js';
import { median } from './measure.js';
import * as once from './once.js';
import type { HookCallbackMatcher, Options } from '@anthropic-ai/claude-agent-sdk';
import { failClosed } from '../src/guards/failclosed.js';
import { startSim, type Sim, type SimScriptItem } from '../src/sim/index.js';
import { SqliteSessionStore } from '../src/store/index.js';

const now = (): number => performance.timeOrigin + performance.now();

/** What one run's child did, in epoch ms (the sim's request log uses Date.now()). */
interface Probe {
  t0: number;
  spawn?: number;
  initialized?: number;
  sysInit?: number;
  result?: number;
  exit?: number;
  end?: number;
  lines: Map<string, number>;
  bytesOut: number;
  bytesIn: number;
  /** ms from a hook_callback request on the child's stdout to flower's answer on its stdin */
  hookMs: number[];
  pendingHooks: Map<string, number>;
  initRequest?: string;
  /** the child's CPU ms (its own and its reaped children's: bash, bwrap) when its result came */
  childCpu?: number | undefined;
  pid?: number | undefined;
  /** the binary's --debug-file (PHASES_DEBUG=1), read for its per-call timings */
  debugFile?: string | undefined;
}

let probe: Probe | undefined;

function lineKey(m: Record<string, unknown>): string {
  const req = m.request as Record<string, unknown> | undefined;
  const ev = m.event as Record<string, unknown> | undefined;
  const sub = m.subtype ?? req?.subtype ?? ev?.type ?? '';
  return `${String(m.type)}${sub ? `/${String(sub)}` : ''}`;
}

function onChildLine(p: Probe, line: string): void {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return;
  }
  const k = lineKey(m);
  p.lines.set(k, (p.lines.get(k) ?? 0) + 1);
  if (k === 'system/init') p.sysInit ??= now();
  if (m.type === 'result' && p.result === undefined) {
    p.result = now();
    p.childCpu = procCpu(p.pid);
  }
  const resp = m.response as Record<string, unknown> | undefined;
  if (m.type === 'control_response' && resp?.request_id === p.initRequest) p.initialized ??= now();
  if (k === 'control_request/hook_callback') p.pendingHooks.set(String(m.request_id), now());
}

function onParentLine(p: Probe, line: string): void {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return;
  }
  const req = m.request as Record<string, unknown> | undefined;
  if (m.type === 'control_request' && req?.subtype === 'initialize') p.initRequest = String(m.request_id);
  const resp = m.response as Record<string, unknown> | undefined;
  const at = resp ? p.pendingHooks.get(String(resp.request_id)) : undefined;
  if (at !== undefined) {
    p.hookMs.push(now() - at);
    p.pendingHooks.delete(String(resp!.request_id));
  }
}

/** utime + stime + cutime + cstime of a live process, in ms (Linux /proc; clock ticks of 10 ms). */
function procCpu(pid: number | undefined): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14])) * 10;
  } catch {
    return undefined;
  }
}

function lines(each: (line: string) => void): (chunk: Buffer | string) => void {
  let buf = '';
  return (chunk) => {
    buf += String(chunk);
    let i: number;
    while ((i = buf.indexOf('\n')) >= 0) {
      each(buf.slice(0, i));
      buf = buf.slice(i + 1);
    }
  };
}

function watch(child: ChildProcess): void {
  const p = probe;
  if (!p || p.spawn !== undefined) return;
  p.spawn = now();
  p.pid = child.pid;
  child.stdout?.on('data', (c: Buffer) => {
    p.bytesOut += c.length;
    feedOut(c);
  });
  const feedOut = lines((l) => onChildLine(p, l));
  const feedIn = lines((l) => onParentLine(p, l));
  const stdin = child.stdin;
  if (stdin) {
    const write = stdin.write.bind(stdin) as (...a: unknown[]) => boolean;
    stdin.write = ((chunk: unknown, ...rest: unknown[]) => {
      const s = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : '';
      p.bytesIn += Buffer.byteLength(s);
      feedIn(s);
      return write(chunk, ...rest);
    }) as typeof stdin.write;
  }
  child.once('exit', () => (p.exit ??= now()));
}

// every spawn goes through here: the SDK's default and flower's detached one both import node:child_process
const cp = createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
const spawn0 = cp.spawn;
cp.spawn = ((...a: Parameters<typeof spawn0>) => {
  if (process.env.PHASES_DEBUG && probe && /claude/.test(String(a[0])) && Array.isArray(a[1])) {
    probe.debugFile = `${os.tmpdir()}/flower-phases-debug-${process.pid}-${Math.random().toString(36).slice(2)}.txt`;
    (a as unknown[])[1] = [...(a[1] as string[]), '--debug-file', probe.debugFile];
  }
  const child = spawn0(...a);
  if (/claude/.test(String(a[0]))) watch(child);
  return child;
}) as typeof spawn0;
syncBuiltinESMExports();

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
  '+2 pre hooks': () => ({ hooks: { PreToolUse: [noop(), noop()] } }),
  '+post hook': () => ({ hooks: { PostToolUse: [{ hooks: [async () => ({})] }] } }),
  '+store': (env, d) => {
    // the SDK maps mirror frames to keys through the PARENT's config dir: it must be the child's (restored after the run)
    process.env.CLAUDE_CONFIG_DIR = env.CLAUDE_CONFIG_DIR;
    fs.mkdirSync(d.runs, { recursive: true });
    return { sessionStore: new SqliteSessionStore(`${d.runs}/sessions.db`), sessionStoreFlush: 'eager' };
  },
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

type Phases = Record<string, number>;

async function one(sim: Sim, s: Session, v: string): Promise<{ phases: Phases; p: Probe }> {
  const d = s.dirs();
  try {
    sim.reset();
    sim.enqueue(s.script(d.ws));
    const p: Probe = { t0: now(), lines: new Map(), bytesOut: 0, bytesIn: 0, hookMs: [], pendingHooks: new Map() };
    probe = p;
    const c0 = process.cpuUsage();
    const final = await s.runners[v]!(d as never, sim.url);
    p.end = now();
    const c = process.cpuUsage(c0);
    probe = undefined;
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

/**
 * The binary's own account of each tool call (its --debug-file lines): request → first byte → the
 * tool's dispatch (after the stream and the permission decision, hooks included) → its end → the next
 * request. Medians over the calls of one run, in ms.
 */
function binaryCalls(log: string): Phases {
  const seg: Record<string, number[]> = { 'b:req→byte': [], 'b:byte→dispatch': [], 'b:permission': [], 'b:tool': [], 'b:tool→req': [] };
  let req: number | undefined, byte: number | undefined, start: number | undefined, end: number | undefined;
  for (const line of log.split('\n')) {
    const t = Date.parse(line.slice(0, 24));
    if (Number.isNaN(t)) continue;
    if (line.includes('[API REQUEST] /v1/messages')) {
      if (end !== undefined) seg['b:tool→req']!.push(t - end);
      req = t;
      end = undefined;
    } else if (line.includes('first byte after') && req !== undefined) {
      byte = t;
      seg['b:req→byte']!.push(t - req);
    } else if (line.includes('tool_dispatch_start') && byte !== undefined) {
      start = t;
      seg['b:byte→dispatch']!.push(t - byte);
      const pd = /permissionDecisionMs=(\d+)/.exec(line);
      if (pd) seg['b:permission']!.push(Number(pd[1]));
    } else if (line.includes('tool_dispatch_end') && start !== undefined) {
      end = t;
      seg['b:tool']!.push(t - start);
    }
  }
  return Object.fromEntries(
    Object.entries(seg)
      .filter(([, v]) => v.length)
      .map(([k, v]) => [k, median(v)]),
  );
}

const f1 = (x: number) => x.toFixed(1).padStart(8);

async function main(): Promise<void> {
  const name = process.argv[2] ?? 'once';
  const runs = Number(process.argv[3] ?? 3);
  const s = SESSIONS[name];
  if (!s) throw new Error(`no session ${name}: once or guards`);
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
  for (const k of Object.keys(got[base]!.phases[0]!)) {
    const mb = median(got[base]!.phases.map((x) => x[k]!));
    const cells = s.variants.map((v, i) => {
      const m = median(got[v]!.phases.map((x) => x[k]!));
      return (i === 0 ? f1(m) : `${m - mb >= 0 ? '+' : ''}${(m - mb).toFixed(1)}`).padStart(13);
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
