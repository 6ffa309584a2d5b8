// Trim: large old tool results move to a file and leave a pointer (handoff-context §2.5). The writer is
// injected so the view stays pure; the store layer decides where spill files live.

import { createHash } from 'node:crypto';
import { ARCHIVED_PREFIX, type Entry, type ToolResultBlock, isProtected, isViewNote, resultString } from './entry.js';
import type { ViewResult } from './expire.js';
import { emptyReport, type ViewReport } from './report.js';
import { USER, type Work, applyNotes, makeWork } from './work.js';

export interface TrimOptions {
  /** The newest N large results stay as they are. */
  keepRecent?: number;
  /** Results of at least this many characters are candidates. */
  minChars?: number;
  /**
   * Saves the full text and returns the path the model should Read, relative to the workspace
   * (e.g. `.flower/spill/<sha16>.txt`, see `spillFileName`). Called only for results being trimmed;
   * if it throws, that result is left whole.
   */
  spill: (text: string) => string;
}

export { ARCHIVED_PREFIX };

/** Content-addressed file name for a spilled text: the same text always lands in the same file. */
export const spillFileName = (text: string): string => `${createHash('sha256').update(text).digest('hex').slice(0, 16)}.txt`;

export const archivedNote = (chars: number, path: string): string => `${ARCHIVED_PREFIX} ${chars} chars; full text at ${path} — use Read to see it]`;

export function trimWork(w: Work, opts: TrimOptions): ViewReport {
  const keepRecent = Math.max(0, opts.keepRecent ?? 20);
  const minChars = opts.minChars ?? 2000;
  const report = emptyReport();
  const found: Array<{ at: number; block: number; text: string }> = [];
  // every tool_result of a user entry, in order (expire, before, only rewrote contents: the places hold)
  for (let r = 0; r < w.resAt.length; r++) {
    const at = w.resAt[r]!;
    if (w.kind[at] !== USER) continue;
    const block = w.resBlock[r]!;
    const text = resultString(w.blocks[at]![block] as ToolResultBlock);
    if (text === undefined || text.length < minChars || isViewNote(text) || isProtected(w.entries[at]!)) continue;
    found.push({ at, block, text });
  }
  const cut = Math.max(0, found.length - keepRecent);
  const edits: Array<{ at: number; block: number; note: string }> = [];
  for (let k = 0; k < cut; k++) {
    const f = found[k]!;
    let path: string;
    try {
      path = opts.spill(f.text);
    } catch {
      continue; // a full disk must not fail the resume: the result simply stays whole (the writer reports)
    }
    const note = archivedNote(f.text.length, path);
    edits.push({ at: f.at, block: f.block, note });
    report.trimmed++;
    report.charsSaved += f.text.length - note.length;
  }
  applyNotes(w, edits);
  return report;
}

export function trim(entries: readonly Entry[], opts: TrimOptions): ViewResult {
  const w = makeWork(entries);
  const report = trimWork(w, opts);
  return { entries: w.entries, report };
}
