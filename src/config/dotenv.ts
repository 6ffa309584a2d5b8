/**
 * The credential chain. Every existing source is read; the first source that defines a key wins,
 * per key: process env → $FLOWER_ENV → ./.env → ${XDG_CONFIG_HOME:-~/.config}/flower/.env.
 * The host's ~/.claude is never read (portability contract): what flower runs on is what it was given.
 *
 * A `.env` file sets flower's own settings and nothing else (FILE_KEYS): a project's `.env` is usually the
 * app's (DATABASE_URL, …), and an audit on binary 2.1.332 showed a planted `./.env` steering the next run
 * outside the sandbox — `BASH_ENV` and `LD_PRELOAD` ran in the `claude` process with the key, and a planted
 * `ANTHROPIC_BASE_URL` received the key from `~/.config/flower/.env`. So every other name in a file is
 * ignored (listed in `ignored`), and each key remembers the file it came from (`from`), so a base URL from a
 * file an agent can write never meets a credential from elsewhere (runtime/floor.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../errors.js';
import type { EnvMap } from './env.js';
import { detectLang } from './lang.js';

/** `KEY=VAL` per line, `#` comments, optional `export `, surrounding quotes stripped. Pure. */
export function parseDotenv(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    let v = m[2]!;
    const q = v[0];
    if ((q === '"' || q === "'") && v.length >= 2 && v.endsWith(q)) v = v.slice(1, -1);
    else v = v.replace(/\s+#.*$/, '');
    out[m[1]!] = v;
  }
  return out;
}

export function configHome(env: EnvMap = process.env): string {
  const xdg = env.XDG_CONFIG_HOME;
  return path.join(xdg?.trim() ? xdg : path.join(env.HOME || os.homedir(), '.config'), 'flower');
}

export function envFiles(env: EnvMap = process.env, cwd = process.cwd()): string[] {
  const files: string[] = [];
  if (env.FLOWER_ENV) files.push(path.resolve(cwd, env.FLOWER_ENV));
  files.push(path.join(cwd, '.env'));
  files.push(path.join(configHome(env), '.env'));
  return [...new Set(files)];
}

export interface ResolvedEnv {
  /** process env overlaid on the files' values (process env wins per key) */
  env: Record<string, string>;
  /** files that existed and were read, in priority order */
  read: string[];
  /** every file looked in */
  lookedIn: string[];
  /** the file each key came from (keys of the process environment are absent) */
  from: Record<string, string>;
  /** names a file set that are not flower's settings, per file: ignored */
  ignored: Array<{ file: string; names: string[] }>;
}

export const CREDENTIAL_KEYS = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'] as const;

/** What a `.env` file may set: the credential, the endpoint, model names, the API timeout, and flower's own settings. */
export const FILE_KEYS: ReadonlySet<string> = new Set([
  ...CREDENTIAL_KEYS,
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_MODEL',
  'ANTHROPIC_DEFAULT_OPUS_MODEL',
  'ANTHROPIC_DEFAULT_SONNET_MODEL',
  'ANTHROPIC_DEFAULT_HAIKU_MODEL',
  'ANTHROPIC_SMALL_FAST_MODEL',
  'CLAUDE_CODE_SUBAGENT_MODEL',
  'API_TIMEOUT_MS',
  'FLOWER_STORE',
  'FLOWER_PROJECT',
  'FLOWER_WINDOW',
  'FLOWER_PLUGINS',
  'FLOWER_LANG',
  'FLOWER_DEBUG',
  'FLOWER_CLI_RETRIES',
  'FLOWER_NO_PROBE',
  'FLOWER_WATCHDOG',
  'FLOWER_PROBE_TIMEOUT',
  'FLOWER_PROBE_INTERVAL',
  'FLOWER_MAX_OFFLINE_WAIT',
  'FLOWER_MAX_DELAY',
  'FLOWER_MAX_ATTEMPTS',
  'FLOWER_BASE_DELAY',
  'FLOWER_LINE_MODE',
  'FLOWER_NOTIFY',
  'FLOWER_NOTIFY_CMD',
  'FLOWER_NO_BEQUEST',
  'FLOWER_NO_UPDATE',
]);

export function resolveEnv(env: EnvMap = process.env, cwd = process.cwd()): ResolvedEnv {
  const lookedIn = envFiles(env, cwd);
  const read: string[] = [];
  const merged: Record<string, string> = {};
  const from: Record<string, string> = {};
  const ignored: ResolvedEnv['ignored'] = [];
  for (const file of lookedIn) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    read.push(file);
    const skipped: string[] = [];
    for (const [k, v] of Object.entries(parseDotenv(text))) {
      if (!FILE_KEYS.has(k)) {
        skipped.push(k);
        continue;
      }
      if (!(k in merged)) {
        merged[k] = v;
        from[k] = file;
      }
    }
    if (skipped.length) ignored.push({ file, names: skipped });
  }
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) continue;
    merged[k] = v;
    delete from[k];
  }
  return { env: merged, read, lookedIn, from, ignored };
}

export function hasCredentials(resolved: ResolvedEnv): boolean {
  return CREDENTIAL_KEYS.some((k) => (resolved.env[k] ?? '').trim() !== '');
}

/** Throws a ConfigError naming the variables and every file looked in when no credential is set. */
export function requireCredentials(resolved: ResolvedEnv): void {
  if (hasCredentials(resolved)) return;
  // the language of the person reading it (FLOWER_LANG or the locale, as the rest of the terminal)
  if (detectLang(resolved.env) === 'zh') {
    throw new ConfigError(
      'no-credentials',
      `没有凭据:在环境变量里设 ANTHROPIC_API_KEY(网关 token 用 ANTHROPIC_AUTH_TOKEN),` +
        `或写进这些文件之一(KEY=VALUE 每行一个):${resolved.lookedIn.join(', ')}。` +
        `运行 \`flower setup\` 存一个(0600),或者先不用 key 试试:\`flower demo\`。`,
    );
  }
  throw new ConfigError(
    'no-credentials',
    `No credentials: set ANTHROPIC_API_KEY (or ANTHROPIC_AUTH_TOKEN for a gateway token) in the environment, ` +
      `or in one of these files (KEY=VALUE lines): ${resolved.lookedIn.join(', ')}. ` +
      `Run \`flower setup\` to store one (0600), or try flower without a key: \`flower demo\`.`,
  );
}

/** Mask a secret for display: the first 4 characters and the length, never the rest. */
export function maskSecret(v: string | undefined): string {
  if (!v) return '(unset)';
  return `${v.slice(0, 4)}… (${v.length} chars)`;
}
