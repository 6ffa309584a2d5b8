/**
 * The update notice: at most one registry check per 24 h, in the background, never blocking or failing a
 * run. The state is `${XDG_CONFIG_HOME:-~/.config}/flower/.update-check` (JSON `{ checked, latest }`, written
 * atomically before the request, so two runs started together check once); a file flower cannot parse is
 * kept aside. The registry is npm's (`FLOWER_UPDATE_REGISTRY` overrides it); the request gives up after 1.5 s.
 * Off with FLOWER_NO_UPDATE (any value), in CI (`CI` set) and when stdin or stderr is not a terminal.
 */
import path from 'node:path';
import { readJsonOrKeepAside, writeFileAtomic } from '../state/files.js';
import { configHome } from './dotenv.js';
import type { EnvMap } from './env.js';

export const UPDATE_INTERVAL_MS = 24 * 60 * 60 * 1000;
export const UPDATE_TIMEOUT_MS = 1500;
export const DEFAULT_REGISTRY = 'https://registry.npmjs.org';

interface UpdateState {
  /** when the last check started (ms since the epoch) */
  checked: number;
  latest?: string;
}

const isState = (v: unknown): v is UpdateState =>
  typeof v === 'object' && v !== null && typeof (v as UpdateState).checked === 'number' && Number.isFinite((v as UpdateState).checked);

export function updateStateFile(env: EnvMap): string {
  return path.join(configHome(env), '.update-check');
}

/** Whether to check at all (no I/O). */
export function updateWanted(env: EnvMap, terminal: boolean): boolean {
  if ((env.FLOWER_NO_UPDATE ?? '') !== '') return false;
  if ((env.CI ?? '') !== '') return false;
  return terminal;
}

/** `a` is a newer release than `b` (x.y.z, numeric; a pre-release is never offered). Pure. */
export function isNewer(a: string, b: string): boolean {
  const parse = (v: string) => (/^v?(\d+)\.(\d+)\.(\d+)$/.exec(v.trim()) ?? []).slice(1).map(Number);
  const x = parse(a);
  const y = parse(b);
  if (x.length !== 3 || y.length !== 3) return false;
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! > y[i]!;
  return false;
}

/**
 * Start the check when one is due; resolves to the newer version, or null (not due, off, failed, not
 * newer). Never throws, never takes longer than the timeout.
 */
export async function checkForUpdate(env: EnvMap, pkg: { name: string; version: string }, now = Date.now()): Promise<string | null> {
  try {
    const file = updateStateFile(env);
    const read = readJsonOrKeepAside(file, isState);
    if (read.state === 'ok' && now - read.value.checked < UPDATE_INTERVAL_MS && read.value.checked <= now) return null;
    writeFileAtomic(file, `${JSON.stringify({ checked: now })}\n`);
    const base = (env.FLOWER_UPDATE_REGISTRY ?? '').trim().replace(/\/+$/, '') || DEFAULT_REGISTRY;
    const res = await fetch(`${base}/${pkg.name.replace('/', '%2f')}/latest`, {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(UPDATE_TIMEOUT_MS),
    });
    if (!res.ok) return null;
    const latest = ((await res.json()) as { version?: unknown }).version;
    if (typeof latest !== 'string') return null;
    writeFileAtomic(file, `${JSON.stringify({ checked: now, latest })}\n`);
    return isNewer(latest, pkg.version) ? latest : null;
  } catch {
    return null;
  }
}
