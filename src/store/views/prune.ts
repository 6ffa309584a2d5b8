// Prune: keep the debris of failures out of the resumed context (handoff-context §2.6).
// - API errors: the synthetic assistant ("API Error: …") became the leaf and, when replayed, made the
//   model believe it was discussing an outage; the `system/api_error` retry entries are the same noise.
// - Denials: each costs ~273 chars and a pile of them taught the coordinator "learned helplessness"
//   (it stopped trying even an allowed `git status`). The newest is kept so it does not retry the same
//   blocked command in a loop.
// - Interrupted results: the binary's text says "STOP … wait for the user", which is wrong on resume.
// - Orphans: see heal.ts. Then relink over the FULL list (relink.ts).

import {
  INTERRUPT_NOTE,
  type Block,
  type Entry,
  blockChars,
  isDenialEntry,
  isApiErrorEntry,
  isInterruptedResult,
  isToolResult,
  isToolUse,
  resultText,
  uuidOf,
  withFields,
} from './entry.js';
import type { ViewResult } from './expire.js';
import { planHeals } from './heal.js';
import { assemble } from './relink.js';
import { emptyReport, type ViewReport } from './report.js';
import { DENIAL_MARK, USER, type Work, callFlags, holding, makeWork, setBlocks } from './work.js';

export interface PruneOptions {
  dropApiErrors?: boolean;
  neutralizeInterrupts?: boolean;
  healOrphans?: boolean;
  /** How many of the newest denied calls to keep. */
  keepDenials?: number;
}

export { INTERRUPT_NOTE, isApiErrorEntry };

const chars = (blocks: readonly Block[]): number => blocks.reduce((n, b) => n + blockChars(b), 0);

/** The tool_use ids of denied calls, oldest first; only error results count when an entry holds several. */
function deniedCalls(w: Work, drop: ReadonlySet<string>): string[] {
  const ids: string[] = [];
  // an entry without tool results names no call, denied or not
  for (const i of w.tools) {
    if ((w.marks[i]! & DENIAL_MARK) === 0 || w.kind[i] !== USER || drop.has(uuidOf(w.entries[i]!) ?? '') || !isDenialEntry(w.entries[i]!, w.blocks[i]))
      continue;
    const results = (w.blocks[i] ?? []).filter(isToolResult);
    const failed = results.filter((b) => b.is_error === true);
    for (const b of failed.length ? failed : results) ids.push(b.tool_use_id);
  }
  return ids;
}

/** Removes the blocks of the calls in `gone` (tool_use and tool_result together); an entry left with none is dropped. */
function dropCalls(w: Work, gone: ReadonlySet<string>, drop: Set<string>, report: ViewReport): void {
  for (const i of holding(w, callFlags(w, gone), 'both')) {
    const blocks = w.blocks[i];
    const u = uuidOf(w.entries[i]!);
    if (!blocks || (u !== undefined && drop.has(u))) continue;
    const kept = blocks.filter((b) => !(isToolUse(b) && gone.has(b.id)) && !(isToolResult(b) && gone.has(b.tool_use_id)));
    if (kept.length === blocks.length) continue;
    report.charsSaved += chars(blocks) - chars(kept);
    if (kept.length === 0 && u !== undefined) {
      drop.add(u);
      continue;
    }
    setBlocks(w, i, kept);
    w.removed = true;
    // the denial text also lives in `toolUseResult`; a half-kept entry must not carry it on
    if (w.kind[i] === USER) w.entries[i] = withFields(w.entries[i]!, { toolUseResult: undefined });
  }
}

/** Interrupted results get a neutral note instead of the binary's "STOP … wait for the user". */
function neutralize(w: Work, drop: ReadonlySet<string>, report: ViewReport): void {
  for (const i of w.failed) {
    const blocks = w.kind[i] === USER ? w.blocks[i] : undefined;
    if (!blocks || drop.has(uuidOf(w.entries[i]!) ?? '')) continue;
    const e = w.entries[i]!;
    let next: Block[] | undefined;
    for (let k = 0; k < blocks.length; k++) {
      const b = blocks[k]!;
      if (!isToolResult(b) || !isInterruptedResult(e, b)) continue;
      const { text } = resultText(b);
      if (text === INTERRUPT_NOTE && b.is_error === false) continue;
      next ??= blocks.slice();
      next[k] = { ...b, content: INTERRUPT_NOTE, is_error: false };
      report.interrupts++;
      report.charsSaved += text.length - INTERRUPT_NOTE.length;
    }
    if (!next) continue;
    setBlocks(w, i, next);
    w.entries[i] = withFields(w.entries[i]!, { toolUseResult: undefined });
  }
}

export function pruneWork(w: Work, opts: PruneOptions = {}): ViewResult {
  const { dropApiErrors = true, neutralizeInterrupts = true, healOrphans: heal = true } = opts;
  const keepDenials = Math.max(0, opts.keepDenials ?? 1);
  const report: ViewReport = emptyReport();
  const drop = new Set<string>();

  if (dropApiErrors) {
    for (const i of w.apiErrors) {
      const u = uuidOf(w.entries[i]!);
      if (u === undefined) continue;
      drop.add(u);
      report.apiErrors++; // no charsSaved: binary 2.1.332 already keeps these out of the request (docs/sdk-facts.md §3.3)
    }
  }

  const denied = deniedCalls(w, drop);
  const gone = new Set(denied.slice(0, Math.max(0, denied.length - keepDenials)));
  report.denials = gone.size;
  if (gone.size > 0) dropCalls(w, gone, drop, report);
  if (neutralizeInterrupts) neutralize(w, drop, report);

  const plan = heal ? planHeals(w, drop) : undefined;
  report.healed = plan?.healed ?? 0;
  report.pruned = drop.size;
  return { entries: assemble(w, drop, plan?.heals, plan?.repoint), report };
}

export function prune(entries: readonly Entry[], opts: PruneOptions = {}): ViewResult {
  return pruneWork(makeWork(entries), opts);
}
