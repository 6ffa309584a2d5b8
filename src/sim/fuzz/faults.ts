/**
 * The fault catalogue: named ways a model (or the API, or a gateway in front of it) can spoil one turn.
 * Each fault takes the plausible turn (turns.ts) and spoils it, so what arrives still looks like that
 * turn: a brief with a field missing, a Write whose JSON does not parse, a verdict cut by max_tokens.
 * Every fault is something the wire really carries; every wait it adds is bounded (`FuzzLimits`).
 */
import type { SimAnswerFields, SimItem, SimSseEvent, SimTextItem, SimToolCall, SimToolUseItem, SimUsage } from '../items.js';
import { buildReply, replyEvents, replyMessage, splitEven, type SseEvent } from '../sse.js';
import {
  briefMarkdown,
  filler,
  goalMarkdown,
  handoffMarkdown,
  verdictMarkdown,
  type BriefInput,
  type GoalInput,
  type HandoffInput,
  type VerdictInput,
} from './docs.js';
import type { FaultKind, FuzzRole } from './options.js';
import { messageCount, submitTool } from './read.js';
import type { Draw } from './rng.js';
import { documentFor, type Plan, type TurnContext } from './turns.js';

export interface FuzzLimits {
  /** No fault waits longer than this in all (slow tokens, one long gap). */
  maxDelayMs: number;
  /** Size range of a huge answer or tool input, in bytes. */
  hugeBytes: readonly [number, number];
}

export const DEFAULT_LIMITS: Readonly<FuzzLimits> = Object.freeze({ maxDelayMs: 30_000, hugeBytes: [1_000_000, 2_000_000] as const });

export interface FaultInput {
  ctx: TurnContext;
  plan: Plan;
  draw: Draw;
  limits: FuzzLimits;
}

export interface Faulted {
  item: SimItem;
  variant: string;
}

export interface FaultSpec {
  /** Default relative weight (docs/sim.md lists them). */
  weight: number;
  describe: string;
  /** Only a stream can carry it (a `stream:false` fallback request is answered plausibly). */
  streamOnly?: boolean;
  /**
   * Drawn once per conversation, not per request: a conversation it falls on keeps it on every later
   * turn it applies to (a model stuck in a loop), at `rate` × its share of the weights.
   */
  conversation?: boolean;
  /** Can it spoil this turn at all (e.g. bad_fields needs a tool call)? */
  applies?: (f: Pick<FaultInput, 'ctx' | 'plan'>) => boolean;
  make: (f: FaultInput) => Faulted;
}

const KIND_OF_ROLE: Partial<Record<FuzzRole, 'brief' | 'goal' | 'verdict' | 'handoff'>> = {
  clarify: 'brief',
  goal: 'goal',
  judge: 'verdict',
  handoff: 'handoff',
};

/** The answer item of a plan (text, or tool calls with an optional preamble). */
export function planItem(plan: Plan, extra: SimAnswerFields = {}): SimTextItem | SimToolUseItem {
  if (plan.calls.length === 0) return { type: 'text', text: plan.text ?? '', ...extra };
  return { type: 'tool_use', tools: plan.calls, ...(plan.text !== undefined ? { text: plan.text } : {}), ...extra };
}

const eventsOf = (plan: Plan, f: FaultInput, chunks = 1): SseEvent[] => replyEvents(buildReply(planItem(plan), f.ctx.call.body), chunks);
const sse = (events: Array<SseEvent | SimSseEvent>, more: Partial<Extract<SimItem, { type: 'sse' }>> = {}): SimItem => ({ type: 'sse', events, ...more });
const hasCall = (f: Pick<FaultInput, 'plan'>): boolean => f.plan.calls.length > 0;
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

function wrongType(v: unknown): unknown {
  if (typeof v === 'string') return 42;
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join('; ');
  if (typeof v === 'boolean') return 'yes';
  if (typeof v === 'number') return 'many';
  return v === null ? 0 : 'see above';
}

function spoilFields(input: Record<string, unknown>, variant: string, draw: Draw): Record<string, unknown> {
  const out = structuredClone(input);
  const keys = Object.keys(out);
  const key = keys.length ? draw.pick(keys) : 'input';
  const checks = Array.isArray(out.checks) ? (out.checks as Array<Record<string, unknown>>) : [];
  switch (variant) {
    case 'missing':
      delete out[key];
      break;
    case 'extra':
      Object.assign(out, { confidence: 0.9, notes: 'a field the schema does not have' });
      break;
    case 'wrong_type':
      out[key] = wrongType(out[key]);
      break;
    case 'empty':
      out[key] = typeof out[key] === 'string' ? '' : Array.isArray(out[key]) ? [] : null;
      break;
    // the verdict-only ways to say "achieved" without having judged
    case 'hollow':
      return { state: 'achieved', reason: '', checks: [] };
    case 'no_evidence':
      return { ...out, state: 'achieved', reason: '', checks: checks.map((c) => ({ ...c, pass: true, evidence: '' })) };
    case 'partial':
      return { ...out, state: 'achieved', reason: '', checks: checks.slice(0, 1).map((c) => ({ ...c, pass: true })) };
  }
  return out;
}

/** The longest string anywhere in `v` replaced by `text` (a Write's content, a brief's goal, an evidence). */
function bloat(v: unknown, text: string): unknown {
  let best: { path: Array<string | number>; len: number } = { path: [], len: -1 };
  const walk = (x: unknown, at: Array<string | number>): void => {
    if (typeof x === 'string' && x.length > best.len) best = { path: at, len: x.length };
    else if (Array.isArray(x))
      x.forEach((y, i) => {
        walk(y, [...at, i]);
      });
    else if (typeof x === 'object' && x !== null) for (const [k, y] of Object.entries(x)) walk(y, [...at, k]);
  };
  walk(v, []);
  if (best.path.length === 0) return { ...(v as object), text };
  const out = structuredClone(v) as Record<string | number, unknown>;
  let cur = out;
  for (const k of best.path.slice(0, -1)) cur = cur[k] as Record<string | number, unknown>;
  cur[best.path.at(-1)!] = text;
  return out;
}

const NOT_OFFERED: ReadonlyArray<[string, (ws: string) => Record<string, unknown>]> = [
  ['Write', (ws) => ({ file_path: `${ws}/NOTE.txt`, content: 'written by a role that may not write\n' })],
  ['Edit', (ws) => ({ file_path: `${ws}/md2html.mjs`, old_string: 'md', new_string: 'markdown' })],
  ['Bash', () => ({ command: 'ls -la', description: 'look around' })],
  ['Agent', () => ({ description: 'help', subagent_type: 'general-purpose', prompt: 'Do the task.' })],
  ['WebFetch', () => ({ url: 'https://example.com/markdown-spec', prompt: 'summarize the spec' })],
];

function unknownTool(f: FaultInput): Faulted {
  const { ctx, draw } = f;
  const own = KIND_OF_ROLE[ctx.role];
  const others = (['brief', 'goal', 'verdict', 'handoff'] as const).filter((k) => k !== own && submitTool(ctx.call, k));
  const absent = NOT_OFFERED.filter(([name]) => !ctx.call.tools.includes(name));
  const variant = draw.pick(['nonexistent', 'not_offered', 'other_role'] as const);
  if (variant === 'other_role' && others.length > 0) {
    const kind = draw.pick(others);
    return { variant: `other_role:${kind}`, item: { type: 'tool_use', name: submitTool(ctx.call, kind)!, input: documentFor(ctx, kind) } };
  }
  if (variant !== 'nonexistent' && absent.length > 0) {
    const [name, input] = draw.pick(absent);
    return { variant: `not_offered:${name}`, item: { type: 'tool_use', name, input: input(ctx.ws) } };
  }
  const name = own ? `mcp__human__submit_${own}_v2` : 'write_file';
  const input = f.plan.calls[0]?.input ?? { path: `${ctx.ws}/out.txt`, content: f.plan.text ?? '' };
  return { variant: 'nonexistent', item: { type: 'tool_use', name, input } };
}

function prose(f: FaultInput): Faulted {
  const call = f.plan.calls[0];
  const own = KIND_OF_ROLE[f.ctx.role];
  if (own && call?.name.endsWith(`submit_${own}`) && f.draw.chance(0.5)) {
    const input = call.input ?? {};
    const md =
      own === 'brief'
        ? briefMarkdown(input as unknown as BriefInput)
        : own === 'goal'
          ? goalMarkdown(input as unknown as GoalInput)
          : own === 'verdict'
            ? verdictMarkdown(input as unknown as VerdictInput)
            : handoffMarkdown(input as unknown as HandoffInput);
    return { variant: 'markdown', item: { type: 'text', text: md } };
  }
  const claims: Partial<Record<FuzzRole, string>> = {
    clarify: 'The request is clear enough as it stands; I will not ask anything.',
    goal: 'The goal is simply to do what was asked.',
    judge: 'It looks done to me.',
    coordinator: 'The work is done.',
    worker: 'Done.',
  };
  return { variant: 'chat', item: { type: 'text', text: claims[f.ctx.role] ?? 'Done.' } };
}

function repeat(f: FaultInput): Faulted {
  const last = f.ctx.all.at(-1);
  if (!hasCall(f) || (last && f.draw.chance(0.5))) {
    return { variant: 'again', item: { type: 'tool_use', name: last!.name, input: last!.input } };
  }
  const n = f.draw.int(2, 5);
  const c = f.plan.calls[0]!;
  return {
    variant: `parallel:${n}`,
    item: { type: 'tool_use', tools: Array.from({ length: n }, (): SimToolCall => ({ name: c.name, input: c.input ?? {} })) },
  };
}

/** Stuck: the last call of the conversation made again, with the same input, whatever came back. */
function stuck(f: FaultInput): Faulted {
  const last = f.ctx.all.at(-1)!;
  return {
    variant: `again:${f.ctx.all.filter((c) => c.name === last.name && JSON.stringify(c.input) === JSON.stringify(last.input)).length}`,
    item: { type: 'tool_use', name: last.name, input: last.input },
  };
}

function maxTokensCut(f: FaultInput): Faulted {
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

function unknownBlock(f: FaultInput): Faulted {
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

function usage(f: FaultInput): Faulted {
  const variant = f.draw.pick(['zero', 'huge', 'decreasing'] as const);
  const big = 1_000_000_000;
  const u: Partial<SimUsage> =
    variant === 'zero'
      ? { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
      : variant === 'huge'
        ? f.draw.pick([{ input_tokens: big }, { output_tokens: big }, { cache_read_input_tokens: big }])
        : // shrinks as the conversation grows: a gateway that reports per-chunk or resets its counters
          { input_tokens: Math.max(1, 150_000 - 7_000 * messageCount(f.ctx.call)), cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  return { variant: variant === 'huge' ? `huge:${Object.keys(u)[0]}` : variant, item: planItem(f.plan, { usage: u }) };
}

function slow(f: FaultInput): Faulted {
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

/** The catalogue, with the default weights (relative; docs/sim.md "The fuzzing model"). */
export const FAULTS: Readonly<Record<FaultKind, FaultSpec>> = {
  prose: { weight: 8, describe: 'no tool call: prose (for a submitting role, half the time the document as markdown)', make: prose },
  bad_fields: {
    weight: 10,
    describe: 'the tool call with a field missing / extra / wrong-typed / empty; a verdict also hollow, without evidence, or judging only some checks',
    applies: hasCall,
    make: (f) => {
      const c = f.plan.calls[0]!;
      const verdict = c.name.endsWith('submit_verdict');
      const variant = f.draw.pick(
        verdict ? ['missing', 'extra', 'wrong_type', 'empty', 'hollow', 'no_evidence', 'partial'] : ['missing', 'extra', 'wrong_type', 'empty'],
      );
      return { variant, item: { type: 'tool_use', name: c.name, input: spoilFields(c.input ?? {}, variant, f.draw) } };
    },
  },
  unknown_tool: {
    weight: 8,
    describe: "a call of a tool that does not exist, is not offered to the role, or is another role's submit tool",
    make: unknownTool,
  },
  repeat: {
    weight: 7,
    describe: 'the same call 2–5 times in one answer, or the previous call made again',
    applies: (f) => hasCall(f) || f.ctx.all.length > 0,
    make: repeat,
  },
  bad_json: {
    weight: 8,
    describe: 'a tool input whose streamed input_json_delta does not parse',
    streamOnly: true,
    applies: hasCall,
    make: (f) => {
      const variant = f.draw.pick(Object.keys(CORRUPT));
      const events = eventsOf(f.plan, f);
      return { variant, item: sse(withInputJson(events, firstToolBlock(events), CORRUPT[variant]!(JSON.stringify(f.plan.calls[0]!.input ?? {})))) };
    },
  },
  max_tokens_cut: { weight: 7, describe: 'stop_reason max_tokens in the middle of a tool_use input (or of the text)', streamOnly: true, make: maxTokensCut },
  empty: {
    weight: 7,
    describe: 'an empty answer: no content block, an empty text, or only whitespace',
    make: (f) => {
      const variant = f.draw.pick(['no_content', 'empty_text', 'whitespace'] as const);
      if (variant === 'no_content') return { variant, item: sse(bare(f, 'end_turn'), { message: messageWith(f, [], 'end_turn') }) };
      return { variant, item: { type: 'text', text: variant === 'empty_text' ? '' : '\n\n' } };
    },
  },
  refusal: {
    weight: 6,
    describe: 'stop_reason refusal, with nothing or the start of the answer',
    make: (f) => {
      if (f.draw.chance(0.5)) return { variant: 'silent', item: sse(bare(f, 'refusal'), { message: messageWith(f, [], 'refusal') }) };
      const text = (f.plan.text ?? 'I will').slice(0, 40);
      return { variant: 'partial', item: { type: 'text', text, stop_reason: 'refusal' } };
    },
  },
  huge: {
    weight: 4,
    describe: 'a 1–2 MB text answer, or a tool input with a 1–2 MB field',
    make: (f) => {
      const bytes = f.draw.int(f.limits.hugeBytes[0], f.limits.hugeBytes[1]);
      if (!hasCall(f) || f.draw.chance(0.5)) return { variant: `text:${bytes}`, item: { type: 'text', text: filler(bytes), chunks: 64 } };
      const c = f.plan.calls[0]!;
      return { variant: `input:${bytes}`, item: { type: 'tool_use', name: c.name, input: bloat(c.input ?? {}, filler(bytes)) as Record<string, unknown> } };
    },
  },
  unknown_block: { weight: 6, describe: 'a content block of a type the client does not know, before or after the answer', make: unknownBlock },
  usage: { weight: 7, describe: 'usage numbers of 0, of 10^9, or shrinking as the conversation grows', make: usage },
  drop_mid: {
    weight: 8,
    describe: 'the connection dropped mid-stream (after 1..n-1 events)',
    streamOnly: true,
    make: (f) => {
      const n = eventsOf(f.plan, f, 4).length;
      const afterEvents = f.draw.int(1, n - 1);
      const shape = hasCall(f)
        ? { as: 'tool_use' as const, tools: f.plan.calls, ...(f.plan.text !== undefined ? { text: f.plan.text } : {}) }
        : { as: 'text' as const, text: f.plan.text ?? '' };
      return { variant: `after:${afterEvents}/${n}`, item: { type: 'drop_mid', afterEvents, chunks: 4, dropNonStreaming: false, ...shape } };
    },
  },
  sse_error: {
    weight: 7,
    describe: 'an SSE error event mid-stream (overloaded_error / api_error), then the stream ends',
    streamOnly: true,
    make: (f) => {
      const events = eventsOf(f.plan, f, 4);
      const at = f.draw.int(1, events.length - 2);
      const [type, message] = f.draw.pick([
        ['overloaded_error', 'Overloaded'],
        ['api_error', 'Internal server error'],
      ] as const);
      return { variant: `${type}@${at}`, item: sse([...events.slice(0, at), { event: 'error', data: { type: 'error', error: { type, message } } }]) };
    },
  },
  slow: { weight: 4, describe: 'very slow tokens: many deltas with gaps, or one long gap (all bounded by maxDelayMs)', streamOnly: true, make: slow },
  http_error: {
    weight: 3,
    describe: 'an HTTP error before any byte: 529 overloaded, 500, or 429 with retry-after',
    make: (f) => {
      const status = f.draw.pick([529, 500, 429] as const);
      return { variant: String(status), item: { type: 'error', status, ...(status === 500 ? {} : { headers: { 'retry-after': '1' } }) } };
    },
  },
  stuck: {
    weight: 3,
    conversation: true,
    applies: (f) => f.ctx.all.length > 0,
    describe: 'a conversation stuck in a loop: from its first call on, every turn makes its last call again with the same input, refused or not',
    make: stuck,
  },
};
