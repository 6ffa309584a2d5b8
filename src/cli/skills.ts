/**
 * `flower skills` — the skills and plugins a run here would load (and what is wrong with any of them);
 * `flower skills new NAME` — start a project skill from a template in `.flower/skills/NAME/SKILL.md`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { configHome } from '../config/dotenv.js';
import { RunLayout } from '../state/index.js';
import { discover, pluginDirsFromEnv, type Discovery } from '../skills/discover.js';
import { badSkillName, skillTemplate } from '../skills/skill.js';
import { CliExit, EXIT, type CliIO } from './io.js';
import type { GlobalOptions } from './globals.js';

/** The same sources a Runtime looks in, without needing credentials. */
export function discoverFor(g: GlobalOptions, io: CliIO): Discovery {
  const cwd = io.cwd ?? process.cwd();
  const ws = path.resolve(cwd, g.workspace);
  return discover({
    projectDir: projectSkillsDir(ws),
    userDir: path.join(configHome(io.env), 'skills'),
    pluginDirs: [...(g.plugins ?? []).map((p) => path.resolve(cwd, p)), ...pluginDirsFromEnv(io.env.FLOWER_PLUGINS)],
  });
}

/** `--plugin` folders, resolved against the current directory (the Runtime adds FLOWER_PLUGINS itself). */
export function resolvePlugins(g: GlobalOptions, cwd: string): string[] {
  return (g.plugins ?? []).map((p) => path.resolve(cwd, p));
}

export const projectSkillsDir = (workspace: string): string => RunLayout.of({ workspace }).projectSkills;

export async function skillsList(g: GlobalOptions, io: CliIO): Promise<number> {
  const d = discoverFor(g, io);
  if (g.json) {
    io.stdout.write(
      `${JSON.stringify({
        skills: d.skills.map((s) => ({ name: s.name, source: s.source, plugin: s.plugin, hash: s.hash, description: s.description, dir: s.dir })),
        plugins: d.plugins.map((p) => ({ name: p.name, dir: p.dir, skills: p.skills.map((s) => s.name), mcp_servers: p.mcpServers })),
        warnings: d.warnings,
      })}\n`,
    );
    return EXIT.ok;
  }
  const out: string[] = [];
  if (d.skills.length === 0 && d.plugins.length === 0) out.push('no skills or plugins: `flower skills new NAME` starts one in .flower/skills/');
  for (const s of d.skills) out.push(`${s.name}  (${s.source}, ${s.hash})  ${s.description}`);
  for (const p of d.plugins) {
    out.push(`plugin ${p.name}  ${p.dir}`);
    for (const s of p.skills) out.push(`  ${p.name}:${s.name}  (${s.hash})  ${s.description}`);
    for (const m of p.mcpServers) out.push(`  MCP server ${m}: tools mcp__plugin_${p.name}_${m}__*`);
  }
  io.stdout.write(out.map((l) => `${l}\n`).join(''));
  for (const w of d.warnings) io.stderr.write(`! ${w}\n`);
  return EXIT.ok;
}

export async function skillsNew(name: string, g: GlobalOptions, io: CliIO): Promise<number> {
  const bad = badSkillName(name);
  if (bad) throw new CliExit(EXIT.usage, `x ${bad}`);
  const cwd = io.cwd ?? process.cwd();
  const dir = path.join(projectSkillsDir(path.resolve(cwd, g.workspace)), name);
  const file = path.join(dir, 'SKILL.md');
  if (fs.existsSync(file)) throw new CliExit(EXIT.failure, `x ${file} already exists; edit it, or choose another name`);
  fs.mkdirSync(dir, { recursive: true });
  // 'wx': never replace a file that appeared since the check
  fs.writeFileSync(file, skillTemplate(name), { flag: 'wx' });
  if (g.json) io.stdout.write(`${JSON.stringify({ created: file })}\n`);
  else io.stdout.write(`+ ${file}\n  Describe WHEN to use it in \`description:\`, then what to do in the body. Workers get project skills by default.\n`);
  return EXIT.ok;
}
