// Orphan healing: a tool_use with no tool_result anywhere (the process died while the tool ran, or a
// row was lost) makes the API answer 400 "tool_use ids were found without tool_result blocks" on every
// resume. Adding a neutral result is safer than deleting the call, which could take the assistant's
// other blocks with it (handoff-context §2.6). The binary 2.1.332 repairs some orphans itself (it drops a
// mid-chain one and invents "[Tool call interrupted" for a trailing one); healing keeps the call visible
// and the behaviour independent of the binary version.

import { createHash } from 'node:crypto';
import { ORPHAN_NOTE, type Block, type Entry, isToolResult, isToolUse, uuidOf } from './entry.js';
import { Members } from './member.js';
import { assemble } from './relink.js';
import { ASSISTANT, HAS_UUID, USER, type Work, holding, makeWork } from './work.js';

export { ORPHAN_NOTE };

/** Fields copied from the assistant so the synthetic entry looks like its siblings to the binary. */
const INHERITED = ['sessionId', 'cwd', 'version', 'gitBranch', 'agentId', 'isSidechain', 'userType', 'entrypoint'] as const;

/** Deterministic, so the same stored transcript always yields the same view (and cache prefix). */
export const healUuid = (toolUseIds: readonly string[]): string => `heal-${createHash('sha256').update(toolUseIds.join('\n')).digest('hex').slice(0, 12)}`;

export interface HealPlan {
  /** Index of the assistant entry → the synthetic entry to insert right after it. */
  heals: Map<number, Entry>;
  /** Assistant uuid → heal uuid: where the assistant's children must point instead. */
  repoint: Map<string, string>;
  healed: number;
}

/** Finds orphan tool_use blocks (no tool_result anywhere among live entries) and builds their heals. */
export function planHeals(w: Work, skip: ReadonlySet<string>): HealPlan {
  const plan: HealPlan = { heals: new Map(), repoint: new Map(), healed: 0 };
  // the calls nobody answered, found from the index; then only the entries holding them are walked
  const answered = answers(w, skip);
  const open = new Uint8Array(w.calls.keys.length);
  let any = false;
  for (let k = 0; k < w.useCall.length; k++) {
    const c = w.useCall[k]!;
    if (open[c] || answered(c)) continue;
    open[c] = 1;
    any = true;
  }
  if (!any) return plan;
  const healed = new Set<string>(); // a duplicated row must not be healed twice
  for (const at of holding(w, open, 'uses')) {
    const owner = uuidOf(w.entries[at]!);
    if (w.kind[at] !== ASSISTANT || owner === undefined || skip.has(owner)) continue;
    let orphans: string[] | undefined;
    for (const b of w.blocks[at] ?? []) if (isToolUse(b) && !answered(w.calls.find(b.id)) && !healed.has(b.id)) (orphans ??= []).push(b.id);
    if (!orphans) continue;
    for (const id of orphans) healed.add(id);
    const e = w.entries[at]!;
    const uuid = healUuid(orphans);
    const heal: Entry = { type: 'user', parentUuid: owner, uuid };
    for (const k of INHERITED) if (e[k] !== undefined) heal[k] = e[k];
    if (e.timestamp !== undefined) heal.timestamp = e.timestamp;
    heal.message = {
      role: 'user',
      content: orphans.map((id): Block => ({ type: 'tool_result', tool_use_id: id, content: ORPHAN_NOTE, is_error: false })),
    };
    heal.sourceToolAssistantUUID = owner;
    plan.heals.set(at, heal);
    plan.repoint.set(owner, uuid);
    plan.healed += orphans.length;
  }
  return plan;
}

/**
 * Whether a live user entry (its uuid not in `skip`) holds a tool_result of call number `c` (-1: a call
 * never seen). Asked once per call: the answer is kept.
 */
function answers(w: Work, skip: ReadonlySet<string>): (c: number) => boolean {
  const memo = new Int8Array(w.calls.keys.length); // 0 not asked yet, 1 answered, 2 not
  const dead = new Members(skip);
  const deadWithoutUuid = skip.has('');
  const live = (i: number): boolean => {
    if (skip.size === 0) return true;
    if ((w.links[i]! & HAS_UUID) === 0) return !deadWithoutUuid;
    return !dead.mayHave(w.sigs[i]!) || !skip.has(uuidOf(w.entries[i]!)!);
  };
  const answer = (c: number): boolean => {
    for (let r = w.firstRes[c]!; r >= 0; r = w.nextRes[r]!) {
      const i = w.resAt[r]!;
      if (w.kind[i] !== USER || !live(i)) continue;
      if (!w.removed) return true;
      // the index was made before the views ran, and a view removed blocks since: is this one still there?
      const id = w.calls.keys[c];
      for (const b of w.blocks[i] ?? []) if (isToolResult(b) && b.tool_use_id === id) return true;
    }
    return false;
  };
  return (c) => {
    if (c < 0) return false;
    if (memo[c] === 0) memo[c] = answer(c) ? 1 : 2;
    return memo[c] === 1;
  };
}

/**
 * `entries` with a synthetic user entry right after each assistant entry that holds orphan tool_use
 * blocks, and ALL children of that assistant re-pointed to it (the original re-pointed only the first).
 * Linear time. Entries whose uuid is in `skip` are treated as absent (they are about to be dropped) but
 * stay in the output.
 */
export function healOrphans(entries: readonly Entry[], skip: ReadonlySet<string> = new Set()): { entries: Entry[]; healed: number } {
  const w = makeWork(entries);
  const plan = planHeals(w, skip);
  if (plan.healed === 0) return { entries: w.entries, healed: 0 };
  return { entries: assemble(w, new Set(), plan.heals, plan.repoint, { bridgeDangling: false }), healed: plan.healed };
}
