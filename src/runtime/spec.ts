/**
 * AgentSpec — what one agent is: its rules, its tools, its limits. A Runtime turns a spec plus a prompt
 * into one SDK query. Instructions are APPENDED to the Claude Code preset, never replacing it
 * (the preset carries the tool-use know-how the harness expects).
 */
import type { AgentDefinition, McpServerConfig, PermissionMode } from '@anthropic-ai/claude-agent-sdk';
import { ConfigError } from '../errors.js';
import type { SkillSelection } from '../skills/index.js';
import type { Floor } from '../guards/sandbox.js';
import type { Hooks } from '../guards/hooks.js';

// the guards own the hooks' shape (they sit below the runtime); kept here too for the runtime's importers
export type { Hooks };

/**
 * An MCP server, or a function that makes one. In-process (sdk) servers hold one connection at a
 * time, so a spec that runs many times (retries, rounds, the judge every round) gives a factory and
 * the Runtime makes a fresh instance for every query.
 */
export type McpServerSource = McpServerConfig | (() => McpServerConfig);

/** How the child's own compaction behaves; with handoff on and no explicit policy, auto-compact is off. */
export interface CompactPolicy {
  mode: 'auto' | 'no_summary' | 'off';
  /** CLAUDE_CODE_AUTO_COMPACT_WINDOW (the binary clamps it to 100k–1M) */
  window?: number;
}

export interface AgentSpecOptions {
  name: string;
  instructions?: string;
  /**
   * The role's tools: an allowlist. The main thread may use these and nothing else (the allowlist hook
   * denies the rest, tools the binary adds later included); each declared agent may use its own `tools`.
   */
  allowedTools?: string[];
  /** removed from the session entirely, subagents included */
  disallowedTools?: string[];
  model?: string;
  effort?: 'low' | 'medium' | 'high' | 'max';
  maxTurns?: number;
  maxBudgetUsd?: number;
  permissionMode?: PermissionMode;
  hooks?: Hooks;
  mcpServers?: Record<string, McpServerSource>;
  agents?: Record<string, AgentDefinition>;
  /** extra environment for the child (never credentials: those come from flower's chain) */
  env?: Record<string, string>;
  compact?: CompactPolicy;
  /** the coordinator's read-only Bash (see src/glance/ephemeral.ts) */
  glance?: boolean;
  /** inject the workbench index into new sessions */
  workbench?: boolean;
  /** hands-on tools are denied on the main thread by a hook */
  delegateOnly?: boolean;
  /**
   * Skills this agent may load with the Skill tool: `'all'` (the project's and the person's), names
   * (`name` or `plugin:name`), or `[]` (default). Workers choose theirs with `worker(…, { skills })`.
   */
  skills?: SkillSelection;
  /** plugins (by `plugin.json` name or folder) whose skills and MCP tools this agent may use */
  plugins?: string[];
  /**
   * The OS sandbox floor for this session's commands: 'read-only' (the workspace cannot be written, no
   * network) or 'workspace' (write the workspace, the workbench and a private temp folder; network per
   * the Runtime's `net`). Default: 'workspace' when the spec or a declared agent has a tool that writes.
   */
  floor?: Floor;
  /**
   * Hand a full context to a fresh session (the Runtime's handoff policy; default true). A judge says
   * false: it is a fresh session every round, and a handoff would hand its verdict to a successor that
   * never saw the artifact (a fuzzing model's huge usage numbers gave judges handoffs, issue 19).
   */
  handoff?: boolean;
}

/** Tools that change files or run commands: a session with any of them gets the workspace floor by default. */
const WRITING_TOOLS: readonly string[] = ['Bash', 'Write', 'Edit', 'NotebookEdit', 'MultiEdit', 'PowerShell'];
const writes = (tools: readonly string[] | undefined): boolean => (tools ?? WRITING_TOOLS).some((t) => WRITING_TOOLS.includes(t.split('(')[0]!.trim()));

/** The default floor: read-only unless the role (when it works itself) or one of its agents can write. */
export function defaultFloor(o: Pick<AgentSpecOptions, 'allowedTools' | 'delegateOnly' | 'agents'>): Floor {
  const own = !o.delegateOnly && writes(o.allowedTools ?? []);
  const agents = Object.values(o.agents ?? {}).some((a) => writes(a.tools));
  return own || agents ? 'workspace' : 'read-only';
}

export const PERMISSION_MODES: readonly PermissionMode[] = ['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk', 'auto'];

export class AgentSpec {
  readonly name: string;
  readonly instructions: string;
  readonly allowedTools: string[];
  readonly disallowedTools: string[];
  readonly model?: string;
  readonly effort?: AgentSpecOptions['effort'];
  readonly maxTurns?: number;
  readonly maxBudgetUsd?: number;
  readonly permissionMode: PermissionMode;
  readonly hooks?: Hooks;
  readonly mcpServers: Record<string, McpServerSource>;
  readonly agents?: Record<string, AgentDefinition>;
  readonly env: Record<string, string>;
  readonly compact?: CompactPolicy;
  readonly glance: boolean;
  readonly workbench: boolean;
  readonly delegateOnly: boolean;
  readonly skills?: SkillSelection;
  readonly plugins?: readonly string[];
  readonly floor: Floor;
  /** false: this spec never hands off (the child compacts instead) */
  readonly handoff: boolean;
  /** set by the caller (kept by `with`), or derived from the tools (re-derived by `with`) */
  readonly #floorGiven: Floor | undefined;

  constructor(o: AgentSpecOptions) {
    if (!o || typeof o.name !== 'string' || !o.name.trim()) {
      throw new ConfigError('bad-spec', "AgentSpec needs a non-empty `name`, e.g. new AgentSpec({ name: 'worker' }).", { field: 'name' });
    }
    if (o.permissionMode !== undefined && !PERMISSION_MODES.includes(o.permissionMode)) {
      throw new ConfigError('bad-spec', `AgentSpec '${o.name}': permissionMode '${String(o.permissionMode)}' is not one of ${PERMISSION_MODES.join(', ')}.`, {
        field: 'permissionMode',
      });
    }
    for (const [k, v] of [
      ['maxTurns', o.maxTurns],
      ['maxBudgetUsd', o.maxBudgetUsd],
    ] as const) {
      if (v !== undefined && !(typeof v === 'number' && v > 0 && Number.isFinite(v))) {
        throw new ConfigError('bad-spec', `AgentSpec '${o.name}': ${k} must be a positive number, got ${String(v)}; leave it out for the default.`, {
          field: k,
        });
      }
    }
    this.name = o.name;
    this.instructions = o.instructions ?? '';
    this.allowedTools = [...(o.allowedTools ?? ['Read', 'Glob', 'Grep'])];
    this.disallowedTools = [...(o.disallowedTools ?? [])];
    if (o.model !== undefined) this.model = o.model;
    if (o.effort !== undefined) this.effort = o.effort;
    if (o.maxTurns !== undefined) this.maxTurns = o.maxTurns;
    if (o.maxBudgetUsd !== undefined) this.maxBudgetUsd = o.maxBudgetUsd;
    this.permissionMode = o.permissionMode ?? 'default';
    if (o.hooks !== undefined) this.hooks = o.hooks;
    this.mcpServers = { ...(o.mcpServers ?? {}) };
    if (o.agents !== undefined) this.agents = o.agents;
    this.env = { ...(o.env ?? {}) };
    if (o.compact !== undefined) this.compact = o.compact;
    this.glance = o.glance ?? false;
    this.workbench = o.workbench ?? true;
    this.delegateOnly = o.delegateOnly ?? false;
    if (o.skills !== undefined) {
      if (o.skills !== 'all' && !(Array.isArray(o.skills) && o.skills.every((x) => typeof x === 'string'))) {
        throw new ConfigError('bad-spec', `AgentSpec '${o.name}': skills must be 'all' or a list of skill names, got ${JSON.stringify(o.skills)}.`, {
          field: 'skills',
        });
      }
      this.skills = o.skills === 'all' ? 'all' : [...o.skills];
    }
    if (o.plugins !== undefined) this.plugins = [...o.plugins];
    if (o.floor !== undefined && o.floor !== 'read-only' && o.floor !== 'workspace') {
      throw new ConfigError('bad-spec', `AgentSpec '${o.name}': floor must be 'read-only' or 'workspace', got ${String(o.floor)}.`, { field: 'floor' });
    }
    this.#floorGiven = o.floor;
    this.floor = o.floor ?? defaultFloor(o);
    this.handoff = o.handoff ?? true;
  }

  /** A copy with some fields replaced (specs are values; roles derive variants from them). */
  with(changes: Partial<AgentSpecOptions>): AgentSpec {
    return new AgentSpec({ ...this.toOptions(), ...changes });
  }

  toOptions(): AgentSpecOptions {
    const o: AgentSpecOptions = {
      name: this.name,
      instructions: this.instructions,
      allowedTools: this.allowedTools,
      disallowedTools: this.disallowedTools,
      permissionMode: this.permissionMode,
      mcpServers: this.mcpServers,
      env: this.env,
      glance: this.glance,
      workbench: this.workbench,
      delegateOnly: this.delegateOnly,
    };
    if (!this.handoff) o.handoff = false;
    if (this.#floorGiven !== undefined) o.floor = this.#floorGiven;
    if (this.model !== undefined) o.model = this.model;
    if (this.effort !== undefined) o.effort = this.effort;
    if (this.maxTurns !== undefined) o.maxTurns = this.maxTurns;
    if (this.maxBudgetUsd !== undefined) o.maxBudgetUsd = this.maxBudgetUsd;
    if (this.hooks !== undefined) o.hooks = this.hooks;
    if (this.agents !== undefined) o.agents = this.agents;
    if (this.compact !== undefined) o.compact = this.compact;
    if (this.skills !== undefined) o.skills = this.skills === 'all' ? 'all' : [...this.skills];
    if (this.plugins !== undefined) o.plugins = [...this.plugins];
    return o;
  }
}
