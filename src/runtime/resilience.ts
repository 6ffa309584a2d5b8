// Resilience: what to wait out and what to stop on (continuity-workflow-ui §3.3).
// Everything here is pure except `reachable`, which does one DNS lookup and one TCP connect.

import { ConfigError } from '../errors.js';

/** Retry policy. All durations are seconds. */
export interface ResilienceOptions {
  /** Attempts in total, the first one included. */
  maxAttempts: number;
  baseDelay: number;
  maxDelay: number;
  probeTimeout: number;
  probeInterval: number;
  /** How long to wait for the network to come back before giving up. */
  maxOfflineWait: number;
  /** Retry errors that are neither known-fatal nor known-transient. */
  retryUnknown: boolean;
}

export const DEFAULT_RESILIENCE: Readonly<ResilienceOptions> = Object.freeze({
  maxAttempts: 6,
  baseDelay: 4,
  maxDelay: 120,
  probeTimeout: 5,
  probeInterval: 15,
  maxOfflineWait: 3600,
  retryUnknown: true,
});

/** The policy of `resilience: false`: one attempt, nothing retried (a value, so no caller tests for null). */
export const NO_RETRY: Readonly<ResilienceOptions> = Object.freeze({ ...DEFAULT_RESILIENCE, maxAttempts: 1 });

/**
 * Delay before retry number `attempt` (1-based): min(base·2^(attempt−1), max) with ±25 % jitter,
 * i.e. about 4 / 8 / 16 / 32 / 64 s with the defaults.
 */
export function backoff(
  attempt: number,
  opts: Pick<ResilienceOptions, 'baseDelay' | 'maxDelay'> = DEFAULT_RESILIENCE,
  random: () => number = Math.random,
): number {
  const n = Math.max(1, Math.floor(attempt));
  const raw = Math.min(opts.baseDelay * 2 ** (n - 1), opts.maxDelay);
  return raw * (0.75 + random() * 0.5);
}

export type ErrorClass = 'transient' | 'fatal' | 'unknown';

// HTTP codes must not match inside addresses: the binary's 500 text ends "(127.0.0.1:400)" when the
// gateway listens on port 400, and "fatal" there would stop a run that should have waited.
const code = (codes: string): RegExp => new RegExp(`(?<![.:\\d])\\b(?:${codes})\\b(?![.:]\\d)`);

// FATAL is tested first: 401 texts often say "connection", and testing transient first waits forever.
const FATAL: readonly RegExp[] = [
  code('400|401|403|404'),
  /invalid.?api.?key/i,
  /authenticat/i, // authentication, authentication_failed, authentication_error
  /unauthori[sz]ed/i,
  /permission denied|permission_error/i,
  /invalid_request/i,
  /credit balance/i,
  /quota exceeded/i,
  /budget/i,
  /max_turns/i,
  /CLINotFound|claude code (?:executable|native binary) not found/i,
  /not_found_error|model .{0,40}not found/i,
  /billing|organization (?:has been )?disabled/i,
];

const TRANSIENT: readonly RegExp[] = [
  /ENOTFOUND|EAI_AGAIN|ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|EHOSTUNREACH|ENETDOWN|ENETUNREACH|ECONNABORTED/,
  /socket hang up/i,
  /fetch failed/i,
  /network error/i,
  /connection (?:error|refused|dropped|lost|reset|closed)/i,
  /can'?t reach the API server/i,
  code('429|500|502|503|504|529'),
  /overloaded/i,
  /rate.?limit/i,
  /too many requests/i,
  /timeout|timed out/i,
  /temporarily unavailable|service unavailable/i,
  /internal server error|server-side issue/i,
  /empty or malformed response/i, // HTTP 200 with an empty stream: a proxy hiccup (docs/sdk-facts.md §3.1)
  /no data arrived/i,
];

/**
 * Sorts an error text into what to wait out (`transient`), what to stop on (`fatal`), and the rest.
 * Case-insensitive; empty text is `unknown`.
 */
export function classify(text: string | null | undefined): ErrorClass {
  const t = (text ?? '').trim();
  if (!t) return 'unknown';
  if (FATAL.some((r) => r.test(t))) return 'fatal';
  if (TRANSIENT.some((r) => r.test(t))) return 'transient';
  return 'unknown';
}

/** Whether an error of this class is worth another attempt under `opts`. */
export function shouldRetry(kind: ErrorClass, opts: Pick<ResilienceOptions, 'retryUnknown'> = DEFAULT_RESILIENCE): boolean {
  return kind === 'transient' || (kind === 'unknown' && opts.retryUnknown);
}

const OVERFLOW: readonly RegExp[] = [
  /prompt is too long/i,
  /context[ _-]?length[ _-]?exceeded/i,
  /maximum context length/i,
  /exceeds? (?:the )?context (?:window|limit)/i,
  /too many total text bytes/i,
  /input length and `?max_tokens`? exceed/i,
  // gateways that translate errors (handoff-context §6: recognise non-English overflow errors)
  /上下文.{0,8}(?:过长|超出|超过|超限)|超出.{0,8}上下文/,
];

/** True when the text says the conversation no longer fits the model's window (handoff route B). */
export function isOverflow(...texts: Array<string | null | undefined>): boolean {
  return texts.some((t) => !!t && OVERFLOW.some((r) => r.test(t)));
}

/** The real limit from "prompt is too long: 212345 tokens > 200000 maximum", when the API states it. */
export function overflowLimit(text: string | null | undefined): { used: number; limit: number } | undefined {
  const m = /(\d[\d,]*)\s*tokens?\s*>\s*(\d[\d,]*)\s*(?:tokens?\s*)?maximum/i.exec(text ?? '');
  if (!m) return undefined;
  return { used: Number(m[1]!.replace(/,/g, '')), limit: Number(m[2]!.replace(/,/g, '')) };
}

export interface Endpoint {
  host: string;
  port: number;
  url: string;
}

/**
 * Where the API lives, from ANTHROPIC_BASE_URL (default https://api.anthropic.com). Probing must follow
 * the gateway: api.anthropic.com being reachable proves nothing about a self-hosted gateway.
 */
export function endpoint(env: Record<string, string | undefined> = process.env): Endpoint {
  const raw = (env.ANTHROPIC_BASE_URL ?? '').trim() || 'https://api.anthropic.com';
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`;
  let u: URL;
  try {
    u = new URL(withScheme);
  } catch {
    throw new ConfigError('bad-base-url', `ANTHROPIC_BASE_URL is not a URL: ${JSON.stringify(raw)} (expected e.g. https://gateway.example:8443)`);
  }
  if (!u.hostname) throw new ConfigError('bad-base-url', `ANTHROPIC_BASE_URL has no host: ${JSON.stringify(raw)}`);
  const port = u.port ? Number(u.port) : u.protocol === 'http:' ? 80 : 443;
  const host = u.hostname.replace(/^\[(.*)\]$/, '$1');
  return { host, port, url: `${u.protocol}//${u.host}${u.pathname.replace(/\/$/, '')}` };
}

/**
 * One DNS lookup plus one TCP handshake, bounded by `timeoutSec` overall: no HTTP, no credentials, no
 * cost. Any failure means unreachable.
 */
export async function reachable(host: string, port: number, timeoutSec: number = DEFAULT_RESILIENCE.probeTimeout): Promise<boolean> {
  const deadline = Date.now() + Math.max(0, timeoutSec) * 1000;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, timeoutSec) * 1000);
  });
  const attempt = (async (): Promise<boolean> => {
    // loaded here, not with the module: every command reaches this file through the budget's failure
    // classes (src/cli/program.ts → runtime/limits → failure), and `flower status` never probes
    const [{ lookup }, { connect }] = await Promise.all([import('node:dns/promises'), import('node:net')]);
    const { address, family } = await lookup(host);
    const left = deadline - Date.now();
    if (left <= 0) return false;
    return await new Promise<boolean>((resolve) => {
      const sock = connect({ host: address, port, family });
      const done = (ok: boolean): void => {
        sock.destroy();
        resolve(ok);
      };
      sock.setTimeout(left, () => done(false));
      sock.once('connect', () => done(true));
      sock.once('error', () => done(false));
    });
  })().catch(() => false);
  try {
    return await Promise.race([attempt, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The prompt for resuming after a failed attempt. Deliberately free of error detail: the model needs
 * "you were cut off, carry on", not whether it was ENOTFOUND or a 503 (which it would start debugging).
 */
export const RESUME_PROMPT = Object.freeze({
  zh: '上一轮在中途被中断了，没有走完。先看看工作台和磁盘上已经写下的东西，从中断的地方接着做，不要从头开始。',
  en: 'The previous round was interrupted midway and did not finish. Look at what is already on disk and in the workbench, continue from where it was interrupted, and do not start over.',
});

const ENV_KEYS: ReadonlyArray<[keyof ResilienceOptions, string, 'count' | 'seconds' | 'positive']> = [
  ['maxAttempts', 'FLOWER_MAX_ATTEMPTS', 'count'],
  ['baseDelay', 'FLOWER_BASE_DELAY', 'seconds'],
  ['maxDelay', 'FLOWER_MAX_DELAY', 'seconds'],
  ['probeInterval', 'FLOWER_PROBE_INTERVAL', 'positive'],
  ['probeTimeout', 'FLOWER_PROBE_TIMEOUT', 'positive'],
  ['maxOfflineWait', 'FLOWER_MAX_OFFLINE_WAIT', 'seconds'],
];

/**
 * `base` with FLOWER_* overrides applied (seconds, floats allowed). Invalid values are ignored, not
 * fatal: a typo in a test knob must not stop a run. Attempts must be a whole number ≥ 1, a probe
 * interval/timeout must be > 0 (0 would spin), the others ≥ 0.
 */
export function resilienceFromEnv(
  env: Record<string, string | undefined> = process.env,
  base: Readonly<ResilienceOptions> = DEFAULT_RESILIENCE,
): ResilienceOptions {
  const out: ResilienceOptions = { ...base };
  for (const [key, name, kind] of ENV_KEYS) {
    const raw = env[name]?.trim();
    if (!raw) continue;
    const v = Number(raw);
    if (!Number.isFinite(v)) continue;
    if (kind === 'count' && (!Number.isInteger(v) || v < 1)) continue;
    if (kind === 'positive' && v <= 0) continue;
    if (kind === 'seconds' && v < 0) continue;
    (out as unknown as Record<string, number>)[key] = v;
  }
  return out;
}

/**
 * The retry policy as an object, as the seed names it: the defaults (6 attempts, 4 s base, 120 s cap,
 * 5 s probe every 15 s, up to an hour offline, unknown errors retried) plus the operations that use them.
 * @example
 * const r = new Resilience({ maxOfflineWait: 600 });
 * r.classify('API Error: 529 overloaded'); // 'transient'
 * await r.reachable(...Object.values(r.endpoint()).slice(0, 2) as [string, number]);
 */
export class Resilience implements ResilienceOptions {
  maxAttempts: number;
  baseDelay: number;
  maxDelay: number;
  probeTimeout: number;
  probeInterval: number;
  maxOfflineWait: number;
  retryUnknown: boolean;

  constructor(o: Partial<ResilienceOptions> = {}) {
    const v = { ...DEFAULT_RESILIENCE, ...o };
    this.maxAttempts = v.maxAttempts;
    this.baseDelay = v.baseDelay;
    this.maxDelay = v.maxDelay;
    this.probeTimeout = v.probeTimeout;
    this.probeInterval = v.probeInterval;
    this.maxOfflineWait = v.maxOfflineWait;
    this.retryUnknown = v.retryUnknown;
  }

  /** transient / fatal / unknown — fatal tested first (401 texts often say "connection"). */
  static classify(text: string | null | undefined): ErrorClass {
    return classify(text);
  }

  classify(text: string | null | undefined): ErrorClass {
    return classify(text);
  }

  /** Seconds to wait before retry number `attempt` (1-based), jittered ±25 %. */
  backoff(attempt: number, random: () => number = Math.random): number {
    return backoff(attempt, this, random);
  }

  shouldRetry(kind: ErrorClass): boolean {
    return shouldRetry(kind, this);
  }

  /** The host and port to probe: ANTHROPIC_BASE_URL's, else api.anthropic.com:443. */
  endpoint(env: Record<string, string | undefined> = process.env): Endpoint {
    return endpoint(env);
  }

  /** DNS + one TCP connect within `timeoutSec` (default this.probeTimeout); no HTTP, no cost. */
  reachable(host: string, port: number, timeoutSec: number = this.probeTimeout): Promise<boolean> {
    return reachable(host, port, timeoutSec);
  }

  /** The fixed prompt a resumed session gets after a failure: no error detail, on purpose. */
  resumePrompt(lang: 'zh' | 'en' = 'en'): string {
    return RESUME_PROMPT[lang];
  }
}
