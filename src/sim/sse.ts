/**
 * Turning an answer item into what the Messages API sends: an SSE event list (streaming) or a
 * Message JSON (the harness's `stream:false` fallback), plus error bodies and token estimates.
 */
import { randomBytes } from 'node:crypto';
import type { SimDropMidItem, SimTextItem, SimToolUseItem, SimUsage, SimToolCall } from './items.js';

export type AnswerItem = SimTextItem | SimToolUseItem | SimDropMidItem;

export type ReplyBlock =
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

export interface Reply {
  id: string;
  model: string;
  blocks: ReplyBlock[];
  stop_reason: string;
  usage: SimUsage;
}

export interface SseEvent {
  event: string;
  data: Record<string, unknown>;
}

export const randomId = (prefix: string): string => prefix + randomBytes(12).toString('hex');

const DEFAULT_MODEL = 'claude-sonnet-4-5';
const CUT_TEXT = 'this answer will be cut off';

/** Rough token count of a request: what it would cost without caching (chars / 4). */
export function estimateInputTokens(body: unknown): number {
  if (typeof body !== 'object' || body === null) return 1;
  const b = body as Record<string, unknown>;
  try {
    return Math.max(1, Math.ceil(JSON.stringify([b.system, b.messages, b.tools]).length / 4));
  } catch {
    return 1;
  }
}

function blocksOf(item: AnswerItem): ReplyBlock[] {
  const blocks: ReplyBlock[] = [];
  // A fake signature is enough: the harness echoes it back, and the sim never checks it.
  if (item.thinking !== undefined) blocks.push({ type: 'thinking', thinking: item.thinking, signature: randomId('sig_') });
  if (item.type === 'text' || (item.type === 'drop_mid' && (item.as ?? 'text') === 'text')) {
    blocks.push({ type: 'text', text: item.text ?? (item.type === 'drop_mid' ? CUT_TEXT : '') });
    return blocks;
  }
  const tool = item as SimToolUseItem | SimDropMidItem;
  if (tool.text !== undefined) blocks.push({ type: 'text', text: tool.text });
  const calls: SimToolCall[] =
    tool.tools ??
    (tool.name !== undefined
      ? [{ name: tool.name, ...(tool.input !== undefined && { input: tool.input }), ...(tool.id !== undefined && { id: tool.id }) }]
      : []);
  for (const c of calls) blocks.push({ type: 'tool_use', id: c.id ?? randomId('toolu_'), name: c.name, input: c.input ?? {} });
  return blocks;
}

/** The complete answer for `item` to the request `body`. */
export function buildReply(item: AnswerItem, body: unknown): Reply {
  const requested = typeof body === 'object' && body !== null ? (body as { model?: unknown }).model : undefined;
  const blocks = blocksOf(item);
  const outputChars = blocks.reduce((n, b) => n + JSON.stringify(b).length, 0);
  return {
    id: randomId('msg_'),
    model: item.model ?? (typeof requested === 'string' ? requested : DEFAULT_MODEL),
    blocks,
    stop_reason: item.stop_reason ?? (blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'),
    usage: {
      input_tokens: estimateInputTokens(body),
      output_tokens: Math.max(1, Math.ceil(outputChars / 4)),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      ...item.usage,
    },
  };
}

/**
 * Split `s` into `k` near-equal parts without cutting a surrogate pair. Always returns at least
 * one part (an empty string stays one empty part).
 */
export function splitEven(s: string, k: number): string[] {
  const parts: string[] = [];
  const size = Math.max(1, Math.ceil(s.length / Math.max(1, k)));
  let i = 0;
  while (i < s.length) {
    let end = Math.min(s.length, i + size);
    const code = s.charCodeAt(end - 1);
    if (end < s.length && code >= 0xd800 && code <= 0xdbff) end += 1;
    parts.push(s.slice(i, end));
    i = end;
  }
  return parts.length > 0 ? parts : [''];
}

/**
 * The SSE events of a reply. Tool input is ALWAYS streamed as input_json_delta pieces after a
 * content_block_start carrying `input: {}`: the harness ignores an input given in
 * content_block_start and would run the tool with `{}` (docs/sdk-facts.md §1).
 */
export function replyEvents(reply: Reply, chunks = 1): SseEvent[] {
  const events: SseEvent[] = [];
  const push = (event: string, data: Record<string, unknown>): void => {
    events.push({ event, data: { type: event, ...data } });
  };
  push('message_start', {
    message: {
      id: reply.id,
      type: 'message',
      role: 'assistant',
      model: reply.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...reply.usage, output_tokens: 1 },
    },
  });
  reply.blocks.forEach((block, index) => {
    const delta = (d: Record<string, unknown>): void => push('content_block_delta', { index, delta: d });
    if (block.type === 'thinking') {
      push('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const part of splitEven(block.thinking, chunks)) delta({ type: 'thinking_delta', thinking: part });
      delta({ type: 'signature_delta', signature: block.signature });
    } else if (block.type === 'text') {
      push('content_block_start', { index, content_block: { type: 'text', text: '' } });
      for (const part of splitEven(block.text, chunks)) delta({ type: 'text_delta', text: part });
    } else {
      push('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      // Two pieces at least, so the harness really reassembles partial JSON.
      for (const part of splitEven(JSON.stringify(block.input), 2)) delta({ type: 'input_json_delta', partial_json: part });
    }
    push('content_block_stop', { index });
  });
  push('message_delta', {
    delta: { stop_reason: reply.stop_reason, stop_sequence: null },
    usage: { output_tokens: reply.usage.output_tokens },
  });
  push('message_stop', {});
  return events;
}

/** Wire framing of one SSE event; string data is sent as it is (the `sse` item's malformed lines). */
export const frameEvent = (e: { event: string; data: Record<string, unknown> | string }): string =>
  `event: ${e.event}\ndata: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n\n`;

/** The non-streaming Message JSON of a reply. */
export function replyMessage(reply: Reply): Record<string, unknown> {
  return {
    id: reply.id,
    type: 'message',
    role: 'assistant',
    model: reply.model,
    content: reply.blocks,
    stop_reason: reply.stop_reason,
    stop_sequence: null,
    usage: reply.usage,
  };
}

const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export const errorTypeFor = (status: number): string => ERROR_TYPES[status] ?? 'api_error';

/** Anthropic-style error body: `{type:'error', error:{type, message}}`. */
export const errorBody = (type: string, message: string): string => JSON.stringify({ type: 'error', error: { type, message } });
