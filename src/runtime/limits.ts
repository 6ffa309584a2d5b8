/**
 * A run's limits (`--budget USD`, `--deadline 6h|07:30`): what this wake may spend and until when it
 * may go on, across every step, round, subagent, judge, oracle and handoff of the wake. One RunLimits
 * is shared by every Runtime of a wake; each attempt adds what it cost.
 *
 * How the stop stays within one model call (measured, docs/unattended.md): the binary's own
 * `maxBudgetUsd` counts what its process spent (not what a resumed session spent before) and checks
 * after every model call, ending the turn with `error_max_budget_usd`; each attempt is handed the
 * run's remaining budget. A deadline is a clean cut at a message boundary (attempt.ts), never a kill.
 * Like `--rounds`, limits belong to one wake: the next `flower` is a new intention with its own.
 *
 * Parsing and the decisions are pure; the clock is injected.
 */
import { ConfigError } from '../errors.js';
import { failure, type StepFailure } from './failure.js';

export interface LimitSettings {
  /** dollars this wake may spend in total */
  budgetUsd?: number | undefined;
  /** when this wake must stop (epoch ms) */
  deadlineAt?: number | undefined;
}

export type LimitKind = 'budget' | 'deadline';

export class RunLimits {
  private spentUsd = 0;

  constructor(
    readonly settings: Readonly<LimitSettings> = {},
    private readonly now: () => number = Date.now,
  ) {}

  /** Nothing is limited. */
  get none(): boolean {
    return this.settings.budgetUsd === undefined && this.settings.deadlineAt === undefined;
  }

  /** What this wake has spent so far. */
  get spent(): number {
    return this.spentUsd;
  }

  add(costUsd: number): void {
    if (Number.isFinite(costUsd) && costUsd > 0) this.spentUsd += costUsd;
  }

  /** Milliseconds until the deadline (≤ 0 once it passed), or null without one. */
  msLeft(): number | null {
    return this.settings.deadlineAt === undefined ? null : this.settings.deadlineAt - this.now();
  }

  /** The limit that forbids starting another attempt, as the step's failure, or null. */
  blocked(): StepFailure | null {
    const cap = this.settings.budgetUsd;
    if (cap !== undefined && this.spentUsd >= cap) return failure('budget', budgetLine(this.spentUsd, cap));
    const left = this.msLeft();
    if (left !== null && left <= 0) return failure('deadline', deadlineLine(this.settings.deadlineAt!));
    return null;
  }

  /**
   * The cap one attempt is handed (the binary's maxBudgetUsd): the run's remaining budget or the
   * spec's own per-step cap, the lower; undefined when neither exists. `binding` says the run's cap
   * is the one that will stop it (its failure then says so).
   */
  attemptCap(specCap: number | undefined): { cap: number | undefined; binding: boolean } {
    const total = this.settings.budgetUsd;
    if (total === undefined) return { cap: specCap, binding: false };
    const left = Math.max(0, total - this.spentUsd);
    if (specCap !== undefined && specCap > 0 && specCap < left) return { cap: specCap, binding: false };
    return { cap: left, binding: true };
  }

  /** The failure of an attempt the run's budget stopped, in the run's words. */
  budgetFailure(): StepFailure {
    return failure('budget', budgetLine(this.spentUsd, this.settings.budgetUsd ?? 0));
  }

  /** The failure of an attempt the deadline cut. */
  deadlineFailure(): StepFailure {
    return failure('deadline', deadlineLine(this.settings.deadlineAt ?? this.now()));
  }
}

/** The run's budget is the one a limit failure names: say what was spent and how to go on. */
export function budgetLine(spent: number, cap: number): string {
  return `the run's budget is spent: $${spent.toFixed(2)} of $${cap.toFixed(2)} — \`flower --budget ${suggest(spent, cap)}\` continues the same sessions`;
}

export function deadlineLine(at: number): string {
  return `the run's deadline passed (${new Date(at).toISOString()}) — \`flower\` (with a later --deadline) continues the same sessions`;
}

/** A larger round number than what was spent, for the hint. */
function suggest(spent: number, cap: number): string {
  const base = Math.max(spent, cap) * 2;
  return String(base < 1 ? Math.ceil(base * 10) / 10 : Math.ceil(base));
}

/** `--budget USD`: a positive number of dollars (`5`, `2.50`, `$3`). */
export function parseBudget(text: string, what = '--budget'): number {
  const t = text.trim().replace(/^\$/, '');
  const n = /^\d+(\.\d+)?$/.test(t) ? Number(t) : Number.NaN;
  if (!(n > 0)) throw new ConfigError('bad-budget', `${what} takes an amount in US dollars greater than 0 (e.g. 5 or 2.50); got ${JSON.stringify(text)}`);
  return n;
}

/**
 * `--deadline D`: a duration from now (`90s`, `45m`, `6h`, `1h30m`, `2d`), a clock time today or, once
 * it has passed, tomorrow (`07:30`, `23:05:10`, local time), or an ISO date-time. Epoch ms.
 */
export function parseDeadline(text: string, now: number = Date.now(), what = '--deadline'): number {
  const t = text.trim();
  const duration = durationMs(t);
  if (duration !== null) return now + duration;
  const clock = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(t);
  if (clock) {
    const [h, m, s] = [Number(clock[1]), Number(clock[2]), Number(clock[3] ?? 0)];
    if (h < 24 && m < 60 && s < 60) {
      const at = new Date(now);
      at.setHours(h, m, s, 0);
      return at.getTime() > now ? at.getTime() : at.getTime() + 86_400_000;
    }
  }
  if (/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}/.test(t)) {
    const at = Date.parse(t);
    if (Number.isFinite(at)) return at;
  }
  throw new ConfigError(
    'bad-deadline',
    `${what} takes a duration (90s, 45m, 6h, 1h30m, 2d), a clock time (07:30) or a date-time (2026-12-02T07:30); got ${JSON.stringify(text)}`,
  );
}

const UNIT_MS: Readonly<Record<string, number>> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `1h30m` → ms; null when the text is not a duration (or is zero). */
function durationMs(t: string): number | null {
  if (!/^(\d+(\.\d+)?[smhd])+$/.test(t)) return null;
  let ms = 0;
  for (const [, n, u] of t.matchAll(/(\d+(?:\.\d+)?)([smhd])/g)) ms += Number(n) * UNIT_MS[u!]!;
  return ms > 0 ? ms : null;
}
