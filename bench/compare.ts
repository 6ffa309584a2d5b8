// Two saved bench reports side by side: `npm run bench:compare -- before.json after.json [--threshold 10]`.
// Per row (matched by its key, or by name in a report written before rows had keys): the ratio before → after when both runs have one, else the figure itself
// (a time, or a rate where higher is better), the change in %, and a mark for a row that got slower by
// more than the noise threshold. Exit 1 when a row got slower, 2 when a file cannot be read.
// The comparison is pure (compareReports, renderComparison); only main() reads files.
import fs from 'node:fs';
import { isMain } from './measure.js';
import { REPORT_VERSION, type BenchReport, type ReportRow } from './report.js';

/** The change (in %) a row may move either way and still count as the same: these machines are noisy. */
export const DEFAULT_THRESHOLD_PCT = 10;

export type Verdict = 'slower' | 'faster' | 'same' | 'new' | 'gone' | 'no figures';

export interface RowChange {
  name: string;
  /** what was compared: the ratio, or the figure in its unit */
  metric: 'ratio' | 'ms' | 'per_s' | null;
  before: number | null;
  after: number | null;
  /** (after - before) / before in %, null when there is nothing to compare */
  change_pct: number | null;
  verdict: Verdict;
}

type Metric = { metric: 'ratio' | 'ms' | 'per_s'; value: number };

/** The figure a row is judged by: its ratio when it has one, else its own figure (in its unit). */
function metricOf(r: ReportRow): Metric | null {
  if (r.ratio !== null && Number.isFinite(r.ratio)) return { metric: 'ratio', value: r.ratio };
  if (r.unit !== null && r.flower !== null && Number.isFinite(r.flower)) return { metric: r.unit, value: r.flower };
  return null;
}

function changeOf(name: string, a: ReportRow, b: ReportRow, threshold: number): RowChange {
  const ma = metricOf(a);
  const mb = metricOf(b);
  if (!ma || !mb || ma.metric !== mb.metric || ma.value === 0) {
    return { name, metric: null, before: ma?.value ?? null, after: mb?.value ?? null, change_pct: null, verdict: 'no figures' };
  }
  const pct = ((mb.value - ma.value) / ma.value) * 100;
  // a rate is better when it grows; a ratio or a time when it shrinks
  const worse = ma.metric === 'per_s' ? -pct : pct;
  const verdict: Verdict = worse > threshold ? 'slower' : worse < -threshold ? 'faster' : 'same';
  return { name, metric: ma.metric, before: ma.value, after: mb.value, change_pct: pct, verdict };
}

/** Every row of either report, in the order of `after` (then the rows `after` no longer has). */
/** What a row is matched on: its key, stable across wording changes; a report from before keys has only the name. */
export const keyOf = (r: ReportRow): string => r.key ?? r.name;

export function compareReports(before: BenchReport, after: BenchReport, threshold = DEFAULT_THRESHOLD_PCT): RowChange[] {
  const old = new Map(before.rows.map((r) => [keyOf(r), r]));
  const now = new Set(after.rows.map(keyOf));
  const out: RowChange[] = after.rows.map((b) => {
    const a = old.get(keyOf(b));
    if (!a) return { name: b.name, metric: metricOf(b)?.metric ?? null, before: null, after: metricOf(b)?.value ?? null, change_pct: null, verdict: 'new' };
    return changeOf(b.name, a, b, threshold);
  });
  for (const a of before.rows)
    if (!now.has(keyOf(a)))
      out.push({ name: a.name, metric: metricOf(a)?.metric ?? null, before: metricOf(a)?.value ?? null, after: null, change_pct: null, verdict: 'gone' });
  return out;
}

function figure(v: number | null, metric: RowChange['metric']): string {
  if (v === null) return '—';
  if (metric === 'ratio') return `${v.toFixed(2)}x`;
  if (metric === 'per_s') return `${Math.round(v)}/s`;
  return metric === 'ms' ? `${v >= 100 ? Math.round(v) : v.toFixed(1)} ms` : String(v);
}

const MARK: Record<Verdict, string> = { slower: 'SLOWER', faster: 'faster', same: '', new: 'new', gone: 'gone', 'no figures': '(no figures)' };

/** The comparison as a table: measure, before → after, change, mark. */
export function renderComparison(changes: readonly RowChange[], threshold = DEFAULT_THRESHOLD_PCT): string {
  const head = ['measure', 'before', 'after', 'change', ''];
  const cells = changes.map((c) => [
    c.name,
    figure(c.before, c.metric),
    figure(c.after, c.metric),
    c.change_pct === null ? '—' : `${c.change_pct >= 0 ? '+' : ''}${c.change_pct.toFixed(1)}%`,
    MARK[c.verdict],
  ]);
  const width = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((x, i) => x.padEnd(width[i]!))
      .join('  ')
      .trimEnd();
  const slower = changes.filter((c) => c.verdict === 'slower').length;
  const summary = slower ? `${slower} row${slower === 1 ? '' : 's'} slower by more than ${threshold}%` : `no row slower by more than ${threshold}%`;
  return [line(head), line(width.map((w) => '-'.repeat(w))), ...cells.map(line), '', summary].join('\n');
}

/** A saved report, or why it cannot be used (a typed failure, not a thrown string). */
export type ReadReport = { ok: true; report: BenchReport } | { ok: false; problem: string };

export function parseReport(text: string): ReadReport {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { ok: false, problem: `is not JSON (${(e as Error).message})` };
  }
  const o = v as Partial<BenchReport> | null;
  if (typeof o !== 'object' || o === null || !Array.isArray(o.rows)) return { ok: false, problem: 'is not a bench report (no rows)' };
  if (o.version !== REPORT_VERSION) return { ok: false, problem: `has version ${String(o.version)}; this compare reads version ${REPORT_VERSION}` };
  const bad = o.rows.findIndex(
    (r) => typeof r !== 'object' || r === null || typeof (r as ReportRow).name !== 'string' || !['string', 'undefined'].includes(typeof (r as ReportRow).key),
  );
  if (bad >= 0) return { ok: false, problem: `row ${bad + 1} has no name (or a key that is not text)` };
  return { ok: true, report: o as BenchReport };
}

/** Arguments: two files, and `--threshold <pct>`. */
export function parseArgs(argv: readonly string[]): { files: string[]; threshold: number } | { problem: string } {
  const files: string[] = [];
  let threshold = DEFAULT_THRESHOLD_PCT;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--threshold') {
      const n = Number(argv[++i]);
      if (!Number.isFinite(n) || n < 0) return { problem: `--threshold takes a percentage ≥ 0 (got '${argv[i] ?? ''}')` };
      threshold = n;
    } else files.push(a);
  }
  if (files.length !== 2) return { problem: 'usage: bench/compare.ts <before.json> <after.json> [--threshold <pct>]' };
  return { files, threshold };
}

/** When and where a report was made, in one line (the machine part is informative: a file without it still compares). */
export function where(r: BenchReport): string {
  const m = r.machine as Partial<BenchReport['machine']> | undefined;
  const load = Array.isArray(m?.load_start) ? `, load ${m.load_start.map((x) => Number(x).toFixed(2)).join(', ')}` : '';
  return `${String(r.at ?? '?')} (${m?.cpus ?? '?'} cpus${load})`;
}

function main(argv: readonly string[]): number {
  const args = parseArgs(argv);
  if ('problem' in args) {
    console.error(args.problem);
    return 2;
  }
  const reports: BenchReport[] = [];
  for (const f of args.files) {
    let text: string;
    try {
      text = fs.readFileSync(f, 'utf8');
    } catch (e) {
      console.error(`${f} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
      return 2;
    }
    const r = parseReport(text);
    if (!r.ok) {
      console.error(`${f} ${r.problem}`);
      return 2;
    }
    reports.push(r.report);
  }
  const [a, b] = reports as [BenchReport, BenchReport];
  console.log(`before: ${where(a)}`);
  console.log(`after:  ${where(b)}\n`);
  const changes = compareReports(a, b, args.threshold);
  console.log(renderComparison(changes, args.threshold));
  return changes.some((c) => c.verdict === 'slower') ? 1 : 0;
}

if (isMain(import.meta.url)) process.exitCode = main(process.argv.slice(2));
