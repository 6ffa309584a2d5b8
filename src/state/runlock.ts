/**
 * The per-folder RUN LOCK primitive: one flower run per run dir at a time.
 *
 * `<runDir>/run.lock` holds `{ pid, startedAt, host, since }`. `startedAt` is the process's start time
 * as the kernel reports it (/proc/<pid>/stat field 22), so a pid recycled by an unrelated process is
 * not mistaken for the holder. A lock whose holder is gone (kill -9) is taken over.
 *
 * Acquire is a hard link of a complete temp file onto the lock name: atomic, and a reader never sees a
 * half-written lock. Takeover renames the stale file to a unique name first (only one contender wins the
 * rename), then checks it took what it judged stale — a fresh lock renamed by a lost race is linked back.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pidAlive } from './files.js';

export interface LockHolder {
  pid: number;
  /** the process start time (kernel clock ticks since boot, as a string), null where unknown */
  startedAt: string | null;
  host: string;
  /** when the lock was taken (ISO) */
  since: string;
}

export interface RunLockHeld {
  readonly holder: LockHolder;
  /** Release the lock (idempotent; a lock taken over by someone else is left alone). */
  release(): Promise<void>;
}

export type RunLockResult = RunLockHeld | { heldBy: LockHolder };

export interface AcquireOptions {
  /** false (default): answer at once; true: wait until free; a number: wait at most that many ms */
  wait?: boolean | number;
  /** how often a waiting acquire looks again (default 100 ms) */
  pollMs?: number;
}

/** Start time of a process (Linux /proc), or null where it cannot be read. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // comm (field 2) may contain spaces and parentheses: fields resume after the LAST ')'
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const start = rest[19]; // field 22 = index 19 after `state` (field 3)
    return start && /^\d+$/.test(start) ? start : null;
  } catch {
    return null;
  }
}

export function currentHolder(): LockHolder {
  return { pid: process.pid, startedAt: processStartTime(process.pid), host: os.hostname(), since: new Date().toISOString() };
}

function readHolder(file: string): LockHolder | null | 'missing' {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw e;
  }
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    if (typeof v.pid === 'number' && Number.isInteger(v.pid) && v.pid > 0 && typeof v.host === 'string') {
      return { pid: v.pid, startedAt: typeof v.startedAt === 'string' ? v.startedAt : null, host: v.host, since: typeof v.since === 'string' ? v.since : '' };
    }
  } catch {
    /* damaged: treated as stale below */
  }
  return null;
}

/** Is the process that wrote this holder still running? Another host's lock is assumed alive. */
export function holderAlive(h: LockHolder): boolean {
  if (h.host !== os.hostname()) return true;
  if (!pidAlive(h.pid)) return false;
  if (h.startedAt === null) return true;
  const now = processStartTime(h.pid);
  return now === null || now === h.startedAt;
}

const same = (a: LockHolder, b: LockHolder) => a.pid === b.pid && a.startedAt === b.startedAt && a.host === b.host && a.since === b.since;
let seq = 0;

function tryLink(file: string, me: LockHolder): boolean {
  const tmp = `${file}.tmp-${process.pid}-${++seq}`;
  fs.writeFileSync(tmp, `${JSON.stringify(me)}\n`, { mode: 0o644 });
  try {
    fs.linkSync(tmp, file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    try {
      fs.unlinkSync(tmp);
    } catch {
      /* gone */
    }
  }
}

/** One attempt: the lock, or who holds it. */
function attempt(file: string): RunLockHeld | { heldBy: LockHolder } | 'retry' {
  const me = currentHolder();
  if (tryLink(file, me)) {
    let released = false;
    return {
      holder: me,
      release: async () => {
        if (released) return;
        released = true;
        const h = readHolder(file);
        if (h !== 'missing' && h !== null && same(h, me)) {
          try {
            fs.unlinkSync(file);
          } catch {
            /* gone */
          }
        }
      },
    };
  }
  const h = readHolder(file);
  if (h === 'missing') return 'retry';
  if (h !== null && holderAlive(h)) return { heldBy: h };
  if (h === null) {
    // a lock file that does not parse: only ever a crash of a foreign writer (ours link complete files);
    // give a writer mid-way a moment before calling it stale
    try {
      if (Date.now() - fs.statSync(file).mtimeMs < 2000) return { heldBy: { pid: 0, startedAt: null, host: '?', since: '' } };
    } catch {
      return 'retry';
    }
  }
  // stale: take it over
  const grabbed = `${file}.stale-${process.pid}-${++seq}`;
  try {
    fs.renameSync(file, grabbed);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'retry';
    throw e;
  }
  const got = readHolder(grabbed);
  if (h !== null && got !== 'missing' && got !== null && !same(got, h) && holderAlive(got)) {
    // we lost a race and moved a fresh lock: put it back (unless someone already took the name)
    try {
      fs.linkSync(grabbed, file);
    } catch {
      /* the name is taken again: that holder wins */
    }
  }
  try {
    fs.unlinkSync(grabbed);
  } catch {
    /* gone */
  }
  return 'retry';
}

/** Acquire the run lock at `file` (`RunLayout.runLock`). */
export async function acquireRunLock(file: string, o: AcquireOptions = {}): Promise<RunLockResult> {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const wait = o.wait ?? false;
  const deadline = wait === true ? Infinity : wait === false ? 0 : Date.now() + wait;
  const poll = o.pollMs ?? 100;
  for (let spins = 0; ; spins++) {
    const r = attempt(file);
    if (r === 'retry') {
      if (spins > 1000) throw new Error(`could not settle the run lock ${file}`);
      continue;
    }
    if ('release' in r) return r;
    if (Date.now() >= deadline) return r;
    await new Promise((res) => setTimeout(res, poll));
  }
}

/** Who holds the lock now (null: nobody, or a dead process) — for `flower status`; never blocks. */
export function runLockHolder(file: string): LockHolder | null {
  const h = readHolder(file);
  return h !== 'missing' && h !== null && holderAlive(h) ? h : null;
}
