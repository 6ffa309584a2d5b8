// Strings the views look up on every entry — uuids against the handful that are dropped or healed, call
// ids and commands against those seen before — without V8's own hashing: a Map hashes a freshly parsed
// string on its first lookup through a runtime call, ~1 µs a string on 100k rows, which was a third of
// makeWork's time (bench/views.ts). The hashes below are plain arithmetic on characters; every answer
// is still decided by === on the strings themselves.

/** 12 bits from the length and the first and last two characters (the random ends of uuids). */
export function sig(s: string): number {
  const n = s.length;
  if (n < 2) return n === 0 ? 0 : s.charCodeAt(0) & 0xfff;
  let h = Math.imul(n ^ s.charCodeAt(0), 0x9e3779b1);
  h = Math.imul(h ^ s.charCodeAt(1), 0x85ebca6b);
  h = Math.imul(h ^ s.charCodeAt(n - 1), 0xc2b2ae35);
  h = Math.imul(h ^ s.charCodeAt(n - 2), 0x27d4eb2f);
  return h >>> 20;
}

/** Membership in a small set of uuids, asked of every entry: a 4096-bit filter on `sig` answers "no" for nearly all. */
export class Members {
  private readonly bits = new Uint32Array(128);

  constructor(readonly set: ReadonlySet<string> | ReadonlyMap<string, unknown>) {
    for (const k of set.keys()) {
      const h = sig(k);
      this.bits[h >>> 5]! |= 1 << (h & 31);
    }
  }

  /** False when no key with this `sig` is in the set (so `set.has` is false too). */
  mayHave(s: number): boolean {
    return (this.bits[s >>> 5]! & (1 << (s & 31))) !== 0;
  }

  has(key: string): boolean {
    return this.set.size > 0 && this.mayHave(sig(key)) && this.set.has(key);
  }
}

/** A hash of all of `s` (a collision costs an === more, never a wrong answer). */
function hashOf(s: string): number {
  let h = Math.imul(s.length, 0x9e3779b1);
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h ^ (h >>> 15)) | 0;
}

/** Numbers 0, 1, 2… for distinct strings, in the order they are first added. */
export class Numbering {
  readonly keys: string[] = [];
  private hashes: number[] = [];
  /** open addressing: a key's number + 1, 0 for an empty slot */
  private slots = new Int32Array(64);

  /** The number of `key`, given the next one if it is new. */
  add(key: string): number {
    const h = hashOf(key);
    const i = this.probe(key, h);
    if (this.slots[i] !== 0) return this.slots[i]! - 1;
    const n = this.keys.length;
    this.keys.push(key);
    this.hashes.push(h);
    this.slots[i] = n + 1;
    if (2 * this.keys.length > this.slots.length - 1) this.grow();
    return n;
  }

  /** The number of `key`, or -1. */
  find(key: string): number {
    return this.slots[this.probe(key, hashOf(key))]! - 1;
  }

  /** The slot holding `key` (hash `h`), or the empty slot where it would go. */
  private probe(key: string, h: number): number {
    const mask = this.slots.length - 1;
    let i = h & mask;
    for (let s = this.slots[i]!; s !== 0; s = this.slots[i]!) {
      if (this.hashes[s - 1] === h && this.keys[s - 1] === key) return i;
      i = (i + 1) & mask;
    }
    return i;
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2);
    const mask = slots.length - 1;
    for (let n = 0; n < this.keys.length; n++) {
      let i = this.hashes[n]! & mask;
      while (slots[i] !== 0) i = (i + 1) & mask;
      slots[i] = n + 1;
    }
    this.slots = slots;
  }
}
