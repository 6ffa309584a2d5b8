// The transcript is a parentUuid chain the binary walks back from the leaf. Removing an entry without
// re-pointing its children cuts the history there; a `null` parent starts a new root and silently drops
// everything before it (docs/sdk-facts.md §4.4 C3). The Python original once filtered before relinking and broke
// the chain whenever the dropped entry sat in the middle: relink must see the FULL list.

import { type Entry, uuidOf } from './entry.js';
import { Members, sig } from './member.js';
import { HAS_UUID, LAST_PROMPT, PARENT_PREVIOUS, PARENT_TEXT, type Work, makeWork } from './work.js';

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
 * `last-prompt.leafUuid` the same way. Linear; cycle-safe. An entry whose parent is the previous entry
 * (makeWork's PARENT_PREVIOUS) is decided from flags alone: the common entry is not read again.
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
  const uuidAt = (i: number): string => w.input[i]!.uuid as string;
  // the survivors go into the work's own copy of the list, moved down over the dropped (filled in order,
  // never ahead of the reading); with heals to insert, into a new list. Growing a list of 100k by push
  // cost ~3x the copy (bench/views.ts)
  const out: Entry[] = heals.size === 0 ? w.entries : [];
  let o = 0;
  let previousAt = -1; // the last surviving entry with a uuid, in output order…
  let previousHeal: string | undefined; // …or the heal inserted after it
  let inputAt = -1; // the last entry with a uuid in input order: almost always the parent
  let inputDropped = false; // whether that entry is dropped
  for (let i = 0, n = w.input.length; i < n; i++) {
    const links = w.links[i]!;
    const prevAt = inputAt;
    const prevDropped = inputDropped;
    if ((links & HAS_UUID) !== 0) {
      inputAt = i;
      inputDropped = tree.dropped !== undefined && tree.dropped[i] === 1;
      if (inputDropped) continue;
    }
    const e = w.entries[i]!;
    let parent: Target | undefined;
    if ((links & PARENT_PREVIOUS) !== 0) parent = prevDropped ? tree.resolve(uuidAt(prevAt)) : repoint.size > 0 ? tree.repointed(uuidAt(prevAt)) : undefined;
    else if ((links & PARENT_TEXT) !== 0) parent = otherParent(tree, e.parentUuid as string, bridge, i);
    if (parent === LOST) parent = bridge ? (previousHeal ?? (previousAt >= 0 ? uuidAt(previousAt) : undefined)) : undefined;
    const leaf = w.kind[i] === LAST_PROMPT ? newLeaf(tree, e.leafUuid) : undefined;
    out[o++] = withPointers(e, parent, leaf);
    if ((links & HAS_UUID) !== 0) {
      previousAt = i;
      previousHeal = undefined;
    }
    const heal = heals.size > 0 ? heals.get(i) : undefined;
    if (heal) {
      out[o++] = heal;
      previousHeal = heal.uuid as string;
    }
  }
  out.length = o;
  return out;
}

// ---- the pieces of assemble ----

/** The transcript's uuids as assemble asks about them: which exist, and where a dropped one's children go. */
interface Ancestry {
  /** per entry: 1 when its uuid is in `drop` (undefined: nothing is dropped) */
  readonly dropped: Uint8Array | undefined;
  isDropped(u: string): boolean;
  /** where the children of `u` go instead (a heal), or undefined */
  repointed(u: string): string | undefined;
  /** in the transcript or among the heals; `near`: the entry asking, whose parent is most likely a few entries back */
  isKnown(u: string, near?: number): boolean;
  /** the nearest surviving ancestor of a dropped uuid, moved onto a heal if that ancestor was healed */
  resolve(start: string): Target;
}

/** How many entries before the asking one isKnown compares before it builds the set of every uuid. */
const NEAR = 16;

function knownTest(w: Work, heals: ReadonlyMap<number, Entry>): (u: string, near?: number) => boolean {
  let known: Set<string> | undefined; // built on the first question not answered nearby: most views never ask
  return (u, near) => {
    if (!known && near !== undefined) {
      // a parent that is not the previous entry is nearly always a few entries back (parallel tool calls)
      const s = sig(u);
      for (let j = near - 1; j >= 0 && j >= near - NEAR; j--) if ((w.links[j]! & HAS_UUID) !== 0 && w.sigs[j] === s && w.input[j]!.uuid === u) return true;
    }
    if (!known) {
      known = new Set();
      for (const e of w.input) {
        const x = uuidOf(e);
        if (x !== undefined) known.add(x);
      }
      for (const h of heals.values()) known.add(h.uuid as string);
    }
    return known.has(u);
  };
}

function ancestry(w: Work, drop: ReadonlySet<string>, heals: ReadonlyMap<number, Entry>, repoint: ReadonlyMap<string, string>): Ancestry {
  const dropping = new Members(drop);
  const isDropped = (u: string): boolean => dropping.has(u);
  const moving = new Members(repoint);
  const repointed = (u: string): string | undefined => (moving.has(u) ? repoint.get(u) : undefined);
  const { droppedParent, before, dropped } = droppedParents(w, dropping);
  const isKnown = knownTest(w, heals);
  // every dropped uuid is walked once: the answer is kept for every uuid on the walk
  const memo = new Map<string, Target>();
  const resolve = (start: string): Target => {
    const walked: string[] = [];
    const seen = new Set<string>();
    let cur: string | null = start;
    let answer: Target | undefined;
    while (answer === undefined) {
      if (cur === null) answer = null;
      else if (!isDropped(cur)) {
        // a dropped entry's parent is almost always the entry just before it: known without the set
        const from = walked[walked.length - 1];
        const known = from !== undefined && before.get(from) === cur;
        answer = known || isKnown(cur) ? (repointed(cur) ?? cur) : LOST;
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
  return { dropped, isDropped, repointed, isKnown, resolve };
}

/**
 * Which entries are dropped (by index; undefined when none is), each dropped entry's own parent (null
 * for a root or a malformed pointer), and the uuid of the entry just before it in input order (an entry
 * that exists, so its parent needs no lookup when it is that one). Reads only the entries whose uuid may
 * be dropped (by `sigs`).
 */
function droppedParents(
  w: Work,
  dropping: Members,
): { droppedParent: Map<string, string | null>; before: Map<string, string>; dropped: Uint8Array | undefined } {
  const droppedParent = new Map<string, string | null>();
  const before = new Map<string, string>();
  if (dropping.set.size === 0) return { droppedParent, before, dropped: undefined };
  const dropped = new Uint8Array(w.entries.length);
  let previousAt = -1;
  for (let i = 0; i < w.entries.length; i++) {
    if ((w.links[i]! & HAS_UUID) === 0) continue;
    const e = w.input[i]!;
    if (dropping.mayHave(w.sigs[i]!) && dropping.set.has(e.uuid as string)) {
      const u = e.uuid as string;
      dropped[i] = 1;
      const p = e.parentUuid;
      droppedParent.set(u, typeof p === 'string' ? p : null);
      if (previousAt >= 0) before.set(u, w.input[previousAt]!.uuid as string);
    }
    previousAt = i;
  }
  return { droppedParent, before, dropped };
}

/**
 * The new parent of a survivor whose parent `p` is not the previous entry: past dropped ones, onto a
 * heal, or LOST when it points at no entry at all; undefined = unchanged.
 */
function otherParent(tree: Ancestry, p: string, bridge: boolean, at: number): Target | undefined {
  if (tree.isDropped(p)) return tree.resolve(p);
  const moved = tree.repointed(p);
  if (moved !== undefined) return moved;
  if (bridge && !tree.isKnown(p, at)) return LOST;
  return undefined;
}

/** `last-prompt`'s new leaf, moved like a parent; a leaf with nowhere to go is left as it was. */
function newLeaf(tree: Ancestry, l: unknown): string | null | undefined {
  if (typeof l !== 'string') return undefined;
  const leaf = tree.isDropped(l) ? tree.resolve(l) : tree.repointed(l);
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
