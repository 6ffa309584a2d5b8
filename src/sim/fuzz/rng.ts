/**
 * Seeded draws for the fuzzing model. Every choice is a pure function of a string key (the seed plus
 * a request's fingerprint), never of a shared counter: concurrent subagents reach the sim in any
 * order, and a counter would make a seed replay differently each time.
 */

/** FNV-1a, 32 bits: stable across platforms and Node versions (unlike anything keyed on object identity). */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A short hex digest for fingerprints that people read in traces. */
export const shortHash = (s: string): string => hash32(s).toString(16).padStart(8, '0');

/** mulberry32: a tiny seeded generator of numbers in [0, 1) (also the chaos suite's plan, scripts/chaos.mjs). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A stream of numbers in [0, 1) from one key (mulberry32 seeded with the key's hash). */
export class Draw {
  readonly next: () => number;

  constructor(key: string) {
    this.next = mulberry32(hash32(key));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** An integer in [lo, hi], both included. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('Draw.pick: nothing to pick from');
    return items[Math.floor(this.next() * items.length)]!;
  }

  /** A key of `weights` with probability proportional to its weight; null when every weight is 0. */
  weighted<K extends string>(weights: Readonly<Partial<Record<K, number>>>): K | null {
    const entries = (Object.entries(weights) as Array<[K, number]>).filter(([, w]) => w > 0);
    const total = entries.reduce((s, [, w]) => s + w, 0);
    if (total <= 0) return null;
    let x = this.next() * total;
    for (const [k, w] of entries) {
      x -= w;
      if (x < 0) return k;
    }
    return entries.at(-1)![0];
  }
}
