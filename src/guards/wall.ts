/**
 * The two walls on the main thread (PreToolUse).
 *
 * `allowedTools` only means "no approval needed"; the SDK still offers every other tool, and in the field
 * a clarifier used WebFetch and a goal judge ran Bash 11 times without being allowed to (surface-config
 * §5, HT002). So the wall is a hook, and it only looks at the main thread: subagents are where the work
 * is supposed to happen.
 */
import type { HookCallback, HookCallbackMatcher } from '@anthropic-ai/claude-agent-sdk';
import { detectLang, type Lang } from '../config/lang.js';
import { judgeEphemeral } from '../glance/ephemeral.js';
import { HANDS_ON_TOOLS, WHITELISTED_TOOLS, deny, matcherFor, pass, ruleTool, toolCall } from './common.js';
import { failClosed } from './failclosed.js';
import { GUARD_TEXT, textFor } from './messages.js';

export interface WallDecision {
  allow: boolean;
  /** what the model is told when denied */
  reason?: string;
  /** allowed, but this command runs instead (a glance the classifier rewrote: a search with the .env files excluded) */
  command?: string;
}

export interface WhitelistOptions {
  lang?: Lang;
}

/**
 * The decision of whitelistGuard, as a pure function. A permission rule such as `Bash(git:*)` in `allowed`
 * lets Bash past this wall; the SDK's own rule matching still narrows it to that pattern.
 */
export function whitelistDecision(allowed: readonly string[], toolName: string, agentId: string | undefined, lang: Lang): WallDecision {
  if (agentId !== undefined || !WHITELISTED_TOOLS.includes(toolName)) return { allow: true };
  if (allowed.some((a) => ruleTool(a) === toolName)) return { allow: true };
  return { allow: false, reason: textFor(GUARD_TEXT.whitelist, lang)(toolName) };
}

/** Denies Bash / Write / Edit / NotebookEdit on the main thread unless `allowed` names them. */
export function whitelistGuard(allowed: readonly string[], o: WhitelistOptions = {}): HookCallbackMatcher {
  const lang = o.lang ?? detectLang();
  const list = [...allowed];
  const hook: HookCallback = async (input) => {
    const call = toolCall(input);
    if (call?.event !== 'PreToolUse') return pass();
    const d = whitelistDecision(list, call.toolName, call.agentId, lang);
    return d.allow ? pass() : deny(d.reason!);
  };
  // match only the tools this role may not use: an allowed tool then costs no hook round trip per call
  // (bench: 19 Bash calls through a matching hook added ~5 % to a 20-call session)
  const walled = WHITELISTED_TOOLS.filter((t) => !list.some((a) => ruleTool(a) === t));
  return failClosed({ matcher: walled.length ? matcherFor(walled) : NEVER_MATCHES, hooks: walled.length ? [hook] : [] }, { lang });
}

/** A matcher no tool name has: for a wall with nothing left to wall off. */
const NEVER_MATCHES = '__flower_nothing_walled__';

export interface DelegateOptions {
  /** let read-only Bash through (src/glance/ephemeral.ts); default true, as for the coordinator */
  glance?: boolean;
  lang?: Lang;
}

/** The decision of delegateGuard, as a pure function. */
export function delegateDecision(toolName: string, toolInput: unknown, agentId: string | undefined, o: { glance: boolean; lang: Lang }): WallDecision {
  if (agentId !== undefined || !HANDS_ON_TOOLS.includes(toolName)) return { allow: true };
  const base = textFor(GUARD_TEXT.delegate, o.lang)(toolName);
  if (toolName !== 'Bash' || !o.glance) return { allow: false, reason: base };
  const command = toolInput && typeof toolInput === 'object' ? (toolInput as { command?: unknown }).command : undefined;
  if (typeof command !== 'string') return { allow: false, reason: base };
  const v = judgeEphemeral(command);
  if (!v.ok) return { allow: false, reason: base + textFor(GUARD_TEXT.glance, o.lang)(v.reason) };
  return v.command !== undefined && v.command !== command ? { allow: true, command: v.command } : { allow: true };
}

/**
 * Denies hands-on tools on the main thread and says to dispatch a worker. With `glance`, a Bash command
 * that only reads (isEphemeral) passes — the same predicate that later expires its result on resume.
 */
export function delegateGuard(o: DelegateOptions = {}): HookCallbackMatcher {
  const opts = { glance: o.glance ?? true, lang: o.lang ?? detectLang() };
  const hook: HookCallback = async (input) => {
    const call = toolCall(input);
    if (call?.event !== 'PreToolUse') return pass();
    const d = delegateDecision(call.toolName, call.toolInput, call.agentId, opts);
    if (!d.allow) return deny(d.reason!);
    if (d.command === undefined) return pass();
    return {
      hookSpecificOutput: {
        hookEventName: 'PreToolUse',
        permissionDecision: 'allow',
        updatedInput: { ...(call.toolInput as Record<string, unknown>), command: d.command },
      },
    };
  };
  return failClosed({ matcher: matcherFor(HANDS_ON_TOOLS), hooks: [hook] }, { lang: opts.lang });
}
