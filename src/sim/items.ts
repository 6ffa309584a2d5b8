/**
 * The vocabulary of a sim script: what one model call can be answered with.
 *
 * Every item except a computed one (`SimItemFn`) is plain JSON, so the same shapes are the
 * scenario file format (see `scenario.ts` and docs/sim.md).
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { FuzzOptions } from './fuzz/options.js';

/** Token usage reported for a scripted answer; missing fields are estimated. */
export interface SimUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
}

/** One content block of a Messages API request, loosely typed: it comes from the wire. */
export interface ApiContentBlock {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
  [key: string]: unknown;
}

export interface ApiMessage {
  role: string;
  content: string | ApiContentBlock[];
}

/** The body of `POST /v1/messages` as the harness sends it (only the fields the sim reads are typed). */
export interface MessagesRequest {
  model?: string;
  messages?: ApiMessage[];
  system?: string | ApiContentBlock[];
  tools?: Array<{ name?: string; [key: string]: unknown }>;
  stream?: boolean;
  max_tokens?: number;
  [key: string]: unknown;
}

/** What matchers, predicates and computed items see of one model call. */
export interface SimCall {
  /** Request number on this sim (1-based, counts every recorded request). */
  n: number;
  body: MessagesRequest;
  headers: IncomingHttpHeaders;
  stream: boolean;
  /** Text of the system prompt (string or text blocks joined by newlines). */
  system: string;
  /** Text of the first / last user message (text blocks, tool_result contents, …). */
  firstUser: string;
  lastUser: string;
  /** Names of the tools offered in `body.tools`. */
  tools: string[];
  /** The request body as received (JSON text), used by `bodyIncludes`. */
  raw: string;
}

/** A text that must be contained, or several that must all be contained. */
export type Needle = string | readonly string[];

/**
 * Declarative matcher: every given condition must hold. Expressible in JSON.
 * A function matcher (`SimPredicate`) is for library use only.
 */
export interface SimMatchSpec {
  systemIncludes?: Needle;
  firstUserIncludes?: Needle;
  lastUserIncludes?: Needle;
  bodyIncludes?: Needle;
  /** Tool name(s) that must be offered in `body.tools`. */
  toolsInclude?: Needle;
  /** The request must NOT match this. */
  not?: SimMatch;
}

export type SimPredicate = (call: SimCall) => boolean;
export type SimMatch = SimMatchSpec | SimPredicate;

/** Fields every item accepts. */
export interface SimItemBase {
  /** Wait this long before answering (headers included). */
  delayMs?: number;
  /** Serve this item N times before it is used up (default 1). */
  times?: number;
  /** Never use this item up (the JSON spelling of `times: Infinity`). */
  sticky?: boolean;
  /** Serve only to requests this accepts; the first queued item that matches is served. */
  match?: SimMatch;
  /** A name shown in logs and in `assertConsumed()` errors. */
  label?: string;
  /**
   * Library API only: nothing of the answer (headers included) is sent until this resolves, so a test
   * can keep a model call waiting on its own event. Unlike `holdEnd`, the harness sees no tool call yet
   * (it starts a tool as soon as the tool's block ends, before the message does).
   */
  holdStart?: () => Promise<unknown>;
}

/** Fields of items that produce a model answer (text, tool_use, drop_mid). */
export interface SimAnswerFields {
  /** Explicit usage; fields left out are estimated (input ≈ request JSON length / 4). */
  usage?: Partial<SimUsage>;
  stop_reason?: string;
  /** Model name echoed back (default: the requested model). */
  model?: string;
  /** A thinking block emitted before everything else. */
  thinking?: string;
  /** Number of text_delta events per text block (default 1). */
  chunks?: number;
  /** Pause between SSE events. */
  chunkDelayMs?: number;
  /**
   * Library API only: the stream holds its last event (message_stop) until this resolves, so a test
   * can act while the model is still "speaking" and synchronise on its own event instead of a sleep.
   */
  holdEnd?: () => Promise<unknown>;
}

export interface SimToolCall {
  name: string;
  input?: Record<string, unknown>;
  /** Tool use id (default: a random `toolu_…`). */
  id?: string;
}

export interface SimTextItem extends SimItemBase, SimAnswerFields {
  type: 'text';
  text: string;
}

export interface SimToolUseItem extends SimItemBase, SimAnswerFields {
  type: 'tool_use';
  /** One tool call … */
  name?: string;
  input?: Record<string, unknown>;
  id?: string;
  /** … or several parallel ones (not both). */
  tools?: SimToolCall[];
  /** Preamble text block before the tool_use block(s). */
  text?: string;
}

export interface SimErrorItem extends SimItemBase {
  type: 'error';
  /** HTTP status (default 500). */
  status?: number;
  /** Anthropic error type (default derived from the status, e.g. 529 → overloaded_error). */
  errorType?: string;
  message?: string;
  /** Extra response headers, e.g. `{ 'retry-after': '1' }` or `{ 'x-should-retry': 'false' }`. */
  headers?: Record<string, string | number>;
}

/** Destroy the connection without sending anything. */
export interface SimDropItem extends SimItemBase {
  type: 'drop';
}

/** Stream an answer but cut it after `afterEvents` SSE events. */
export interface SimDropMidItem extends SimItemBase, SimAnswerFields {
  type: 'drop_mid';
  /** Events sent before the cut (message_start counts as 1; default 2). */
  afterEvents?: number;
  /** Keep the socket open and send nothing more instead of cutting it. */
  stall?: boolean;
  /** Shape of the answer being cut (default text). */
  as?: 'text' | 'tool_use';
  text?: string;
  name?: string;
  input?: Record<string, unknown>;
  id?: string;
  tools?: SimToolCall[];
  /** A stream:false fallback request is dropped too unless this is false. */
  dropNonStreaming?: boolean;
}

/**
 * One SSE event of an `sse` item: `data` is sent as JSON when it is an object and verbatim when it is
 * a string (a line that does not parse is a fault a gateway can produce).
 */
export interface SimSseEvent {
  event: string;
  data: Record<string, unknown> | string;
  /** Wait this long before this event (instead of the item's `chunkDelayMs`). */
  delayMs?: number;
}

/**
 * A stream sent event by event exactly as given: the low-level item for what the answer items cannot
 * say (a tool input that does not parse, an unknown block type, an `error` event mid-stream, one long
 * gap). Every wait is explicit, so an `sse` item always ends.
 */
export interface SimSseItem extends SimItemBase {
  type: 'sse';
  events: SimSseEvent[];
  /** Pause before every event that has no `delayMs` of its own (not before the first). */
  chunkDelayMs?: number;
  /** After the last event: end the response (`close`, default) or destroy the connection (`drop`). */
  end?: 'close' | 'drop';
  /** The Message JSON for a `stream:false` request; without it such a request is dropped. */
  message?: Record<string, unknown>;
}

/** Accept the request and never answer. */
export interface SimHangItem extends SimItemBase {
  type: 'hang';
}

/** Destroy every connection and stop listening: an outage. `sim.restart()` ends it. */
export interface SimShutdownItem extends SimItemBase {
  type: 'shutdown';
}

/** Send a response verbatim. */
export interface SimRawItem extends SimItemBase {
  type: 'raw';
  status?: number;
  headers?: Record<string, string | number>;
  /** A string is sent as is; anything else as JSON. */
  body?: unknown;
}

export type SimItem = SimTextItem | SimToolUseItem | SimErrorItem | SimDropItem | SimDropMidItem | SimHangItem | SimShutdownItem | SimRawItem | SimSseItem;

export type SimItemType = SimItem['type'];

/** An item computed when the request arrives (library only; served once, matches any call). */
export type SimItemFn = (call: SimCall) => SimItem;

export type SimScriptItem = SimItem | SimItemFn;

export type OnUnexpected = 'default' | 'error';

/** A whole script: the scenario file format (a bare array of items is accepted too). */
export interface Scenario {
  items: SimScriptItem[];
  /** Answer when no queued item matches (default: text "pong"). */
  default?: SimItem | SimItemFn;
  /** `error`: answer an unmatched call with HTTP 500 and record it as unexpected. */
  onUnexpected?: OnUnexpected;
  /** Answer with the fuzzing model (src/sim/fuzz) when no queued item matches; excludes `default`. */
  fuzz?: FuzzOptions;
}

/** Where the served item came from. */
export type SimSource = 'script' | 'default' | 'unexpected';

/** One recorded HTTP request. */
export interface SimRequestRecord {
  n: number;
  /** Arrival time (ms since epoch). */
  t: number;
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body; the raw text when it is not JSON; null when empty. */
  body: unknown;
  /** The item that answered (its `match` left out), for message calls. */
  served?: SimItem;
  source?: SimSource;
  /** Why the sim failed this call (unexpected call, a script function threw). */
  error?: string;
}

/** A recorded `POST /v1/messages` call. */
export interface SimMessageRecord extends SimRequestRecord {
  body: MessagesRequest;
}

/** A scripted item that has not been used up. */
export interface SimPending {
  /** Position in enqueue order since the last reset (0-based). */
  seq: number;
  /** Short description, e.g. `text "done"` or `tool_use Write`. */
  summary: string;
  served: number;
  times: number;
  item: SimScriptItem;
}

export const DEFAULT_ITEM: SimTextItem = Object.freeze({ type: 'text', text: 'pong' });
