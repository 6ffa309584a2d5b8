// The working set a view pipeline shares. Transcript entries come in dozens of shapes, so every property
// read on them is a slow (megamorphic) lookup, and on a 100k-entry session each pass over the entries
// misses the CPU caches on every entry it touches. makeWork reads once, while each entry is at hand,
// everything the views ask about it — `type`, `uuid`, the content blocks, where each tool call's blocks
// are, the structural marks of api errors and denials — into parallel arrays and two maps, so the views
// visit only the entries they change. Only our own arrays are ever written.

import { INTERRUPT_NOTE, type Block, type Entry, blocksOf, hasDenialMarks, isApiErrorEntry, isRecord, uuidOf, withBlocks } from './entry.js';

/** Entry indices (ascending, each once) holding a result of one tool call: a number for one, an array for more. */
type Where = number | number[];

export interface Work {
  entries: Entry[];
  type: string[];
  uuid: Array<string | undefined>;
  blocks: Array<readonly Block[] | undefined>;
  /**
   * Indices (ascending) of the entries whose blocks hold a tool_use or tool_result when the work was
   * made: the only ones a view that acts on tool calls has to look at (views only ever remove or
   * rewrite blocks, so no other entry gains one). Most entries are text, attachments or bookkeeping.
   */
  tools: number[];
  /** per entry: API_ERROR and DENIAL_MARK bits, read from fields no view rewrites */
  marks: Uint8Array;
  /** every tool_use block, in order: its id (`useIds`) and its entry's index (`useAt`) */
  useIds: string[];
  useAt: number[];
  /** tool_use id → the entries holding a tool_result block for it */
  results: Map<string, Where>;
  /** the Bash calls of assistant entries, in order: their tool_use id (`bashIds`) and command text (`bashCommands`) */
  bashIds: string[];
  bashCommands: string[];
  /**
   * Indices (ascending) of the user entries holding a result that failed (`is_error: true`) or is the
   * interrupt note: the only results isInterruptedResult can call interrupted (no view sets `is_error`).
   */
  failed: number[];
  /** set by a view that removes blocks: the maps above may then name blocks that are gone */
  removed: boolean;
}

/** isApiErrorEntry: a synthetic api-error assistant or a `system/api_error` retry entry. */
export const API_ERROR = 1;
/** hasDenialMarks: a user entry with `toolDenialKind` or a `reject` decision (isDenialEntry's first half). */
export const DENIAL_MARK = 2;

const add = (m: Map<string, Where>, id: string, i: number): void => {
  const at = m.get(id);
  if (at === undefined) m.set(id, i);
  else if (typeof at === 'number') {
    if (at !== i) m.set(id, [at, i]);
  } else if (at[at.length - 1] !== i) at.push(i);
};

/** The marks of entry `e` of type `type` (system, assistant or user: each can carry only one of them). */
const marksOf = (e: Entry, type: string): number => (type === 'user' ? (hasDenialMarks(e) ? DENIAL_MARK : 0) : isApiErrorEntry(e) ? API_ERROR : 0);

/** Indexes the tool_use blocks of assistant entry `i`; whether it holds a tool block. */
function assistantBlocks(w: Work, blocks: readonly Block[], i: number): boolean {
  let tool = false;
  for (const b of blocks) {
    if (b.type === 'tool_use' && typeof b.id === 'string') {
      w.useIds.push(b.id);
      w.useAt.push(i);
      const input = b.input;
      if (b.name === 'Bash' && isRecord(input) && typeof input.command === 'string') {
        w.bashIds.push(b.id);
        w.bashCommands.push(input.command);
      }
      tool = true;
    } else if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') {
      add(w.results, b.tool_use_id, i);
      tool = true;
    }
  }
  return tool;
}

/** Indexes the tool blocks of user entry `i`, and whether a result failed; whether it holds a tool block. */
function userBlocks(w: Work, blocks: readonly Block[], i: number): boolean {
  let tool = false;
  let failed = false;
  for (const b of blocks) {
    if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') {
      add(w.results, b.tool_use_id, i);
      failed ||= b.is_error === true || b.content === INTERRUPT_NOTE || Array.isArray(b.content);
      tool = true;
    } else if (b.type === 'tool_use' && typeof b.id === 'string') {
      w.useIds.push(b.id);
      w.useAt.push(i);
      tool = true;
    }
  }
  if (failed) w.failed.push(i);
  return tool;
}

export function makeWork(entries: readonly Entry[]): Work {
  const n = entries.length;
  const w: Work = {
    entries: entries.slice(),
    type: new Array<string>(n),
    uuid: new Array<string | undefined>(n),
    blocks: new Array<readonly Block[] | undefined>(n),
    tools: [],
    marks: new Uint8Array(n),
    useIds: [],
    useAt: [],
    results: new Map(),
    bashIds: [],
    bashCommands: [],
    failed: [],
    removed: false,
  };
  for (let i = 0; i < n; i++) {
    const e = entries[i]!;
    const type = typeof e.type === 'string' ? e.type : '';
    w.type[i] = type;
    w.uuid[i] = uuidOf(e);
    if (type !== 'user' && type !== 'assistant') {
      if (type === 'system') w.marks[i] = marksOf(e, type);
      continue;
    }
    const blocks = blocksOf(e);
    w.blocks[i] = blocks;
    if (blocks === undefined) {
      if (type === 'assistant') w.marks[i] = marksOf(e, type);
      continue;
    }
    const tool = type === 'user' ? userBlocks(w, blocks, i) : assistantBlocks(w, blocks, i);
    if (tool) w.tools.push(i);
    // a denial names a call, so only entries with tool blocks can be one (isDenialEntry needs results)
    if (type === 'assistant' || tool) w.marks[i] = marksOf(e, type);
  }
  return w;
}

/**
 * The entries (ascending, each once) holding a block of any of the tool calls `ids`: their tool_use
 * (`uses`), their tool_result (`results`), or either. What a view that acts on a few calls walks
 * instead of every tool entry.
 */
export function holding(w: Work, ids: { has(id: string): boolean; keys(): Iterable<string> }, which: 'uses' | 'results' | 'both'): number[] {
  const out: number[] = [];
  if (which !== 'uses')
    for (const id of ids.keys()) {
      const at = w.results.get(id);
      if (typeof at === 'number') out.push(at);
      else if (at) out.push(...at);
    }
  if (which !== 'results') for (let k = 0; k < w.useIds.length; k++) if (ids.has(w.useIds[k]!)) out.push(w.useAt[k]!);
  out.sort((a, b) => a - b);
  let k = 0;
  for (let j = 0; j < out.length; j++) if (j === 0 || out[j] !== out[j - 1]) out[k++] = out[j]!;
  out.length = k;
  return out;
}

/** Each entry index in `at` (a number, an array, or nothing). */
export const each = (at: Where | undefined): readonly number[] => (at === undefined ? [] : typeof at === 'number' ? [at] : at);

/** Replaces entry `i`'s content (as a copy) and keeps the scan in step. */
export function setBlocks(w: Work, i: number, blocks: Block[]): void {
  w.entries[i] = withBlocks(w.entries[i]!, blocks);
  w.blocks[i] = blocks;
}

/** Replaces the content of the given blocks; `edits` must be in (at, block) order, as the scans find them. */
export function applyNotes(w: Work, edits: ReadonlyArray<{ at: number; block: number; note: string }>): void {
  for (let k = 0; k < edits.length; ) {
    const at = edits[k]!.at;
    const blocks = (w.blocks[at] ?? []).slice();
    for (; k < edits.length && edits[k]!.at === at; k++) {
      const { block, note } = edits[k]!;
      blocks[block] = { ...blocks[block]!, content: note };
    }
    setBlocks(w, at, blocks);
  }
}
