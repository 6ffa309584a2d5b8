// Bench for the CLI's start: the whole `node bin/flower.js …` process, from spawn to exit, for the
// commands a person types to look (`--version`, `--help`, `status` on a small run dir), against a bare
// `node -e 0` in the same rounds (A B A B …, so a drifting machine moves both). The difference is
// flower's module loading and its own work; the goal is the whole process under 150 ms.
// Run: npm run build && node --import tsx bench/start.ts [runs=11]
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { argInt, fmtMs, fmtRatio, isMain, median, ms, table, type BenchRow } from './measure.js';

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
  } finally {
    fs.rmSync(d.root, { recursive: true, force: true });
  }
  return rows;
}

if (isMain(import.meta.url)) {
  const rows = await main({ runs: argInt(0, 11) });
  console.log(`\n${table(rows)}`);
}
