/**
 * Which skills and plugins one role gets — pure, over a Discovery.
 *
 * Measured on binary 2.1.332 (bare `query()`, scripted model):
 * - a plugin's skill is `<plugin>:<name>`; the Skill tool also resolves the bare `<name>`;
 * - the listing reaches the main thread as a system reminder, filtered by the `skills` option; a
 *   subagent gets the Skill tool and the WHOLE session's listing only when its `tools` include `Skill`
 *   (no per-subagent filter exists), so a worker's narrower selection is enforced by a hook on the
 *   Skill call, not by the listing;
 * - a plugin's `.mcp.json` server gives tools `mcp__plugin_<plugin>_<server>__<tool>`, and the
 *   server-level name `mcp__plugin_<plugin>_<server>` works both in a subagent's `tools` and in
 *   `allowedTools` — which is how a role that declares a plugin gets its tools and no other role does.
 */
import { ConfigError } from '../errors.js';
import { BUNDLE_PLUGIN, type Discovery, type PluginInfo, type SkillInfo } from './discover.js';

/** `'all'` = every project and personal skill; a list names skills (`name` or `plugin:name`); `[]` = none. */
export type SkillSelection = 'all' | readonly string[];

export interface RoleSkillsInput {
  skills?: SkillSelection | undefined;
  plugins?: readonly string[] | undefined;
}

export interface RoleSkills {
  skills: SkillInfo[];
  plugins: PluginInfo[];
  /** tool names to allow: `Skill` when any skill is on, plus each declared plugin's MCP servers */
  tools: string[];
  /** what a manifest row records */
  record: Array<{ name: string; hash: string }>;
}

export const qualified = (s: SkillInfo): string => `${s.plugin}:${s.name}`;

/** The server-level tool name of a plugin's MCP server. */
export const pluginServerTool = (plugin: string, server: string): string => `mcp__plugin_${plugin}_${server}`;

/** Resolve a role's selection against what was discovered; a name that matches nothing is the author's mistake. */
export function selectFor(d: Discovery, sel: RoleSkillsInput, who: string): RoleSkills {
  const plugins: PluginInfo[] = [];
  for (const name of sel.plugins ?? []) {
    const p = d.plugins.find((x) => x.name === name || x.dir === name);
    if (!p) {
      const known = d.plugins.map((x) => x.name).join(', ') || 'none (give one with --plugin DIR or FLOWER_PLUGINS)';
      throw new ConfigError('unknown-plugin', `${who} declares plugin '${name}', which is not loaded; loaded plugins: ${known}.`);
    }
    if (!plugins.includes(p)) plugins.push(p);
  }
  const pool = [...d.skills, ...plugins.flatMap((p) => p.skills)];
  let skills: SkillInfo[];
  const s = sel.skills ?? [];
  if (s === 'all') {
    skills = pool;
  } else {
    skills = [];
    for (const want of s) {
      const hit = pool.filter((x) => qualified(x) === want || x.name === want);
      if (hit.length === 0) {
        const known = pool.map(qualified).join(', ') || 'none';
        throw new ConfigError('unknown-skill', `${who} asks for skill '${want}', which was not found; available: ${known}.`);
      }
      if (hit.length > 1) {
        throw new ConfigError(
          'ambiguous-skill',
          `${who} asks for skill '${want}', which several plugins define (${hit.map(qualified).join(', ')}); name it as plugin:skill.`,
        );
      }
      if (!skills.includes(hit[0]!)) skills.push(hit[0]!);
    }
  }
  const tools = [...(skills.length ? ['Skill'] : []), ...plugins.flatMap((p) => p.mcpServers.map((srv) => pluginServerTool(p.name, srv)))];
  return { skills, plugins, tools, record: skills.map((x) => ({ name: qualified(x), hash: x.hash })) };
}

/** May a role with these skills load `requested` (the Skill tool's `skill` input)? */
export function skillAllowed(allowed: readonly SkillInfo[], requested: string): boolean {
  const r = requested.trim().replace(/^\//, '');
  return allowed.some((s) => qualified(s) === r || s.name === r);
}

/** The plugin folders the SDK must load for a session whose roles (main thread and workers) use these. */
export function sessionPlugins(parts: readonly RoleSkills[], bundleDir: string | null): Array<{ type: 'local'; path: string }> {
  const out: Array<{ type: 'local'; path: string }> = [];
  const bundled = parts.some((p) => p.skills.some((s) => s.plugin === BUNDLE_PLUGIN));
  if (bundled && bundleDir) out.push({ type: 'local', path: bundleDir });
  const seen = new Set<string>();
  for (const p of parts.flatMap((x) => x.plugins)) {
    if (seen.has(p.dir)) continue;
    seen.add(p.dir);
    out.push({ type: 'local', path: p.loadDir ?? p.dir });
  }
  return out;
}

/** The lines a coordinator reads so it can brief its workers ("use the deploy-checklist skill"). */
export function skillsBriefing(byWorker: Record<string, RoleSkills>): string {
  const lines: string[] = [];
  for (const [worker, rs] of Object.entries(byWorker)) {
    for (const s of rs.skills) lines.push(`- ${s.name} (${worker}): ${s.description}`);
  }
  return lines.length ? `Skills your workers can load with the Skill tool (name them in a worker's brief when they apply):\n${lines.join('\n')}` : '';
}
