/**
 * Which backend the settings name — the one decision, made here for every caller: src/store/open.ts
 * opens what it chose; the few callers that must not load the drivers (src/cli/early.ts runs before
 * the flow's modules load) or read with their own reader (src/cli/ui.ts) ask only this. Pure, and
 * light on purpose: it loads no database driver.
 */
// config/store.js, not the folder's index: that one brings the credential probe (node:net, node:dns) and the
// update check, which `flower status` never uses
import { projectDirName, projectIdentity, storeSetting } from '../config/store.js';
import type { RunLayout } from '../state/index.js';
import { projectKeyFor } from './keys.js';

/** Which backend the settings name, and the project's identity in it. Pure. */
export type StoreChoice = ({ backend: 'files' } | { backend: 'postgres'; url: string }) & {
  /** FLOWER_PROJECT, else the absolute workspace path */
  project: string;
  /** FLOWER_PROJECT was set: the SDK project key is the same on every host */
  named: boolean;
  /** the SDK project key the workspace's transcripts are under */
  projectKey: string;
};

/** The backend the settings choose (a bad FLOWER_STORE is a ConfigError here). */
export function chooseStore(env: Record<string, string | undefined>, layout: RunLayout): StoreChoice {
  const where = storeSetting(env);
  const id = projectIdentity(env, layout.workspace);
  // a named project has one SDK project key on every host, so host B's resume finds host A's transcript
  const who = { project: id.name, named: id.named, projectKey: id.named ? projectDirName(id.name) : projectKeyFor(layout.workspace) };
  return where.kind === 'postgres' ? { backend: 'postgres', url: where.url, ...who } : { backend: 'files', ...who };
}
