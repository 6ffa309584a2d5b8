/**
 * One attempt: spawn one SDK query, stream its messages into events, and boil them down to an
 * outcome. No retry logic here — the Runtime's loop decides what a failure means.
 *
 * Facts this relies on (sdk-facts §3, §5, §7): `system/init` is the first message and carries the
 * session id; API failures end in `result` with `is_error: true` even when `subtype` is "success";
 * a string-prompt iterator throws AFTER yielding an error result (so that throw is not news);
 * `interrupt()` ends a stalled turn at once and yields an `error_during_execution` result.
 */
import { query, type Options } from '@anthropic-ai/claude-agent-sdk';
import { errorText } from '../errors.js';
import { contextOf, isSyntheticAssistant, normalize, type EventSink, type FlowerEvent } from './events.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export type InterruptCause = 'watchdog' | 'human' | 'handoff';

export interface AttemptOutcome {
  sessionId: string | null;
  ok: boolean;
  text: string;
  error: string | null;
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
  /** register a way for the runtime to kill this attempt on close() */
  register?: (stop: () => void) => () => void;
  step: string;
}

/** Seconds the child may take to start (sandbox set-up: ~1 s more on a loaded box) before the watchdog counts. */
const STARTUP_S = 60;

export async function runAttempt(prompt: string, options: Options, ctl: AttemptControl): Promise<AttemptOutcome> {
  const out: AttemptOutcome = {
    sessionId: null, ok: false, text: '', error: null, errors: [], costUsd: 0, numTurns: 0, context: 0, interrupted: null, servedModel: null,
  };
  const prose: string[] = [];
  let last: Obj | null = null;
  let pendingTools = 0;
  const q = query({ prompt, options });
  const unregister = ctl.register?.(() => q.close()) ?? (() => {});

  // The watchdog only runs while the model owes us output: a long Bash or a background worker
  // legitimately keeps the main thread quiet for minutes.
  let timer: NodeJS.Timeout | undefined;
  const arm = (seconds = ctl.watchdogS) => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (ctl.watchdogS > 0 && pendingTools === 0) {
      timer = setTimeout(() => {
        if (out.interrupted) return;
        out.interrupted = 'watchdog';
        out.errors.push(`watchdog: no data from the model for ${ctl.watchdogS}s (timed out); interrupted the turn`);
        void q.interrupt().catch(() => q.close());
      }, seconds * 1000);
    }
  };
  const disarm = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  const emit = (evs: FlowerEvent[]) => {
    for (const e of evs) ctl.onEvent?.({ ...e, step: ctl.step });
  };
  const cut = (cause: InterruptCause) => {
    if (out.interrupted) return;
    out.interrupted = cause;
    disarm();
    void q.interrupt().catch(() => q.close());
  };

  // the child's own start-up (the sandbox, MCP servers) is not the model's silence: until system/init
  // the watchdog allows at least STARTUP_S
  arm(Math.max(ctl.watchdogS, STARTUP_S));
  try {
    for await (const raw of q) {
      const m = raw as unknown as Obj;
      if (m.type !== 'stream_event') emit(normalize(m));
      const main = m.parent_tool_use_id == null;
      switch (m.type) {
        case 'system':
          if (m.subtype === 'init' && typeof m.session_id === 'string' && !out.sessionId) {
            out.sessionId = m.session_id;
            ctl.onSession?.(m.session_id);
            arm();
          }
          if (m.subtype === 'task_notification' || m.subtype === 'task_started') arm();
          break;
        case 'stream_event':
          if (main) arm();
          break;
        case 'assistant': {
          if (!main) break;
          const msg = isObj(m.message) ? m.message : {};
          if (isSyntheticAssistant(m)) {
            const t = (Array.isArray(msg.content) ? msg.content : []).map((b) => (isObj(b) && typeof b.text === 'string' ? b.text : '')).join('');
            if (t) out.errors.push(t);
            break;
          }
          if (!out.servedModel && typeof msg.model === 'string') out.servedModel = msg.model;
          const ctx = contextOf(msg.usage);
          if (ctx > 0) out.context = ctx;
          for (const b of Array.isArray(msg.content) ? msg.content : []) {
            if (!isObj(b)) continue;
            if (b.type === 'text' && typeof b.text === 'string') prose.push(b.text);
            if (b.type === 'tool_use') pendingTools++;
          }
          if (pendingTools > 0) disarm(); else arm();
          if (ctl.humanInterrupt?.()) cut('human');
          else {
            const brk = ctl.shouldBreak?.(out.context);
            if (brk) cut(brk);
          }
          break;
        }
        case 'user': {
          if (!main) break;
          const msg = isObj(m.message) ? m.message : {};
          for (const b of Array.isArray(msg.content) ? msg.content : []) {
            if (isObj(b) && b.type === 'tool_result') pendingTools = Math.max(0, pendingTools - 1);
          }
          arm();
          if (ctl.humanInterrupt?.()) cut('human');
          break;
        }
        case 'result':
          last = m;
          disarm();
          out.sessionId ??= typeof m.session_id === 'string' ? m.session_id : null;
          out.costUsd = Math.max(out.costUsd, typeof m.total_cost_usd === 'number' ? m.total_cost_usd : 0);
          out.numTurns = Math.max(out.numTurns, typeof m.num_turns === 'number' ? m.num_turns : 0);
          break;
        default:
          break;
      }
    }
  } catch (e) {
    // A string-prompt query throws after an error result; that throw repeats what we already have.
    if (!(last && last.is_error === true)) out.errors.push(errorText(e));
  } finally {
    disarm();
    unregister();
  }

  const resultText = last && typeof last.result === 'string' ? last.result : '';
  if (last && last.is_error !== true) {
    out.text = resultText || prose.join('\n');
    if (!out.text.trim() && prose.length === 0) {
      // sdk-facts §3.1: a stream with no content blocks ends as a silent empty "success"
      out.error = 'empty response: the model returned no content';
    } else {
      out.ok = true;
    }
  } else {
    out.text = prose.join('\n');
    const errs = last && Array.isArray(last.errors) ? (last.errors as unknown[]).map(String).filter((s) => !s.startsWith('[ede_diagnostic]')) : [];
    // the subtype names limits (error_max_turns, error_max_budget_usd) that must not be retried
    const sub = last && typeof last.subtype === 'string' && last.subtype.startsWith('error_max') ? `${last.subtype}: ` : '';
    out.error = (last ? sub + (resultText || errs.join('; ')) : '') || out.errors.at(-1) || 'the agent ended without a result';
    if (last && resultText && !out.errors.includes(resultText)) out.errors.push(resultText);
  }
  // A handoff cut that landed after the turn had already finished successfully (the reading that
  // crossed the threshold came with the final answer): the step is done; a successor would only redo it.
  if (out.interrupted === 'handoff' && out.ok) out.interrupted = null;
  if (out.interrupted) {
    out.ok = false;
    out.error = out.interrupted === 'human' ? 'interrupted-by-human'
      : out.interrupted === 'handoff' ? 'context-full-handoff'
      : out.errors.find((e) => e.startsWith('watchdog')) ?? 'watchdog';
  }
  return out;
}
