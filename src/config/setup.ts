/**
 * Writing credentials: `${XDG_CONFIG_HOME:-~/.config}/flower/.env`, mode 0600, atomically. Keys flower
 * does not manage are kept (nothing lost); the secret is never echoed back in full.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../state/index.js';
import { configHome, maskSecret, parseDotenv } from './dotenv.js';
import type { EnvMap } from './env.js';

export interface SetupAnswers {
  /** an `sk-ant-…` key is stored as ANTHROPIC_API_KEY, anything else as ANTHROPIC_AUTH_TOKEN (a gateway token) */
  token: string;
  /** blank = the official API */
  baseUrl?: string;
  /** blank = the default model; else written to ANTHROPIC_MODEL and the OPUS / SONNET defaults, with its FLOWER_WINDOW */
  model?: string;
}

/**
 * The context window of a model a person picked, when the name tells it: a `1m` token (`[1m]`, the
 * client-side marker that turns on the 1M window) → 1M; any other Claude name (opus / sonnet / haiku /
 * claude) → 200k, the window the API serves without that marker. Any other name (a gateway's own
 * model) → undefined: nothing is written, and the runtime's guess and calibration decide (runtime/window.ts). Pure.
 */
export function windowForModel(model: string): number | undefined {
  const m = model.trim().toLowerCase();
  if (!m) return undefined;
  if (/(?<![a-z0-9])1m(?![a-z0-9])/.test(m)) return 1_000_000;
  if (/claude|opus|sonnet|haiku/.test(m)) return 200_000;
  return undefined;
}

const MANAGED = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_MODEL',
  'ANTHROPIC_DEFAULT_OPUS_MODEL',
  'ANTHROPIC_DEFAULT_SONNET_MODEL',
];
/** Managed only when a model is picked: a blank model keeps the person's own FLOWER_WINDOW. */
const MODEL_MANAGED = ['FLOWER_WINDOW'];

/** The new file's values: pure, so the rules are tested as a table. */
export function credentialValues(a: SetupAnswers, existing: Record<string, string> = {}): Record<string, string> {
  const token = a.token.trim();
  if (!token) throw new Error('a token is required');
  const out: Record<string, string> = {};
  const model = (a.model ?? '').trim();
  for (const [k, v] of Object.entries(existing)) if (!MANAGED.includes(k) && !(model && MODEL_MANAGED.includes(k))) out[k] = v;
  out[token.startsWith('sk-ant-') ? 'ANTHROPIC_API_KEY' : 'ANTHROPIC_AUTH_TOKEN'] = token;
  const problem = baseUrlProblem(a.baseUrl ?? '');
  if (problem) throw new Error(`ANTHROPIC_BASE_URL: ${problem}`);
  const base = (a.baseUrl ?? '').trim().replace(/\/+$/, '').replace(/\/v1$/, '');
  if (base) out.ANTHROPIC_BASE_URL = base;
  if (model) {
    out.ANTHROPIC_MODEL = model;
    out.ANTHROPIC_DEFAULT_OPUS_MODEL = model;
    out.ANTHROPIC_DEFAULT_SONNET_MODEL = model;
    const window = windowForModel(model);
    if (window !== undefined) out.FLOWER_WINDOW = String(window);
  }
  return out;
}

/**
 * Why `raw` cannot be ANTHROPIC_BASE_URL, or null when it can (blank = the official API). Only an
 * absolute http(s) URL with a host: "not a url" once went into the file and broke every later run. Pure.
 */
export function baseUrlProblem(raw: string): string | null {
  const v = raw.trim();
  if (!v) return null;
  if (/\s/.test(v)) return 'a URL has no spaces';
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return 'not a URL (expected e.g. https://gateway.example.com)';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return `only http:// and https:// URLs are accepted, not ${u.protocol}//`;
  if (!u.hostname) return 'the URL has no host';
  if (u.search || u.hash) return 'the gateway root takes no ?query or #fragment';
  return null;
}

/** The credential already stored in the file (key name and masked value), or null when there is none. */
export function storedCredential(env: EnvMap = process.env): { key: string; masked: string; path: string } | null {
  const file = credentialsFile(env);
  let values: Record<string, string>;
  try {
    values = parseDotenv(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
  for (const key of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN']) {
    if ((values[key] ?? '').trim()) return { key, masked: maskSecret(values[key]), path: file };
  }
  return null;
}

export function credentialsFile(env: EnvMap = process.env): string {
  return path.join(configHome(env), '.env');
}

/** Write the file (0600) and return its path and a masked summary. */
export function writeCredentials(a: SetupAnswers, env: EnvMap = process.env): { path: string; summary: string } {
  const file = credentialsFile(env);
  let existing: Record<string, string> = {};
  let before: string | undefined;
  try {
    before = fs.readFileSync(file, 'utf8');
    existing = parseDotenv(before);
  } catch {
    /* no file yet */
  }
  const values = credentialValues(a, existing);
  const body = [
    '# flower credentials — written by `flower setup`; KEY=VALUE lines, this file is private (0600)',
    ...Object.entries(values).map(([k, v]) => `${k}=${JSON.stringify(v)}`),
    '',
  ].join('\n');
  // the previous file (its comments, lines we could not parse) is kept, private too
  if (before !== undefined && before !== body) writeFileAtomic(`${file}.previous`, before, 0o600);
  writeFileAtomic(file, body, 0o600);
  fs.chmodSync(file, 0o600);
  const secretKey = values.ANTHROPIC_API_KEY ? 'ANTHROPIC_API_KEY' : 'ANTHROPIC_AUTH_TOKEN';
  const summary = `${secretKey} ${maskSecret(values[secretKey])}${values.ANTHROPIC_BASE_URL ? ` · ANTHROPIC_BASE_URL ${values.ANTHROPIC_BASE_URL}` : ''}${values.ANTHROPIC_MODEL ? ` · model ${values.ANTHROPIC_MODEL}` : ''}${values.FLOWER_WINDOW ? ` · FLOWER_WINDOW ${values.FLOWER_WINDOW}` : ''}`;
  return { path: file, summary };
}
