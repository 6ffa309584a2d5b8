/**
 * One attempt: spawn one SDK query, stream its messages into events, and boil them down to an
 * outcome. No retry logic here — the Runtime's loop decides what a failure means.
 *
 * Facts this relies on (docs/sdk-facts.md §3, §5, §7): `system/init` is the first message and carries the
 * session id; API failures end in `result` with `is_error: true` even when `subtype` is "success";
 * a string-prompt iterator throws AFTER yielding an error result (so that throw is not news);
 * `interrupt()` ends a stalled turn at once and yields an `error_during_execution` result.
 */
import { query, type Options } from '@anthropic-ai/claude-agent-sdk';
import { errorText } from '../errors.js';
import { failure, fromApiError, fromInterrupt, fromResultSubtype, fromText, type ApiErrorSignal, type StepFailure } from './failure.js';
import { contextOf, isSyntheticAssistant, normalize, type EventSink } from './events.js';
import { Silence } from './silence.js';
import { Watchdog, type InterruptCause } from './watchdog.js';
import { REPEAT_CUT, Streaks } from '../guards/repeat.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export type { InterruptCause } from './watchdog.js';

export interface AttemptOutcome {
  sessionId: string | null;
  ok: boolean;
  text: string;
  error: string | null;
  /** what went wrong, typed where it happened (null when ok) */
  failure: StepFailure | null;
  /** synthetic API error texts and thrown errors, in order (never shown to the model) */
  errors: string[];
  costUsd: number;
  numTurns: number;
  /** last main-thread context size */
  context: number;
  /** why the attempt was cut short by flower, if it was */
  interrupted: InterruptCause | null;
  /** the model the endpoint actually served on the main thread (first seen) */
  servedModel: string | null;
}

export interface AttemptControl {
  /** called once with the session id from `system/init` */
  onSession?: (sid: string) => void;
  onEvent?: EventSink;
  /** decide after each main-thread assistant message whether to break cleanly (handoff) */
  shouldBreak?: (context: number) => InterruptCause | null;
  /** seconds without any message while the model owes us one; 0 disables */
  watchdogS: number;
  /** polled at message boundaries: a human interrupt request */
  humanInterrupt?: () => boolean;
  /** the run's deadline (epoch ms): the turn is cut cleanly once it passes (limits.ts) */
  deadlineAt?: number;
  /** hand the runtime this attempt while it is live (to end it on close() or on a signal's shutdown) */
  register?: (live: LiveAttempt) => () => void;
  step: string;
}

/** A live attempt, as the Runtime may end it. */
export interface LiveAttempt {
  /** end the child at once (Runtime.close) */
  stop(): void;
  /**
   * A signal's shutdown: end the turn cleanly (the SDK's interrupt) and resolve once the stream has
   * ended — the binary then has written out the entries it had not mirrored yet and the SDK has
   * appended them to the store (docs/sdk-facts.md §4.3: a turn's prompt is mirrored up to ~100 ms
   * after its request went out, so a process that dies on the signal at once loses what the model
   * was sent). Nothing more is reported once it is asked.
   */
  drain(): Promise<void>;
}

/** Seconds the child may take to start (sandbox set-up: ~1 s more on a loaded box) before the watchdog counts. */
const STARTUP_S = 60;

export async function runAttempt(prompt: string, options: Options, ctl: AttemptControl): Promise<AttemptOutcome> {
  const seen = newSeen();
  const q = query({ prompt, options });
  const dog = new Watchdog(ctl, seen, q);
  let ended!: () => void;
  const end = new Promise<void>((r) => (ended = r));
  const drain = (): Promise<void> => {
    seen.draining = true;
    dog.stop();
    void q.interrupt().catch(() => q.close());
    return end;
  };
  const unregister = ctl.register?.({ stop: () => q.close(), drain }) ?? (() => {});
  // the child's own start-up (the sandbox, MCP servers) is not the model's silence: until system/init
  // the watchdog allows at least STARTUP_S
  dog.arm(Math.max(ctl.watchdogS, STARTUP_S));
  const deadline = deadlineTimer(ctl.deadlineAt, seen, dog);
  try {
    for await (const raw of q) {
      const m = raw as unknown as Obj;
      // nobody listening (an in-process run without a sink): no events to build; a streamed delta never makes one
      if (ctl.onEvent && !seen.draining && m.type !== 'stream_event') for (const e of normalize(m)) ctl.onEvent({ ...e, step: ctl.step });
      // any message is activity: the count starts again, or stops when nobody owes output now
      if (seen.silence.see(m) && seen.out.sessionId) dog.arm();
      else if (seen.out.sessionId) dog.disarm();
      const next = see(m, seen, ctl);
      if (next === 'started') dog.arm();
      else if (next === 'ended') dog.disarm();
      else if (next) dog.cut(next);
      // past the deadline every message boundary is a clean place to stop (a tool's result has arrived)
      if (ctl.deadlineAt !== undefined && Date.now() >= ctl.deadlineAt && (m.type === 'assistant' || m.type === 'user')) dog.cut('deadline');
    }
  } catch (e) {
    // A string-prompt query throws after an error result; that throw repeats what we already have.
    if (!(seen.last && seen.last.is_error === true)) {
      seen.out.errors.push(errorText(e));
      seen.thrown = e;
    }
  } finally {
    dog.stop();
    if (deadline) clearTimeout(deadline);
    unregister();
    ended();
  }
  return conclude(seen);
}

/**
 * At the deadline, a turn whose model is producing output is cut at once (no tool is running); one
 * that waits for a tool is cut at the next boundary, when the tool's result arrives — never mid-write.
 */
function deadlineTimer(at: number | undefined, seen: Seen, dog: Watchdog): NodeJS.Timeout | undefined {
  if (at === undefined) return undefined;
  const ms = Math.max(0, at - Date.now());
  // setTimeout holds at most ~24.8 days; a later deadline is still caught at the boundaries
  if (ms > 2 ** 31 - 1) return undefined;
  return setTimeout(() => {
    if (seen.silence.owed()) dog.cut('deadline');
  }, ms);
}

/** What one attempt's stream said so far (mutable only inside runAttempt). */
interface Seen {
  out: AttemptOutcome;
  /** the main thread's text blocks, in order */
  prose: string[];
  /** the result message */
  last: Obj | null;
  // who owes output (the main thread, or a foreground worker's model): the watchdog counts only then
  silence: Silence;
  // the same call again and again, per thread: refused from REPEAT_DENY on (guards/repeat), cut here
  streaks: Streaks;
  // the binary's own words about an API failure: the synthetic assistant's kind wins over an api_retry's
  apiSignal: Omit<ApiErrorSignal, 'text'> | null;
  thrown: unknown;
  // measured: when SessionStore.append throws, the SDK retries it 3 times, drops the batch, emits
  // system/mirror_error and the turn goes on "successfully" — a transcript lost in silence unless we
  // fail the step here
  mirrorError: string | null;
  // a signal's shutdown is ending the turn (LiveAttempt.drain): no event, no watchdog
  draining: boolean;
}

function newSeen(): Seen {
  return {
    out: emptyOutcome(),
    prose: [],
    last: null,
    silence: new Silence(),
    streaks: new Streaks(),
    apiSignal: null,
    thrown: undefined,
    mirrorError: null,
    draining: false,
  };
}

/** An attempt's outcome before anything happened: no session, nothing spent, not ok. */
export function emptyOutcome(): AttemptOutcome {
  return {
    sessionId: null,
    ok: false,
    text: '',
    error: null,
    failure: null,
    errors: [],
    costUsd: 0,
    numTurns: 0,
    context: 0,
    interrupted: null,
    servedModel: null,
  };
}

/** What one message asks of the loop: the session started, the result came, cut the turn, or nothing. */
type SeenNext = 'started' | 'ended' | InterruptCause | null;

function see(m: Obj, seen: Seen, ctl: AttemptControl): SeenNext {
  const main = m.parent_tool_use_id == null;
  switch (m.type) {
    case 'system':
      return seeSystem(m, main, seen, ctl);
    case 'assistant': {
      const loop = repeated(m, main, seen.streaks);
      if (loop) seen.out.errors.push(loop);
      const cause = main ? seeAssistant(m, seen, ctl) : null;
      return loop ? 'loop' : cause;
    }
    case 'user':
      return main && ctl.humanInterrupt?.() ? 'human' : null;
    case 'result': {
      const out = seen.out;
      seen.last = m;
      out.sessionId ??= typeof m.session_id === 'string' ? m.session_id : null;
      out.costUsd = Math.max(out.costUsd, typeof m.total_cost_usd === 'number' ? m.total_cost_usd : 0);
      out.numTurns = Math.max(out.numTurns, typeof m.num_turns === 'number' ? m.num_turns : 0);
      return 'ended';
    }
    default:
      return null;
  }
}

function seeSystem(m: Obj, main: boolean, seen: Seen, ctl: AttemptControl): SeenNext {
  let next: SeenNext = null;
  if (m.subtype === 'init' && typeof m.session_id === 'string' && !seen.out.sessionId) {
    seen.out.sessionId = m.session_id;
    ctl.onSession?.(m.session_id);
    next = 'started';
  }
  if (m.subtype === 'mirror_error') {
    const k = isObj(m.key) ? m.key : {};
    seen.mirrorError ??= `${typeof m.error === 'string' ? m.error : 'append failed'} (session ${String(k.sessionId ?? m.session_id ?? '?')}${k.subpath ? `/${String(k.subpath)}` : ''})`;
  }
  if (m.subtype === 'api_retry' && main && !seen.apiSignal?.error) {
    seen.apiSignal = { error: typeof m.error === 'string' ? m.error : null, status: typeof m.error_status === 'number' ? m.error_status : null };
  }
  return next;
}

/** A main-thread assistant message: an API failure's words, the served model, the context, the prose; then whether to cut. */
function seeAssistant(m: Obj, seen: Seen, ctl: AttemptControl): InterruptCause | null {
  const out = seen.out;
  const msg = isObj(m.message) ? m.message : {};
  const content = Array.isArray(msg.content) ? msg.content : [];
  if (isSyntheticAssistant(m)) {
    const t = content.map((b) => (isObj(b) && typeof b.text === 'string' ? b.text : '')).join('');
    if (t) out.errors.push(t);
    seen.apiSignal = {
      error: typeof m.error === 'string' ? m.error : null,
      status: typeof m.api_error_status === 'number' ? m.api_error_status : null,
      connection: m.api_error === 'connection_failed',
    };
    return null;
  }
  if (!out.servedModel && typeof msg.model === 'string') out.servedModel = msg.model;
  const ctx = contextOf(msg.usage);
  if (ctx > 0) out.context = ctx;
  for (const b of content) if (isObj(b) && b.type === 'text' && typeof b.text === 'string') seen.prose.push(b.text);
  if (ctl.humanInterrupt?.()) return 'human';
  return ctl.shouldBreak?.(out.context) ?? null;
}

/** The outcome, from what the stream said: the result, then a cut flower made, then a store that failed. */
function conclude(seen: Seen): AttemptOutcome {
  const out = seen.out;
  const last = seen.last;
  const resultText = last && typeof last.result === 'string' ? last.result : '';
  if (last && last.is_error !== true) {
    out.text = resultText || seen.prose.join('\n');
    if (!out.text.trim() && seen.prose.length === 0) {
      // docs/sdk-facts.md §3.1: a stream with no content blocks ends as a silent empty "success" — a proxy hiccup
      out.error = 'empty response: the model returned no content';
      out.failure = failure('network', out.error);
    } else {
      out.ok = true;
    }
  } else {
    out.text = seen.prose.join('\n');
    const errs = last && Array.isArray(last.errors) ? (last.errors as unknown[]).map(String).filter((s) => !s.startsWith('[ede_diagnostic]')) : [];
    // the subtype names limits (error_max_turns, error_max_budget_usd) that must not be retried
    const subtype = last && typeof last.subtype === 'string' ? last.subtype : '';
    const sub = subtype.startsWith('error_max') ? `${subtype}: ` : '';
    out.error = (last ? sub + (resultText || errs.join('; ')) : '') || out.errors.at(-1) || 'the agent ended without a result';
    if (last && resultText && !out.errors.includes(resultText)) out.errors.push(resultText);
    out.failure = decide(last, subtype, out.error, seen.apiSignal, seen.thrown);
  }
  // A handoff cut that landed after the turn had already finished successfully (the reading that
  // crossed the threshold came with the final answer): the step is done; a successor would only redo it.
  if (out.interrupted === 'handoff' && out.ok) out.interrupted = null;
  if (out.interrupted) {
    out.ok = false;
    out.error = cutError(out.interrupted, out.errors);
    out.failure = fromInterrupt(out.interrupted, out.error);
  }
  if (seen.mirrorError !== null) {
    // whatever the model did (or a cut asked for), its transcript is not (all) in the store: the step
    // cannot be continued, so it stops here — no human-interrupt resume, no handoff
    out.ok = false;
    out.interrupted = null;
    out.error = `the session store could not be written: ${seen.mirrorError}`;
    out.errors.push(out.error);
    out.failure = failure('store', seen.mirrorError);
  }
  return out;
}

/** The error line of an attempt flower cut short. */
function cutError(cause: InterruptCause, errors: readonly string[]): string {
  switch (cause) {
    case 'human':
      return 'interrupted-by-human';
    case 'handoff':
      return 'context-full-handoff';
    case 'loop':
      return errors.find((e) => e.startsWith('the model made')) ?? 'loop';
    case 'watchdog':
      return errors.find((e) => e.startsWith('watchdog')) ?? 'watchdog';
    case 'deadline':
      return 'deadline reached';
  }
}

/**
 * The failure of an attempt that ended without success, from the most structured signal there is:
 * the result's subtype (a limit), the binary's error kind and HTTP status (synthetic assistant,
 * api_retry, result), and only when none exists the text of what was thrown or said.
 */
function decide(last: Obj | null, subtype: string, error: string, api: Omit<ApiErrorSignal, 'text'> | null, thrown: unknown): StepFailure {
  const limit = fromResultSubtype(subtype, error.replace(/^error_max[a-z_]*: /, ''));
  if (limit) return limit;
  const status = last && typeof last.api_error_status === 'number' ? last.api_error_status : (api?.status ?? null);
  if (api || status !== null) return fromApiError({ ...(api ?? {}), status, text: error });
  // no API signal: a failed resume, a crash at startup, a thrown spawn error — said only in text
  return fromText(thrown !== undefined && !last ? errorText(thrown) : error);
}

/** The line that says a thread repeated one call REPEAT_CUT times in a row, or null. */
function repeated(m: Obj, main: boolean, streaks: Streaks): string | null {
  const msg = isObj(m.message) ? m.message : {};
  const thread = main ? 'main' : String(m.parent_tool_use_id);
  for (const b of Array.isArray(msg.content) ? msg.content : []) {
    if (!isObj(b) || b.type !== 'tool_use' || typeof b.name !== 'string') continue;
    if (streaks.see(thread, b.name, b.input) >= REPEAT_CUT) {
      return `the model made the same ${b.name} call ${REPEAT_CUT} times in a row${main ? '' : ' (in a worker)'} and would not stop; cut the turn`;
    }
  }
  return null;
}

/** Drain every live attempt at once (LiveAttempt.drain); resolves when all have ended, or after `capMs`. */
export async function drainAll(live: Iterable<LiveAttempt>, capMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const cap = new Promise<void>((r) => {
    timer = setTimeout(r, capMs);
  });
  try {
    await Promise.race([Promise.allSettled([...live].map((a) => a.drain())), cap]);
  } finally {
    clearTimeout(timer);
  }
}
