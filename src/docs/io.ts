/**
 * The only I/O in docs/: read a document with a clear status, and replace one atomically.
 *
 * Invariants:
 * - a reader never sees a half-written document: we write `<path>.tmp-<pid>`, fsync, then rename;
 * - a file we cannot read is never overwritten (we could not tell what we would destroy);
 * - a file that is damaged (not UTF-8, NUL bytes — what a power cut mid-write leaves) is copied
 *   aside as `<path>.corrupt-<stamp>` before it is replaced, so the evidence survives.
 */
import fs from 'node:fs';
import path from 'node:path';
import { FlowerError, StateCorrupt } from '../errors.js';
import { keepAside, keepCopy as keepCopyAside, stamp, writeFileAtomic } from '../state/index.js';

/** `YYYYmmdd-HHMMSS`, local time: the one stamp every kept-aside or archived file name uses. */
export { stamp };

export type DocumentRead =
  | { status: 'ok'; text: string }
  | { status: 'missing' }
  | { status: 'unreadable'; error: string }
  | { status: 'corrupt'; reason: string };

export interface Written {
  /** Absolute path of the document written. */
  path: string;
  /** Where a damaged previous version was kept, or null when there was none. */
  backup: string | null;
  /** Where a previous file flower did not write (a person's own, or incomplete) was moved, or null. */
  kept: string | null;
  /** why it was kept aside */
  keptReason?: string;
}

export interface ReplaceOptions {
  /**
   * Decide whether the readable previous text is one flower may replace: return a reason when it is
   * NOT (a person's own notes, an incomplete document), and it is moved aside to `<file>.kept-<stamp>`
   * before the new one is written — never destroyed.
   */
  foreign?: (previous: string) => string | null;
}

const decoder = new TextDecoder('utf-8', { fatal: true });

export function readDocument(file: string): DocumentRead {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { status: 'missing' };
    return { status: 'unreadable', error: `${code ?? 'error'}: ${(e as Error).message}` };
  }
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { status: 'corrupt', reason: 'not valid UTF-8' };
  }
  if (text.includes('\u0000')) return { status: 'corrupt', reason: 'contains NUL bytes' };
  return { status: 'ok', text };
}

/** `HH:MM:SS` in local time — the clock format of amendment headings. */
export function clock(d: Date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}`;
}

export function writeAtomic(file: string, text: string): void {
  try {
    // notes quote tool output (handoffs) and the person's words: private
    writeFileAtomic(file, text, 0o600);
  } catch (e) {
    throw new FlowerError('doc-write-failed', `could not write ${file}: ${(e as Error).message}. Check that the folder exists and is writable.`, {
      path: file,
      cause: e,
    });
  }
}

const keepCopy = (file: string, now: Date): string => keepCopyAside(file, 'corrupt', now);

export function unreadableError(file: string, error: string): StateCorrupt {
  return new StateCorrupt(
    'doc-unreadable',
    `cannot read ${file} (${error}); refusing to overwrite a file whose content is unknown. ` + 'Fix its permissions or move it away, then run again.',
    { path: file },
  );
}

/**
 * Replace a document with `text`. The previous version is read first: unreadable → throw
 * (nothing touched); damaged → copied aside, then replaced. `render` sees the previous text when
 * it was readable, so `render` can carry over what it must not lose (brief amendments).
 */
export function replaceDocument(file: string, render: (previous: string | null) => string, now: Date = new Date(), o: ReplaceOptions = {}): Written {
  const abs = path.resolve(file);
  const prev = readDocument(abs);
  if (prev.status === 'unreadable') throw unreadableError(abs, prev.error);
  let backup: string | null = null;
  let kept: string | null = null;
  let keptReason: string | undefined;
  if (prev.status === 'ok' && o.foreign) {
    const why = o.foreign(prev.text);
    if (why !== null) {
      try {
        kept = keepAside(abs, 'kept', now);
        keptReason = why;
      } catch (e) {
        throw new StateCorrupt(
          'doc-foreign',
          `${abs} ${why} and could not be moved aside (${(e as Error).message}); not overwriting it. ` + 'Move it away by hand, then run again.',
          { path: abs, cause: e },
        );
      }
    }
  }
  if (prev.status === 'corrupt') {
    try {
      backup = keepCopy(abs, now);
    } catch (e) {
      throw new StateCorrupt(
        'doc-corrupt',
        `${abs} is damaged (${prev.reason}) and could not be copied aside (${(e as Error).message}); ` +
          'not overwriting it. Move it away by hand, then run again.',
        { path: abs, cause: e },
      );
    }
  }
  writeAtomic(abs, render(prev.status === 'ok' ? prev.text : null));
  return { path: abs, backup, kept, ...(keptReason !== undefined ? { keptReason } : {}) };
}
