// Narrowing helpers over transcript entries as the real binary writes them (docs/sdk-facts.md §4.1–4.2).
// Views never mutate their input: every change goes through `withBlocks`/`withFields`, which copy the
// entry (and its message) and leave the original rows exactly as written.

import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';

export type Entry = SessionStoreEntry;

export interface Block {
  type: string;
  [k: string]: unknown;
}

export interface ToolUseBlock extends Block {
  type: 'tool_use';
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultBlock extends Block {
  type: 'tool_result';
  tool_use_id: string;
  content?: unknown;
  is_error?: boolean;
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const isBlock = (v: unknown): v is Block => isRecord(v) && typeof v.type === 'string';

export const isToolUse = (b: Block): b is ToolUseBlock => b.type === 'tool_use' && typeof b.id === 'string';
export const isToolResult = (b: Block): b is ToolResultBlock => b.type === 'tool_result' && typeof b.tool_use_id === 'string';

/** The message's content blocks; undefined when the content is a plain string, absent or malformed (left alone). */
export function blocksOf(e: Entry): readonly Block[] | undefined {
  const msg = e.message;
  if (!isRecord(msg) || !Array.isArray(msg.content)) return undefined;
  const content: unknown[] = msg.content;
  return content.every(isBlock) ? (content as Block[]) : undefined;
}

export const uuidOf = (e: Entry): string | undefined => (typeof e.uuid === 'string' ? e.uuid : undefined);
export const parentOf = (e: Entry): string | null | undefined => (typeof e.parentUuid === 'string' ? e.parentUuid : e.parentUuid === null ? null : undefined);

/** Compact summaries and meta entries carry the harness's own bookkeeping: views never rewrite them. */
export const isProtected = (e: Entry): boolean => e.isCompactSummary === true || e.isMeta === true;

/**
 * The text of a tool_result, or `media: true` when it holds anything but text (images, documents,
 * references): those are never rewritten, a pointer cannot stand in for a picture.
 */
export function resultText(b: ToolResultBlock): { text: string; media: boolean } {
  const c = b.content;
  if (typeof c === 'string') return { text: c, media: false };
  if (c === undefined || c === null) return { text: '', media: false };
  if (!Array.isArray(c)) return { text: '', media: true };
  let text = '';
  for (const part of c) {
    if (!isRecord(part) || part.type !== 'text' || typeof part.text !== 'string') return { text: '', media: true };
    text += (text ? '\n' : '') + part.text;
  }
  return { text, media: false };
}

/** resultText's text, or undefined for media: the same answer without an object per result (the views ask for every one). */
export function resultString(b: ToolResultBlock): string | undefined {
  const c = b.content;
  if (typeof c === 'string') return c;
  const { text, media } = resultText(b);
  return media ? undefined : text;
}

/** A copy of `e` whose message content is `blocks`. */
export function withBlocks(e: Entry, blocks: Block[]): Entry {
  const msg = isRecord(e.message) ? e.message : {};
  return { ...e, message: { ...msg, content: blocks } };
}

/** A copy of `e` with fields set (`undefined` deletes the field, so `toolUseResult` really goes away). */
export function withFields(e: Entry, fields: Record<string, unknown>): Entry {
  const out: Entry = { ...e };
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

/**
 * Why a tool_result is debris of an interruption rather than a real outcome. The binary writes an error
 * result (`is_error: true`): "[Request interrupted…" or, for a tool killed while running, a rejection
 * text with the correction "this call was stopped while running", plus `toolUseResult: 'User rejected
 * tool use'` WITHOUT `toolDenialBeforeRun` (a rejection before the run sets it: that one is a denial,
 * docs/sdk-facts.md §2, §7c). A result that did not fail is an outcome whatever its text says — a
 * command's output may quote these words (a grep of a log) and must reach the model as it was.
 */
export function isInterruptedResult(e: Entry, b: ToolResultBlock): boolean {
  // already neutralised (is_error false): a second pass must not call it a denial
  if (b.is_error !== true) return (typeof b.content === 'string' ? b.content : resultText(b).text) === INTERRUPT_NOTE;
  const { text } = resultText(b);
  if (text === INTERRUPT_NOTE) return true;
  if (text.includes('[Request interrupted') || text.includes('this call was stopped while running')) return true;
  return e.toolUseResult === 'User rejected tool use' && e.toolDenialBeforeRun !== true;
}

// Texts the views write. A later pass must recognise them, or views(views(x)) would rewrite its own
// notes (e.g. expire a trim pointer because `cat big.txt` is a glance).
export const STALE_PREFIX = '[stale]';
export const ARCHIVED_PREFIX = '[archived';
export const ORPHAN_NOTE =
  '[The previous round stopped before this call returned, so there is no result. It may have run in part or in full: check its effects before redoing it.]';

export const INTERRUPT_NOTE =
  '[The previous round was interrupted while this call was running, so it has no result. It may have run in part or in full: check its effects before redoing it.]';

export const isViewNote = (text: string): boolean =>
  text.startsWith(STALE_PREFIX) || text.startsWith(ARCHIVED_PREFIX) || text === ORPHAN_NOTE || text === INTERRUPT_NOTE;

/** Characters a block puts in front of the model: text, tool input, or result text. */
export function blockChars(b: Block): number {
  if (typeof b.text === 'string') return b.text.length;
  if (typeof b.thinking === 'string') return b.thinking.length;
  if (isToolUse(b)) return JSON.stringify(b.input ?? {}).length;
  if (isToolResult(b)) return resultText(b).text.length;
  return 0;
}

/** A synthetic assistant written when the API failed for good, or a per-retry `system/api_error` entry. */
export function isApiErrorEntry(e: Entry): boolean {
  if (e.type === 'system') return e.subtype === 'api_error';
  if (e.type !== 'assistant') return false;
  return e.isApiErrorMessage === true || (isRecord(e.message) && e.message.model === '<synthetic>');
}

/** The harness's denial markers on a user entry: a `toolDenialKind`, or a permission decision `reject`. */
export function hasDenialMarks(e: Entry): boolean {
  if (e.type !== 'user') return false;
  const decision = isRecord(e.permissionDecision) ? e.permissionDecision.decision : undefined;
  return e.toolDenialKind !== undefined || decision === 'reject';
}

/** A denied call, recognised by the harness's structural markers, never by text. */
export function isDenialEntry(e: Entry, blocks: readonly Block[] | undefined = blocksOf(e)): boolean {
  if (!hasDenialMarks(e)) return false;
  return !(blocks ?? []).some((b) => isToolResult(b) && isInterruptedResult(e, b));
}
