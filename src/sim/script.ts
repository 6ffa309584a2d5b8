/**
 * The script queue: scripted items in enqueue order, each served to the first request its
 * matcher accepts, until its `times` are used up (never, when `sticky`).
 */
import type { SimCall, SimItem, SimPending, SimScriptItem } from './items.js';
import { matches, summarizeItem } from './match.js';

interface Entry {
  seq: number;
  item: SimScriptItem;
  served: number;
  times: number;
}

export interface Taken {
  /** The item to act on; a computed item has already been computed. */
  item: SimItem;
  seq: number;
}

const timesOf = (item: SimScriptItem): number => {
  if (typeof item === 'function') return 1;
  if (item.sticky) return Infinity;
  return item.times ?? 1;
};

export class Script {
  #entries: Entry[] = [];
  #seq = 0;

  push(items: readonly SimScriptItem[]): void {
    for (const item of items) this.#entries.push({ seq: this.#seq++, item, served: 0, times: timesOf(item) });
  }

  /**
   * Take the first entry whose matcher accepts `call`. A matcher or computed item that throws
   * propagates: the caller answers the request with a loud error instead of guessing.
   */
  take(call: SimCall): Taken | undefined {
    const i = this.#entries.findIndex((e) => typeof e.item === 'function' || matches(e.item.match, call));
    if (i < 0) return undefined;
    const entry = this.#entries[i]!;
    entry.served += 1;
    if (entry.served >= entry.times) this.#entries.splice(i, 1);
    const item = typeof entry.item === 'function' ? entry.item(call) : entry.item;
    return { item, seq: entry.seq };
  }

  /** Entries still owed: not used up, or sticky and never served. */
  pending(): SimPending[] {
    return this.#entries
      .filter((e) => e.times !== Infinity || e.served === 0)
      .map((e) => ({ seq: e.seq, summary: summarizeItem(e.item), served: e.served, times: e.times, item: e.item }));
  }

  /** Number of entries left in the queue (sticky ones included). */
  get size(): number {
    return this.#entries.length;
  }

  clear(): void {
    this.#entries = [];
    this.#seq = 0;
  }
}
