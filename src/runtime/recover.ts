/**
 * What the attempt loop does between attempts: decide whether a failure is worth another try (fatal
 * errors stop at once with a message saying what to fix), and wait for the endpoint to come back —
 * a DNS + TCP probe, no HTTP, no credentials, no cost — before the backoff.
 */
import { errorText } from '../errors.js';
import type { AttemptOutcome } from './attempt.js';
import { fatalLine, fromText, type StepFailure } from './failure.js';
import { backoff, endpoint, reachable, type ResilienceOptions } from './resilience.js';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Appended to the person's remark after an interrupt (issue #9: say what was cut, and to carry on). */
export const INTERRUPT_NOTE = Object.freeze({
  zh: '(上面这句是人刚才打断你时说的。按它调整,然后接着做;被打断时进行中的子任务可能没做完,先看一眼现场再继续。)',
  en: '(The line above is what the person said when they interrupted you. Adjust to it and carry on; a subtask that was in flight may not have finished, so check the scene before continuing.)',
});

export interface RetryVerdict {
  retry: boolean;
  /** the failure the verdict was decided on */
  failure: StepFailure;
  /** the step's final error when the loop stops here */
  why?: string;
}

/**
 * Is another attempt worth it? Decided on the typed failure alone (kind + retryable, set where the
 * failure happened), never on its text: fatal kinds stop at once with a line saying what to fix.
 */
export function retryable(o: AttemptOutcome, failed: number, policy: Readonly<ResilienceOptions>, model?: string): RetryVerdict {
  const f = o.failure ?? fromText(o.error ?? o.errors.at(-1) ?? '');
  if (!f.retryable) return { retry: false, failure: f, why: fatalLine(f, model) };
  // a one-attempt policy (NO_RETRY) retries nothing, so there is nothing to give up on
  if (policy.maxAttempts <= 1) return { retry: false, failure: f };
  if (failed >= policy.maxAttempts) return { retry: false, failure: f, why: `${o.error ?? 'failed'} | gave up after ${failed} attempts` };
  if (f.kind === 'unknown' && !policy.retryUnknown) return { retry: false, failure: f };
  return { retry: true, failure: f };
}

/**
 * Probe the endpoint until it answers: one notice when it is unreachable, one when it is back; give up
 * after maxOfflineWait (bounded, and cut short when the runtime closes).
 */
export async function waitOnline(
  p: ResilienceOptions,
  env: Record<string, string | undefined>,
  closed: () => boolean,
  notify: (text: string, payload: Record<string, unknown>) => void,
): Promise<{ ok: boolean; why?: string }> {
  let ep;
  try {
    ep = endpoint(env);
  } catch (e) {
    return { ok: false, why: errorText(e) };
  }
  if (await reachable(ep.host, ep.port, p.probeTimeout)) return { ok: true };
  const mins = Math.round(p.maxOfflineWait / 60);
  notify(`${ep.host}:${ep.port} unreachable; waiting up to ${mins} min for it to come back`, { offline: true, host: ep.host, port: ep.port });
  const started = Date.now();
  while (Date.now() - started < p.maxOfflineWait * 1000) {
    if (closed()) return { ok: false, why: 'runtime closed while waiting for the network' };
    await sleep(Math.min(p.probeInterval * 1000, Math.max(0, p.maxOfflineWait * 1000 - (Date.now() - started))));
    if (await reachable(ep.host, ep.port, p.probeTimeout)) {
      notify(`${ep.host}:${ep.port} is back`, { online: true, host: ep.host, port: ep.port });
      return { ok: true };
    }
  }
  return { ok: false, why: `the network did not come back within ${mins} min (${ep.host}:${ep.port})` };
}

/** Fatal errors say what to fix, not only what happened (for a text with no typed failure at hand). */
export function fatalMessage(text: string): string {
  return fatalLine(fromText(text));
}

/** A store that can go away mid-run and be waited for (the PostgreSQL store). */
export interface OfflineStore {
  readonly target: string;
  waitOnline(maxMs: number): Promise<boolean>;
}

export interface RetryWait {
  policy: ResilienceOptions;
  env: Record<string, string | undefined>;
  /** the Runtime closed: stop waiting */
  closed: () => boolean;
  /** the PostgreSQL store, when the run has one: waited for after the endpoint */
  store?: OfflineStore | undefined;
  /** failed attempts so far: the backoff grows with them */
  failed: number;
  emit: (kind: 'retry', text: string, payload: Record<string, unknown>) => void;
}

/** Before another attempt: the endpoint (and the store) answers, then the backoff. Why it never came back, else null. */
export async function waitToRetry(w: RetryWait): Promise<string | null> {
  let online = await waitOnline(w.policy, w.env, w.closed, (t, p) => w.emit('retry', t, p));
  if (online.ok && w.store) online = await storeOnline(w.store, w.policy, w.emit);
  if (!online.ok) return `${online.why}`;
  await sleep(backoff(w.failed, w.policy) * 1000);
  return null;
}

/** The PostgreSQL store went away mid-run: wait for it like for the network (bounded), with one notice each way. */
async function storeOnline(pg: OfflineStore, p: ResilienceOptions, emit: RetryWait['emit']): Promise<{ ok: boolean; why?: string }> {
  if (await pg.waitOnline(0)) return { ok: true };
  const mins = Math.round(p.maxOfflineWait / 60);
  emit('retry', `PostgreSQL at ${pg.target} unreachable; waiting up to ${mins} min for it to come back`, { offline: true, store: pg.target });
  if (await pg.waitOnline(p.maxOfflineWait * 1000)) {
    emit('retry', `PostgreSQL at ${pg.target} is back`, { online: true, store: pg.target });
    return { ok: true };
  }
  return { ok: false, why: `PostgreSQL at ${pg.target} did not come back within ${mins} min` };
}
