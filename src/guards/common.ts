/**
 * What every guard shares: how to tell the main thread from a subagent, how to deny, and which tools
 * count as hands-on work.
 *
 * Main thread = the hook input carries no `agent_id`. Verified against binary 2.1.332: a subagent's
 * PreToolUse/PostToolUse input carries `agent_id` (e.g. "af7074d35c12928df") and `agent_type`; the main
 * thread's carries neither. `agent_type` alone is NOT a subagent signal (an `--agent` main thread has it).
 */
import path from 'node:path';
import fs from 'node:fs';
import { BUILTIN_TOOL_NAMES, type HookInput, type HookJSONOutput } from '@anthropic-ai/claude-agent-sdk';

/** The tool call a PreToolUse/PostToolUse hook sees, narrowed from the SDK's HookInput union. */
export interface ToolHookInput {
  event: 'PreToolUse' | 'PostToolUse';
  toolName: string;
  toolInput: unknown;
  /** PostToolUse only */
  toolResponse?: unknown;
  agentId?: string;
  cwd: string;
}

export function toolCall(input: HookInput): ToolHookInput | undefined {
  if (input.hook_event_name !== 'PreToolUse' && input.hook_event_name !== 'PostToolUse') return undefined;
  const out: ToolHookInput = { event: input.hook_event_name, toolName: input.tool_name, toolInput: input.tool_input, cwd: input.cwd };
  if (input.hook_event_name === 'PostToolUse') out.toolResponse = input.tool_response;
  if (typeof input.agent_id === 'string' && input.agent_id) out.agentId = input.agent_id;
  return out;
}

export const isMainThread = (call: ToolHookInput): boolean => call.agentId === undefined;

/** A PreToolUse denial; the model reads `PreToolUse:<tool> hook error: <reason>` (docs/sdk-facts.md §2). */
export function deny(reason: string): HookJSONOutput {
  return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason } };
}

/** No opinion: the SDK's own permission flow decides. A fresh object each time: the harness owns what we return. */
export const pass = (): HookJSONOutput => ({});

const builtin = new Set<string>(BUILTIN_TOOL_NAMES);

/**
 * Tools that change the workspace. MultiEdit is no longer a built-in in binary 2.1.332 but is kept when a
 * binary still lists it; PowerShell is the Windows twin of Bash and writes just as well.
 */
export const HANDS_ON_TOOLS: readonly string[] = Object.freeze([
  'Bash',
  'Write',
  'Edit',
  'NotebookEdit',
  ...['MultiEdit', 'PowerShell'].filter((t) => builtin.has(t)),
]);

/** The tools whitelistGuard watches (the seed's list: Bash / Write / Edit / NotebookEdit). */
export const WHITELISTED_TOOLS: readonly string[] = Object.freeze(['Bash', 'Write', 'Edit', 'NotebookEdit']);

/**
 * A hook matcher for exactly these tool names: a matcher made only of names and `|` is an exact-name
 * list to the harness (anything else is a regex, which would also hit `mcp__x__Writer`). The hooks
 * re-check the name anyway.
 */
export const matcherFor = (tools: readonly string[]): string => tools.join('|');

/** `Bash(git:*)` → `Bash`: a rule's tool name, as allowedTools spells permission rules. */
export const ruleTool = (rule: string): string => {
  const k = rule.indexOf('(');
  return (k < 0 ? rule : rule.slice(0, k)).trim();
};

/** Every string in a JSON-like value (bounded depth: tool inputs are shallow, cycles are impossible but cheap to rule out). */
export function stringsIn(v: unknown, depth = 0, out: string[] = []): string[] {
  if (depth > 8) return out;
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsIn(x, depth + 1, out);
  else if (v && typeof v === 'object') for (const x of Object.values(v)) stringsIn(x, depth + 1, out);
  return out;
}

/** `p` resolved and, when it exists, also through symlinks (macOS /tmp → /private/tmp). */
export function pathForms(p: string): string[] {
  const abs = path.resolve(p);
  const forms = [abs];
  try {
    const real = fs.realpathSync(abs);
    if (real !== abs) forms.push(real);
  } catch {
    /* not there yet: the resolved form is all we have */
  }
  return forms;
}

/** Is `p` (absolute) the folder `root` or inside it, under any of their path forms? */
export function isWithin(p: string, root: string): boolean {
  const roots = pathForms(root);
  return pathForms(p).some((x) => roots.some((r) => x === r || x.startsWith(r.endsWith(path.sep) ? r : r + path.sep)));
}
