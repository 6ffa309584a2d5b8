// Expire: old results of read-only commands (`git status`, `ls`, …) describe a state that has likely
// changed; on resume they are replaced by a note saying so (handoff-context §2.4). Same predicate as
// the glance guard, so whatever a coordinator may glance at is exactly what goes stale here.

import { isEphemeral } from '../../glance/ephemeral.js';
import { STALE_PREFIX, type Entry, type ToolResultBlock, isDenialEntry, isInterruptedResult, isProtected, isViewNote, resultString } from './entry.js';
import { Numbering } from './member.js';
import { emptyReport, type ViewReport } from './report.js';
import { DENIAL_MARK, USER, type Work, applyNotes, makeWork } from './work.js';

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
  return noteOf(firstLine(command), newer, timestamp);
}

const noteOf = (line: string, newer: number, timestamp: unknown): string =>
  `${STALE_PREFIX} result of \`${line}\`, recorded${when(timestamp)}; ${newer} newer command result${newer === 1 ? '' : 's'} came after it. The state may have changed since: rerun it if you need it.`;

export function expireWork(w: Work, opts: ExpireOptions = {}): ViewReport {
  const keepRecent = Math.max(0, opts.keepRecent ?? 6);
  const maxChars = opts.maxChars ?? 2000;
  const report = emptyReport();
  const { command, texts, count } = glanceCalls(w);
  if (count <= keepRecent) return report;

  // only the results of glance calls, in order: most tool results are not
  const found: Array<{ at: number; block: number; command: number; chars: number }> = [];
  for (let r = 0; r < w.resAt.length; r++) {
    const cmd = command[w.resCall[r]!]! - 1;
    const at = w.resAt[r]!;
    if (cmd < 0 || w.kind[at] !== USER) continue;
    const blocks = w.blocks[at]!;
    const block = w.resBlock[r]!;
    const b = blocks[block] as ToolResultBlock;
    const e = w.entries[at]!;
    const text = resultString(b);
    if (text === undefined || text.length > maxChars || isViewNote(text) || isInterruptedResult(e, b)) continue;
    // denials and interruptions belong to prune; protected entries to nobody (both are the whole entry's)
    if (isProtected(e) || ((w.marks[at]! & DENIAL_MARK) !== 0 && isDenialEntry(e, blocks))) continue;
    found.push({ at, block, command: cmd, chars: text.length });
  }

  const cut = Math.max(0, found.length - keepRecent);
  const edits: Array<{ at: number; block: number; note: string }> = [];
  const lines: string[] = []; // per command text: its first line, made once
  for (let k = 0; k < cut; k++) {
    const f = found[k]!;
    const line = (lines[f.command] ??= firstLine(texts.keys[f.command]!));
    const note = noteOf(line, found.length - 1 - k, w.entries[f.at]!.timestamp);
    edits.push({ at: f.at, block: f.block, note });
    report.expired++;
    report.charsSaved += f.chars - note.length;
  }
  applyNotes(w, edits);
  return report;
}

/**
 * Per call number, the command (its number in `texts`, plus one; 0: none) of a Bash call whose command
 * is a glance (the last such use of the call id wins), and how many calls have one. The verdict is
 * asked once per command text.
 */
function glanceCalls(w: Work): { command: Int32Array; texts: Numbering; count: number } {
  const command = new Int32Array(w.calls.keys.length);
  const texts = new Numbering();
  const verdicts: number[] = []; // per command text: 1 a glance, 2 not
  let count = 0;
  for (let k = 0; k < w.bashUse.length; k++) {
    const text = w.bashCommands[k]!;
    const t = texts.add(text);
    if (t === verdicts.length) verdicts.push(isEphemeral(text) ? 1 : 2);
    if (verdicts[t] !== 1) continue;
    const c = w.useCall[w.bashUse[k]!]!;
    if (command[c] === 0) count++;
    command[c] = t + 1;
  }
  return { command, texts, count };
}

export function expire(entries: readonly Entry[], opts: ExpireOptions = {}): ViewResult {
  const w = makeWork(entries);
  const report = expireWork(w, opts);
  return { entries: w.entries, report };
}
