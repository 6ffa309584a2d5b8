/**
 * A step's result as its attempts add up: the row it starts as, what each attempt adds to it, what a
 * resumed session had cost before, and how a thrown error is typed.
 */
import type { AttemptOutcome } from './attempt.js';
import type { StepResult } from './manifest.js';
import type { FlowerStore } from './setup.js';

/** The row a step starts as (written at once, so a signal during the step still finds it). */
export function newResult(step: string, sandboxed: boolean): StepResult {
  return {
    step,
    session_id: null,
    ok: false,
    cost_usd: 0,
    num_turns: 0,
    text: '',
    error: null,
    started_at: new Date().toISOString(),
    ended_at: null,
    attempts: 0,
    errors: [],
    resumed: false,
    retired: [],
    context: 0,
    sandboxed,
  };
}

/** One attempt into the step's result: the last attempt decides ok/text/error, the counts add up. */
export function absorb(result: StepResult, a: AttemptOutcome): void {
  if (a.sessionId) result.session_id = a.sessionId;
  result.ok = a.ok;
  if (a.failure && !a.ok) result.failure = a.failure;
  else delete result.failure;
  if (a.ok || a.text) result.text = a.text;
  result.error = a.error;
  result.errors.push(...a.errors);
  result.cost_usd += a.costUsd;
  result.num_turns += a.numTurns;
  result.context = a.context || result.context;
}

/**
 * What the session had cost before this attempt: its last `cost-state` entry. The CLI restores that
 * total on resume and `result.total_cost_usd` keeps counting from it (measured: 0.006, 0.012, 0.018
 * for three equal turns; a fork continues its source's total), so without this baseline every
 * resumed attempt would count the whole session again.
 */
export async function costSoFar(store: FlowerStore, projectKey: string, sessionId: string): Promise<number> {
  try {
    // one indexed read of the tail (issue 11: loading the whole session here, then again in the SDK,
    // made a wake reach the model 1.11x later than a bare resume)
    if (store.lastCost) return await store.lastCost(sessionId, { projectKey });
    const entries = (await store.load({ projectKey, sessionId })) ?? [];
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i]!;
      if (e.type === 'cost-state' && typeof e.totalCostUSD === 'number' && Number.isFinite(e.totalCostUSD)) return e.totalCostUSD;
    }
  } catch {
    /* an unreadable store only costs the baseline */
  }
  return 0;
}
