// Store keys: how a SessionKey maps to one `store_key` string, and how a cwd maps to
// the SDK's projectKey. The projectKey MUST match what the SDK computes byte for byte:
// lineage's `hasSession` looks up keys the SDK chose, and a mismatch makes every session
// look unknown (a resume would then silently start over).
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { SessionKey } from '@anthropic-ai/claude-agent-sdk';
import { StoreError } from '../errors.js';

/** Longest sanitized projectKey before the SDK truncates it and appends a hash. */
export const PROJECT_KEY_MAX = 200;

/** Thrown for a key that cannot be stored unambiguously (either backend). */
export class StoreKeyError extends StoreError {
  constructor(message: string) {
    super('store-bad-key', message);
  }
}

/**
 * Same 32-bit string hash as the SDK's (sdk.mjs 0.3.332: `t=(t<<5)-t+c|0`, i.e. h*31+c;
 * the SDK docs call it djb2). Kept bit-identical on purpose.
 */
function sdkHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = ((h << 5) - h + s.charCodeAt(i)) | 0;
  return h;
}

/** The SDK's sanitizer: every non-alphanumeric UTF-16 unit becomes '-', long keys get a hash. */
export function sanitizeProjectPath(absPath: string): string {
  const s = absPath.replace(/[^a-zA-Z0-9]/g, '-');
  if (s.length <= PROJECT_KEY_MAX) return s;
  return `${s.slice(0, PROJECT_KEY_MAX)}-${Math.abs(sdkHash(absPath)).toString(36)}`;
}

// The SDK accepts CLAUDE_CODE_PROJECT_DIR_NAME as a literal project dir name, but only when
// it is a safe single path segment and not a reserved Windows device name.
const DIR_NAME_OK = /^[A-Za-z0-9_-]{1,64}$/;
const DIR_NAME_RESERVED = /^(?:con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

/**
 * The projectKey the SDK uses for a query run with `options.cwd = cwd` and `options.env = env`
 * (sdk.mjs `Dn`): realpath of the resolved cwd (falling back to the resolved path when it does
 * not exist), NFC on macOS, then sanitized. When `env.CLAUDE_CONFIG_DIR` is set, a valid
 * `env.CLAUDE_CODE_PROJECT_DIR_NAME` overrides the whole key, as in the SDK.
 * Without `env`, the parent's process.env decides the override, as the SDK does.
 */
export function projectKeyFor(cwd: string, env?: Record<string, string | undefined>): string {
  const resolved = resolve(cwd);
  let abs: string;
  try {
    abs = realpathSync(resolved);
  } catch {
    abs = resolved;
  }
  if (process.platform === 'darwin') abs = abs.normalize('NFC');
  const e = env ?? process.env;
  if (e.CLAUDE_CONFIG_DIR) {
    const name = e.CLAUDE_CODE_PROJECT_DIR_NAME;
    if (name && DIR_NAME_OK.test(name) && !DIR_NAME_RESERVED.test(name)) return name;
  }
  return sanitizeProjectPath(abs);
}

/** Throws StoreKeyError unless `v` can be one part of a store_key (non-empty, no '/'). */
export function assertKeySegment(what: 'projectKey' | 'sessionId', v: string): void {
  if (v.length === 0) throw new StoreKeyError(`${what} is empty`);
  // '/' separates the parts of a store_key; allowing it here would make
  // `a/b` + `c` and `a` + `b/c` the same key.
  if (v.includes('/')) throw new StoreKeyError(`${what} ${JSON.stringify(v)} contains '/'`);
}

/** `projectKey/sessionId[/subpath]`. Rejects keys that would be ambiguous. */
export function storeKeyOf(key: SessionKey): string {
  assertKeySegment('projectKey', key.projectKey);
  assertKeySegment('sessionId', key.sessionId);
  const main = `${key.projectKey}/${key.sessionId}`;
  if (key.subpath === undefined) return main;
  if (key.subpath.length === 0) {
    throw new StoreKeyError('subpath is the empty string; omit it for the main transcript');
  }
  return `${main}/${key.subpath}`;
}

/** Inverse of storeKeyOf. `subpath` is absent for a main transcript. */
export function parseStoreKey(storeKey: string): SessionKey {
  const a = storeKey.indexOf('/');
  const b = a < 0 ? -1 : storeKey.indexOf('/', a + 1);
  if (a <= 0 || b === a + 1) throw new StoreKeyError(`malformed store_key ${JSON.stringify(storeKey)}`);
  if (b < 0) return { projectKey: storeKey.slice(0, a), sessionId: storeKey.slice(a + 1) };
  return { projectKey: storeKey.slice(0, a), sessionId: storeKey.slice(a + 1, b), subpath: storeKey.slice(b + 1) };
}

/**
 * Bounds [lo, hi) that select every store_key starting with `prefix + '/'` through the primary-key
 * index: '0' is the code point right after '/', so `prefix + '0'` is the first key past the range.
 * (LIKE would need escaping of '_' and '%', and does not use the index with the default collation.)
 */
export function childRange(prefix: string): [string, string] {
  return [`${prefix}/`, `${prefix}0`];
}
