/**
 * The fault catalogue: named ways a model (or the API, or a gateway in front of it) can spoil one turn.
 * Each fault takes the plausible turn (turns.ts) and spoils it, so what arrives still looks like that
 * turn: a brief with a field missing, a Write whose JSON does not parse, a verdict cut by max_tokens.
 * Every fault is something the wire really carries; every wait it adds is bounded (`FuzzLimits`).
 *
 * A fault's shape is fault.ts; the faults are spoil-content.ts (what the answer says) and spoil-stream.ts
 * (how the wire carries it). To add one: name it in FAULT_KINDS (options.ts), write it beside its kind,
 * and give it a row here (and in docs/sim.md).
 */
import { hasCall, type FaultSpec } from './fault.js';
import type { FaultKind } from './options.js';
import { badFields, huge, prose, repeat, stuck, unknownTool, usage } from './spoil-content.js';
import { badJson, dropMid, empty, httpError, maxTokensCut, refusal, slow, sseError, unknownBlock } from './spoil-stream.js';

export { DEFAULT_LIMITS, planItem } from './fault.js';
export type { FaultInput, Faulted, FaultSpec, FuzzLimits } from './fault.js';

/** The catalogue, with the default weights (relative; docs/sim.md "The fuzzing model"). */
export const FAULTS: Readonly<Record<FaultKind, FaultSpec>> = {
  prose: { weight: 8, describe: 'no tool call: prose (for a submitting role, half the time the document as markdown)', make: prose },
  bad_fields: {
    weight: 10,
    describe: 'the tool call with a field missing / extra / wrong-typed / empty; a verdict also hollow, without evidence, or judging only some checks',
    applies: hasCall,
    make: badFields,
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
    make: badJson,
  },
  max_tokens_cut: { weight: 7, describe: 'stop_reason max_tokens in the middle of a tool_use input (or of the text)', streamOnly: true, make: maxTokensCut },
  empty: {
    weight: 7,
    describe: 'an empty answer: no content block, an empty text, or only whitespace',
    make: empty,
  },
  refusal: {
    weight: 6,
    describe: 'stop_reason refusal, with nothing or the start of the answer',
    make: refusal,
  },
  huge: {
    weight: 4,
    describe: 'a 1–2 MB text answer, or a tool input with a 1–2 MB field',
    make: huge,
  },
  unknown_block: { weight: 6, describe: 'a content block of a type the client does not know, before or after the answer', make: unknownBlock },
  usage: { weight: 7, describe: 'usage numbers of 0, of 10^9, or shrinking as the conversation grows', make: usage },
  drop_mid: {
    weight: 8,
    describe: 'the connection dropped mid-stream (after 1..n-1 events)',
    streamOnly: true,
    make: dropMid,
  },
  sse_error: {
    weight: 7,
    describe: 'an SSE error event mid-stream (overloaded_error / api_error), then the stream ends',
    streamOnly: true,
    make: sseError,
  },
  slow: { weight: 4, describe: 'very slow tokens: many deltas with gaps, or one long gap (all bounded by maxDelayMs)', streamOnly: true, make: slow },
  http_error: {
    weight: 3,
    describe: 'an HTTP error before any byte: 529 overloaded, 500, or 429 with retry-after',
    make: httpError,
  },
  stuck: {
    weight: 3,
    conversation: true,
    applies: (f) => f.ctx.all.length > 0,
    describe: 'a conversation stuck in a loop: from its first call on, every turn makes its last call again with the same input, refused or not',
    make: stuck,
  },
};
