/**
 * skillGuard — the Skill tool loads only the skills the calling role was given, and a plugin's MCP
 * tools answer only the roles that declare that plugin.
 *
 * The binary offers the whole session's listing to every subagent whose tools include `Skill` (there is
 * no per-subagent filter), and the Skill tool to the main thread whatever the `skills` option says; so
 * the selection of each role is enforced here, on the call (main thread: the spec's selection; a
 * subagent: its own, found by `agent_type`). Anything unknown is denied: allowlist, not deny-list.
 */
import type { HookCallback, HookCallbackMatcher, HookInput } from '@anthropic-ai/claude-agent-sdk';
import { skillAllowed, type SkillInfo } from '../skills/index.js';
import { deny, pass } from './common.js';

export interface SkillGuardPlan {
  /** the main thread's skills */
  main: readonly SkillInfo[];
  /** each declared worker's skills, by subagent type */
  agents: Readonly<Record<string, readonly SkillInfo[]>>;
  /** server-level plugin tool names (`mcp__plugin_<plugin>_<server>`) the main thread may call */
  mainTools?: readonly string[];
  /** the same, per worker */
  agentTools?: Readonly<Record<string, readonly string[]>>;
}

/** Is `tool` (a full `mcp__plugin_…__tool` name) one of the server-level names in `own`? */
const ownsPluginTool = (own: readonly string[], tool: string): boolean => own.some((t) => tool.startsWith(`${t}__`));

/** The decision for a plugin MCP tool, pure. */
export function pluginToolDecision(plan: SkillGuardPlan, tool: string, agentType: string | undefined): { allow: boolean; reason?: string } {
  const own = agentType === undefined ? (plan.mainTools ?? []) : (plan.agentTools?.[agentType] ?? []);
  if (ownsPluginTool(own, tool)) return { allow: true };
  return {
    allow: false,
    reason: `${tool} belongs to a plugin this ${agentType === undefined ? 'role' : `worker (${agentType})`} does not declare; ${agentType === undefined ? 'dispatch the worker that declares it' : 'report back that it is needed'}`,
  };
}

/** The decision, pure: `agentType` undefined = the main thread. */
export function skillDecision(plan: SkillGuardPlan, requested: unknown, agentType: string | undefined): { allow: boolean; reason?: string } {
  const own = agentType === undefined ? plan.main : Object.hasOwn(plan.agents, agentType) ? plan.agents[agentType]! : [];
  const name = typeof requested === 'string' ? requested : '';
  if (name && skillAllowed(own, name)) return { allow: true };
  const mine = own.map((s) => s.name);
  return {
    allow: false,
    reason: mine.length
      ? `skill '${name}' is not one of yours (${mine.join(', ')}); use one of them, or do the work without it`
      : `no skills are given to ${agentType === undefined ? 'this role' : `the ${agentType} worker`}; ${agentType === undefined ? 'brief a worker that has the skill instead' : 'do the work without it'}`,
  };
}

/** Two matchers: `Skill` by name, plugin MCP tools by prefix (a matcher with more than names is a regex). */
export function skillGuard(plan: SkillGuardPlan): HookCallbackMatcher[] {
  const hook: HookCallback = async (input: HookInput) => {
    if (input.hook_event_name !== 'PreToolUse') return pass();
    // a subagent's hook input carries agent_id and agent_type; the main thread's carries neither
    const sub = typeof input.agent_id === 'string' && input.agent_id ? (typeof input.agent_type === 'string' ? input.agent_type : '') : undefined;
    let d;
    if (input.tool_name === 'Skill') d = skillDecision(plan, (input.tool_input as { skill?: unknown } | undefined)?.skill, sub);
    else if (input.tool_name.startsWith('mcp__plugin_')) d = pluginToolDecision(plan, input.tool_name, sub);
    else return pass();
    return d.allow ? pass() : deny(d.reason!);
  };
  return [
    { matcher: 'Skill', hooks: [hook] },
    { matcher: '^mcp__plugin_.*', hooks: [hook] },
  ];
}
