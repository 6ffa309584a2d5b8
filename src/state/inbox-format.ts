/**
 * The inbox's saved formats (issue 21, "answer from anywhere"), shared by the files backend
 * (src/state/inbox.ts) and PostgreSQL (src/store/postgres/inbox.ts):
 *
 * - the waiting set: what the running flower is asking now — written when a question starts waiting
 *   and when one ends, by the run lock's holder only (one writer), so other processes can see it;
 * - an item: something posted from outside (`flower answer`, `flower say`, `flower stop --after-step`,
 *   the ui) for the running flower — or the next one — to apply exactly once;
 * - an outcome: what became of an item, so the poster can say "applied" or "too late".
 *
 * Version 1 of each carries `version: 1`. A reader refuses a newer version (kept where it is) and keeps a
 * damaged one aside; nothing here is ever read from the workspace, where agents write.
 */
import * as v from 'valibot';
import { num } from './schemas.js';

export const INBOX_VERSION = 1;

const nonEmpty = v.pipe(v.string(), v.minLength(1));

const question = v.object({
  id: nonEmpty,
  question: v.string(),
  options: v.array(v.string()),
  asked_at: v.string(),
  /** seconds it waits in all (null: forever) */
  timeout_s: v.nullable(num),
});

const waitingV1 = v.object({
  version: v.literal(1),
  /** one running flower: a random id per process, so an answer never reaches another run's q1 */
  owner: nonEmpty,
  pid: v.pipe(v.number(), v.safeInteger()),
  host: v.string(),
  /** process start time (Linux), so a recycled pid is not taken for the owner */
  started_at: v.nullable(v.string()),
  updated_at: v.string(),
  questions: v.array(question),
});

/** An answer names the question it answers (the owner and id the poster saw), or null: the oldest one asked. */
const target = v.nullable(v.object({ owner: nonEmpty, id: nonEmpty }));

const itemV1 = v.variant('kind', [
  v.object({ version: v.literal(1), kind: v.literal('answer'), to: target, text: v.string(), posted_at: v.string(), from: v.string() }),
  v.object({ version: v.literal(1), kind: v.literal('mail'), text: nonEmpty, posted_at: v.string(), from: v.string() }),
  v.object({ version: v.literal(1), kind: v.literal('stop-after-step'), posted_at: v.string(), from: v.string() }),
]);

const outcomeV1 = v.object({
  version: v.literal(1),
  /** applied: it took effect; too-late: the question had ended (answered elsewhere, timed out, its run gone) */
  state: v.picklist(['applied', 'too-late']),
  at: v.string(),
  /** for an answer: the question it went to, and the text the model received */
  question: v.optional(v.string()),
  answer: v.optional(v.string()),
  detail: v.optional(v.string()),
});

export const WAITING_SCHEMAS = { 1: waitingV1 } as const;
export const ITEM_SCHEMAS = { 1: itemV1 } as const;
export const OUTCOME_SCHEMAS = { 1: outcomeV1 } as const;

export type WaitingQuestion = v.InferOutput<typeof question>;
export type WaitingSet = v.InferOutput<typeof waitingV1>;
export type InboxItemBody = v.InferOutput<typeof itemV1>;
export type InboxOutcome = v.InferOutput<typeof outcomeV1>;
export type InboxKind = InboxItemBody['kind'];

/** A posted item as read back: its id in the backend (sortable oldest first) and its body. */
export interface InboxItem {
  id: string;
  body: InboxItemBody;
}

/** What the item's poster sees later: still pending, taken and not finished, or its outcome. */
export type ItemState = { state: 'pending' } | { state: 'claimed' } | { state: 'done'; outcome: InboxOutcome } | { state: 'missing' };

/** Something set aside in the inbox: a file (or row) flower did not write or cannot read. */
export interface InboxNotice {
  /** the item's file or row as it was */
  path: string;
  /** where it is now */
  keptAt: string;
  reason: string;
}

/** Parse one item's text: the body, or why it is not one (future versions say so: never guessed at). */
export function parseItem(text: string): { ok: true; body: InboxItemBody } | { ok: false; reason: string; future: boolean } {
  let raw: unknown;
  try {
    raw = JSON.parse(text, (k, v: unknown) => {
      if (k === '__proto__') throw new SyntaxError('a "__proto__" key is not allowed');
      return v;
    });
  } catch (e) {
    return { ok: false, reason: `is not valid JSON (${(e as Error).message})`, future: false };
  }
  const version = (raw as { version?: unknown } | null)?.version;
  if (typeof version === 'number' && version > INBOX_VERSION) return { ok: false, reason: `is version ${version}, written by a newer flower`, future: true };
  const r = v.safeParse(itemV1, raw);
  if (r.success) return { ok: true, body: r.output };
  return { ok: false, reason: `is not an inbox item of version ${INBOX_VERSION} (${r.issues[0]?.message ?? 'bad shape'})`, future: false };
}

export function parseOutcome(text: string): InboxOutcome | null {
  try {
    const r = v.safeParse(outcomeV1, JSON.parse(text));
    return r.success ? r.output : null;
  } catch {
    return null;
  }
}

export function parseWaiting(text: string): WaitingSet | null {
  try {
    const r = v.safeParse(waitingV1, JSON.parse(text));
    return r.success ? r.output : null;
  } catch {
    return null;
  }
}

/**
 * The durable inbox of a run's records. Every backend gives the same guarantees:
 * - `post` is atomic: a reader sees a whole item or none;
 * - `claim` succeeds for exactly one caller per item, in any number of processes;
 * - an item that cannot be read is set aside (never overwritten, never deleted) and reported once.
 */
export interface RunInbox {
  /** for messages: the folder or the database */
  readonly where: string;
  /** Replace the waiting set (the run lock's holder only); `questions: []` says nothing is waiting. */
  publishWaiting(w: WaitingSet): Promise<void>;
  /** Remove the waiting set of `owner` (a run ending); another owner's set is left alone. */
  clearWaiting(owner: string): Promise<void>;
  /** The waiting set of the flower running now; null when none runs (a set left by a killed one is stale). */
  readWaiting(): Promise<WaitingSet | null>;
  /** Post an item; its id. */
  post(body: InboxItemBody): Promise<string>;
  /** Items not claimed yet, oldest first; unreadable ones are set aside and passed to `onNotice`. */
  pending(o?: { onNotice?: (n: InboxNotice) => void }): Promise<InboxItem[]>;
  /** Take an item: true for exactly one caller. `by` names the claimer (the owner). */
  claim(id: string, by: string): Promise<boolean>;
  /** Record what became of a claimed item. */
  finish(id: string, outcome: InboxOutcome): Promise<void>;
  /** Where an item is now (for the poster waiting to hear). */
  state(id: string): Promise<ItemState>;
  /** Start watching for new items; `onChange` is called (at least) when one may have arrived. Returns the way to stop. */
  watch(onChange: () => void, o?: { pollMs?: number }): () => void;
}
