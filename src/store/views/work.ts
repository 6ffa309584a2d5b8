// The working set a view pipeline shares. Transcript entries come in dozens of shapes, so every property
// read on them is a slow (megamorphic) lookup, and on a 100k-entry session each pass over the entries
// misses the CPU caches on every entry it touches. makeWork reads once, while each entry is at hand,
// everything the views ask about it — its kind, the content blocks of the entries holding tool calls,
// where each call's tool_use and tool_result blocks are, the structural marks of api errors and denials —
// into flat arrays, so the views visit only the entries they change. Only our own arrays are ever written.
//
// Tool calls are numbered: every call id gets a small integer the first time it is seen, and the views
// compare numbers. Hashing a freshly parsed string (V8 does it on the first Map lookup of that string)
// reads all of it through a runtime call; a result's id is instead compared with the ids of the last few
// calls, where its call almost always is, and hashed only when it is not there (bench/views.ts).

import { INTERRUPT_NOTE, type Block, type Entry, blocksOf, hasDenialMarks, isApiErrorEntry, isRecord, withBlocks } from './entry.js';
import { Numbering, sig } from './member.js';

/** An entry's kind, for the types the views tell apart (`kind`). */
export const OTHER = 0;
export const USER = 1;
export const ASSISTANT = 2;
export const LAST_PROMPT = 3;

export interface Work {
  /** the entries as given (never written: their uuids and pointers are what the views read) */
  input: readonly Entry[];
  /** the entries as the views leave them: a copy of `input` whose rewritten entries are replaced */
  entries: Entry[];
  /** per entry: USER, ASSISTANT, LAST_PROMPT or OTHER, from `type` (which no view rewrites) */
  kind: Uint8Array;
  /** the current content blocks of the entries in `tools` (others: undefined) */
  blocks: Array<readonly Block[] | undefined>;
  /**
   * Indices (ascending) of the entries whose blocks hold a tool_use or tool_result when the work was
   * made: the only ones a view that acts on tool calls has to look at (views only ever remove or
   * rewrite blocks, so no other entry gains one). Most entries are text, attachments or bookkeeping.
   */
  tools: number[];
  /** per entry: API_ERROR and DENIAL_MARK bits, read from fields no view rewrites */
  marks: Uint8Array;
  /** per entry: HAS_UUID, PARENT_PREVIOUS and PARENT_TEXT bits (no view moves a pointer before assemble) */
  links: Uint8Array;
  /** per entry with a uuid: `sig` of it, so a lookup among a few uuids does not read every uuid again */
  sigs: Uint16Array;
  /** the entries marked API_ERROR, ascending */
  apiErrors: number[];
  /** call ids numbered (`calls.keys[n]` is call n's id) */
  calls: Numbering;
  /** every tool_use block, in order: its entry (`useAt`, ascending) and its call number (`useCall`) */
  useAt: number[];
  useCall: number[];
  /** every tool_result block, in order: its entry (`resAt`, ascending), its place in the entry's blocks, its call */
  resAt: number[];
  resBlock: number[];
  resCall: number[];
  /** per call: its first result (an index into res*, -1 for none); per result: the call's next one */
  firstRes: number[];
  nextRes: number[];
  /** the Bash calls of assistant entries, in order: their use (an index into use*) and command text */
  bashUse: number[];
  bashCommands: string[];
  /**
   * Indices (ascending) of the user entries holding a result that failed (`is_error: true`) or is the
   * interrupt note: the only results isInterruptedResult can call interrupted (no view sets `is_error`).
   */
  failed: number[];
  /** set by a view that removes blocks: the block places above may then be stale */
  removed: boolean;
}

/** `uuid` is a string. */
export const HAS_UUID = 1;
/** `parentUuid` is the uuid of the nearest entry before this one that has a uuid: the chain's common case. */
export const PARENT_PREVIOUS = 2;
/** `parentUuid` is a string (else assemble leaves it alone). */
export const PARENT_TEXT = 4;

/** isApiErrorEntry: a synthetic api-error assistant or a `system/api_error` retry entry. */
export const API_ERROR = 1;
/** hasDenialMarks: a user entry with `toolDenialKind` or a `reject` decision (isDenialEntry's first half). */
export const DENIAL_MARK = 2;

/** How many of the latest calls a result's id is compared with before it is looked up. */
const RECENT_CALLS = 8;

function callOf(w: Work, id: string): number {
  const c = w.calls.add(id);
  if (c === w.firstRes.length) w.firstRes.push(-1);
  return c;
}

function addUse(w: Work, id: string, at: number): void {
  w.useAt.push(at);
  w.useCall.push(callOf(w, id));
}

/** Appends a result to the list and to its call's chain (`last` holds each call's latest result). */
function addResult(w: Work, last: number[], id: string, at: number, block: number): void {
  let c = -1;
  for (let k = w.useCall.length - 1, stop = Math.max(0, k - RECENT_CALLS + 1); k >= stop; k--) {
    const u = w.useCall[k]!;
    if (w.calls.keys[u] === id) {
      c = u;
      break;
    }
  }
  if (c < 0) c = callOf(w, id);
  const r = w.resAt.length;
  w.resAt.push(at);
  w.resBlock.push(block);
  w.resCall.push(c);
  w.nextRes.push(-1);
  if (w.firstRes[c]! < 0) w.firstRes[c] = r;
  else w.nextRes[last[c]!] = r;
  last[c] = r;
}

/** Indexes the tool blocks of entry `at` (a user entry when `user`); whether it holds one. */
function indexBlocks(w: Work, last: number[], blocks: readonly Block[], at: number, user: boolean): boolean {
  let tool = false;
  let failed = false;
  for (let k = 0; k < blocks.length; k++) {
    const b = blocks[k]!;
    const type = b.type;
    if (type === 'tool_use') {
      const id = b.id;
      if (typeof id !== 'string') continue;
      tool = true;
      addUse(w, id, at);
      if (user || b.name !== 'Bash') continue;
      const input = b.input;
      if (isRecord(input) && typeof input.command === 'string') {
        w.bashUse.push(w.useAt.length - 1);
        w.bashCommands.push(input.command);
      }
    } else if (type === 'tool_result') {
      const id = b.tool_use_id;
      if (typeof id !== 'string') continue;
      tool = true;
      addResult(w, last, id, at, k);
      if (user && !failed) failed = b.is_error === true || b.content === INTERRUPT_NOTE || Array.isArray(b.content);
    }
  }
  if (failed) w.failed.push(at);
  return tool;
}

function emptyWork(entries: readonly Entry[]): Work {
  const n = entries.length;
  return {
    input: entries,
    entries: entries.slice(),
    kind: new Uint8Array(n),
    blocks: new Array<readonly Block[] | undefined>(n),
    tools: [],
    marks: new Uint8Array(n),
    links: new Uint8Array(n),
    sigs: new Uint16Array(n),
    apiErrors: [],
    calls: new Numbering(),
    useAt: [],
    useCall: [],
    resAt: [],
    resBlock: [],
    resCall: [],
    firstRes: [],
    nextRes: [],
    bashUse: [],
    bashCommands: [],
    failed: [],
    removed: false,
  };
}

const isSynthetic = (msg: unknown): boolean => isRecord(msg) && msg.model === '<synthetic>';

/** Reads entry `i`'s pointers into `links`/`sigs`; the uuid the next entry's parent is compared with. */
function link(w: Work, e: Entry, i: number, previous: string | undefined): string | undefined {
  const p = e.parentUuid;
  let bits = 0;
  if (typeof p === 'string') bits = p === previous ? PARENT_TEXT | PARENT_PREVIOUS : PARENT_TEXT;
  const u = e.uuid;
  if (typeof u === 'string') {
    w.links[i] = bits | HAS_UUID;
    w.sigs[i] = sig(u);
    return u;
  }
  w.links[i] = bits;
  return previous;
}

export function makeWork(entries: readonly Entry[]): Work {
  const w = emptyWork(entries);
  const last: number[] = [];
  let previous: string | undefined; // the last uuid in input order
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i]!;
    previous = link(w, e, i, previous);
    const type = e.type;
    const user = type === 'user';
    if (!user && type !== 'assistant') {
      if (type === 'last-prompt') w.kind[i] = LAST_PROMPT;
      else if (type === 'system' && isApiErrorEntry(e)) {
        w.marks[i] = API_ERROR;
        w.apiErrors.push(i);
      }
      continue;
    }
    w.kind[i] = user ? USER : ASSISTANT;
    const blocks = blocksOf(e);
    const tool = blocks !== undefined && indexBlocks(w, last, blocks, i, user);
    if (tool) {
      w.blocks[i] = blocks;
      w.tools.push(i);
    }
    // a denial names a call, so only entries with tool blocks can be one (isDenialEntry needs results)
    if (user) {
      if (tool && hasDenialMarks(e)) w.marks[i] = DENIAL_MARK;
    } else if (e.isApiErrorMessage === true || isSynthetic(e.message)) {
      // isApiErrorEntry of an assistant, without reading `type` again
      w.marks[i] = API_ERROR;
      w.apiErrors.push(i);
    }
  }
  return w;
}

/**
 * The entries (ascending, each once) holding a block of a flagged call (`flags[call]` non-zero): their
 * tool_use (`uses`), their tool_result (`results`), or either. What a view that acts on a few calls
 * walks instead of every tool entry.
 */
export function holding(w: Work, flags: Uint8Array, which: 'uses' | 'results' | 'both'): number[] {
  const out: number[] = [];
  if (which !== 'results') for (let k = 0; k < w.useAt.length; k++) if (flags[w.useCall[k]!]) out.push(w.useAt[k]!);
  if (which !== 'uses') for (let r = 0; r < w.resAt.length; r++) if (flags[w.resCall[r]!]) out.push(w.resAt[r]!);
  // each list is ascending already: only the two together need sorting
  if (which === 'both') out.sort((a, b) => a - b);
  let k = 0;
  for (let j = 0; j < out.length; j++) if (j === 0 || out[j] !== out[j - 1]) out[k++] = out[j]!;
  out.length = k;
  return out;
}

/** Flags (by call number) for the call ids in `ids`; ids never seen are left out. */
export function callFlags(w: Work, ids: Iterable<string>): Uint8Array {
  const flags = new Uint8Array(w.calls.keys.length);
  for (const id of ids) {
    const c = w.calls.find(id);
    if (c >= 0) flags[c] = 1;
  }
  return flags;
}

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
