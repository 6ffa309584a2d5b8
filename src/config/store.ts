/**
 * Where flower keeps what it remembers, and under which project name. Pure: decided from the resolved
 * environment (process env over the .env chain) and the `--store` flag, which wins.
 * - FLOWER_STORE / --store: unset (or `runs`) → SQLite and files in the run dir (the default);
 *   `postgres://user:password@host:port/database` → transcripts, lineage and manifest in PostgreSQL.
 * - FLOWER_PROJECT: the project's name; lineage and the wake count are keyed by it. Default: the
 *   absolute workspace path, so a copied or moved folder starts fresh; the same name on two hosts
 *   continues the same sessions.
 */
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { nodeCrypto } from '../state/crypto.js';

export type StoreSetting = { kind: 'files' } | { kind: 'postgres'; url: string; from: '--store' | 'FLOWER_STORE' };

const FILES = new Set(['', 'runs', 'files', 'sqlite']);

export function storeSetting(env: Record<string, string | undefined>, flag?: string): StoreSetting {
  const fromFlag = flag !== undefined && flag.trim() !== '';
  const raw = (fromFlag ? flag : (env.FLOWER_STORE ?? '')).trim();
  if (FILES.has(raw.toLowerCase())) return { kind: 'files' };
  if (/^postgres(?:ql)?:\/\//i.test(raw)) return { kind: 'postgres', url: raw, from: fromFlag ? '--store' : 'FLOWER_STORE' };
  const shown = raw.replace(/\/\/[^@/]*@/, '//***@');
  throw new ConfigError(
    'bad-store',
    `${fromFlag ? '--store' : 'FLOWER_STORE'} is "${shown}": use postgres://user:password@host:port/database, or leave it unset for the files in the run dir`,
  );
}

export interface ProjectIdentity {
  /** the key of lineage, wake count and manifest rows in a shared store */
  name: string;
  /** FLOWER_PROJECT was set (else the name is the absolute workspace path) */
  named: boolean;
}

export function projectIdentity(env: Record<string, string | undefined>, workspace: string): ProjectIdentity {
  const v = (env.FLOWER_PROJECT ?? '').trim();
  return v ? { name: v, named: true } : { name: path.resolve(workspace), named: false };
}

// The SDK accepts CLAUDE_CODE_PROJECT_DIR_NAME only when it is one safe path segment (and no device name).
const DIR_NAME_MAX = 64;

/**
 * The SDK project key for a named project (given to the child as CLAUDE_CODE_PROJECT_DIR_NAME): the
 * same on every host, whatever the workspace path, so a resume on host B finds host A's transcript.
 * `flower-` + the name with every other character as '-'; a hash is added when that changed or cut the
 * name, so two different names never share a key.
 */
export function projectDirName(name: string): string {
  const clean = `flower-${name.replace(/[^A-Za-z0-9_-]/g, '-')}`;
  if (clean === `flower-${name}` && clean.length <= DIR_NAME_MAX) return clean;
  const hash = nodeCrypto().createHash('sha256').update(name).digest('hex').slice(0, 10);
  return `${clean.slice(0, DIR_NAME_MAX - hash.length - 1)}-${hash}`;
}
