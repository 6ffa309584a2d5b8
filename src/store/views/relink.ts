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
/** Where a pointer goes: a uuid, `null` (a root), or LOST (nowhere known: bridged, or left alone). */
type Target = string | null | typeof LOST;

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
  const tree = ancestry(w, drop, heals, repoint);
  const out: Entry[] = [];
  let previous: string | undefined; // the last surviving uuid, in output order
  let previousInput: string | undefined; // the last uuid in input order: almost always the parent
  let previousDropped = false; // whether that entry is dropped
  for (let i = 0; i < w.entries.length; i++) {
    const u = w.uuid[i];
    const inputPrev = previousInput;
    const inputPrevDropped = previousDropped;
    if (u !== undefined) {
      previousInput = u;
      previousDropped = tree.dropped[i] === 1;
      if (previousDropped) continue;
    }
    const e = w.entries[i]!;
    let parent = newParent(tree, e.parentUuid, inputPrev, inputPrevDropped, bridge);
    if (parent === LOST) parent = bridge && previous !== undefined ? previous : undefined;
    const leaf = w.type[i] === 'last-prompt' ? newLeaf(tree, e.leafUuid) : undefined;
    out.push(withPointers(e, parent, leaf));
    if (u !== undefined) previous = u;
    const heal = heals.size > 0 ? heals.get(i) : undefined;
    if (heal) {
      out.push(heal);
      previous = heal.uuid as string;
    }
  }
  return out;
}

// ---- the pieces of assemble ----

/** The transcript's uuids as assemble asks about them: which exist, and where a dropped one's children go. */
interface Ancestry {
  readonly drop: ReadonlySet<string>;
  /** per entry: 1 when its uuid is in `drop` */
  readonly dropped: Uint8Array;
  readonly repoint: ReadonlyMap<string, string>;
  /** in the transcript or among the heals */
  isKnown(u: string): boolean;
  /** the nearest surviving ancestor of a dropped uuid, moved onto a heal if that ancestor was healed */
  resolve(start: string): Target;
}

function ancestry(w: Work, drop: ReadonlySet<string>, heals: ReadonlyMap<number, Entry>, repoint: ReadonlyMap<string, string>): Ancestry {
  const { droppedParent, before, dropped } = droppedParents(w, drop);
  let known: Set<string> | undefined; // built on the first question: most views never ask
  const isKnown = (u: string): boolean => {
    if (!known) {
      known = new Set();
      for (const x of w.uuid) if (x !== undefined) known.add(x);
      for (const h of heals.values()) known.add(h.uuid as string);
    }
    return known.has(u);
  };
  // every dropped uuid is walked once: the answer is kept for every uuid on the walk
  const memo = new Map<string, Target>();
  const resolve = (start: string): Target => {
    const walked: string[] = [];
    const seen = new Set<string>();
    let cur: string | null = start;
    let answer: Target | undefined;
    while (answer === undefined) {
      if (cur === null) answer = null;
      else if (!drop.has(cur)) {
        // a dropped entry's parent is almost always the entry just before it: known without the set
        const from = walked[walked.length - 1];
        const known = from !== undefined && before.get(from) === cur;
        answer = known || isKnown(cur) ? (repoint.get(cur) ?? cur) : LOST;
      } else if (memo.has(cur)) answer = memo.get(cur)!;
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
  return { drop, dropped, repoint, isKnown, resolve };
}

/**
 * Which entries are dropped (by index), each dropped entry's own parent (null for a root or a malformed
 * pointer), and the uuid of the entry just before it in input order (an entry that exists, so its parent
 * needs no lookup when it is that one).
 */
function droppedParents(w: Work, drop: ReadonlySet<string>): { droppedParent: Map<string, string | null>; before: Map<string, string>; dropped: Uint8Array } {
  const droppedParent = new Map<string, string | null>();
  const before = new Map<string, string>();
  const dropped = new Uint8Array(w.entries.length);
  if (drop.size === 0) return { droppedParent, before, dropped };
  let previous: string | undefined;
  for (let i = 0; i < w.entries.length; i++) {
    const u = w.uuid[i];
    if (u === undefined) continue;
    if (drop.has(u)) {
      dropped[i] = 1;
      const p = w.entries[i]!.parentUuid;
      droppedParent.set(u, typeof p === 'string' ? p : null);
      if (previous !== undefined) before.set(u, previous);
    }
    previous = u;
  }
  return { droppedParent, before, dropped };
}

/**
 * A survivor's new parent: past dropped ones, onto a heal, or LOST when it points at no entry at all;
 * undefined = unchanged. The parent is almost always the entry just before in input order, which is
 * known without building the set of every uuid.
 */
function newParent(tree: Ancestry, p: unknown, inputPrev: string | undefined, inputPrevDropped: boolean, bridge: boolean): Target | undefined {
  if (typeof p !== 'string') return undefined;
  if (p === inputPrev) {
    // the common case, decided by the previous entry's own flags: no lookup of `p`
    if (inputPrevDropped) return tree.resolve(p);
    return tree.repoint.size > 0 ? tree.repoint.get(p) : undefined;
  }
  if (tree.drop.has(p)) return tree.resolve(p);
  if (tree.repoint.has(p)) return tree.repoint.get(p);
  if (bridge && !tree.isKnown(p)) return LOST;
  return undefined;
}

/** `last-prompt`'s new leaf, moved like a parent; a leaf with nowhere to go is left as it was. */
function newLeaf(tree: Ancestry, l: unknown): string | null | undefined {
  if (typeof l !== 'string') return undefined;
  const leaf = tree.drop.has(l) ? tree.resolve(l) : tree.repoint.get(l);
  return leaf === LOST ? undefined : leaf;
}

/** The entry itself when nothing moved (views never mutate their input), else a copy with its new pointers. */
function withPointers(e: Entry, parent: string | null | undefined, leaf: string | null | undefined): Entry {
  if (parent === undefined && leaf === undefined) return e;
  const copy: Entry = { ...e };
  if (parent !== undefined) copy.parentUuid = parent;
  if (leaf !== undefined) copy.leafUuid = leaf;
  return copy;
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
