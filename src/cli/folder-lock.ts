/**
 * One run per folder: `flower [go]` and `flower run` hold the run dir's RUN LOCK for the whole run
 * (the state layer's primitive: pid + process start time, a dead holder's lock taken over). A second
 * process says who holds it and exits 1 at once, or waits with `--wait`. `flower once` does not take
 * it (no lineage; its manifest rows merge per run), nor do `status`, `log` and `ui` (read-only).
 */
import type { LockHolder, RunLockHeld, RunRecords } from '../state/index.js';
import { CliExit, EXIT, type CliIO } from './io.js';

function ago(since: string, now = Date.now()): string {
  const t = Date.parse(since);
  if (!Number.isFinite(t)) return 'since an unknown time';
  const s = Math.max(0, Math.round((now - t) / 1000));
  const span = s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${Math.round(s / 3600)} h`;
  return `since ${since} (${span} ago)`;
}

/** The line that names the holder: which process, where, since when. */
export function holderLine(where: string, h: LockHolder): string {
  return `another flower run holds ${where}: pid ${h.pid} on ${h.host}, ${ago(h.since)}`;
}

/** The folder's run lock and the command that continues the run (`flower`, `flower run FILE`): what a second Ctrl-C releases and names. */
export interface Quit {
  lock: RunLockHeld;
  cmd: string;
}

/** Take the folder's run lock, or exit 1 naming the holder (with `wait`: wait for it, saying so once). */
export async function holdFolder(records: RunRecords, o: { wait?: boolean }, io: CliIO): Promise<RunLockHeld> {
  const first = await records.acquireRunLock({ wait: false });
  if (!('heldBy' in first)) return first;
  if (!o.wait) {
    throw new CliExit(EXIT.failure, `x ${holderLine(records.where, first.heldBy)} — wait for it to finish, or rerun with --wait`);
  }
  io.stderr.write(`. ${holderLine(records.where, first.heldBy)}; waiting for it to finish (--wait)\n`);
  const got = await records.acquireRunLock({ wait: true });
  if ('heldBy' in got) throw new CliExit(EXIT.failure, `x ${holderLine(records.where, got.heldBy)}`);
  return got;
}
