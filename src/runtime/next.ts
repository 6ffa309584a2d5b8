/**
 * What the attempt loop does after an attempt, decided by pure functions: the outcome, the loop's small
 * immutable state and the few facts the Runtime looked up go in; a typed next step comes out. The
 * attempt loop (loop.ts) only carries the steps out (the waits, the handoff round, the events), so every
 * decision here is a row of a table test (test/runtime/next.test.ts).
 *
 * Bounded: at most `maxAttempts` failed attempts (each waits a backoff) plus at most `maxGenerations`
 * handoffs (neither counts against the other) plus at most MAX_HUMAN_INTERRUPTS interrupts.
 */
import type { Lang } from '../config/index.js';
import type { AttemptOutcome } from './attempt.js';
import type { StepFailure } from './failure.js';
import type { HandoffRoute } from './handoff.js';
import { INTERRUPT_NOTE, retryable } from './recover.js';
import { RESUME_PROMPT, type ResilienceOptions } from './resilience.js';

/** A person can interrupt many times, but a stuck flag must not loop forever. */
export const MAX_HUMAN_INTERRUPTS = 100;

/** What the next attempt sends, and the counts that bound the loop. */
export interface LoopState {
  /** the session the next attempt resumes; undefined = a new session */
  readonly resume: string | undefined;
  /** with `resume`: continue the history under a new session id */
  readonly fork: boolean;
  /** with `resume`: cut the history after this assistant message uuid */
  readonly resumeAt: string | undefined;
  /** the next attempt's prompt */
  readonly prompt: string;
  /** failed attempts so far (each one waited a backoff) */
  readonly failed: number;
  /** a person's interrupts answered so far */
  readonly heard: number;
}

/** The loop before its first attempt: the caller's resume (if any) and the task. */
export function startState(task: string, o: { resume?: string | undefined; fork?: boolean | undefined; resumeAt?: string | undefined } = {}): LoopState {
  return { resume: o.resume, fork: o.fork ?? false, resumeAt: o.resumeAt, prompt: task, failed: 0, heard: 0 };
}

/** What the Runtime knows besides the outcome, looked up before deciding. */
export interface Facts {
  /** the step's session id so far (the result's `session_id`) */
  session: string | null;
  /** the person's interrupt waiting at this boundary, if any */
  request: { remark: string } | null;
  /** the handoff this outcome calls for (Generations.route), if any */
  route: HandoffRoute | null;
  /** flower's retry policy (NO_RETRY when off) */
  policy: Readonly<ResilienceOptions>;
  lang: Lang;
  /** the model the step asked for ('' when none is configured): named when the endpoint does not serve it */
  model?: string;
}

export type Next =
  /** the attempt succeeded: the step is over */
  | { kind: 'done' }
  /** a person interrupted: the same session goes on with their words; not an attempt, no network wait */
  | { kind: 'listen'; state: LoopState; remark: string }
  /** the context is full: the session writes (or is given) a handoff, and a new one takes over */
  | { kind: 'hand-off'; route: HandoffRoute }
  /** a failure worth another try: wait for the network and a backoff, then `retryFrom` */
  | { kind: 'wait-retry'; state: LoopState; failure: StepFailure }
  /**
   * Nothing more to try. `why` is the step's final error when the stop adds one (null: the attempt's
   * own error stands); `took` says the person's interrupt request was used up by this stop.
   */
  | { kind: 'stop'; why: string | null; took?: true };

/**
 * The step after an attempt. Order matters: a success ends the step; a person's interrupt wins over a
 * handoff and a retry (the person cut it, nothing broke); a handoff wins over a retry (the overflow is
 * not a failure to try again: the same prompt would overflow again).
 */
export function afterAttempt(o: AttemptOutcome, s: LoopState, f: Facts): Next {
  // words that came as the step's last message did (the turn ended before the next boundary) are still
  // heard: the same session goes on with them, exactly as at a boundary
  if (o.ok) {
    if (f.request === null || !f.session || s.heard >= MAX_HUMAN_INTERRUPTS) return { kind: 'done' };
    return listen(s, f.session, f.request.remark, f.lang);
  }
  if (o.interrupted === 'human' && s.heard < MAX_HUMAN_INTERRUPTS) {
    if (!f.session) return { kind: 'stop', why: null, took: true };
    return listen(s, f.session, f.request?.remark ?? '', f.lang);
  }
  if (f.route) return { kind: 'hand-off', route: f.route };
  const failed = s.failed + 1;
  const verdict = retryable(o, failed, f.policy, f.model);
  if (!verdict.retry) return { kind: 'stop', why: verdict.why ?? null };
  return { kind: 'wait-retry', failure: verdict.failure, state: { ...s, failed } };
}

/** A handoff was written: a brand-new session (no resume, no fork) whose first prompt is the handoff; the task is not resent. */
export function handedOff(s: LoopState, handoff: string): LoopState {
  return { ...s, resume: undefined, fork: false, resumeAt: undefined, prompt: handoff };
}

export type Retry =
  /** the session reached the store: it goes on; the prompt says "you were interrupted", never what broke */
  | { kind: 'resume'; state: LoopState }
  /**
   * nothing of the new session reached the store (it failed before its first entry): resuming would
   * only get "No conversation found"; the task is sent again to a new session
   */
  | { kind: 'fresh'; state: LoopState }
  /** the caller's resume (or fork) never got a session of its own stored: the same attempt again */
  | { kind: 'again'; state: LoopState };

/** After the wait: how the next attempt starts, given whether the step's session is in the store. */
export function retryFrom(s: LoopState, f: { session: string | null; stored: boolean; task: string; lang: Lang }): Retry {
  if (f.session && f.stored) return { kind: 'resume', state: resumed(s, f.session, RESUME_PROMPT[f.lang]) };
  if (!s.resume) return { kind: 'fresh', state: { ...s, prompt: f.task } };
  return { kind: 'again', state: s };
}

/** The same session goes on with the person's words and the note (or, with none, the plain resume prompt). */
function listen(s: LoopState, session: string, remark: string, lang: Lang): Next {
  const prompt = remark ? `${remark}\n\n${INTERRUPT_NOTE[lang]}` : RESUME_PROMPT[lang];
  return { kind: 'listen', remark, state: { ...resumed(s, session, prompt), heard: s.heard + 1 } };
}

function resumed(s: LoopState, session: string, prompt: string): LoopState {
  return { ...s, resume: session, fork: false, resumeAt: undefined, prompt };
}
