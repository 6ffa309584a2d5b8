/**
 * The files of trimmed results: `<dir>/<sha16>.txt` (content-addressed: the same text always lands in the
 * same file, so a file that exists is whole and current), `dir` = `RunLayout.viewSpill` inside the
 * workspace so the model's Read reaches it. The trim view asks for one path per result; writing is ours.
 *
 * Off the resume's path. A first resume of a long session trims hundreds of results, and creating a file
 * costs 50–300 µs of kernel time on this machine (bench/views.ts: 373 files ≈ 255 ms written one by one, a
 * quarter of the 100k-entry load). So a load only names the files and queues them (`batch`); they are
 * written by the libuv pool while the SDK writes the transcript it hands the binary, and `written()` is
 * awaited before the binary starts (ViewedStore.listSubkeys). The contract stays: a spilled result's file
 * exists, whole, before anything can read it —
 * - whole: each file goes to a temp name (O_EXCL) and is renamed into place, so it is absent or complete;
 * - before it is read: the model learns a path only from the resumed context, which only the binary holds,
 *   and the binary is spawned after `written()` resolved;
 * - no fsync: a crash may lose the newest files, and every resume remakes the missing ones from
 *   sessions.db (the rows are never rewritten, so the same texts come back).
 * A file that cannot be written: when the folder cannot be made or written, or the disk has less room
 * than twice what is queued, spill() writes at once and throws, so trim leaves that result whole (as it
 * always did); a queued write that fails later (an I/O error) makes `written()` reject, so the resume
 * stops loudly before the binary starts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../state/index.js';
import { spillFileName } from './views/index.js';

let tmpCounter = 0;

/** One load's files: `spill` for the trim view (it only names and queues), then `flush` to start writing them. */
export interface SpillBatch {
  spill: (text: string) => string;
  flush: () => void;
}

export class SpillFiles {
  private queue: Promise<void> = Promise.resolve();
  private readonly failures: Error[] = [];

  constructor(
    readonly workspace: string,
    readonly dir: string,
    /** free bytes on the folder's disk (a test gives its own) */
    private readonly freeBytes: (dir: string) => number = freeBytesOf,
  ) {}

  batch(): SpillBatch {
    const queued = new Map<string, string>(); // file name → text
    let room: number | undefined; // free bytes on the folder's disk, read once per batch
    let bytes = 0; // queued so far (UTF-16 units × 3: at least the UTF-8 size)
    const spill = (text: string): string => {
      room ??= this.prepare();
      const name = spillFileName(text);
      const abs = path.join(this.dir, name);
      if (!queued.has(name)) {
        if (2 * (bytes + 3 * text.length) > room)
          writeNow(abs, text); // throws: trim leaves the result whole
        else {
          queued.set(name, text);
          bytes += 3 * text.length;
        }
      }
      return path.relative(this.workspace, abs);
    };
    const flush = (): void => {
      if (queued.size === 0) return;
      this.queue = this.queue.then(() => this.write(queued)).catch((e: unknown) => void this.failures.push(failure(e)));
    };
    return { spill, flush };
  }

  /** Resolves once every file queued so far is whole at its name; rejects with the first that could not be written. */
  async written(): Promise<void> {
    await this.queue;
    const e = this.failures[0];
    this.failures.length = 0;
    if (e) throw e;
  }

  /** The folder, made and writable; the free bytes on its disk. */
  private prepare(): number {
    fs.mkdirSync(this.dir, { recursive: true });
    fs.accessSync(this.dir, fs.constants.W_OK);
    return this.freeBytes(this.dir);
  }

  /**
   * The queued files that do not exist yet, each to a temp name and renamed into place, one after the
   * other: all at once they filled the pool's four threads ahead of the SDK's own transcript writes and
   * contended for the folder, costing more CPU than writing them in turn (bench/views.ts, "to the spawn").
   */
  private async write(files: ReadonlyMap<string, string>): Promise<void> {
    const present = new Set(await fs.promises.readdir(this.dir));
    for (const [name, text] of files) if (!present.has(name)) await writeOne(path.join(this.dir, name), text);
  }
}

/** Infinity when the system cannot say (a write that then fails is reported by written()). */
function freeBytesOf(dir: string): number {
  try {
    const st = fs.statfsSync(dir);
    return Number(st.bavail) * Number(st.bsize);
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

async function writeOne(file: string, text: string): Promise<void> {
  const tmp = `${file}.tmp-${process.pid}-${++tmpCounter}`;
  try {
    // a tool's output can hold anything (a printed secret, a private file): readable by its owner only
    await fs.promises.writeFile(tmp, text, { mode: 0o600, flag: 'wx' });
    await fs.promises.rename(tmp, file);
  } catch (e) {
    await fs.promises.unlink(tmp).catch(() => undefined);
    throw new Error(`${file}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
  }
}

/** Written before the call returns: the file exists, or this throws. */
export function writeNow(file: string, text: string): void {
  if (!fs.existsSync(file)) writeFileAtomic(file, text, 0o600, { fsync: false });
}

const failure = (e: unknown): Error =>
  new Error(`resume view: the file of a trimmed result could not be written (${e instanceof Error ? e.message : String(e)}); the model would not find it`, {
    cause: e,
  });
