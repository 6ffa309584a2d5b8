// Bench for the CLI's start: the whole `node bin/flower.js …` process, from spawn to exit, for the
// commands a person types to look (`--version`, `--help`, `status` on a small run dir), against a bare
// `node -e 0` in the same rounds (A B A B …, so a drifting machine moves both). The difference is
// flower's module loading and its own work; the goal is the whole process under 150 ms.
// Then the module side (bench/modules.ts), for those commands and `once` (one model call to a sim): how
// many modules each loads, from which packages, and what importing exactly those costs in a fresh node
// (module load, node's start and the command's own work left out); and what the packages any of them
// loads cost each on its own. `once`'s whole run against the same run in-process is bench/once.ts's row.
// Run: npm run build && node --import tsx bench/start.ts [runs=11]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { startSim } from '../src/sim/index.js';
import { argInt, fmtMs, fmtRatio, isMain, median, ms, table, type BenchRow } from './measure.js';
import { alone, loadTime, packageLine, trace, type Traced } from './modules.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'flower.js');
const GOAL_MS = 150;
const WARMUP = 2;
const CHAIN = 100;

export interface StartBenchOptions {
  runs?: number;
  log?: (line: string) => void;
}

/** A project with one run recorded: a lineage and a manifest (the state fixtures the tests read too). */
function smallRunDir(): { root: string; ws: string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-bench-start-'));
  const ws = path.join(root, 'ws');
  const runs = path.join(ws, 'runs');
  fs.mkdirSync(runs, { recursive: true });
  fs.mkdirSync(path.join(root, 'home'));
  const fixtures = path.join(ROOT, 'test', 'fixtures', 'state', 'ok');
  fs.copyFileSync(path.join(fixtures, 'manifest-contract-fields.json'), path.join(runs, 'manifest.json'));
  fs.copyFileSync(path.join(fixtures, 'lineage-v1.json'), path.join(runs, 'lineage.json'));
  // the machine's own reference: node resolving, reading and linking modules that do nothing (a change
  // in it and in node -e 0 is the machine's; a change in flower's rows beside steady references is flower's)
  fs.mkdirSync(path.join(root, 'chain'));
  for (let i = 0; i < CHAIN; i++) fs.writeFileSync(path.join(root, 'chain', `${i}.mjs`), i + 1 < CHAIN ? `import './${i + 1}.mjs';\n` : 'export {};\n');
  fs.writeFileSync(path.join(root, 'cpu.mjs'), CPU_HOOK);
  return { root, ws };
}

// written at exit by a preload (CPU runs only): the whole process's CPU time, user + system, every thread
const CPU_HOOK = `process.on('exit', () => { const c = process.cpuUsage(); process.stderr.write('\\nFLOWER_BENCH_CPU ' + (c.user + c.system) / 1000 + '\\n'); });\n`;

/**
 * One whole process, in ms; a non-zero exit is a broken bench, not a slow one. With `cpuHook`, the process's
 * CPU ms instead (the hook as a preload: its own small cost lands on both sides of a pair alike).
 */
function once(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, cpuHook?: string): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, cpuHook ? ['--import', cpuHook, ...args] : args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const t = ms(t0);
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status ?? r.signal}: ${String(r.stderr).slice(0, 400)}`);
  if (!cpuHook) return t;
  const cpu = /FLOWER_BENCH_CPU ([\d.]+)/.exec(String(r.stderr));
  if (!cpu) throw new Error(`node ${args.join(' ')} printed no CPU time`);
  return Number(cpu[1]);
}

/** What is timed: flower's commands, and (first) a chain of empty ES modules, how fast this machine loads modules today. */
const COMMANDS: ReadonlyArray<{ name: string; args: (root: string) => string[]; goal: boolean }> = [
  { name: `node: ${CHAIN} empty ES modules, chained`, args: (root) => [path.join(root, 'chain', '0.mjs')], goal: false },
  { name: 'flower --version', args: () => [BIN, '--version'], goal: true },
  { name: 'flower --help', args: () => [BIN, '--help'], goal: true },
  { name: 'flower status (small run dir)', args: () => [BIN, 'status'], goal: true },
];

/** What each command loads and what loading it costs, and each package's own cost (bench/modules.ts). */
async function moduleRows(d: { root: string; ws: string }, env: NodeJS.ProcessEnv, runs: number, log: (line: string) => void): Promise<BenchRow[]> {
  const sim = await startSim({ port: 0, onUnexpected: 'error' });
  const traced: Array<[string, Traced]> = [];
  try {
    // the bin's own arguments (flower's commands only)
    for (const c of COMMANDS) if (c.goal) traced.push([c.name.replace(/ \(.*\)$/, ''), await trace(c.args(d.root).slice(1), { cwd: d.ws, env })]);
    sim.enqueue([{ type: 'text', text: 'done' }]);
    const simEnv = {
      ...env,
      ANTHROPIC_BASE_URL: sim.url,
      ANTHROPIC_API_KEY: 'sk-test',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      FLOWER_CLI_RETRIES: '0',
    };
    traced.push(['flower once', await trace(['once', 'say done', '-t', 'Read'], { cwd: d.ws, env: simEnv })]);
    if (sim.messageRequests().length !== 1) throw new Error(`flower once made ${sim.messageRequests().length} model calls, expected 1`);
  } finally {
    await sim.close();
  }
  const rows: BenchRow[] = [];
  for (const [name, t] of traced) {
    const load = loadTime(t.modules, runs);
    log(`${name}: ${t.modules.length} modules, loaded in ${fmtMs(load.wall)} (cpu ${fmtMs(load.cpu)}): ${packageLine(t)}`);
    // the figure is the CPU time: on a machine others share it moves far less than the wall time
    rows.push({
      key: `start.modules.${name.replace(/^flower /, '').replace(/^-+/, '')}`,
      measure: `${name}, module load CPU (${t.modules.length} modules)`,
      baseline: '—',
      flower: `${fmtMs(load.cpu)} (wall ${fmtMs(load.wall)})`,
      ratio: '—',
      goal: '(report)',
      met: null,
      figures: { unit: 'ms', baseline: null, flower: load.cpu, ratio: null },
    });
  }
  const packages = new Set(traced.flatMap(([, t]) => [...t.packages.keys()]).filter((p) => p !== 'flower' && p !== 'node' && !p.endsWith('.json')));
  const each = [...packages].map((p) => [p, alone(p, Math.max(3, Math.ceil(runs / 3)))] as const).sort((a, b) => b[1].cpu - a[1].cpu);
  log(`each package alone (cpu): ${each.map(([p, t]) => `${p} ${fmtMs(t.cpu)}`).join(', ')}`);
  return rows;
}

export async function main(o: StartBenchOptions = {}): Promise<BenchRow[]> {
  const runs = o.runs ?? 11;
  const log = o.log ?? console.log;
  const d = smallRunDir();
  const env = { PATH: process.env.PATH ?? '', HOME: path.join(d.root, 'home'), FLOWER_LANG: 'en' };
  const rows: BenchRow[] = [];
  try {
    const cpuHook = pathToFileURL(path.join(d.root, 'cpu.mjs')).href;
    for (const c of COMMANDS) {
      const t = { bare: [] as number[], flower: [] as number[], bareCpu: [] as number[], flowerCpu: [] as number[] };
      for (let i = 0; i < WARMUP + runs; i++) {
        // A B A B: a drifting machine moves both sides of each pair
        const pair = [
          once(['-e', '0'], d.ws, env),
          once(c.args(d.root), d.ws, env),
          once(['-e', '0'], d.ws, env, cpuHook),
          once(c.args(d.root), d.ws, env, cpuHook),
        ];
        if (i < WARMUP) continue;
        t.bare.push(pair[0]!);
        t.flower.push(pair[1]!);
        t.bareCpu.push(pair[2]!);
        t.flowerCpu.push(pair[3]!);
      }
      const base = median(t.bare);
      const fl = median(t.flower);
      const ratio = median(t.flower.map((f, i) => f / t.bare[i]!));
      const cpu = median(t.flowerCpu);
      const load = os.loadavg()[0]!.toFixed(1);
      log(
        `${c.name}: ${fmtMs(fl)} (node -e 0: ${fmtMs(base)}; min ${fmtMs(Math.min(...t.flower))}, max ${fmtMs(Math.max(...t.flower))}); ` +
          `CPU ${fmtMs(cpu)} (node -e 0: ${fmtMs(median(t.bareCpu))}); load ${load}`,
      );
      rows.push({
        ...(c.goal ? {} : { key: 'start.reference.chain' }),
        measure: `${c.name}, whole process`,
        baseline: `${fmtMs(base)} node -e 0`,
        flower: `${fmtMs(fl)} (CPU ${fmtMs(cpu)})`,
        ratio: fmtRatio(ratio),
        goal: c.goal ? `< ${GOAL_MS} ms` : '(machine)',
        met: c.goal ? fl < GOAL_MS : null,
        figures: { unit: 'ms', baseline: base, flower: fl, ratio },
      });
    }
    rows.push(...(await moduleRows(d, env, runs, log)));
  } finally {
    fs.rmSync(d.root, { recursive: true, force: true });
  }
  return rows;
}

if (isMain(import.meta.url)) {
  const rows = await main({ runs: argInt(0, 11) });
  console.log(`\n${table(rows)}`);
}
