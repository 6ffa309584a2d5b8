/**
 * The attempts of one step: attempt, add it to the result, ask `afterAttempt` (next.ts) what comes
 * next, carry that out. Only the carrying out lives here — the events, the handoff round, the waits,
 * the store look-ups; every decision is a pure function.
 */
import type { Lang } from '../config/index.js';
import { InternalError } from '../errors.js';
import type { AttemptInput } from './assemble.js';
import type { AttemptOutcome, InterruptCause } from './attempt.js';
import { failure } from './failure.js';
import type { Emit, Generations } from './handoff.js';
import type { StepResult } from './manifest.js';
import { afterAttempt, handedOff, retryFrom, startState, type LoopState } from './next.js';
import { waitToRetry, type RetryWait } from './recover.js';
import type { ResilienceOptions } from './resilience.js';
import { newSessionId } from './options.js';
import { absorb } from './result.js';
import type { RunOptions } from './setup.js';
import type { AgentSpec } from './spec.js';

/** What the loop may use of its Runtime. */
export interface LoopHost {
  /** one attempt, its cost net of the session's earlier cost */
  attempt(a: AttemptInput, announce: (sid: string) => Promise<void>, shouldBreak?: (context: number) => InterruptCause | null): Promise<AttemptOutcome>;
  /** warn once when the endpoint served another model than the one named */
  checkModel(spec: AgentSpec, o: AttemptOutcome, emit: Emit): void;
  /** the model the step asks for, as named in the configuration ('' when none is) */
  modelOf(spec: AgentSpec): string;
  /** the person's interrupt waiting at this boundary, and using it up */
  interruptRequest(): { remark: string } | null;
  takeInterrupt(): void;
  hasSession(sessionId: string): Promise<boolean>;
  /** write the step's row as it stands (its attempts' costs so far) before a retry waits */
  record(result: StepResult): Promise<void>;
  /** how to wait for the endpoint and the store before a retry */
  wait: Omit<RetryWait, 'failed' | 'emit'>;
  policy: Readonly<ResilienceOptions>;
  lang: Lang;
}

/** One step's run, as the attempt loop sees it. */
export interface StepRun {
  spec: AgentSpec;
  /** the step's original prompt */
  task: string;
  step: string;
  opts: RunOptions;
  result: StepResult;
  announce: (sid: string) => Promise<void>;
  emit: Emit;
  gens: Generations;
}

/**
 * The attempts of one step, each followed by what `afterAttempt` (next.ts) decides: this loop only
 * carries the steps out — the events, the handoff round, the waits, the store look-ups.
 */
export async function runAttempts(h: LoopHost, c: StepRun): Promise<void> {
  const { spec, step, result, emit, gens } = c;
  let s = startState(c.task, c.opts);
  for (;;) {
    const sessionId = s.resume ? undefined : newSessionId();
    await announceBefore(c, s, sessionId);
    result.attempts = s.failed + 1;
    const outcome = await h.attempt(
      {
        spec,
        prompt: s.prompt,
        step,
        resume: s.resume,
        fork: s.fork,
        resumeAt: s.resumeAt,
        sessionId,
        hooks: c.opts.hooks,
        onEvent: c.opts.onEvent,
        onSkills: (record) => {
          if (record.length) result.skills = record;
        },
      },
      c.announce,
      (ctx) => gens.due(ctx),
    );
    absorb(result, outcome);
    h.checkModel(spec, outcome, emit);
    const next = afterAttempt(outcome, s, {
      session: reached(outcome, s, result.session_id),
      request: h.interruptRequest(),
      route: gens.route(outcome),
      policy: h.policy,
      lang: h.lang,
      model: h.modelOf(spec),
    });
    switch (next.kind) {
      case 'done':
        return;
      case 'stop':
        if (next.took) h.takeInterrupt();
        if (next.why) result.error = next.why;
        return;
      case 'listen':
        h.takeInterrupt();
        emit('retry', next.remark ? `${step}: ${next.remark}` : step, { interrupted: true, remark: next.remark });
        result.resumed = true;
        result.error = null;
        s = next.state;
        continue;
      case 'hand-off': {
        const handoff = await gens.handOff(next.route, outcome);
        if (!handoff) return;
        s = handedOff(s, handoff.promptBlock());
        gens.next();
        result.context = 0;
        continue;
      }
      case 'wait-retry': {
        const { failed } = next.state;
        (result.attempt_failures ??= []).push({ attempt: result.attempts, ...next.failure });
        // the manifest holds what the failed attempts cost while the retry waits: the screen shows the same sum
        await h.record(result);
        emit('retry', `${step}: ${outcome.error ?? 'failed'}`, { attempt: failed + 1, error: outcome.error, kind: next.failure.kind, failure: next.failure });
        const offline = await waitToRetry({ ...h.wait, failed, emit });
        if (offline !== null) {
          result.error = `${outcome.error ?? 'failed'} | ${offline}`;
          result.failure = failure('network', result.error);
          return;
        }
        const session = reached(outcome, s, result.session_id);
        const r = retryFrom(next.state, { session, stored: !!session && (await h.hasSession(session)), task: c.task, lang: h.lang });
        if (r.kind === 'resume') result.resumed = true;
        s = r.state;
        continue;
      }
      default:
        return unreachable(next);
    }
  }
}

/**
 * When an attempt's session id is known before its process starts — the one flower chose, or the one
 * it resumes (a fork's comes at system/init) — the row and lineage name it before the spawn, so a kill
 * right after the spawn finds it.
 */
async function announceBefore(c: StepRun, s: LoopState, chosen: string | undefined): Promise<void> {
  const known = chosen ?? (s.fork ? undefined : s.resume);
  if (known) await c.announce(known);
}

/**
 * The step's session as the decisions see it: a resume that never started (no system/init) never took
 * its prompt, so it has reached no session yet (the same attempt again), though its row names the
 * session it resumes.
 */
function reached(o: AttemptOutcome, s: LoopState, session: string | null): string | null {
  return o.sessionId || !s.resume ? session : null;
}

function unreachable(x: never): never {
  throw new InternalError(
    'unhandled-next-step',
    `the attempt loop has no case for the next step ${JSON.stringify(x)}; this is a bug in flower, please report it`,
  );
}
