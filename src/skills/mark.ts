/**
 * A worker's skill selection rides on its AgentDefinition as a symbol-keyed property (like the
 * isolation mark): object spread copies it, JSON — how the SDK hands agents to the binary — drops it.
 */
import type { AgentDefinition } from '@anthropic-ai/claude-agent-sdk';
import type { RoleSkillsInput } from './select.js';

export const SKILLS: unique symbol = Symbol.for('flower.skills') as never;
type Marked = AgentDefinition & { [SKILLS]?: RoleSkillsInput };

/** Give a worker definition its skills and plugins. Returns the same object. */
export function withSkills<T extends AgentDefinition>(agent: T, sel: RoleSkillsInput): T {
  (agent as Marked)[SKILLS] = { ...(sel.skills !== undefined ? { skills: sel.skills } : {}), ...(sel.plugins ? { plugins: [...sel.plugins] } : {}) };
  return agent;
}

/** What a worker gets: its mark, else the project's and the person's skills (workers get them by default). */
export function skillsOf(agent: AgentDefinition): RoleSkillsInput {
  const m = (agent as Marked)[SKILLS];
  return { skills: m?.skills ?? 'all', ...(m?.plugins ? { plugins: m.plugins } : {}) };
}
