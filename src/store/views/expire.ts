// Expire: old results of read-only commands (`git status`, `ls`, …) describe a state that has likely
// changed; on resume they are replaced by a note saying so (handoff-context §2.4). Same predicate as
// the glance guard, so whatever a coordinator may glance at is exactly what goes stale here.

import { isEphemeral } from '../../glance/ephemeral.js';
import { STALE_PREFIX, type Entry, isDenialEntry, isInterruptedResult, isProtected, isToolResult, isViewNote, resultText } from './entry.js';
import { emptyReport, type ViewReport } from './report.js';
import { DENIAL_MARK, type Work, applyNotes, holding, makeWork } from './work.js';

export interface ExpireOptions {
  /** The newest N ephemeral results stay as they are. */
  keepRecent?: number;
  /** Larger results are left to trim. */
  maxChars?: number;
}

export interface ViewResult {
  entries: Entry[];
  report: ViewReport;
}

export { STALE_PREFIX };

const firstLine = (command: string): string => {
  const line = command.trim().split('\n', 1)[0]!.trim();
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
};

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const when = (ts: unknown): string => (typeof ts === 'string' && ISO.test(ts) ? ` at ${ts.slice(0, 10)} ${ts.slice(11, 16)} UTC` : '');

/**
 * The note. The original called the position an "age"; it is a count of newer results, so say that,
 * plus the recorded time, which is the only honest age a pure view can give.
 */
export function staleNote(command: string, newer: number, timestamp?: unknown): string {
  return `${STALE_PREFIX} result of \`${firstLine(command)}\`, recorded${when(timestamp)}; ${newer} newer command result${newer === 1 ? '' : 's'} came after it. The state may have changed since: rerun it if you need it.`;
}

export function expireWork(w: Work, opts: ExpireOptions = {}): ViewReport {
  const keepRecent = Math.max(0, opts.keepRecent ?? 6);
  const maxChars = opts.maxChars ?? 2000;
  const report = emptyReport();
  const commands = glanceCalls(w);
  if (commands.size <= keepRecent) return report;

  // only the entries holding a result of a glance call: most tool results are not
  const found: Array<{ at: number; block: number; command: string; chars: number }> = [];
  for (const at of holding(w, commands, 'results')) {
    const blocks = w.type[at] === 'user' ? w.blocks[at] : undefined;
    if (!blocks) continue;
    const e = w.entries[at]!;
    for (let block = 0; block < blocks.length; block++) {
      const b = blocks[block]!;
      if (!isToolResult(b)) continue;
      const command = commands.get(b.tool_use_id);
      if (command === undefined) continue;
      const { text, media } = resultText(b);
      if (media || text.length > maxChars || isViewNote(text) || isInterruptedResult(e, b)) continue;
      // denials and interruptions belong to prune; protected entries to nobody
      if (isProtected(e) || ((w.marks[at]! & DENIAL_MARK) !== 0 && isDenialEntry(e, blocks))) break;
      found.push({ at, block, command, chars: text.length });
    }
  }

  const cut = Math.max(0, found.length - keepRecent);
  const edits: Array<{ at: number; block: number; note: string }> = [];
  for (let k = 0; k < cut; k++) {
    const f = found[k]!;
    const note = staleNote(f.command, found.length - 1 - k, w.entries[f.at]!.timestamp);
    edits.push({ at: f.at, block: f.block, note });
    report.expired++;
    report.charsSaved += f.chars - note.length;
  }
  applyNotes(w, edits);
  return report;
}

/** tool_use id → command, for the Bash calls whose command is a glance (the verdict is asked once per command text). */
function glanceCalls(w: Work): Map<string, string> {
  const commands = new Map<string, string>();
  const verdicts = new Map<string, boolean>();
  for (let k = 0; k < w.bashIds.length; k++) {
    const command = w.bashCommands[k]!;
    let ok = verdicts.get(command);
    if (ok === undefined) verdicts.set(command, (ok = isEphemeral(command)));
    if (ok) commands.set(w.bashIds[k]!, command);
  }
  return commands;
}

export function expire(entries: readonly Entry[], opts: ExpireOptions = {}): ViewResult {
  const w = makeWork(entries);
  const report = expireWork(w, opts);
  return { entries: w.entries, report };
}
