/**
 * Pull-style UIs: questions handed out one by one (`nextAsk`, `waitForAsk`), each at most once, and
 * only while it is still pending — a question answered elsewhere is skipped, never handed out late.
 */
import { MAX_TIMER_MS } from './settings.js';
import type { Ask } from './types.js';

export const snapshot = (a: Ask): Ask => ({ ...a, options: [...a.options] });

export class AskQueue {
  private readonly queue: Ask[] = [];
  private readonly pullers: Array<(a: Ask | null) => void> = [];

  constructor(private readonly isPending: (id: string) => boolean) {}

  /** A new question: to the UI waiting for one, else queued. */
  offer(ask: Ask): void {
    const p = this.pullers.shift();
    if (p) p(snapshot(ask));
    else this.queue.push(ask);
  }

  next(): Ask | null {
    while (this.queue.length > 0) {
      const a = this.queue.shift()!;
      if (this.isPending(a.id)) return snapshot(a);
    }
    return null;
  }

  wait(timeoutMs: number, closed: boolean): Promise<Ask | null> {
    const now = this.next();
    if (now || closed || !(timeoutMs > 0)) return Promise.resolve(now);
    return new Promise((resolve) => {
      const done = (a: Ask | null) => {
        clearTimeout(timer);
        resolve(a);
      };
      const timer = setTimeout(
        () => {
          const i = this.pullers.indexOf(done);
          if (i >= 0) this.pullers.splice(i, 1);
          resolve(null);
        },
        Math.min(timeoutMs, MAX_TIMER_MS),
      );
      this.pullers.push(done);
    });
  }

  /** The channel closed: every UI still waiting hears "no more". */
  close(): void {
    for (const p of this.pullers.splice(0)) p(null);
  }
}
