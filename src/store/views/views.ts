// The resume view: what `load()` hands the binary. expire → trim (when enabled) → prune, over the rows
// exactly as stored; SQLite is never rewritten, so a later resume may apply another policy.

import type { Entry } from './entry.js';
import { expireWork, type ExpireOptions, type ViewResult } from './expire.js';
import { pruneWork, type PruneOptions } from './prune.js';
import { addReports, emptyReport } from './report.js';
import { trimWork, type TrimOptions } from './trim.js';
import { makeWork } from './work.js';

export interface ViewOptions {
  /** On by default; `false` keeps old glance results as they are. */
  expire?: ExpireOptions | false;
  /** Off unless given: trimming needs a spill writer (Runtime trim=false by default, the CLI turns it on). */
  trim?: TrimOptions | false;
  /** On by default; `false` skips api-error/denial/interrupt/orphan cleanup and relinking. */
  prune?: PruneOptions | false;
}

/**
 * @example
 * const { entries, report } = views(await sqlite.load(key), { trim: { spill: writeSpill } });
 * console.log(trimReport(report)); // "resume view: expired 3 · pruned 2 (1 api error, 1 denial) · saved ≈1.2K tokens (4.8K chars)"
 */
export function views(entries: readonly Entry[], opts: ViewOptions = {}): ViewResult {
  const w = makeWork(entries);
  let report = emptyReport();
  if (opts.expire !== false) report = addReports(report, expireWork(w, opts.expire || {}));
  if (opts.trim) report = addReports(report, trimWork(w, opts.trim));
  if (opts.prune === false) return { entries: w.entries, report };
  const pruned = pruneWork(w, opts.prune || {});
  return { entries: pruned.entries, report: addReports(report, pruned.report) };
}
