/**
 * The screen writer. Every block of lines is written in one call; on a terminal the bottom rows
 * are a footer — the live line and, when typing is possible, the input line — erased before each
 * block and drawn again after it, so output scrolls above while the footer stays last. In a pipe
 * (or with `live: false`) lines are plainly appended and no escape is ever written.
 *
 * Two flowers on one terminal (a background run and a foreground one, two tabs on one tty): every
 * block is written under a lock keyed by the terminal DEVICE (not the process, not the folder —
 * they share the screen, nothing else), and only one of them owns the footer (a lease file next to
 * the lock, holding its pid and how many footer rows are drawn). A writer that is not the owner
 * erases the owner's footer before its block and marks it gone; the owner draws it afresh on its
 * next tick instead of erasing rows that now hold someone else's lines.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pidAlive, withFileLock } from '../../state/index.js';
import type { Writable } from '../io.js';

/**
 * Bounded wait for the terminal lock (the original's 0.25 s tore lines on slow terminals, issue #21). 2 s
 * still tore them under disk load: a holder whose write to a busy terminal blocked kept the lock past it, the
 * other flower then wrote without it and its footer landed inside the first one's block (reproduced 1 in 8
 * with fsync load; 0 in 10 at 10 s). The lock is broken as stale after as long anyway.
 */
export const TTY_LOCK_WAIT_MS = 10_000;

export interface Footer {
  status: string | null;
  input: { line: string; col: number } | null;
}

export interface ScreenOptions {
  out: Writable & { fd?: number };
  /** draw the footer (a TTY); false = plain appended lines */
  live: boolean;
  /** the lock's folder (default the OS temp dir); null = no lock */
  lockDir?: string | null;
}

/** The terminal device's number for a stream, or null when it is not a character device we can stat. */
export function ttyKey(out: { fd?: number }): string | null {
  if (typeof out.fd !== 'number') return null;
  try {
    const st = fs.fstatSync(out.fd);
    return st.isCharacterDevice() ? String(st.rdev) : null;
  } catch {
    return null;
  }
}

/** Leases held by screens open in this process (two screens in one process are two owners too). */
const openTokens = new Set<string>();
let tokenCounter = 0;

export class Screen {
  readonly live: boolean;
  private readonly out: ScreenOptions['out'];
  private readonly lock: string | null;
  private readonly lease: string | null;
  private owner = false;
  private readonly token = `${process.pid}.${++tokenCounter}`;
  /** footer rows drawn now (0: none on screen) */
  private drawn = 0;
  private footer: Footer = { status: null, input: null };
  private closed = false;

  constructor(o: ScreenOptions) {
    this.out = o.out;
    this.live = o.live;
    const key = o.live ? ttyKey(o.out) : null;
    const dir = o.lockDir === undefined ? os.tmpdir() : o.lockDir;
    this.lock = key && dir ? path.join(dir, `.flower-tty-${key}`) : null;
    this.lease = this.lock ? `${this.lock}.live` : null;
    // under the terminal lock: a lease read while its writer is between creating and filling it is
    // empty, and taking it over then made two owners, whose footers were left in the scrollback
    if (this.live) this.owner = this.underLock(() => this.takeLease());
  }

  get cols(): number {
    return this.out.columns ?? 80;
  }

  /** Whether this process draws the footer (false when another flower on this terminal does). */
  get ownsFooter(): boolean {
    return this.live && this.owner;
  }

  /** Write `lines` (each already fits the screen, or is meant to soft-wrap) as one block. */
  print(lines: string[]): void {
    if (lines.length === 0) return;
    const body = `${lines.join('\n')}\n`;
    if (!this.live) {
      this.write(body);
      return;
    }
    this.locked(() => this.erase() + body + this.draw());
  }

  /** Replace the footer and redraw it (a tick, a keypress). */
  setFooter(f: Footer): void {
    this.footer = f;
    if (!this.live || !this.owner || this.closed) return;
    this.locked(() => this.erase() + this.draw());
  }

  /** Remove the footer and give the terminal back (lease released); later prints are plain. */
  close(): void {
    if (this.closed) return;
    if (this.live)
      this.underLock(() => {
        this.write(this.erase());
        this.closed = true;
        try {
          if (this.owner && this.lease && this.readLease()?.token === this.token) fs.unlinkSync(this.lease);
        } catch {
          /* gone already */
        }
      });
    this.closed = true;
    openTokens.delete(this.token);
    this.owner = false;
  }

  private locked(build: () => string): void {
    this.underLock(() => this.write(build()));
  }

  /** Every write to the terminal and every read or write of the lease happens under the device's lock. */
  private underLock<T>(fn: () => T): T {
    return this.lock ? withFileLock(this.lock, fn, { timeoutMs: TTY_LOCK_WAIT_MS, staleMs: 10_000 }) : fn();
  }

  /** The sequence that removes the footer drawn now (ours, or the owner's when we are not it). */
  private erase(): string {
    if (!this.owner) {
      const l = this.readLease();
      if (!l || l.rows === 0 || l.token === this.token || !(l.pid === process.pid ? openTokens.has(l.token) : pidAlive(l.pid))) return '';
      this.writeLease(l.pid, 0, l.token);
      return clearRows(l.rows);
    }
    const rows = this.lease ? (this.readLease()?.rows ?? 0) : this.drawn;
    // someone else wiped our footer: the rows above the cursor are theirs now, leave them
    const seq = rows > 0 && this.drawn > 0 ? clearRows(this.drawn) : '';
    this.drawn = 0;
    return seq;
  }

  private draw(): string {
    if (!this.owner || this.closed) return '';
    const rows: string[] = [];
    if (this.footer.status !== null) rows.push(this.footer.status);
    if (this.footer.input) rows.push(this.footer.input.line);
    if (rows.length === 0) {
      if (this.lease) this.writeLease(process.pid, 0, this.token);
      return '';
    }
    this.drawn = rows.length;
    if (this.lease) this.writeLease(process.pid, rows.length, this.token);
    let seq = rows.join('\n');
    if (this.footer.input) seq += `\r${this.footer.input.col > 0 ? `\x1b[${this.footer.input.col}C` : ''}`;
    return seq;
  }

  private takeLease(): boolean {
    if (!this.lease) return true;
    for (let i = 0; i < 2; i++) {
      try {
        fs.writeFileSync(this.lease, `${process.pid} 0 ${this.token}`, { flag: 'wx', mode: 0o600 });
        openTokens.add(this.token);
        return true;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') return true; // no lock dir: we are alone as far as we can tell
        const l = this.readLease();
        if (l && (l.pid === process.pid ? openTokens.has(l.token) : pidAlive(l.pid))) return false;
        try {
          fs.unlinkSync(this.lease);
        } catch {
          /* raced */
        }
      }
    }
    return false;
  }

  private readLease(): { pid: number; rows: number; token: string } | null {
    if (!this.lease) return null;
    try {
      const [p, r, token] = fs.readFileSync(this.lease, 'utf8').trim().split(/\s+/);
      const pid = Number(p);
      const rows = Number(r);
      return Number.isInteger(pid) && pid > 0 ? { pid, rows: Number.isInteger(rows) ? rows : 0, token: token ?? '' } : null;
    } catch {
      return null;
    }
  }

  private writeLease(pid: number, rows: number, token: string): void {
    if (!this.lease) return;
    try {
      fs.writeFileSync(this.lease, `${pid} ${rows} ${token}`, { mode: 0o600 });
    } catch {
      /* the footer is cosmetic */
    }
  }

  private write(s: string): void {
    if (!s) return;
    try {
      this.out.write(s);
    } catch {
      /* a closed terminal must not stop the run */
    }
  }
}

/**
 * From the cursor on the last of `rows` footer rows: clear each row (EL) moving up, ending at the
 * first one's start. Not ED (`\x1b[J`): tmux and some terminals push a screen cleared from its top
 * row into the scrollback, which would leave copies of the footer there.
 */
export function clearRows(rows: number): string {
  return `\r\x1b[2K${'\x1b[1A\x1b[2K'.repeat(Math.max(0, rows - 1))}`;
}
