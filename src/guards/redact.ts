/**
 * The output guard (PostToolUse, every thread): what a tool returns is checked for known secret values
 * before the model — and sessions.db, and a spill file — sees it, then spilled when too long.
 *
 * Why: the walls keep credential files and variables away from the tools, but a secret can still
 * arrive by a road nobody listed — a `.env` below the workspace root printed by a worker's `cat`, a
 * connection string in a log, a worker's report quoting either. The values are known (the credential,
 * the store's password, every secret-bearing variable, the secrets in the workspace's `.env` files:
 * runtime/floor.ts collects them), so they are replaced by `[secret]` wherever they appear.
 *
 * One hook does both jobs, redaction first: spilling first would write the secret to a spill file, and
 * two hooks would each see the original output. A failure withholds the output (fails closed).
 */
import type { HookCallback, HookCallbackMatcher, HookJSONOutput } from '@anthropic-ai/claude-agent-sdk';
import type { Lang } from '../config/lang.js';
import { pass, toolCall } from './common.js';
import { GUARD_TEXT, textFor } from './messages.js';
import { redact } from './secrets.js';
import { replaceLongStrings, spillDecision, SPILL_HEAD, SPILL_TOOLS, type SpillTarget } from './spill.js';

/** Tools whose output can carry file contents or command output: the built-in readers, workers' reports, MCP tools. */
export const OUTPUT_TOOLS: readonly string[] = Object.freeze([...SPILL_TOOLS, 'Agent', 'Task', 'TaskOutput', 'BashOutput', 'NotebookRead']);

/** The matcher: those tools and every MCP tool (a regex to the binary: it has regex characters). */
export const OUTPUT_MATCHER = `^(?:${OUTPUT_TOOLS.join('|')}|mcp__.*)$`;

export interface OutputGuardOptions {
  /**
   * The secret values to replace (longest first), for the main thread or a subagent; read on each call.
   * The main thread may get more: a coordinator never sees a `.env` value, secret-looking or not.
   */
  secrets: (mainThread: boolean) => readonly string[];
  /** spill long outputs to this workbench (absent: no spilling) */
  spill?: { target: SpillTarget; threshold: number; head?: number } | undefined;
  lang: Lang;
}

/** Images and documents are left alone: they are not text. */
function isMedia(v: unknown): boolean {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const t = (v as { type?: unknown }).type;
  return t === 'image' || t === 'document';
}

/** The value with every string's secrets replaced, keeping the structure; `hits` counts replacements. */
export function redactDeep(v: unknown, values: readonly string[], depth = 0): { value: unknown; hits: number } {
  if (typeof v === 'string') {
    const r = redact(v, values);
    return r.hits ? { value: r.text, hits: r.hits } : { value: v, hits: 0 };
  }
  if (depth > 16 || !v || typeof v !== 'object' || isMedia(v)) return { value: v, hits: 0 };
  let hits = 0;
  if (Array.isArray(v)) {
    const out = v.map((x) => {
      const r = redactDeep(x, values, depth + 1);
      hits += r.hits;
      return r.value;
    });
    return hits ? { value: out, hits } : { value: v, hits: 0 };
  }
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const r = redactDeep(x, values, depth + 1);
    hits += r.hits;
    out[k] = r.value;
  }
  return hits ? { value: out, hits } : { value: v, hits: 0 };
}

/** The decision as a function: the output to show instead, or undefined to leave it alone. */
export function outputDecision(
  call: { toolName: string; toolInput: unknown; toolResponse: unknown; cwd: string; agentId?: string | undefined },
  o: OutputGuardOptions,
): unknown {
  const r = redactDeep(call.toolResponse, o.secrets(call.agentId === undefined));
  let value = r.value;
  if (o.spill && SPILL_TOOLS.includes(call.toolName)) {
    const s = spillDecision(
      o.spill.target,
      { toolInput: call.toolInput, toolResponse: value, cwd: call.cwd },
      { threshold: o.spill.threshold, head: o.spill.head ?? SPILL_HEAD, lang: o.lang },
    );
    if (s) value = s.updatedToolOutput;
  }
  return value === call.toolResponse ? undefined : value;
}

export function outputGuard(o: OutputGuardOptions): HookCallbackMatcher {
  const hook: HookCallback = async (input) => {
    const call = toolCall(input);
    if (call?.event !== 'PostToolUse') return pass();
    let shown: unknown;
    try {
      shown = outputDecision({ toolName: call.toolName, toolInput: call.toolInput, toolResponse: call.toolResponse, cwd: call.cwd, agentId: call.agentId }, o);
    } catch {
      // could not be checked: nothing of it is shown (every string replaced, the structure kept)
      shown = replaceLongStrings(call.toolResponse, 1, () => textFor(GUARD_TEXT.withheld, o.lang)).value;
    }
    if (shown === undefined) return pass();
    const out: HookJSONOutput = { hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput: shown } };
    return out;
  };
  return { matcher: OUTPUT_MATCHER, hooks: [hook] };
}
