/**
 * Where skills and plugins come from — explicitly, and only from here:
 *
 * - project skills: `<workspace>/.flower/skills/<name>/SKILL.md` (versioned with the project);
 * - the person's own: `${XDG_CONFIG_HOME:-~/.config}/flower/skills/<name>/SKILL.md`;
 * - plugin folders named with `--plugin DIR` (repeatable) or `FLOWER_PLUGINS` (path-list).
 *
 * Never `.claude/` or `~/.claude`: a run must behave the same on every machine (contract 5). A broken
 * SKILL.md is skipped with one warning naming the file; the run goes on.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { SKILL_FILE, parseSkill } from './skill.js';
import { nodeCrypto } from '../state/crypto.js';

export type SkillSource = 'project' | 'user' | 'plugin';

export interface SkillInfo {
  name: string;
  description: string;
  source: SkillSource;
  /** the plugin the binary loads it from (flower's own bundle for project and user skills) */
  plugin: string;
  /** the folder holding SKILL.md */
  dir: string;
  /** sha256 of the folder's files (names and contents), 12 hex characters */
  hash: string;
}

export interface PluginInfo {
  /** `.claude-plugin/plugin.json` name, else the folder name */
  name: string;
  dir: string;
  /** the folder the binary loads (a shadow whose MCP servers start without the secrets), when not `dir` */
  loadDir?: string;
  skills: SkillInfo[];
  /** server names declared in its `.mcp.json` */
  mcpServers: string[];
}

export interface SkillSources {
  /** `<workspace>/.flower/skills` (or wherever the layout puts it) */
  projectDir?: string | undefined;
  /** `~/.config/flower/skills` */
  userDir?: string | undefined;
  /** plugin folders, in the order given */
  pluginDirs?: readonly string[];
}

export interface Discovery {
  /** project and user skills (project wins a name clash) — flower bundles these into one plugin */
  skills: SkillInfo[];
  plugins: PluginInfo[];
  warnings: string[];
}

/** The name of the plugin flower builds from project and user skills: skills are `flower:<name>`. */
export const BUNDLE_PLUGIN = 'flower';

/** Files bigger than this in a skill folder are not hashed byte by byte (their size and mtime are). */
const HASH_BYTES = 4 * 1024 * 1024;

/** sha256 over every file of a folder (sorted relative paths, then contents): what a manifest row records. */
export function folderHash(dir: string): string {
  const h = nodeCrypto().createHash('sha256');
  for (const rel of listFiles(dir)) {
    const abs = path.join(dir, rel);
    h.update(rel).update('\0');
    try {
      const st = fs.statSync(abs);
      if (st.size > HASH_BYTES) h.update(`size:${st.size}`);
      else h.update(fs.readFileSync(abs));
    } catch {
      h.update('unreadable');
    }
    h.update('\0');
  }
  return h.digest('hex').slice(0, 12);
}

function listFiles(dir: string, rel = ''): string[] {
  let names: fs.Dirent[];
  try {
    names = fs.readdirSync(path.join(dir, rel), { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const d of names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...listFiles(dir, r));
    else if (d.isFile()) out.push(r);
  }
  return out;
}

/** Every `<root>/<folder>/SKILL.md`, validated; broken ones become warnings. */
export function skillsIn(root: string, source: SkillSource, plugin: string, warnings: string[]): SkillInfo[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') warnings.push(`cannot read the skills folder ${root}: ${(e as Error).message}`);
    return [];
  }
  const out: SkillInfo[] = [];
  for (const d of entries.filter((x) => x.isDirectory()).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const dir = path.join(root, d.name);
    const file = path.join(dir, SKILL_FILE);
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      warnings.push(`skill folder ${dir} has no ${SKILL_FILE}; skipped`);
      continue;
    }
    const r = parseSkill(text);
    if (!r.ok) {
      warnings.push(`${file} ${r.reason}; skill skipped`);
      continue;
    }
    out.push({ name: r.head.name, description: r.head.description, source, plugin, dir, hash: folderHash(dir) });
  }
  return out;
}

/** A plugin folder's name: its manifest's `name` when it has one, else the folder name. */
export function pluginName(dir: string, warnings: string[] = []): string {
  const manifest = path.join(dir, '.claude-plugin', 'plugin.json');
  try {
    const v = JSON.parse(fs.readFileSync(manifest, 'utf8')) as { name?: unknown };
    if (typeof v.name === 'string' && v.name.trim()) return v.name.trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') warnings.push(`${manifest} is not valid JSON (${(e as Error).message}); using the folder name`);
  }
  return path.basename(path.resolve(dir));
}

function mcpServersOf(dir: string, warnings: string[]): string[] {
  const file = path.join(dir, '.mcp.json');
  try {
    const v = JSON.parse(fs.readFileSync(file, 'utf8')) as { mcpServers?: unknown };
    const servers = v && typeof v === 'object' && v.mcpServers && typeof v.mcpServers === 'object' ? v.mcpServers : v;
    return Object.keys(servers as object).filter((k) => k !== 'mcpServers');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') warnings.push(`${file} is not valid JSON (${(e as Error).message}); its servers are not loaded`);
    return [];
  }
}

/** Look in every source; a plugin folder that does not exist is the person's mistake and fails loudly. */
export function discover(src: SkillSources): Discovery {
  const warnings: string[] = [];
  const project = src.projectDir ? skillsIn(src.projectDir, 'project', BUNDLE_PLUGIN, warnings) : [];
  const user = src.userDir ? skillsIn(src.userDir, 'user', BUNDLE_PLUGIN, warnings) : [];
  const skills = [...project];
  for (const s of user) {
    const clash = project.find((p) => p.name === s.name);
    if (clash) warnings.push(`skill '${s.name}' exists in the project (${clash.dir}) and in ${s.dir}; the project's is used`);
    else skills.push(s);
  }
  const plugins: PluginInfo[] = [];
  for (const raw of src.pluginDirs ?? []) {
    const dir = path.resolve(raw);
    let st: fs.Stats;
    try {
      st = fs.statSync(dir);
    } catch {
      throw new ConfigError('bad-plugin', `--plugin ${raw}: no such folder (${dir}).`, { path: dir });
    }
    if (!st.isDirectory()) throw new ConfigError('bad-plugin', `--plugin ${raw}: ${dir} is not a folder.`, { path: dir });
    const name = pluginName(dir, warnings);
    if (name === BUNDLE_PLUGIN)
      throw new ConfigError(
        'bad-plugin',
        `--plugin ${raw}: the plugin name '${BUNDLE_PLUGIN}' is flower's own (project and personal skills); rename it in .claude-plugin/plugin.json.`,
        { path: dir },
      );
    if (plugins.some((p) => p.name === name))
      throw new ConfigError(
        'bad-plugin',
        `two plugins are named '${name}' (${plugins.find((p) => p.name === name)!.dir} and ${dir}); roles name plugins by that name, so it must be unique.`,
        { path: dir },
      );
    plugins.push({ name, dir, skills: skillsIn(path.join(dir, 'skills'), 'plugin', name, warnings), mcpServers: mcpServersOf(dir, warnings) });
  }
  return { skills, plugins, warnings };
}

/** `FLOWER_PLUGINS` is a path list (`:` on POSIX, `;` on Windows), empty entries ignored. */
export function pluginDirsFromEnv(value: string | undefined): string[] {
  return (value ?? '')
    .split(path.delimiter)
    .map((s) => s.trim())
    .filter(Boolean);
}
