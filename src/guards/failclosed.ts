/**
 * Every decision fails closed. Measured on binary 2.1.332: a PreToolUse callback that throws or rejects
 * does NOT deny — by default the binary reports a warning and runs the call, which let a read-only
 * coordinator create a file after a 9,000-character glob made the classifier throw. So each PreToolUse
 * hook flower installs is wrapped twice:
 *
 * - in flower: an exception, a rejection or a decision slower than the budget becomes a denial that says
 *   why (a timer only helps with an asynchronous stall; the classifier is linear so nothing synchronous
 *   can hold the event loop — src/glance/);
 * - in the binary: the matcher carries `onFailure: 'block'` and a `timeout`, so an answer that never comes,
 *   or one the binary cannot use, refuses the call as well (measured: "blocking because onFailure is block";
 *   a hook that never answers is refused after `timeout` seconds).
 *
 * A PostToolUse hook that rewrites output (spill, redaction) falls back to its own safe output when it
 * fails (guards/redact), so a failure never shows the model what it was meant not to see.
 */
import type { HookCallback, HookCallbackMatcher, HookJSONOutput } from '@anthropic-ai/claude-agent-sdk';
import type { Lang } from '../config/lang.js';
import { deny } from './common.js';
import { GUARD_TEXT, textFor } from './messages.js';

/** Seconds the binary waits for one decision before refusing the call (a decision takes milliseconds). */
export const DECISION_TIMEOUT_S = 30;
/** flower's own budget for one decision, under the binary's: the model then reads flower's reason. */
export const DECISION_BUDGET_MS = 20_000;

export interface FailClosedOptions {
  lang: Lang;
  budgetMs?: number;
  /** told about each failure (the event stream); never throws */
  onFailure?: (why: string) => void;
}

/** A PreToolUse callback that denies when `hook` throws, rejects or takes longer than the budget. */
export function failClosedHook(hook: HookCallback, o: FailClosedOptions): HookCallback {
  const budget = o.budgetMs ?? DECISION_BUDGET_MS;
  return async (input, toolUseId, opts) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), budget);
      });
      const out = await Promise.race([Promise.resolve().then(() => hook(input, toolUseId, opts)), late]);
      if (out === 'late') return refused(o, `no decision within ${Math.round(budget / 1000)} s`);
      if (!out || typeof out !== 'object') return refused(o, 'the decision was not an answer');
      return out;
    } catch (e) {
      return refused(o, e instanceof Error ? `${e.name}: ${e.message}`.slice(0, 200) : 'an error');
    } finally {
      if (timer) clearTimeout(timer);
    }
  };
}

/** Marks a matcher already wrapped (wrapping twice would only add a timer). */
const WRAPPED = Symbol.for('flower.failClosed');

/**
 * The matcher with every PreToolUse callback failing closed, in flower and in the binary. A matcher's
 * own shorter timeout is kept (a caller's hook may promise to be quick); a longer one is cut.
 */
export function failClosed(m: HookCallbackMatcher, o: FailClosedOptions): HookCallbackMatcher {
  if ((m as { [WRAPPED]?: boolean })[WRAPPED]) return m;
  const timeout = Math.min(m.timeout ?? DECISION_TIMEOUT_S, DECISION_TIMEOUT_S);
  const budgetMs = Math.min(o.budgetMs ?? DECISION_BUDGET_MS, Math.max(1, timeout - 1) * 1000);
  const out: HookCallbackMatcher = { ...m, hooks: m.hooks.map((h) => failClosedHook(h, { ...o, budgetMs })), onFailure: 'block', timeout };
  Object.defineProperty(out, WRAPPED, { value: true });
  return out;
}

function refused(o: FailClosedOptions, why: string): HookJSONOutput {
  try {
    o.onFailure?.(why);
  } catch {
    /* the denial matters, not the report */
  }
  return deny(textFor(GUARD_TEXT.failed, o.lang)(why));
}
