/**
 * The allowlist wall and the repeat guard in one PreToolUse callback. Every callback a tool call
 * matches is its own round trip between the binary and flower (a control request out, the answer back),
 * and the repeat guard must see every tool: as two hooks, each watched tool (every Read, Grep, Glob,
 * Write, Edit under a path wall, every Agent) cost two round trips. As one, every call costs one.
 *
 * What the two decided apart they decide the same way together:
 * - the repeat count comes first and sees every call, those the wall refuses too;
 * - the wall looks only at the tools its matcher used to let through (unwatchedTools: listed for every
 *   thread and checked by their name alone), so a tool it never saw it still never sees;
 * - a refusal wins over a rewrite (as two hooks, a deny from either refused the call whatever the other
 *   allowed), and the wall's reason over the repeat's, since it says what to do instead;
 * - it fails closed as each did (guards/failclosed wraps it): a throw in either part refuses the call.
 */
import type { HookCallback, HookCallbackMatcher, HookJSONOutput } from '@anthropic-ai/claude-agent-sdk';
import type { Lang } from '../config/lang.js';
import { allowlistHook, unwatchedTools, type ToolPolicy } from './allowlist.js';
import { pass, toolCall } from './common.js';
import { repeatHook } from './repeat.js';

const refuses = (o: HookJSONOutput): boolean =>
  'hookSpecificOutput' in o && (o.hookSpecificOutput as { permissionDecision?: unknown } | undefined)?.permissionDecision === 'deny';

/** One PreToolUse matcher, on every tool: the repeat count for each, the wall for those it watches. */
export function toolCallGuard(p: ToolPolicy, o: { lang: Lang; limit?: number }): HookCallbackMatcher {
  const unwatched = new Set(unwatchedTools(p));
  const wall = allowlistHook(p);
  const repeat = repeatHook(o);
  const hook: HookCallback = async (input, toolUseId, opts) => {
    const again = await repeat(input, toolUseId, opts);
    const call = toolCall(input);
    const walled = call && !unwatched.has(call.toolName) ? await wall(input, toolUseId, opts) : pass();
    if (refuses(walled)) return walled;
    return refuses(again) ? again : walled;
  };
  return { hooks: [hook] };
}
