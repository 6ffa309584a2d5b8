/**
 * The context window and the handoff thresholds (handoff-context §1.1, §1.6).
 *
 * Window precedence, highest first: an explicit option (`--window`) > FLOWER_WINDOW > the
 * calibration file > a guess from the model name. The env given here is the RESOLVED one (process
 * env over the .env chain): the original built its policy before loading .env, so a value that
 * lived only in .env was silently ignored.
 *
 * Calibration (#23): a gateway named `claude-opus-5[1m]` served a 200K window, overflowed at ~174K and
 * every handoff degraded. A real overflow therefore records the context reached, keyed by endpoint and
 * model, keeping the minimum, so the next policy starts from the truth instead of the name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { configHome, type EnvMap } from '../config/index.js';
import { readJsonOrKeepAside, writeFileAtomic } from '../state/index.js';
import { overflowLimit } from './resilience.js';

export const LARGE_WINDOW = 1_000_000;
export const SMALL_WINDOW = 200_000;
/** The room left for writing the handoff: max(50k, 25 % of the window). A flat 50k on 1M left no room ("novel"). */
export const HEADROOM_FLOOR = 50_000;
export const HEADROOM_FRACTION = 0.25;
export const MIN_AT = 10_000;
export const WARN_GAP = 20_000;
export const MIN_WARN = 1_000;
export const MAX_GENERATIONS = 8;
/** Degraded handoffs in a row that stop a step ("novel": they kept repeating). */
export const MAX_DEGRADED_STREAK = 2;
/** About what a coordinator's first turn costs; a threshold below it retires session after session. */
export const STARTUP_FLOOR = 34_000;

export interface HandoffPolicy {
  enabled: boolean;
  /** the model's context window in tokens */
  window: number;
  /** tokens left for writing the handoff; 0 = computed (max(50k, 25 % of the window)) */
  headroom: number;
  /** sessions a step may retire before it stops */
  maxGenerations: number;
}

export interface Thresholds {
  room: number;
  /** hand off at this main-thread context */
  at: number;
  /** announce "near" at this one */
  warnAt: number;
}

/**
 * room = headroom if given, else max(50k, 25 % of the window) — but the 50k floor never takes more than
 * half the window. On a small window (the issue's `--window 60000`) the floor would put the threshold at
 * 10k, below a coordinator's ~34k start-up floor: every session would hand off at its first message,
 * eight times over. There 25 % applies (60k → hand off at 45k, warn at 25k). From 100k up the floor
 * holds as in the original (100k → 50k, 200k → 150k, 1M → 750k).
 */
export function thresholds(p: Pick<HandoffPolicy, 'window' | 'headroom'>): Thresholds {
  const quarter = Math.floor(p.window * HEADROOM_FRACTION);
  const floor = p.window - HEADROOM_FLOOR >= p.window / 2 ? HEADROOM_FLOOR : 0;
  const room = p.headroom > 0 ? p.headroom : Math.max(floor, quarter);
  const at = Math.max(MIN_AT, p.window - room);
  return { room, at, warnAt: Math.max(MIN_WARN, at - WARN_GAP) };
}

/** A positive integer, or undefined: a typo in FLOWER_WINDOW must not set a 0 or NaN window. */
export function positiveInt(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\s*\d+\s*$/.test(v) ? Number(v) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : undefined;
}

/** The model flower is configured for: ANTHROPIC_MODEL, else ANTHROPIC_DEFAULT_OPUS_MODEL ('' when neither). */
export function configuredModel(env: EnvMap): string {
  return (env.ANTHROPIC_MODEL ?? '').trim() || (env.ANTHROPIC_DEFAULT_OPUS_MODEL ?? '').trim();
}

/**
 * A window guessed from a model name. A standalone `1m` token is checked first (`claude-haiku[1m]` is
 * 1M); `haiku` is 200k; anything else, no name included, is 1M — the large guess, because guessing
 * 200k for a 1M gateway would hand off five times too often, and calibration catches the other way.
 */
export function guessWindow(model: string | undefined): number {
  const m = (model ?? '').toLowerCase();
  if (/(?<![a-z0-9])1m(?![a-z0-9])/.test(m)) return LARGE_WINDOW;
  if (m.includes('haiku')) return SMALL_WINDOW;
  return LARGE_WINDOW;
}

export function calibrationFile(env: EnvMap): string {
  return path.join(configHome(env), '.windows');
}

export function calibrationKey(env: EnvMap, model: string): string {
  return `${(env.ANTHROPIC_BASE_URL ?? '').trim() || 'default'}|${model}`;
}

/**
 * A window an overflow can really mean. Below 32k the harness's own system prompt and tools (~15–20k)
 * leave no room to work, and above 10M no model exists: a reading outside is a broken usage field (a
 * fuzzing model's usage of 10^9 made the binary refuse "Prompt is too long" at an 18k context, and the
 * 18k was remembered for every later run, issue 19).
 */
export const MIN_PLAUSIBLE_WINDOW = 32_000;
export const MAX_PLAUSIBLE_CONTEXT = 10_000_000;
export const plausibleWindow = (n: number): boolean => n >= MIN_PLAUSIBLE_WINDOW && n <= MAX_PLAUSIBLE_CONTEXT;

/** The calibration table; a missing or damaged file, or an invalid value, counts as nothing recorded. */
export function readCalibration(env: EnvMap): Record<string, number> {
  let v: unknown;
  try {
    v = JSON.parse(fs.readFileSync(calibrationFile(env), 'utf8'));
  } catch {
    return {};
  }
  const out: Record<string, number> = {};
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return out;
  for (const [k, x] of Object.entries(v)) {
    const n = positiveInt(x);
    if (n !== undefined) out[k] = n;
  }
  return out;
}

export function calibratedWindow(env: EnvMap, model = configuredModel(env)): number | undefined {
  return readCalibration(env)[calibrationKey(env, model)];
}

/**
 * Record that `model` at this endpoint overflowed at `context` tokens. Keeps the minimum (never
 * loosens), writes atomically, and never throws: calibration is an optimisation, not a reason to fail.
 * Returns the window now recorded, or undefined when nothing could be recorded.
 */
export function rememberOverflow(env: EnvMap, model: string, context: number): number | undefined {
  const reached = positiveInt(Math.floor(context));
  if (reached === undefined || !plausibleWindow(reached)) return undefined;
  try {
    // a damaged file is kept aside before a new one is written (never silently overwritten)
    readJsonOrKeepAside(calibrationFile(env), (v): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v));
    const table = readCalibration(env);
    const key = calibrationKey(env, model);
    const prev = table[key];
    if (prev !== undefined && prev <= reached) return prev;
    table[key] = reached;
    writeFileAtomic(calibrationFile(env), JSON.stringify(table, null, 2) + '\n');
    return reached;
  } catch {
    return undefined;
  }
}

/**
 * The window an overflow error states, if it does: the API's "212345 tokens > 200000 maximum", or the
 * form the CLI rewrites it into, "the request is ~70000 tokens (limit 58000)". Better than the last
 * reading, which is below the real limit by the size of the request that overflowed.
 */
export function statedLimit(text: string | null | undefined): number | undefined {
  const api = overflowLimit(text)?.limit;
  if (api !== undefined && api > 0) return api;
  const m = /tokens?\s*\(\s*limit\s*:?\s*~?\s*(\d[\d,]*)\s*(?:tokens?)?\s*\)/i.exec(text ?? '');
  return m ? positiveInt(m[1]!.replace(/,/g, '')) : undefined;
}

export type WindowSource = 'option' | 'env' | 'calibration' | 'model';

/** The window and where it came from: `explicit` (--window) > FLOWER_WINDOW > calibration > the name. */
export function resolveWindow(env: EnvMap, explicit?: number): { window: number; source: WindowSource } {
  const opt = positiveInt(explicit);
  if (opt !== undefined) return { window: opt, source: 'option' };
  const fromEnv = positiveInt(env.FLOWER_WINDOW);
  if (fromEnv !== undefined) return { window: fromEnv, source: 'env' };
  const cal = calibratedWindow(env);
  if (cal !== undefined) return { window: cal, source: 'calibration' };
  return { window: guessWindow(configuredModel(env)), source: 'model' };
}

export function defaultWindow(env: EnvMap): number {
  return resolveWindow(env).window;
}

/**
 * The policy a Runtime uses. `handoff` false → disabled; true/undefined → defaults; an object overrides
 * fields (its `window` counts as explicit, as does `window`, which wins over it: that is `--window`).
 */
export function handoffPolicy(env: EnvMap, handoff: boolean | Partial<HandoffPolicy> | undefined, window?: number): HandoffPolicy {
  const o = typeof handoff === 'object' ? handoff : {};
  return {
    enabled: handoff === false ? false : (o.enabled ?? true),
    window: resolveWindow(env, positiveInt(window) ?? o.window).window,
    headroom: o.headroom !== undefined && o.headroom > 0 ? Math.floor(o.headroom) : 0,
    maxGenerations: positiveInt(o.maxGenerations) ?? MAX_GENERATIONS,
  };
}

/** "152.0K" / "200K" / "1M": the token counts the handoff prompt shows. */
export function formatTokens(n: number, opts: { decimals?: boolean } = {}): string {
  if (n >= 1_000_000 && !opts.decimals && n % 1_000_000 === 0) return `${n / 1_000_000}M`;
  if (opts.decimals) return `${(n / 1000).toFixed(1)}K`;
  return n % 1000 === 0 ? `${n / 1000}K` : `${(n / 1000).toFixed(1)}K`;
}

/**
 * The model a step asks for, as the binary will name it: the spec's model, else the configured one
 * (ANTHROPIC_MODEL, else ANTHROPIC_DEFAULT_OPUS_MODEL); a family alias (`opus` / `sonnet` / `haiku`) is
 * the model its ANTHROPIC_DEFAULT_*_MODEL maps it to, when one is set. '' when nothing is configured.
 */
export function wantedModel(specModel: string | undefined, env: EnvMap): string {
  const m = (specModel ?? '').trim() || configuredModel(env);
  const alias = /^(opus|sonnet|haiku)$/i.exec(m)?.[1]?.toUpperCase();
  return alias ? (env[`ANTHROPIC_DEFAULT_${alias}_MODEL`] ?? '').trim() || m : m;
}

/** A model name as compared: lower case, without the client-side `[1m]` marker and without a dated snapshot suffix. Pure. */
export function normalModel(name: string | null | undefined): string {
  return (name ?? '')
    .trim()
    .toLowerCase()
    .replace(/\s*\[[^\]]*\]$/, '')
    .replace(/-\d{8}$/, '');
}

/**
 * The configured model and the one served differ: the window guessed from the name is probably wrong
 * (#23). Both sides are normalised (normalModel): case, the client-side `[1m]` marker and a dated snapshot
 * (`claude-x-4-5` served as `claude-x-4-5-20250929`, or the other way) never count; a bare family alias
 * (`opus` / `sonnet` / `haiku`, none mapped) matches any model of that family.
 */
export function modelMismatch(want: string | undefined, served: string | null | undefined): boolean {
  const w = normalModel(want);
  const s = normalModel(served);
  if (!w || !s || s === '<synthetic>' || w === s) return false;
  if (/^(?:opus|sonnet|haiku)$/.test(w) && s.includes(w)) return false;
  return true;
}
