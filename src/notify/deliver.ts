/**
 * Delivery: every notification to every target, in the background, with bounded retries.
 *
 * Why it can never hold the run: a person's phone is not worth an hour of work. `send` returns at once;
 * each target gets the notifications in order (a `stopped` never overtakes the `question` before it),
 * each attempt has a timeout, attempts back off exponentially, and one notification's retries stop at
 * the retry budget. A notification that could not be delivered is one warning line and one record
 * (`onFailure`), never an exception. At the end of a run `flush` waits at most the retry budget, then
 * abandons what is still on its way (an attempt in flight is aborted, a command's process group killed).
 *
 * Nothing leaves unscrubbed: `scrub` is required and sees every body before it is serialised.
 * I/O comes in through `Transport` and `Clock`, so the retry logic is tested without a network or a sleep.
 */
import type { Notification, NotificationKind } from './payload.js';

/** One way out (a webhook, a command). */
export interface Transport {
  /** how a warning names it, with nothing secret in it: a webhook's origin (its path is often its key), `--notify-cmd` */
  readonly label: string;
  /** One attempt: resolves when delivered, rejects with the reason. `signal` aborts it (its timeout, or the run's end). */
  send(body: string, signal: AbortSignal): Promise<void>;
}

/** A failed attempt; `retryable: false` when another one would fail the same way (HTTP 400, no `sh`). */
export class DeliveryError extends Error {
  override readonly name = 'DeliveryError';
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** Time, injectable: `after` runs `fn` in `ms` and returns the way to cancel it. */
export interface Clock {
  now(): number;
  after(ms: number, fn: () => void): () => void;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  after(ms, fn) {
    // not unref'd: a flush waiting on this timer is what keeps `bin/flower.js` alive (an emptied event loop
    // under a top-level await exits 13); every timer here is bounded by the retry budget anyway
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};

export interface RetryPolicy {
  /** attempts per notification and target */
  attempts: number;
  /** one attempt's timeout */
  attemptMs: number;
  /** the wait after the first failed attempt; doubled after each */
  backoffMs: number;
  /** one notification's whole time on one target, attempts and waits included; also what flush waits at most */
  budgetMs: number;
}

/** 3 attempts of at most 2 s, 0.25 s then 0.5 s apart, 5 s in all: a dead receiver costs a run at most 5 s, at its end. */
export const RETRY: Readonly<RetryPolicy> = Object.freeze({ attempts: 3, attemptMs: 2000, backoffMs: 250, budgetMs: 5000 });

/** What a failed delivery leaves behind (the CLI puts it in a `system` event). */
export interface DeliveryFailure {
  notify: 'failed';
  kind: NotificationKind;
  target: string;
  attempts: number;
  error: string;
}

export interface NotifierOptions {
  transports: readonly Transport[];
  /** applied to every body (and every warning) before it leaves: the secret values replaced */
  scrub: (v: unknown) => unknown;
  /** one line per failed delivery */
  warn: (line: string) => void;
  onFailure?: (f: DeliveryFailure) => void;
  clock?: Clock;
  policy?: Partial<RetryPolicy>;
}

const errorText = (e: unknown): string => (e instanceof Error ? e.message : String(e)) || 'failed';

/** Resolves when the signal aborts (an attempt that ignores its signal still ends on time). */
function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => {
    const fail = () => reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    if (signal.aborted) fail();
    else signal.addEventListener('abort', fail, { once: true });
  });
}

export class Notifier {
  private readonly policy: RetryPolicy;
  private readonly clock: Clock;
  /** the last delivery queued per target: the next one starts after it */
  private readonly tails = new Map<Transport, Promise<void>>();
  private readonly pending = new Set<Promise<void>>();
  /** aborted by flush: attempts in flight end, queued ones give up */
  private readonly ending = new AbortController();
  private readonly o: NotifierOptions;

  constructor(o: NotifierOptions) {
    this.o = o;
    this.policy = { ...RETRY, ...o.policy };
    this.clock = o.clock ?? SYSTEM_CLOCK;
  }

  get targets(): number {
    return this.o.transports.length;
  }

  /** Queue one notification for every target; returns at once, never throws. */
  send(n: Notification): void {
    let body: string;
    try {
      body = JSON.stringify(this.o.scrub(n));
    } catch (e) {
      for (const t of this.o.transports) this.failed(n.kind, t, 0, `could not be serialised: ${errorText(e)}`);
      return;
    }
    for (const t of this.o.transports) {
      const p = (this.tails.get(t) ?? Promise.resolve()).then(() => this.deliver(t, n.kind, body));
      this.tails.set(t, p);
      this.pending.add(p);
      void p.finally(() => this.pending.delete(p));
    }
  }

  /** Every delivery settled, or the retry budget spent; what is left is abandoned (one warning each). */
  async flush(): Promise<void> {
    if (this.pending.size) {
      let cancel = (): void => {};
      const budget = new Promise<void>((resolve) => {
        cancel = this.clock.after(this.policy.budgetMs, resolve);
      });
      await Promise.race([Promise.allSettled([...this.pending]), budget]);
      cancel();
    }
    this.ending.abort(new Error('the run ended before it was delivered'));
    await Promise.allSettled([...this.pending]);
  }

  /** One notification to one target: attempts until delivered, refused for good, out of attempts or out of budget. Never rejects. */
  private async deliver(t: Transport, kind: NotificationKind, body: string): Promise<void> {
    const { attempts, attemptMs, backoffMs, budgetMs } = this.policy;
    const started = this.clock.now();
    let tried = 0;
    let error = 'the run ended before it was delivered';
    for (let i = 1; i <= attempts && !this.ending.signal.aborted; i++) {
      tried = i;
      const left = budgetMs - (this.clock.now() - started);
      try {
        await this.attempt(t, body, Math.max(1, Math.min(attemptMs, left)));
        return;
      } catch (e) {
        error = errorText(e);
        if (e instanceof DeliveryError && !e.retryable) break;
      }
      const wait = backoffMs * 2 ** (i - 1);
      if (i === attempts || this.clock.now() - started + wait >= budgetMs) break;
      await this.sleep(wait);
    }
    this.failed(kind, t, tried, error);
  }

  private async attempt(t: Transport, body: string, ms: number): Promise<void> {
    const ac = new AbortController();
    const cancel = this.clock.after(ms, () => ac.abort(new Error(`no answer in ${(ms / 1000).toFixed(1)} s`)));
    const end = () => ac.abort(this.ending.signal.reason);
    this.ending.signal.addEventListener('abort', end, { once: true });
    try {
      await Promise.race([t.send(body, ac.signal), aborted(ac.signal)]);
    } finally {
      cancel();
      this.ending.signal.removeEventListener('abort', end);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const cancel = this.clock.after(ms, done);
      const signal = this.ending.signal;
      function done(): void {
        cancel();
        signal.removeEventListener('abort', done);
        resolve();
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }

  private failed(kind: NotificationKind, t: Transport, attempts: number, error: string): void {
    const why = String(this.o.scrub(error.replace(/\s+/g, ' ').trim()));
    const f: DeliveryFailure = { notify: 'failed', kind, target: t.label, attempts, error: why };
    try {
      this.o.warn(`notification '${kind}' not delivered to ${t.label}${attempts ? ` (${attempts} attempt${attempts === 1 ? '' : 's'})` : ''}: ${why}`);
      this.o.onFailure?.(f);
    } catch {
      /* a warning that cannot be shown changes nothing in the run */
    }
  }
}
