/**
 * Faults in how the wire carries the answer: tool input JSON that does not parse, a cut at max_tokens, a
 * content block of an unknown type, no content at all, a refusal, a dropped connection, an SSE or HTTP
 * error, slow tokens. Every wait added is bounded by `FuzzLimits.maxDelayMs`.
 */
import type { SimItem, SimSseEvent } from '../items.js';
import { buildReply, replyEvents, replyMessage, splitEven, type SseEvent } from '../sse.js';
import { type FaultInput, type Faulted, hasCall, planItem } from './fault.js';
import type { Plan } from './turns.js';

const eventsOf = (plan: Plan, f: FaultInput, chunks = 1): SseEvent[] => replyEvents(buildReply(planItem(plan), f.ctx.call.body), chunks);
const sse = (events: Array<SseEvent | SimSseEvent>, more: Partial<Extract<SimItem, { type: 'sse' }>> = {}): SimItem => ({ type: 'sse', events, ...more });
const messageWith = (f: FaultInput, content: unknown[], stop: string): Record<string, unknown> => ({
  ...replyMessage(buildReply({ type: 'text', text: '' }, f.ctx.call.body)),
  content,
  stop_reason: stop,
});

/** Indexes of the events that carry block `index`'s tool input. */
function inputEvents(events: SseEvent[], index: number): number[] {
  return events.flatMap((e, i) => (e.data.index === index && (e.data.delta as { type?: string } | undefined)?.type === 'input_json_delta' ? [i] : []));
}

/** The block index of the first tool_use in a reply's events. */
const firstToolBlock = (events: SseEvent[]): number =>
  events.find((e) => e.event === 'content_block_start' && (e.data.content_block as { type?: string }).type === 'tool_use')!.data.index as number;

/** Replace block `index`'s input pieces with `json` (which need not parse), split in two pieces. */
function withInputJson(events: SseEvent[], index: number, json: string): SseEvent[] {
  const at = inputEvents(events, index);
  const pieces = splitEven(json, 2).map((partial_json) => ({
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } },
  }));
  return [...events.slice(0, at[0]), ...pieces, ...events.slice(at.at(-1)! + 1)];
}

const CORRUPT: Readonly<Record<string, (json: string) => string>> = {
  trailing_comma: (j) => j.replace(/}$/, ',}'),
  single_quotes: (j) => j.replace(/"/g, "'"),
  unquoted_keys: (j) => j.replace(/"([A-Za-z_]\w*)":/g, '$1:'),
  truncated: (j) => j.slice(0, Math.max(1, Math.floor(j.length / 2))),
  raw_newline: (j) => j.replace(/":"/, '":"\n'),
  two_objects: (j) => `${j}${j}`,
};

/** A tool input whose streamed input_json_delta does not parse. */
export function badJson(f: FaultInput): Faulted {
  const variant = f.draw.pick(Object.keys(CORRUPT));
  const events = eventsOf(f.plan, f);
  return { variant, item: sse(withInputJson(events, firstToolBlock(events), CORRUPT[variant]!(JSON.stringify(f.plan.calls[0]!.input ?? {})))) };
}

/** An empty answer: no content block, an empty text, or only whitespace. */
export function empty(f: FaultInput): Faulted {
  const variant = f.draw.pick(['no_content', 'empty_text', 'whitespace'] as const);
  if (variant === 'no_content') return { variant, item: sse(bare(f, 'end_turn'), { message: messageWith(f, [], 'end_turn') }) };
  return { variant, item: { type: 'text', text: variant === 'empty_text' ? '' : '\n\n' } };
}

/** stop_reason refusal, with nothing or the start of the answer. */
export function refusal(f: FaultInput): Faulted {
  if (f.draw.chance(0.5)) return { variant: 'silent', item: sse(bare(f, 'refusal'), { message: messageWith(f, [], 'refusal') }) };
  const text = (f.plan.text ?? 'I will').slice(0, 40);
  return { variant: 'partial', item: { type: 'text', text, stop_reason: 'refusal' } };
}

/** The connection dropped mid-stream, after 1..n-1 events. */
export function dropMid(f: FaultInput): Faulted {
  const n = eventsOf(f.plan, f, 4).length;
  const afterEvents = f.draw.int(1, n - 1);
  const shape = hasCall(f)
    ? { as: 'tool_use' as const, tools: f.plan.calls, ...(f.plan.text !== undefined ? { text: f.plan.text } : {}) }
    : { as: 'text' as const, text: f.plan.text ?? '' };
  return { variant: `after:${afterEvents}/${n}`, item: { type: 'drop_mid', afterEvents, chunks: 4, dropNonStreaming: false, ...shape } };
}

/** An SSE error event mid-stream (overloaded_error / api_error), then the stream ends. */
export function sseError(f: FaultInput): Faulted {
  const events = eventsOf(f.plan, f, 4);
  const at = f.draw.int(1, events.length - 2);
  const [type, message] = f.draw.pick([
    ['overloaded_error', 'Overloaded'],
    ['api_error', 'Internal server error'],
  ] as const);
  return { variant: `${type}@${at}`, item: sse([...events.slice(0, at), { event: 'error', data: { type: 'error', error: { type, message } } }]) };
}

/** An HTTP error before any byte: 529 overloaded, 500, or 429 with retry-after. */
export function httpError(f: FaultInput): Faulted {
  const status = f.draw.pick([529, 500, 429] as const);
  return { variant: String(status), item: { type: 'error', status, ...(status === 500 ? {} : { headers: { 'retry-after': '1' } }) } };
}

export function maxTokensCut(f: FaultInput): Faulted {
  if (!hasCall(f)) {
    const text = f.plan.text ?? '';
    return { variant: 'text', item: { type: 'text', text: text.slice(0, Math.max(1, Math.floor(text.length / 2))), stop_reason: 'max_tokens' } };
  }
  const events = eventsOf(f.plan, f);
  const index = firstToolBlock(events);
  const json = JSON.stringify(f.plan.calls[0]!.input ?? {});
  const cut = f.draw.int(1, Math.max(1, json.length - 2));
  const start = events.findIndex((e) => e.event === 'content_block_start' && e.data.index === index);
  const piece = {
    event: 'content_block_delta',
    data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(0, cut) } },
  };
  const tail = [
    { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage: { output_tokens: 4096 } } },
    { event: 'message_stop', data: { type: 'message_stop' } },
  ];
  return { variant: `tool_use@${cut}/${json.length}`, item: sse([...events.slice(0, start + 1), piece, ...tail]) };
}

/** Events with no content block at all, ending with `stop`. */
function bare(f: FaultInput, stop: string): SseEvent[] {
  const events = replyEvents(buildReply({ type: 'text', text: '' }, f.ctx.call.body));
  return [
    events[0]!,
    { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 0 } } },
    events.at(-1)!,
  ];
}

export function unknownBlock(f: FaultInput): Faulted {
  const events = eventsOf(f.plan, f);
  const type = f.draw.pick(['annotation', 'server_status', 'reasoning_summary']);
  const where = f.draw.pick(['leading', 'trailing'] as const);
  const blocks = events.filter((e) => e.event === 'content_block_start').length;
  const index = where === 'leading' ? 0 : blocks;
  const shifted =
    where === 'leading' ? events.map((e) => (typeof e.data.index === 'number' ? { ...e, data: { ...e.data, index: e.data.index + 1 } } : e)) : events;
  const block = { type, [type]: { text: 'progress: converting' } };
  const odd: SseEvent[] = [
    { event: 'content_block_start', data: { type: 'content_block_start', index, content_block: { type, [type]: {} } } },
    { event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: { type: `${type}_delta`, text: 'progress: converting' } } },
    { event: 'content_block_stop', data: { type: 'content_block_stop', index } },
  ];
  const at = where === 'leading' ? 1 : shifted.findIndex((e) => e.event === 'message_delta');
  const reply = buildReply(planItem(f.plan), f.ctx.call.body);
  const content = where === 'leading' ? [block, ...reply.blocks] : [...reply.blocks, block];
  return { variant: `${where}:${type}`, item: sse([...shifted.slice(0, at), ...odd, ...shifted.slice(at)], { message: { ...replyMessage(reply), content } }) };
}

export function slow(f: FaultInput): Faulted {
  const budget = f.limits.maxDelayMs;
  if (f.draw.chance(0.5)) {
    const chunks = f.draw.int(8, 24);
    const n = eventsOf(f.plan, f, chunks).length;
    const cap = Math.max(50, Math.min(3000, Math.floor((budget * 2) / 3 / Math.max(1, n - 1))));
    const gap = f.draw.int(Math.min(200, cap), cap);
    return { variant: `trickle:${chunks}x${gap}ms`, item: planItem(f.plan, { chunks, chunkDelayMs: gap }) };
  }
  const events: SimSseEvent[] = eventsOf(f.plan, f, 4);
  const at = f.draw.int(1, events.length - 1);
  const gap = f.draw.int(Math.min(5000, budget), budget);
  events[at] = { ...events[at]!, delayMs: gap };
  return { variant: `pause:${gap}ms@${at}`, item: sse(events) };
}
