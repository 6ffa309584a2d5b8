// The working set a view pipeline shares. Transcript entries come in dozens of shapes, so every property
// read on them is a slow (megamorphic) lookup; reading `type`, `uuid` and the content blocks once into
// parallel arrays keeps 100k-entry sessions far under a second. Only our own arrays are ever written.

import { type Block, type Entry, blocksOf, isToolResult, isToolUse, uuidOf, withBlocks } from './entry.js';

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
}

export function makeWork(entries: readonly Entry[]): Work {
  const n = entries.length;
  const w: Work = {
    entries: entries.slice(),
    type: new Array<string>(n),
    uuid: new Array<string | undefined>(n),
    blocks: new Array<readonly Block[] | undefined>(n),
    tools: [],
  };
  for (let i = 0; i < n; i++) {
    const e = entries[i]!;
    const type = typeof e.type === 'string' ? e.type : '';
    w.type[i] = type;
    w.uuid[i] = uuidOf(e);
    const blocks = type === 'user' || type === 'assistant' ? blocksOf(e) : undefined;
    w.blocks[i] = blocks;
    if (blocks?.some((b) => isToolUse(b) || isToolResult(b))) w.tools.push(i);
  }
  return w;
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
