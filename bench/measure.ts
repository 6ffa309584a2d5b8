// Shared by the benches: timing helpers and the summary row every bench's main() returns to run.ts.
// Speed is measured here, never asserted in tests: a bench reports and the reader judges.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const median = (xs: readonly number[]): number => {
  if (xs.length === 0) throw new Error('median of no samples: the bench ran no measured rounds');
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Milliseconds since `t0` (from process.hrtime.bigint()). */
export const ms = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6;

/**
 * Wall time of `fn`, and the CPU time the process spent meanwhile (user + system, every thread): on a
 * shared machine the wall time also counts the waits for a core, the CPU time does not.
 */
export async function timed<T>(fn: () => T | Promise<T>): Promise<{ ms: number; cpuMs: number; value: T }> {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  const value = await fn();
  const t = ms(t0);
  const c = process.cpuUsage(c0);
  return { ms: t, cpuMs: (c.user + c.system) / 1000, value };
}

/** One line of the summary table. `ratio` is flower/baseline (lower is better) unless the goal says otherwise. */
export interface BenchRow {
  /** a name for the row that stays the same across runs and wording changes (bench/compare.ts matches on it); the measure's text when absent */
  key?: string;
  measure: string;
  baseline: string;
  flower: string;
  ratio: string;
  goal: string;
  met: boolean | null;
  /** the row's numbers, for the saved report (bench/report.ts) and bench/compare.ts */
  figures?: Figures;
}

/** A row's numbers: times in ms (lower is better) or a rate per second (higher is better). */
export interface Figures {
  unit: 'ms' | 'per_s';
  baseline: number | null;
  flower: number;
  /** flower / baseline, lower is better; null when the row has no baseline */
  ratio: number | null;
}

export const fmtMs = (x: number): string => (x >= 10_000 ? `${(x / 1000).toFixed(1)} s` : `${Math.round(x)} ms`);
export const fmtRatio = (x: number): string => `${x.toFixed(2)}x`;

export function table(rows: readonly BenchRow[]): string {
  const head = ['measure', 'baseline', 'flower', 'ratio', 'goal', 'met?'];
  const cells = rows.map((r) => [r.measure, r.baseline, r.flower, r.ratio, r.goal, r.met === null ? '—' : r.met ? 'yes' : 'NO']);
  const width = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((x, i) => x.padEnd(width[i]!))
      .join('  ')
      .trimEnd();
  return [line(head), line(width.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

/** True when the module at `metaUrl` is the script node was started with (not imported by run.ts). */
export const isMain = (metaUrl: string): boolean => process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(metaUrl);

/** The positional argument `i` as a positive integer, or `fallback`. */
export function argInt(i: number, fallback: number): number {
  const v = process.argv[2 + i];
  if (v === undefined) return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`argument ${i + 1} must be a positive whole number (got '${v}')`);
  return n;
}
