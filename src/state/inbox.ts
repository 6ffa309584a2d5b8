/**
 * The durable inbox in files, under `<runDir>/inbox/` (the run dir: out of every agent's reach, the
 * path wall keeps it so):
 *
 *   waiting.json        what the running flower is asking now (its one writer: the run lock's holder)
 *   new/                an item being written (temp name), then renamed into pending/ — never half seen
 *   pending/<id>.json   posted, not taken; `<id>` sorts oldest first (time, then a random tail)
 *   taken/<id>.json     claimed: the rename pending → taken is the claim, and only one process wins it
 *   done/<id>.json      the outcome, for the poster (`flower answer` says "applied" or "too late")
 *   kept/<name>         a file flower did not write or cannot read: moved here, never overwritten
 *
 * Claiming is a rename, so "exactly once" holds across processes and hosts sharing the folder over NFS
 * the way the run lock does. An item taken by a process that died before it finished stays in taken/
 * (at most once: it is never applied a second time).
 */
import fs from 'node:fs';
import path from 'node:path';
import { keepAside, writeFileAtomic } from './files.js';
import { holderAlive } from './runlock.js';
import {
  INBOX_VERSION,
  parseItem,
  parseOutcome,
  parseWaiting,
  type InboxItem,
  type InboxItemBody,
  type InboxNotice,
  type InboxOutcome,
  type ItemState,
  type RunInbox,
  type WaitingSet,
} from './inbox-format.js';
import { nodeCrypto } from './crypto.js';

/** How often the watcher looks again when fs.watch says nothing (it misses events on some filesystems). */
export const INBOX_POLL_MS = 1000;

const ITEM = /^\d{8}T\d{12}Z-[0-9a-f]{8}\.json$/;

/** A new item id: UTC time to the millisecond, a counter against equal times in one process, a random tail. */
let seq = 0;
export function newItemId(now = new Date()): string {
  const t = now.toISOString().replace(/[-:.]/g, '');
  seq = (seq + 1) % 1000;
  return `${t.slice(0, 15)}${t.slice(15, 18)}${String(seq).padStart(3, '0')}Z-${nodeCrypto().randomBytes(4).toString('hex')}`;
}

const missing = (e: unknown) => (e as NodeJS.ErrnoException).code === 'ENOENT';

export class FileInbox implements RunInbox {
  readonly where: string;
  private readonly dirs: { new: string; pending: string; taken: string; done: string; kept: string };
  private readonly waitingFile: string;
  /** the waiting.json this process found damaged once: set aside before the first write */
  private checkedWaiting = false;

  constructor(readonly dir: string) {
    this.where = dir;
    this.dirs = {
      new: path.join(dir, 'new'),
      pending: path.join(dir, 'pending'),
      taken: path.join(dir, 'taken'),
      done: path.join(dir, 'done'),
      kept: path.join(dir, 'kept'),
    };
    this.waitingFile = path.join(dir, 'waiting.json');
  }

  private keep(file: string, onNotice: ((n: InboxNotice) => void) | undefined, reason: string): void {
    fs.mkdirSync(this.dirs.kept, { recursive: true });
    let target = path.join(this.dirs.kept, path.basename(file));
    for (let i = 2; fs.existsSync(target); i++) target = path.join(this.dirs.kept, `${path.basename(file)}-${i}`);
    try {
      fs.renameSync(file, target);
    } catch (e) {
      if (missing(e)) return; // another reader set it aside first
      throw e;
    }
    onNotice?.({ path: file, keptAt: target, reason });
  }

  async publishWaiting(w: WaitingSet): Promise<void> {
    if (!this.checkedWaiting) {
      this.checkedWaiting = true;
      // a waiting.json this flower cannot read is evidence of something: kept, not overwritten
      try {
        const text = fs.readFileSync(this.waitingFile, 'utf8');
        if (!parseWaiting(text)) keepAside(this.waitingFile, 'corrupt');
      } catch (e) {
        if (!missing(e)) throw e;
      }
    }
    writeFileAtomic(this.waitingFile, `${JSON.stringify(w, null, 2)}\n`, 0o600);
  }

  async clearWaiting(owner: string): Promise<void> {
    try {
      const w = parseWaiting(fs.readFileSync(this.waitingFile, 'utf8'));
      if (w && w.owner === owner) fs.unlinkSync(this.waitingFile);
    } catch (e) {
      if (!missing(e)) throw e;
    }
  }

  async readWaiting(): Promise<WaitingSet | null> {
    let text: string;
    try {
      text = fs.readFileSync(this.waitingFile, 'utf8');
    } catch (e) {
      if (missing(e)) return null;
      throw e;
    }
    const w = parseWaiting(text);
    if (!w) return null;
    // a set left by a flower that was killed is nobody's question any more
    return holderAlive({ pid: w.pid, startedAt: w.started_at, host: w.host, since: w.updated_at }) ? w : null;
  }

  async post(body: InboxItemBody): Promise<string> {
    const id = newItemId();
    fs.mkdirSync(this.dirs.pending, { recursive: true });
    const tmp = path.join(this.dirs.new, `${id}.json`);
    // written in new/ and renamed: pending/ only ever holds whole items
    writeFileAtomic(tmp, `${JSON.stringify(body)}\n`, 0o600);
    fs.renameSync(tmp, path.join(this.dirs.pending, `${id}.json`));
    return id;
  }

  async pending(o: { onNotice?: (n: InboxNotice) => void } = {}): Promise<InboxItem[]> {
    let names: string[];
    try {
      names = fs.readdirSync(this.dirs.pending).sort();
    } catch (e) {
      if (missing(e)) return [];
      throw e;
    }
    const out: InboxItem[] = [];
    for (const name of names) {
      const file = path.join(this.dirs.pending, name);
      if (!ITEM.test(name)) {
        this.keep(file, o.onNotice, 'is not an inbox item flower wrote');
        continue;
      }
      let text: string;
      try {
        text = fs.readFileSync(file, 'utf8');
      } catch (e) {
        if (missing(e)) continue; // claimed meanwhile
        throw e;
      }
      const r = parseItem(text);
      if (r.ok) out.push({ id: name.slice(0, -'.json'.length), body: r.body });
      else this.keep(file, o.onNotice, r.reason);
    }
    return out;
  }

  async claim(id: string, _by: string): Promise<boolean> {
    fs.mkdirSync(this.dirs.taken, { recursive: true });
    try {
      // rename fails for every caller but one: the file is no longer in pending/
      fs.renameSync(path.join(this.dirs.pending, `${id}.json`), path.join(this.dirs.taken, `${id}.json`));
      return true;
    } catch (e) {
      if (missing(e)) return false;
      throw e;
    }
  }

  async finish(id: string, outcome: InboxOutcome): Promise<void> {
    writeFileAtomic(path.join(this.dirs.done, `${id}.json`), `${JSON.stringify({ ...outcome, version: INBOX_VERSION })}\n`, 0o600);
  }

  async state(id: string): Promise<ItemState> {
    try {
      const outcome = parseOutcome(fs.readFileSync(path.join(this.dirs.done, `${id}.json`), 'utf8'));
      if (outcome) return { state: 'done', outcome };
    } catch (e) {
      if (!missing(e)) throw e;
    }
    if (fs.existsSync(path.join(this.dirs.taken, `${id}.json`))) return { state: 'claimed' };
    if (fs.existsSync(path.join(this.dirs.pending, `${id}.json`))) return { state: 'pending' };
    return { state: 'missing' };
  }

  watch(onChange: () => void, o: { pollMs?: number } = {}): () => void {
    fs.mkdirSync(this.dirs.pending, { recursive: true });
    let watcher: fs.FSWatcher | undefined;
    try {
      watcher = fs.watch(this.dirs.pending, () => onChange());
      watcher.on('error', () => watcher?.close());
    } catch {
      watcher = undefined; // no inotify here: the re-scan below is the watcher
    }
    const timer = setInterval(onChange, o.pollMs ?? INBOX_POLL_MS);
    timer.unref();
    return () => {
      clearInterval(timer);
      watcher?.close();
    };
  }
}
