/**
 * The skills and plugins of one Runtime: discovered once at start (warnings go to the person), bundled
 * into a plugin in the private config dir, and turned per query into SDK options — which plugin
 * folders load, what the main thread lists, which tools each role may use — plus the Skill guard and
 * the record a manifest row keeps.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { AgentDefinition, Options } from '@anthropic-ai/claude-agent-sdk';
import { skillGuard } from '../guards/skill.js';
import {
  buildBundle,
  discover,
  shadowPlugin,
  qualified,
  selectFor,
  sessionPlugins,
  skillsBriefing,
  skillsOf,
  type Discovery,
  type RoleSkills,
  type SkillSelection,
  type SkillSources,
} from '../skills/index.js';
import { scrubMcpServer } from './options.js';
import type { Hooks } from './spec.js';

/** The parts of an AgentSpec this reads. */
export interface SkilledSpec {
  readonly name: string;
  readonly skills?: SkillSelection | undefined;
  readonly plugins?: readonly string[] | undefined;
  readonly agents?: Readonly<Record<string, AgentDefinition>> | undefined;
}

export interface SkillPlan {
  main: RoleSkills;
  agents: Record<string, RoleSkills>;
  /** every skill the step's agents can load, for the manifest row */
  record: Array<{ name: string; hash: string }>;
}

export class SkillKit {
  readonly discovery: Discovery;
  private readonly bundleDir: string | null;

  constructor(discovery: Discovery, bundleDir: string | null) {
    this.discovery = discovery;
    this.bundleDir = bundleDir;
  }

  /**
   * Discover, warn once per broken file, and bundle project + personal skills under `into`; a plugin with
   * stdio MCP servers loads through a shadow whose servers start without `secretVars` (their env).
   */
  static load(src: SkillSources, into: string, warn: (m: string) => void, secretVars: readonly string[] = []): SkillKit {
    const d = discover(src);
    for (const w of d.warnings) warn(w);
    const dir = path.join(into, 'plugins');
    for (const p of d.plugins) {
      if (!p.mcpServers.length) continue;
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const shadow = shadowPlugin(p.dir, dir, secretVars, (srv) => scrubMcpServer(srv as never, secretVars) as unknown as Record<string, unknown>);
      if (shadow !== p.dir) p.loadDir = shadow;
    }
    return new SkillKit(d, buildBundle(d.skills, dir));
  }

  get empty(): boolean {
    return this.discovery.skills.length === 0 && this.discovery.plugins.length === 0;
  }

  plan(spec: SkilledSpec): SkillPlan {
    const main = selectFor(this.discovery, { skills: spec.skills ?? [], plugins: spec.plugins }, `role '${spec.name}'`);
    const agents: Record<string, RoleSkills> = {};
    for (const [type, def] of Object.entries(spec.agents ?? {})) agents[type] = selectFor(this.discovery, skillsOf(def), `worker '${type}' of '${spec.name}'`);
    const seen = new Map<string, string>();
    for (const r of [main, ...Object.values(agents)]) for (const x of r.record) seen.set(x.name, x.hash);
    return { main, agents, record: [...seen].map(([name, hash]) => ({ name, hash })) };
  }

  /** Patch the query's options for this plan (nothing changes when no skill or plugin is in play). */
  apply(o: Options, plan: SkillPlan): void {
    const parts = [plan.main, ...Object.values(plan.agents)];
    const plugins = sessionPlugins(parts, this.bundleDir);
    if (plugins.length === 0) return;
    o.plugins = plugins;
    // the main thread lists only its own skills (none for a coordinator: it briefs workers instead)
    o.skills = plan.main.skills.map(qualified);
    const allowed = new Set([...(o.allowedTools ?? []), ...plan.main.tools]);
    if (o.agents) {
      const agents: Record<string, AgentDefinition> = {};
      for (const [type, def] of Object.entries(o.agents)) {
        const extra = plan.agents[type]?.tools ?? [];
        // a subagent calls a plugin's MCP tools only when its tools name them AND the parent pre-approves them
        for (const t of extra) if (t !== 'Skill') allowed.add(t);
        agents[type] = extra.length && def.tools ? { ...def, tools: [...new Set([...def.tools, ...extra])] } : def;
      }
      o.agents = agents;
      const brief = skillsBriefing(plan.agents);
      const sp = o.systemPrompt;
      if (brief && sp && typeof sp === 'object' && !Array.isArray(sp) && sp.type === 'preset') {
        o.systemPrompt = { ...sp, append: [sp.append, brief].filter(Boolean).join('\n\n') };
      }
    }
    o.allowedTools = [...allowed];
  }

  hooks(plan: SkillPlan): Hooks | undefined {
    const any = plan.main.skills.length > 0 || Object.values(plan.agents).some((a) => a.skills.length > 0);
    if (!any && this.empty) return undefined;
    const mcp = (r: RoleSkills) => r.tools.filter((t) => t !== 'Skill');
    return {
      PreToolUse: skillGuard({
        main: plan.main.skills,
        agents: Object.fromEntries(Object.entries(plan.agents).map(([k, v]) => [k, v.skills])),
        mainTools: mcp(plan.main),
        agentTools: Object.fromEntries(Object.entries(plan.agents).map(([k, v]) => [k, mcp(v)])),
      }),
    };
  }

  /** One line per source for `-v` and `flower status`. */
  describe(): string[] {
    const d = this.discovery;
    const lines = d.skills.map((s) => `skill ${s.name} (${s.source}, ${s.hash}): ${s.description}`);
    for (const p of d.plugins) {
      lines.push(
        `plugin ${p.name} (${p.dir})${p.skills.length ? ` · skills ${p.skills.map((s) => s.name).join(', ')}` : ''}${p.mcpServers.length ? ` · MCP ${p.mcpServers.join(', ')}` : ''}`,
      );
    }
    return lines;
  }
}
