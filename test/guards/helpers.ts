/** Hook inputs shaped like the ones binary 2.1.332 sends (main thread: no agent_id). */
import type { HookCallbackMatcher, HookInput, HookJSONOutput } from '@anthropic-ai/claude-agent-sdk';

export const SUB = 'af7074d35c12928df';

export function pre(tool: string, input: unknown, o: { agentId?: string; agentType?: string; cwd?: string } = {}): HookInput {
  return {
    hook_event_name: 'PreToolUse',
    session_id: 's',
    transcript_path: '/dev/null',
    cwd: o.cwd ?? '/tmp',
    tool_name: tool,
    tool_input: input,
    tool_use_id: 'toolu_1',
    ...(o.agentId ? { agent_id: o.agentId, agent_type: o.agentType ?? 'general-purpose' } : {}),
  } as HookInput;
}

export function post(tool: string, input: unknown, response: unknown, o: { agentId?: string; cwd?: string } = {}): HookInput {
  return {
    hook_event_name: 'PostToolUse',
    session_id: 's',
    transcript_path: '/dev/null',
    cwd: o.cwd ?? '/tmp',
    tool_name: tool,
    tool_input: input,
    tool_response: response,
    tool_use_id: 'toolu_1',
    ...(o.agentId ? { agent_id: o.agentId, agent_type: 'general-purpose' } : {}),
  } as HookInput;
}

/** Run a matcher's hooks the way the harness would, if its matcher accepts the tool. */
export async function fire(m: HookCallbackMatcher, input: HookInput): Promise<HookJSONOutput[]> {
  const tool = 'tool_name' in input ? String(input.tool_name) : '';
  // as the binary reads a matcher: names joined by `|` are an exact list, anything else a regex
  if (m.matcher && (/^[\w|]+$/.test(m.matcher) ? !m.matcher.split('|').includes(tool) : !new RegExp(m.matcher).test(tool))) return [];
  const signal = new AbortController().signal;
  return Promise.all(m.hooks.map((h) => h(input, 'toolu_1', { signal })));
}

export interface Specific {
  permissionDecision?: string;
  permissionDecisionReason?: string;
  updatedInput?: Record<string, unknown>;
  updatedToolOutput?: unknown;
}

export const specific = (outs: HookJSONOutput[]): Specific | undefined => {
  const o = outs.find((x) => 'hookSpecificOutput' in x && x.hookSpecificOutput);
  return o && 'hookSpecificOutput' in o ? (o.hookSpecificOutput as Specific) : undefined;
};
