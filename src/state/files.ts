/**
 * Durable file primitives shared by every file flower writes (manifest, lineage, notes).
 * Invariant: a reader never sees a half-written file — we write `<file>.tmp-<pid>-<n>` and rename,
 * which is atomic on one filesystem — and a damaged file is renamed aside, never overwritten.
 */
import fs from 'node:fs';
import path from 'node:path';

let tmpCounter = 0;

/**
 * `fsync: false` is for files that can be made again from what SQLite holds (spill copies): still
 * atomic, never half-written, but a power cut may lose the newest ones — which the next resume rewrites.
 */
export function writeFileAtomic(file: string, data: string | Uint8Array, mode?: number, { fsync = true } = {}): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}-${++tmpCounter}`;
  try {
    const fd = fs.openSync(tmp, 'w', mode ?? 0o644);
    try {
      fs.writeFileSync(fd, data);
      if (fsync) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, file);
  } catch (e) {
    try {
      fs.unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw e;
  }
}

export function writeJsonAtomic(file: string, value: unknown, mode?: number): void {
  writeFileAtomic(file, JSON.stringify(value, null, 2) + '\n', mode);
}

export function stamp(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}${p(d.getMonth() + 1)}${p(d.getDate())}-${p(d.getHours())}${p(d.getMinutes())}${p(d.getSeconds())}`;
}

/** Why a file is set aside: damaged (`.corrupt-<stamp>`) or not flower's to overwrite (`.kept-<stamp>`). */
export type AsideReason = 'corrupt' | 'kept';

function asideName(file: string, as: AsideReason, now: Date): string {
  let target = `${file}.${as}-${stamp(now)}`;
  for (let i = 2; fs.existsSync(target); i++) target = `${file}.${as}-${stamp(now)}-${i}`;
  return target;
}

/**
 * Move a file aside as `<file>.corrupt-<stamp>` (or `.kept-<stamp>`) next to it and return the new
 * path. A rename, so even a 20 MB file costs nothing and nothing is ever half-copied.
 */
export function keepAside(file: string, as: AsideReason = 'corrupt', now = new Date()): string {
  const target = asideName(file, as, now);
  fs.renameSync(file, target);
  return target;
}

/** Copy (not move) a file aside — for a file that stays readable where it is until it is replaced. */
export function keepCopy(file: string, as: AsideReason = 'corrupt', now = new Date()): string {
  const target = asideName(file, as, now);
  fs.copyFileSync(file, target, fs.constants.COPYFILE_EXCL);
  return target;
}

/**
 * JSON.parse that refuses `__proto__` keys anywhere: a record read from disk (lineage steps) is
 * later indexed by name, and a `__proto__` key would change what every lookup finds.
 */
export function parseJsonStrict(text: string): unknown {
  return JSON.parse(text, (key, value: unknown) => {
    if (key === '__proto__') throw new SyntaxError('a "__proto__" key is not allowed');
    return value;
  });
}

export type JsonRead<T> = { state: 'missing' } | { state: 'ok'; value: T } | { state: 'corrupt'; keptAt: string; reason: string };

/**
 * Read a JSON file; `validate` decides whether the parsed value has the expected shape.
 * A file that does not parse or validate is kept aside (renamed) so the caller can start afresh
 * without destroying evidence.
 */
export function readJsonOrKeepAside<T>(file: string, validate: (v: unknown) => v is T): JsonRead<T> {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { state: 'missing' };
    throw e;
  }
  let reason = 'does not have the expected shape';
  try {
    const v: unknown = parseJsonStrict(text);
    if (validate(v)) return { state: 'ok', value: v };
  } catch (e) {
    reason = `is not valid JSON (${(e as Error).message})`;
  }
  return { state: 'corrupt', keptAt: keepAside(file), reason };
}

const sleepBuf = new Int32Array(new SharedArrayBuffer(4));
function sleepSync(ms: number): void {
  Atomics.wait(sleepBuf, 0, 0, ms);
}

/** Is a process with this pid still running (ours to see or not)? */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Run `fn` while holding `<file>.lock` (O_EXCL create). Read-merge-write sections are short, so a
 * synchronous spin is fine; a lock whose owner died (kill -9) is broken after its pid is gone or
 * after `staleMs`. Bounded: after `timeoutMs` we proceed anyway rather than stall a long run —
 * the per-key merge makes a lost race cost at most one stale row, never a corrupt file.
 */
export function withFileLock<T>(file: string, fn: () => T, { timeoutMs = 5000, staleMs = 15000 } = {}): T {
  const lock = `${file}.lock`;
  fs.mkdirSync(path.dirname(lock), { recursive: true });
  const deadline = Date.now() + timeoutMs;
  let held = false;
  while (!held) {
    try {
      const fd = fs.openSync(lock, 'wx');
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      held = true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') break; // unwritable dir: let fn report it
      if (isStale(lock, staleMs)) {
        try {
          fs.unlinkSync(lock);
        } catch {
          /* someone else broke it */
        }
        continue;
      }
      if (Date.now() > deadline) break;
      sleepSync(5 + Math.floor(Math.random() * 10));
    }
  }
  try {
    return fn();
  } finally {
    if (held) {
      try {
        fs.unlinkSync(lock);
      } catch {
        /* already broken as stale */
      }
    }
  }
}

function isStale(lock: string, staleMs: number): boolean {
  try {
    const st = fs.statSync(lock);
    const pid = Number(fs.readFileSync(lock, 'utf8'));
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !pidAlive(pid)) return true;
    return Date.now() - st.mtimeMs > staleMs;
  } catch {
    return false;
  }
}
