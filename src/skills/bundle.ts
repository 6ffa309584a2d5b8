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
  fs.writeFileSync(path.join(root, '.claude-plugin', 'plugin.json'), JSON.stringify({
    name: BUNDLE_PLUGIN,
    description: 'Project and personal skills, assembled by flower',
  }, null, 2) + '\n');
  for (const s of skills) {
    // the folder is named after the skill's own `name`, so the binary and flower agree on it
    fs.cpSync(s.dir, path.join(root, 'skills', s.name), { recursive: true, dereference: true });
  }
  return root;
}
