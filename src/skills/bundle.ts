/**
 * The plugin flower builds for the binary from project and personal skills: `<into>/flower/` with a
 * manifest and `skills/<name>/` copies. Copies, not links: the folder is private to this process (it
 * lives in the private config dir and goes with it), and a skill edited during a run must not change
 * under a running agent — the hash recorded in the manifest row is of what the agents got.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BUNDLE_PLUGIN, type SkillInfo } from './discover.js';

export function buildBundle(skills: readonly SkillInfo[], into: string): string | null {
  if (skills.length === 0) return null;
  const root = path.join(into, BUNDLE_PLUGIN);
  fs.rmSync(root, { recursive: true, force: true });
  fs.mkdirSync(path.join(root, '.claude-plugin'), { recursive: true, mode: 0o700 });
  fs.writeFileSync(
    path.join(root, '.claude-plugin', 'plugin.json'),
    JSON.stringify(
      {
        name: BUNDLE_PLUGIN,
        description: 'Project and personal skills, assembled by flower',
      },
      null,
      2,
    ) + '\n',
  );
  for (const s of skills) {
    // the folder is named after the skill's own `name`, so the binary and flower agree on it
    fs.cpSync(s.dir, path.join(root, 'skills', s.name), { recursive: true, dereference: true });
  }
  return root;
}

/**
 * A plugin's stdio MCP servers are started by the binary with the binary's own environment — the key
 * included, sandbox or not (measured on 2.1.332). So a plugin that declares servers is loaded through a
 * shadow folder: the same name (its plugin.json, or a folder of the same basename), its `.mcp.json`
 * rewritten so each stdio server starts through `env -u NAME … --`, and every other entry a symlink to
 * the original (skills, agents, scripts: `${CLAUDE_PLUGIN_ROOT}/…` still finds them). A plugin without
 * servers, or a run without secrets, loads from its own folder.
 */
export function shadowPlugin(
  dir: string,
  into: string,
  secretVars: readonly string[],
  wrap: (server: Record<string, unknown>) => Record<string, unknown>,
): string {
  const mcp = path.join(dir, '.mcp.json');
  if (!secretVars.length || !fs.existsSync(mcp)) return dir;
  let parsed: Record<string, unknown>;
  try {
    parsed = JSON.parse(fs.readFileSync(mcp, 'utf8')) as Record<string, unknown>;
  } catch {
    return dir; // discovery already warned; the binary reports it too
  }
  const nested = parsed.mcpServers && typeof parsed.mcpServers === 'object';
  const servers = (nested ? parsed.mcpServers : parsed) as Record<string, Record<string, unknown>>;
  const wrapped = Object.fromEntries(Object.entries(servers).map(([k, v]) => [k, v && typeof v === 'object' ? wrap(v) : v]));
  const root = path.join(fs.mkdtempSync(path.join(into, 'shadow-')), path.basename(path.resolve(dir)));
  fs.mkdirSync(root, { recursive: true, mode: 0o700 });
  for (const name of fs.readdirSync(dir)) {
    if (name === '.mcp.json') continue;
    fs.symlinkSync(path.join(path.resolve(dir), name), path.join(root, name));
  }
  fs.writeFileSync(path.join(root, '.mcp.json'), JSON.stringify(nested ? { ...parsed, mcpServers: wrapped } : wrapped, null, 2) + '\n', { mode: 0o600 });
  return root;
}
