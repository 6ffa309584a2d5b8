/**
 * What the attempt loop does between attempts: decide whether a failure is worth another try (fatal
 * errors stop at once with a message saying what to fix), and wait for the endpoint to come back —
 * a DNS + TCP probe, no HTTP, no credentials, no cost — before the backoff.
 */
import { errorText } from '../errors.js';
import type { AttemptOutcome } from './attempt.js';
import { classify, endpoint, reachable, shouldRetry, type ResilienceOptions } from './resilience.js';

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Appended to the person's remark after an interrupt (issue #9: say what was cut, and to carry on). */
export const INTERRUPT_NOTE = Object.freeze({
  zh: '(上面这句是人刚才打断你时说的。按它调整,然后接着做;被打断时进行中的子任务可能没做完,先看一眼现场再继续。)',
  en: '(The line above is what the person said when they interrupted you. Adjust to it and carry on; a subtask that was in flight may not have finished, so check the scene before continuing.)',
});

export interface RetryVerdict {
  retry: boolean;
  kind?: string;
  /** the step's final error when the loop stops here */
  why?: string;
}

/** Is another attempt worth it? A watchdog cut is transient; fatal errors stop with an actionable message. */
export function retryable(o: AttemptOutcome, failed: number, policy: ResilienceOptions | null): RetryVerdict {
  const texts = [o.error ?? '', ...o.errors].join('\n');
  const kind = o.interrupted === 'watchdog' ? 'transient' : classify(texts);
  if (kind === 'fatal') return { retry: false, kind, why: fatalMessage(o.error ?? texts) };
  if (!policy) return { retry: false, kind };
  if (failed >= policy.maxAttempts) return { retry: false, kind, why: `${o.error ?? 'failed'} | gave up after ${failed} attempts` };
  return { retry: shouldRetry(kind, policy), kind };
}

/**
 * Probe the endpoint until it answers: one notice when it is unreachable, one when it is back; give up
 * after maxOfflineWait (bounded, and cut short when the runtime closes).
 */
export async function waitOnline(
  p: ResilienceOptions, env: Record<string, string | undefined>, closed: () => boolean,
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

/** Fatal errors say what to fix, not only what happened. */
export function fatalMessage(text: string): string {
  if (/authenticat|invalid.?api.?key|unauthori[sz]ed|\b401\b|\b403\b/i.test(text)) {
    return `authentication failed: ${text.trim()} — check ANTHROPIC_API_KEY / ANTHROPIC_AUTH_TOKEN and ANTHROPIC_BASE_URL`;
  }
  if (/not_found_error|model .{0,40}not found|\b404\b/i.test(text)) {
    return `${text.trim()} — check ANTHROPIC_BASE_URL (the gateway root, without /v1) and the model name (ANTHROPIC_MODEL)`;
  }
  if (/max_turns/i.test(text)) return `${text.trim()} — raise the spec's maxTurns if the step needs more turns`;
  if (/budget/i.test(text)) return `${text.trim()} — the budget cap was reached`;
  return text.trim();
}

