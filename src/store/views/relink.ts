// The transcript is a parentUuid chain the binary walks back from the leaf. Removing an entry without
// re-pointing its children cuts the history there; a `null` parent starts a new root and silently drops
// everything before it (docs/sdk-facts.md §4.4 C3). The Python original once filtered before relinking and broke
// the chain whenever the dropped entry sat in the middle: relink must see the FULL list.

import type { Entry } from './entry.js';
import { type Work, makeWork } from './work.js';

export interface RelinkOptions {
  /**
   * Point a parent that is not in the transcript at all (a lost row) at the previous surviving entry:
   * what the binary does on load anyway (docs/sdk-facts.md §4.4 C/C2), made explicit so the view's chain is
   * complete whichever way the binary repairs it. Default true.
   */
  bridgeDangling?: boolean;
}

const LOST = Symbol('lost');

/**
 * Builds the final list in one pass: drops `drop`, inserts `heals` after their assistant (by index),
 * re-points the assistant's children (`repoint`), walks survivors past dropped parents, and fixes
 * `last-prompt.leafUuid` the same way. Linear; cycle-safe.
 */
export function assemble(
  w: Work,
  drop: ReadonlySet<string>,
  heals: ReadonlyMap<number, Entry> = new Map(),
  repoint: ReadonlyMap<string, string> = new Map(),
  opts: RelinkOptions = {},
): Entry[] {
  const bridge = opts.bridgeDangling ?? true;
  const n = w.entries.length;
  const droppedParent = new Map<string, string | null>();
  if (drop.size > 0) {
    for (let i = 0; i < n; i++) {
      const u = w.uuid[i];
      if (u !== undefined && drop.has(u)) {
        const p = w.entries[i]!.parentUuid;
        droppedParent.set(u, typeof p === 'string' ? p : null);
      }
    }
  }
  let known: Set<string> | undefined;
  const isKnown = (u: string): boolean => {
    if (!known) {
      known = new Set();
      for (const x of w.uuid) if (x !== undefined) known.add(x);
      for (const h of heals.values()) known.add(h.uuid as string);
    }
    return known.has(u);
  };
  const memo = new Map<string, string | null | typeof LOST>();
  // nearest surviving ancestor of a dropped uuid, then moved onto a heal if that ancestor was healed
  const resolve = (start: string): string | null | typeof LOST => {
    const walked: string[] = [];
    const seen = new Set<string>();
    let cur: string | null = start;
    let answer: string | null | typeof LOST | undefined;
    while (answer === undefined) {
      if (cur === null) answer = null;
      else if (!drop.has(cur)) answer = isKnown(cur) ? (repoint.get(cur) ?? cur) : LOST;
      else if (memo.has(cur)) answer = memo.get(cur)!;
      else if (seen.has(cur) || !droppedParent.has(cur))
        answer = LOST; // a cycle, or a dropped uuid not in the list
      else {
        seen.add(cur);
        walked.push(cur);
        cur = droppedParent.get(cur)!;
      }
    }
    for (const x of walked) memo.set(x, answer);
    return answer;
  };

  const out: Entry[] = [];
  let previous: string | undefined; // the last surviving uuid, in output order
  let previousInput: string | undefined; // the last uuid in input order: almost always the parent
  for (let i = 0; i < n; i++) {
    const u = w.uuid[i];
    const inputPrev = previousInput;
    if (u !== undefined) previousInput = u;
    if (u !== undefined && drop.has(u)) continue;
    const e = w.entries[i]!;
    const p = e.parentUuid;
    let parent: string | null | typeof LOST | undefined; // undefined = unchanged
    if (typeof p === 'string') {
      if (drop.has(p)) parent = resolve(p);
      else if (repoint.has(p)) parent = repoint.get(p);
      else if (bridge && p !== inputPrev && !isKnown(p)) parent = LOST;
    }
    if (parent === LOST) parent = bridge && previous !== undefined ? previous : undefined;
    let leaf: string | null | typeof LOST | undefined;
    if (w.type[i] === 'last-prompt' && typeof e.leafUuid === 'string') {
      const l = e.leafUuid;
      leaf = drop.has(l) ? resolve(l) : repoint.get(l);
      if (leaf === LOST) leaf = undefined;
    }
    if (parent === undefined && leaf === undefined) out.push(e);
    else {
      const copy: Entry = { ...e };
      if (parent !== undefined) copy.parentUuid = parent;
      if (leaf !== undefined) copy.leafUuid = leaf;
      out.push(copy);
    }
    if (u !== undefined) previous = u;
    const heal = heals.get(i);
    if (heal) {
      out.push(heal);
      previous = heal.uuid as string;
    }
  }
  return out;
}

/**
 * `entries` without the uuids in `drop`, every survivor's `parentUuid` (and `last-prompt`'s `leafUuid`)
 * pointed at its nearest surviving ancestor. Linear: each dropped uuid is resolved once. Cycle-safe: a
 * loop among dropped entries has no surviving ancestor, so the survivor is bridged like a dangling one
 * (or keeps its pointer with `bridgeDangling: false`), never set to `null`, which would cut the history.
 */
export function relink(entries: readonly Entry[], drop: ReadonlySet<string>, opts: RelinkOptions = {}): Entry[] {
  return assemble(makeWork(entries), drop, new Map(), new Map(), opts);
}

/** Only the dangling-pointer repair of `relink`, for views that drop nothing. */
export const bridgeDangling = (entries: readonly Entry[]): Entry[] => relink(entries, new Set());
