// The bench's summary as a file: `npm run bench` writes the table it prints as JSON (a versioned format,
// one object per row with the figures as numbers), so two runs can be set side by side with
// bench/compare.ts. Only the figures a row carries are written; a row without them still names its text.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { BenchRow } from './measure.js';

export const REPORT_VERSION = 1;

/** One row of a saved bench: the table's texts, and the numbers compare reads. */
export interface ReportRow {
  /** the row's stable key (bench/compare.ts matches rows on it); older reports have none, and their name stands in */
  key?: string;
  name: string;
  /** what the table printed, as it printed it */
  baseline_text: string;
  flower_text: string;
  ratio_text: string;
  goal: string;
  met: boolean | null;
  /** 'ms' (lower is better) or 'per_s' (higher is better); null when the row carries no figures */
  unit: 'ms' | 'per_s' | null;
  baseline: number | null;
  flower: number | null;
  /** flower / baseline; lower is better */
  ratio: number | null;
}

export interface Machine {
  node: string;
  platform: string;
  arch: string;
  cpus: number;
  cpu_model: string;
  /** load average (1, 5, 15 min) when the bench started and when it ended */
  load_start: number[];
  load_end: number[];
}

export interface BenchReport {
  version: typeof REPORT_VERSION;
  at: string;
  machine: Machine;
  rows: ReportRow[];
}

export function machine(loadStart: number[]): Machine {
  return {
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? '?',
    load_start: loadStart,
    load_end: os.loadavg(),
  };
}

export function reportOf(rows: readonly BenchRow[], m: Machine, at = new Date()): BenchReport {
  return {
    version: REPORT_VERSION,
    at: at.toISOString(),
    machine: m,
    rows: rows.map((r) => ({
      key: r.key ?? r.measure,
      name: r.measure,
      baseline_text: r.baseline,
      flower_text: r.flower,
      ratio_text: r.ratio,
      goal: r.goal,
      met: r.met,
      unit: r.figures?.unit ?? null,
      baseline: r.figures?.baseline ?? null,
      flower: r.figures?.flower ?? null,
      ratio: r.figures?.ratio ?? null,
    })),
  };
}

/** Write the report to `file` (its folder made), whole or not at all. */
export function writeReport(file: string, report: BenchReport): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(report, null, 2)}\n`);
  fs.renameSync(tmp, file);
}

/** Where `npm run bench` saves its report: `--json <file>` when given, else test-artifacts/bench-<time>.json. */
export function reportPath(argv: readonly string[], root: string, at = new Date()): string {
  const i = argv.indexOf('--json');
  if (i >= 0 && argv[i + 1]) return path.resolve(argv[i + 1]!);
  return path.join(root, 'test-artifacts', `bench-${at.toISOString().replace(/[:.]/g, '-')}.json`);
}
