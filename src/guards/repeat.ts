/**
 * The same call, again and again. A model can get stuck repeating one tool call with the same input
 * (a coordinator re-running one Glob, a worker re-reading one file) — issue 19 lists it among the ways a
 * real model misbehaves, and nothing else bounds it: a long-horizon role has no small turn limit.
 *
 * Two bounds, one count. Per thread (the main thread, or each subagent), `Streaks` counts consecutive
 * calls with the same tool and the same input:
 *
 * - from the `REPEAT_DENY`-th such call on, `repeatGuard` (PreToolUse) refuses it with a short reason, so
 *   the model reads that the result will not change and can change course (its one chance to fix it);
 * - at `REPEAT_CUT` the attempt is cut (runtime/attempt) and the step fails with a typed `model` failure:
 *   the run stops cleanly and a bare `flower` continues the same session.
 *
 * Tools that wait for a change are not counted: their result changes while the input stays the same.
 */
import type { HookCallback, HookCallbackMatcher } from '@anthropic-ai/claude-agent-sdk';
import type { Lang } from '../config/lang.js';
import { deny, pass, toolCall } from './common.js';
import { GUARD_TEXT, textFor } from './messages.js';

/** The call that is refused: this many identical calls in a row (the first REPEAT_DENY − 1 run). */
export const REPEAT_DENY = 6;
/** The call at which the attempt is cut: the model kept repeating after REPEAT_CUT − REPEAT_DENY refusals. */
export const REPEAT_CUT = 12;
/**
 * Tools that wait for something to change under the same input: a background task's output, a monitor.
 * Not the person's `ask` or `inbox`: they answer at once when nobody is there (fuzz seed 212: a clarifier
 * stuck on one question asked it 2,400 times in 5 minutes, each answered "nobody answered").
 */
const POLLING = /^(TaskOutput|BashOutput|Monitor)$/;

/** Consecutive identical calls per thread. Pure: fed (thread, tool, input), it returns the streak. */
export class Streaks {
  private readonly last = new Map<string, { sig: string; n: number }>();

  /** The length of the streak this call makes (1 for a new call; 0 for a polling tool, never counted). */
  see(thread: string, tool: string, input: unknown): number {
    if (POLLING.test(tool)) {
      this.last.delete(thread);
      return 0;
    }
    const sig = `${tool}\u0000${canonical(input)}`;
    const prev = this.last.get(thread);
    const n = prev && prev.sig === sig ? prev.n + 1 : 1;
    this.last.set(thread, { sig, n });
    return n;
  }
}

/** The PreToolUse half: refuses the REPEAT_DENY-th identical call in a row, and every one after it. */
export function repeatGuard(o: { lang: Lang; limit?: number }): HookCallbackMatcher {
  return { hooks: [repeatHook(o)] };
}

/** repeatGuard's callback: it counts every call it is given, so its matcher must be every tool. */
export function repeatHook(o: { lang: Lang; limit?: number }): HookCallback {
  const limit = o.limit ?? REPEAT_DENY;
  const streaks = new Streaks();
  return async (input) => {
    const call = toolCall(input);
    if (call?.event !== 'PreToolUse') return pass();
    const n = streaks.see(call.agentId ?? 'main', call.toolName, call.toolInput);
    return n >= limit ? deny(textFor(GUARD_TEXT.repeated, o.lang)(call.toolName, n - 1)) : pass();
  };
}

/** JSON with object keys sorted, so `{a,b}` and `{b,a}` are the same call; bounded for huge inputs. */
export function canonical(v: unknown, depth = 0): string {
  if (depth > 16) return '…';
  if (Array.isArray(v)) return `[${v.map((x) => canonical(x, depth + 1)).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k], depth + 1)}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'undefined';
}
