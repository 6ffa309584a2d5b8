// The floor under every bench's bare baseline, built in one place: a bare SDK query() configured with the
// same sandbox settings, permission rules and scrub script flower hands the binary (runtime/floor.ts,
// exactly as flower builds them), so flower / bare+floor is flower's own overhead. Every bench that
// compares flower with a bare run takes its floor from bareFloor() here.
//
// Run on its own, the floor's price per command: one scripted session of quick `echo` Bash calls run bare
// and with one part of the floor at a time, so each part's cost per command shows on its own line:
//   bare            — nothing (the baseline)
//   +env-file       — CLAUDE_ENV_FILE: flower's scrub script, sourced before every command
//   +rules          — the binary's permission rules (the path wall's second half, `settings`)
//   +scrub          — CLAUDE_CODE_SUBPROCESS_ENV_SCRUB=1 alone (the binary then runs every command in bwrap)
//   +bwrap          — the sandbox with only the writable folders: a bubblewrap start per command
//   +lists          — the same with flower's denyRead/denyWrite lists and credentials, still no network key
//   +proxy          — bwrap plus `network.allowedDomains: ['*']`: a network namespace and the HTTP/SOCKS proxy
//   floor net on    — flower's whole sandbox, `--net on` (the default for writing roles)
//   floor net off   — flower's whole sandbox, `--net off` / read-only roles
//   floor no-sb     — what `--no-sandbox` keeps: the env scrub, the rules and the scrub script
// Run: node --import tsx bench/floor.ts [rounds=3] [commands=40]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { query, type Options, type SandboxSettings } from '@anthropic-ai/claude-agent-sdk';
import { resolveEnv } from '../src/config/index.js';
import type { NetPolicy } from '../src/guards/index.js';
import { Floor } from '../src/runtime/floor.js';
import { RunLayout } from '../src/state/index.js';
import { startSim, type Sim, type SimScriptItem } from '../src/sim/index.js';
import { argInt, fmtMs, fmtRatio, isMain, median, table, timed, type BenchRow } from './measure.js';

/** The folders a bare run's floor is built over (the bench's own temp tree). */
export interface FloorDirs {
  ws: string;
  runs: string;
  home: string;
  tmp: string;
  /** the binary's config dir (default: `<home>/.claude`); a resume bench passes the one its store was made with */
  configDir?: string;
}

/** `sandbox`: flower's default floor; `scrub`: what `--no-sandbox` keeps; `none`: a bare run as the SDK ships. */
export type FloorMode = 'none' | 'sandbox' | 'scrub';

export interface BareFloor {
  /** the env to hand query(): the caller's plus the private config dir, TMPDIR and the floor's variables */
  env: Record<string, string>;
  /** the query() options the floor sets */
  options: Pick<Options, 'sandbox' | 'settings'>;
  /** flower's sandbox settings as built, for the price bench's partial variants */
  sandbox: SandboxSettings | undefined;
}

/**
 * What flower's session adds to its sandbox beyond the ad-hoc role's floor: the step's handoff record is
 * protected (every step), and a Runtime with a workbench writes it and protects its records. A bare
 * baseline given the same shape gets the same sandbox flower hands the binary, entry for entry.
 */
export interface FloorShape {
  /** the step's name (Runtime.run's stepName, else the spec's name): its handoff file is protected */
  step?: string;
  /** the Runtime has `workbench: true` (its root is the layout's root) */
  workbench?: boolean;
}

/**
 * A bare run's floor, as flower builds it for a writing role (floor 'workspace', no
 * `--allow-write`/`--pass-env`/`--deny-read`), of the given shape. `net` defaults to flower's default, 'on'.
 */
export function bareFloor(d: FloorDirs, base: Record<string, string>, mode: FloorMode, net: NetPolicy = 'on', shape: FloorShape = {}): BareFloor {
  const env: Record<string, string> = { ...base, CLAUDE_CONFIG_DIR: d.configDir ?? path.join(d.home, '.claude'), TMPDIR: d.tmp };
  fs.mkdirSync(env.CLAUDE_CONFIG_DIR!, { recursive: true });
  fs.mkdirSync(d.tmp, { recursive: true });
  if (mode === 'none') return { env, options: {}, sandbox: undefined };
  if (mode === 'scrub') env.CLAUDE_CODE_SUBPROCESS_ENV_SCRUB = '1';
  const layout = RunLayout.of({ cwd: d.ws, workspace: d.ws, runDir: d.runs });
  // runtime/context.ts: `workbench: true` is a Workbench at the layout's root
  const workbench = shape.workbench ? layout.root : undefined;
  const floor = new Floor({
    layout,
    resolved: resolveEnv(env, d.ws),
    workbench,
    tmpDir: d.tmp,
    configDir: env.CLAUDE_CONFIG_DIR!,
    allowWrite: [],
    passEnv: [],
    allowRead: [],
    denyRead: [],
    protect: [],
    warn: () => {},
  });
  env.CLAUDE_ENV_FILE = floor.scrubFile;
  if (floor.gitConfig) env.GIT_CONFIG_GLOBAL = floor.gitConfig;
  // runtime/assemble.ts: the same call, with the step's handoff file
  const handoff = shape.step === undefined ? undefined : (workbench ? layout.withWorkbench(workbench) : layout).handoff(shape.step);
  const sandbox = mode === 'sandbox' ? floor.sandbox({ floor: 'workspace', net, nested: false, workbench, handoff }) : undefined;
  return { env, options: { settings: floor.settings(), ...(sandbox ? { sandbox } : {}) }, sandbox };
}

/**
 * flower keeps one private config dir per process: emptied after each run, outside the timed part (the
 * bare runs' config dirs go with their temp tree, untimed too), so the next run starts as fresh as the
 * others (removing it would make flower create another and add one more exit listener per run).
 */
export function freshConfigDir(): void {
  const cfg = process.env.CLAUDE_CONFIG_DIR;
  if (cfg && path.basename(cfg).startsWith('flower-claude-') && path.dirname(cfg) === os.tmpdir()) {
    for (const f of fs.readdirSync(cfg)) fs.rmSync(path.join(cfg, f), { recursive: true, force: true });
  }
}

// ---- the floor's price, one part at a time ----

const RUN_TIMEOUT_MS = 300_000;
const PROMPT = 'Echo the numbers, one Bash call each, then say done.';
const FINAL = 'done echoing';

type Variant = 'bare' | '+env-file' | '+rules' | '+scrub' | '+bwrap' | '+lists' | '+proxy' | 'floor net on' | 'floor net off' | 'floor no-sb';
const VARIANTS: Variant[] = ['bare', '+env-file', '+rules', '+scrub', '+bwrap', '+lists', '+proxy', 'floor net on', 'floor net off', 'floor no-sb'];
/** stable keys for the saved report (bench/compare.ts matches rows by them) */
const KEY: Record<Variant, string> = {
  bare: 'floor.bare',
  '+env-file': 'floor.part.env-file',
  '+rules': 'floor.part.rules',
  '+scrub': 'floor.part.env-scrub',
  '+bwrap': 'floor.part.bwrap',
  '+lists': 'floor.part.bwrap-lists',
  '+proxy': 'floor.part.bwrap-proxy',
  'floor net on': 'floor.sandbox.net-on',
  'floor net off': 'floor.sandbox.net-off',
  'floor no-sb': 'floor.no-sandbox',
};

interface RunDirs extends FloorDirs {
  root: string;
}

function dirs(): RunDirs {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-bench-floor-'));
  const d = { root, home: path.join(root, 'home'), ws: path.join(root, 'ws'), runs: path.join(root, 'runs'), tmp: path.join(root, 'tmp') };
  for (const p of [d.home, d.ws, d.tmp]) fs.mkdirSync(p, { recursive: true });
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

function script(commands: number): SimScriptItem[] {
  const items: SimScriptItem[] = [];
  for (let i = 1; i <= commands; i++) {
    items.push({ type: 'tool_use', name: 'Bash', id: `toolu_f_${String(i).padStart(3, '0')}`, input: { command: `echo ${i}`, description: `echo ${i}` } });
  }
  items.push({ type: 'text', text: FINAL });
  return items;
}

/** The query() env and options of one variant: bare plus exactly one part of the floor, or a whole floor. */
function variantOf(v: Variant, d: RunDirs, url: string): { env: Record<string, string>; options: Partial<Options> } {
  const base = baseEnv(d, url);
  if (v === 'floor net on' || v === 'floor net off') return bareFloor(d, base, 'sandbox', v === 'floor net on' ? 'on' : 'off');
  if (v === 'floor no-sb') return bareFloor(d, base, 'scrub');
  const bare = bareFloor(d, base, 'none');
  if (v === 'bare') return bare;
  const full = bareFloor(d, base, 'sandbox');
  const sb = full.sandbox!;
  const writable = { allowWrite: sb.filesystem?.allowWrite ?? [] };
  const alone: SandboxSettings = { enabled: true, failIfUnavailable: true, allowUnsandboxedCommands: false, filesystem: writable };
  switch (v) {
    case '+env-file':
      return { env: { ...bare.env, CLAUDE_ENV_FILE: full.env.CLAUDE_ENV_FILE! }, options: {} };
    case '+rules':
      return { env: bare.env, options: { settings: full.options.settings! } };
    case '+scrub':
      return { env: { ...bare.env, CLAUDE_CODE_SUBPROCESS_ENV_SCRUB: '1' }, options: {} };
    case '+bwrap':
      return { env: bare.env, options: { sandbox: alone } };
    case '+lists': {
      const { network: _net, ...lists } = sb;
      return { env: bare.env, options: { sandbox: lists } };
    }
    case '+proxy':
      return { env: bare.env, options: { sandbox: { ...alone, network: { allowedDomains: ['*'] } } } };
  }
}

async function run(v: Variant, d: RunDirs, url: string): Promise<string> {
  const abortController = new AbortController();
  const { env, options } = variantOf(v, d, url);
  let timer: NodeJS.Timeout | undefined;
  const go = async () => {
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
      },
    })) {
      if (m.type === 'result') final = m.subtype === 'success' ? m.result : `error: ${m.subtype}`;
    }
    return final;
  };
  const t = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abortController.abort();
      reject(new Error(`${v} took over ${RUN_TIMEOUT_MS / 1000} s`));
    }, RUN_TIMEOUT_MS);
  });
  return Promise.race([go(), t]).finally(() => clearTimeout(timer));
}

async function once(sim: Sim, v: Variant, commands: number): Promise<number> {
  const d = dirs();
  try {
    sim.reset();
    sim.enqueue(script(commands));
    const t = await timed(() => run(v, d, sim.url));
    const calls = sim.messageRequests().length;
    if (t.value !== FINAL || calls !== commands + 1 || sim.pending().length || sim.unexpected().length) {
      throw new Error(`${v}: expected ${commands + 1} model calls ending in "${FINAL}", got ${calls}, ${sim.pending().length} left, final: ${t.value}`);
    }
    return t.ms;
  } finally {
    fs.rmSync(d.root, { recursive: true, force: true });
  }
}

export async function main(o: { runs?: number; commands?: number; log?: (line: string) => void } = {}): Promise<BenchRow[]> {
  const RUNS = Math.max(1, o.runs ?? 3);
  const N = Math.max(5, o.commands ?? 40);
  const log = o.log ?? console.log;
  const sim = await startSim({ port: 0, onUnexpected: 'error' });
  const times = Object.fromEntries(VARIANTS.map((v) => [v, [] as number[]])) as Record<Variant, number[]>;
  try {
    // round 0 warms the caches and is not counted; the order rotates so no variant always goes first
    for (let r = 0; r <= RUNS; r++) {
      for (let i = 0; i < VARIANTS.length; i++) {
        const v = VARIANTS[(i + r) % VARIANTS.length]!;
        const t = await once(sim, v, N);
        if (r > 0) times[v].push(t);
      }
      if (r > 0) log(`round ${r}: ${VARIANTS.map((v) => `${v} ${fmtMs(times[v][r - 1]!)}`).join(', ')}`);
    }
  } finally {
    await sim.close();
  }
  // per command: the paired (same round) difference to bare, over the commands of one session
  const perCmd = (v: Variant) => median(times[v].map((t, i) => (t - times.bare[i]!) / N));
  const ratio = (v: Variant) => median(times[v].map((t, i) => t / times.bare[i]!));
  const bare = median(times.bare);
  for (const v of VARIANTS) {
    log(
      `${v.padEnd(14)} median ${fmtMs(median(times[v]))}  ${v === 'bare' ? '' : `+${perCmd(v).toFixed(1)} ms per command (${fmtRatio(ratio(v))})`}  (runs: ${times[v].map(Math.round).join(', ')})`,
    );
  }
  return VARIANTS.filter((v) => v !== 'bare').map((v) => ({
    key: KEY[v],
    measure: `floor's price per command, ${v === 'floor no-sb' ? 'the --no-sandbox floor' : v.startsWith('floor') ? `the sandbox, ${v.slice(6)}` : `bare ${v}`} (${N} quick commands)`,
    baseline: `${fmtMs(bare)} bare`,
    flower: `+${perCmd(v).toFixed(1)} ms/cmd`,
    ratio: fmtRatio(ratio(v)),
    goal: '(report)',
    met: null,
    figures: { unit: 'ms', baseline: bare / N, flower: bare / N + perCmd(v), ratio: ratio(v) },
  }));
}

if (isMain(import.meta.url)) {
  const rows = await main({ runs: argInt(0, 3), commands: argInt(1, 40) });
  console.log(`\n${table(rows)}`);
}
