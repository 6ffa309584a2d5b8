/**
 * The watchdog of one attempt (attempt.ts): the model's silence past FLOWER_WATCHDOG seconds interrupts
 * the turn, and flower's own cuts (a person, a full context, a loop, the deadline) go through it too, so
 * the first cause wins and no timer outlives the attempt.
 */
import type { Query } from '@anthropic-ai/claude-agent-sdk';
import type { Silence } from './silence.js';

/** why flower cut an attempt short: silence, a person, a full context, or the same call made again and again (guards/repeat) */
export type InterruptCause = 'watchdog' | 'human' | 'handoff' | 'loop' | 'deadline';

/** What the watchdog reads and writes of the attempt it guards. */
export interface Watched {
  out: { interrupted: InterruptCause | null; errors: string[] };
  silence: Silence;
  /** a signal's shutdown is ending the turn: no bark */
  draining: boolean;
}

/**
 * The watchdog only runs while a model owes us output — the main thread's or a worker's (silence.ts):
 * a long Bash, a worker's long Bash or a background worker legitimately keep everyone quiet for minutes.
 *
 * Re-armed lazily: every message moves the deadline (a number), and the one timer, when it fires
 * early, sleeps again for what is left. A streamed session sends several messages per model call (each
 * delta is one); a timer cleared and set again for each of them was work no decision needed.
 */
export class Watchdog {
  private timer: NodeJS.Timeout | undefined;
  /** when the timer is due (epoch ms) */
  private due = 0;
  /** silence past this (epoch ms) barks; undefined while nobody owes output */
  private deadline: number | undefined;
  constructor(
    private readonly ctl: { readonly watchdogS: number },
    private readonly seen: Watched,
    private readonly q: Query,
  ) {}

  arm(seconds = this.ctl.watchdogS): void {
    if (!(this.ctl.watchdogS > 0 && !this.seen.draining && this.seen.silence.owed())) {
      this.disarm();
      return;
    }
    this.deadline = Date.now() + seconds * 1000;
    // a timer due later than the new deadline (the start-up allowance ending early) is set again
    if (this.timer === undefined || this.due > this.deadline) this.wake(this.deadline);
  }

  disarm(): void {
    this.deadline = undefined;
  }

  /** the attempt is over: no timer may outlive it */
  stop(): void {
    this.deadline = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** flower ends the turn cleanly (the SDK's interrupt, not a kill); the first cause wins */
  cut(cause: InterruptCause): void {
    if (this.seen.out.interrupted) return;
    this.seen.out.interrupted = cause;
    this.stop();
    void this.q.interrupt().catch(() => this.q.close());
  }

  private wake(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.due = at;
    this.timer = setTimeout(() => this.check(), Math.max(0, at - Date.now()));
  }

  private check(): void {
    this.timer = undefined;
    if (this.deadline === undefined) return;
    if (Date.now() < this.deadline) this.wake(this.deadline);
    else this.bark();
  }

  private bark(): void {
    const out = this.seen.out;
    if (out.interrupted) return;
    out.interrupted = 'watchdog';
    const whose = this.seen.silence.who() === 'worker' ? "a worker's model" : 'the model';
    out.errors.push(`watchdog: no data from ${whose} for ${this.ctl.watchdogS}s (timed out); interrupted the turn`);
    void this.q.interrupt().catch(() => this.q.close());
  }
}
