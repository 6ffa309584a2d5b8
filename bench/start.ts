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
import { fileURLToPath } from 'node:url';
import { startSim } from '../src/sim/index.js';
import { argInt, fmtMs, fmtRatio, isMain, median, ms, table, type BenchRow } from './measure.js';
import { alone, loadTime, packageLine, trace, type Traced } from './modules.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'flower.js');
const GOAL_MS = 150;
const WARMUP = 2;

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
  return { root, ws };
}

/** One whole process, in ms; a non-zero exit is a broken bench, not a slow one. */
function once(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv): number {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const t = ms(t0);
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status ?? r.signal}: ${String(r.stderr).slice(0, 400)}`);
  return t;
}

const COMMANDS: ReadonlyArray<{ name: string; args: string[] }> = [
  { name: 'flower --version', args: ['--version'] },
  { name: 'flower --help', args: ['--help'] },
  { name: 'flower status (small run dir)', args: ['status'] },
];

/** What each command loads and what loading it costs, and each package's own cost (bench/modules.ts). */
async function moduleRows(d: { root: string; ws: string }, env: NodeJS.ProcessEnv, runs: number, log: (line: string) => void): Promise<BenchRow[]> {
  const sim = await startSim({ port: 0, onUnexpected: 'error' });
  const traced: Array<[string, Traced]> = [];
  try {
    for (const c of COMMANDS) traced.push([c.name.replace(/ \(.*\)$/, ''), await trace(c.args, { cwd: d.ws, env })]);
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
    for (const c of COMMANDS) {
      const bare: number[] = [];
      const flower: number[] = [];
      for (let i = 0; i < WARMUP + runs; i++) {
        const b = once(['-e', '0'], d.ws, env);
        const f = once([BIN, ...c.args], d.ws, env);
        if (i < WARMUP) continue;
        bare.push(b);
        flower.push(f);
      }
      const base = median(bare);
      const fl = median(flower);
      const ratio = median(flower.map((f, i) => f / bare[i]!));
      log(`${c.name}: ${fmtMs(fl)} (node -e 0: ${fmtMs(base)}; min ${fmtMs(Math.min(...flower))}, max ${fmtMs(Math.max(...flower))})`);
      rows.push({
        measure: `${c.name}, whole process`,
        baseline: `${fmtMs(base)} node -e 0`,
        flower: fmtMs(fl),
        ratio: fmtRatio(ratio),
        goal: `< ${GOAL_MS} ms`,
        met: fl < GOAL_MS,
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
