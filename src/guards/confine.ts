/**
 * A role's own hooks (`coordinator(…, { hooks })` and the other factories) run in addition to flower's guards, never
 * instead of them: the binary runs every matching hook and a denial from any one refuses the call, but
 * an `allow`, a rewritten input or a rewritten output from a caller's hook would undo what a guard
 * decided (a PreToolUse `updatedInput` could swap a command the allowlist judged for another; a
 * PostToolUse `updatedToolOutput` could put back a secret the output guard replaced). So those fields
 * are taken out of a caller's answers; denying, asking, adding context and stopping stay theirs.
 */
import type { HookCallback, HookCallbackMatcher, HookJSONOutput } from '@anthropic-ai/claude-agent-sdk';
import type { Hooks } from './hooks.js';

const REWRITES = ['updatedInput', 'updatedToolOutput', 'updatedMCPToolOutput'] as const;

/** One answer with every rewrite and every approval removed. */
export function confineAnswer(out: HookJSONOutput): HookJSONOutput {
  if (!out || typeof out !== 'object') return out;
  const o = { ...(out as Record<string, unknown>) };
  if (o.decision === 'approve') delete o.decision;
  const spec = o.hookSpecificOutput;
  if (spec && typeof spec === 'object') {
    const s = { ...(spec as Record<string, unknown>) };
    for (const k of REWRITES) delete s[k];
    if (s.permissionDecision === 'allow') delete s.permissionDecision;
    o.hookSpecificOutput = s;
  }
  return o as HookJSONOutput;
}

function confineCallback(hook: HookCallback): HookCallback {
  return async (input, toolUseId, opts) => confineAnswer(await hook(input, toolUseId, opts));
}

/** A caller's hooks with each callback's answers confined (see above). */
export function confineHooks(hooks: Hooks | undefined): Hooks | undefined {
  if (!hooks) return undefined;
  const out: Hooks = {};
  for (const [ev, matchers] of Object.entries(hooks) as [keyof Hooks, HookCallbackMatcher[] | undefined][]) {
    if (!matchers) continue;
    out[ev] = matchers.map((m) => ({ ...m, hooks: m.hooks.map(confineCallback) }));
  }
  return out;
}
