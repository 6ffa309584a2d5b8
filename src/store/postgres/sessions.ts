// PostgresSessionStore: the SDK's SessionStore (plus flower's extras) on PostgreSQL, with the same
// behaviour as the SQLite store (one contract suite runs against both): append-only rows, idempotent
// by uuid, one transaction per append batch, the summary folded by the SDK's own fold.
//
// Connection loss: an append that cannot reach the server is kept in an in-memory outbox, in order,
// and retried in the background; later appends queue behind it so the order holds. The SDK's own
// batcher would otherwise drop the batch after three tries. A load first pushes the outbox out (a
// resume must see everything written); when that is impossible it fails as "unreachable", which the
// resilience loop treats like a network loss.
import type { SessionKey, SessionStore, SessionStoreEntry, SessionSummaryEntry } from '@anthropic-ai/claude-agent-sdk';
import type pg from 'pg';
import { loadFold } from '../fold.js';
import { assertKeySegment, storeKeyOf } from '../keys.js';
import { contextOfTail, parsed } from '../usage.js';
import { PgStoreError, isConnectionLoss } from './errors.js';
import { RETRY_MS, acquirePool, inTransaction, releasePool, retryOnLoss, withClient, type SharedPool } from './pool.js';
import { ensureSchema } from './schema.js';

export interface PgLastContextOptions {
  projectKey?: string;
  scan?: number;
}

type Batch = { key: SessionKey; entries: SessionStoreEntry[]; payloads: string[] };

/** How long `end()` (and `close()` with entries still buffered) keeps trying. */
export const END_GRACE_MS = 30_000;

const lostLine = (n: number, where: string) =>
  process.stderr.write(`! ${n} transcript entries could not be written to PostgreSQL at ${where}: the server stayed unreachable\n`);

/**
 * How long a read waits for a server that went away before it fails as "unreachable": below the
 * SDK's 60 s load timeout, so the resume fails as a network loss flower's loop waits out.
 */
export const READ_WAIT_MS = 40_000;

export interface PgStoreOptions {
  /** told when entries could not be written before the store let go (default: one line on stderr) */
  onLost?: (entries: number, where: string) => void;
  /** how long reads wait for the server to come back (default READ_WAIT_MS) */
  readWaitMs?: number;
}

// Named statements: node-pg prepares each once per connection.
const Q = {
  lock: 'SELECT id, mtime, next_seq FROM flower.transcripts WHERE project_key = $1 AND session_id = $2 AND subpath = $3 FOR UPDATE',
  create: `INSERT INTO flower.transcripts(project_key, session_id, subpath, mtime, next_seq) VALUES($1, $2, $3, 0, 0)
           ON CONFLICT(project_key, session_id, subpath) DO NOTHING RETURNING id, mtime, next_seq`,
  seen: 'SELECT uid FROM flower.entries WHERE transcript = $1 AND uid = ANY($2::text[])',
  insert: `INSERT INTO flower.entries(transcript, seq, uid, payload)
           SELECT $1, s, u, p FROM unnest($2::bigint[], $3::text[], $4::text[]) AS t(s, u, p)`,
  touch: 'UPDATE flower.transcripts SET mtime = $2, next_seq = $3 WHERE id = $1',
  getSummary: 'SELECT mtime, data FROM flower.summaries WHERE project_key = $1 AND session_id = $2',
  putSummary: `INSERT INTO flower.summaries(project_key, session_id, mtime, data) VALUES($1, $2, $3, $4)
               ON CONFLICT(project_key, session_id) DO UPDATE SET mtime = excluded.mtime, data = excluded.data`,
  load: `SELECT e.payload FROM flower.entries e JOIN flower.transcripts t ON t.id = e.transcript
         WHERE t.project_key = $1 AND t.session_id = $2 AND t.subpath = $3 ORDER BY e.seq`,
  sessions: `SELECT session_id, mtime FROM flower.transcripts WHERE project_key = $1 AND subpath = ''
             ORDER BY session_id COLLATE "C"`,
  summaries: 'SELECT session_id, mtime, data FROM flower.summaries WHERE project_key = $1 ORDER BY session_id COLLATE "C"',
  subkeys: `SELECT subpath FROM flower.transcripts WHERE project_key = $1 AND session_id = $2 AND subpath <> ''
            ORDER BY subpath COLLATE "C"`,
  delMain: 'DELETE FROM flower.transcripts WHERE project_key = $1 AND session_id = $2',
  delSub: 'DELETE FROM flower.transcripts WHERE project_key = $1 AND session_id = $2 AND subpath = $3',
  delSummary: 'DELETE FROM flower.summaries WHERE project_key = $1 AND session_id = $2',
  has: `SELECT 1 FROM flower.transcripts WHERE session_id = $1 AND subpath = '' AND ($2::text IS NULL OR project_key = $2) LIMIT 1`,
  tail: `SELECT e.payload FROM flower.entries e WHERE e.transcript = (
           SELECT id FROM flower.transcripts WHERE session_id = $1 AND subpath = '' AND ($2::text IS NULL OR project_key = $2)
           ORDER BY mtime DESC LIMIT 1)
         ORDER BY e.seq DESC LIMIT $3`,
  projects: 'SELECT DISTINCT project_key COLLATE "C" AS project_key FROM flower.transcripts ORDER BY 1',
} as const;

const named = (name: keyof typeof Q, values: unknown[]): pg.QueryConfig => ({ name: `flower_${name}`, text: Q[name], values });

/** The first copy of each string uuid in a batch; uuid-less (or non-string) entries always pass. */
function firstCopies(b: Batch): number[] {
  const seen = new Set<string>();
  const keep: number[] = [];
  b.entries.forEach((e, i) => {
    if (typeof e.uuid === 'string') {
      if (seen.has(e.uuid)) return;
      seen.add(e.uuid);
    }
    keep.push(i);
  });
  return keep;
}

export class PostgresSessionStore implements SessionStore {
  private readonly shared: SharedPool;
  private readonly outbox: Batch[] = [];
  private pump: Promise<void> | undefined;
  private closed = false;
  private ending: Promise<number> | undefined;
  private flushing: Promise<boolean> | undefined;

  /**
   * `onLost(n, where)` is told when entries could not be written before the store let go (default:
   * one line on stderr).
   */
  private readonly onLost: (entries: number, where: string) => void;
  private readonly readWaitMs: number;

  constructor(
    readonly url: string,
    o: PgStoreOptions = {},
  ) {
    this.shared = acquirePool(url);
    this.onLost = o.onLost ?? lostLine;
    this.readWaitMs = o.readWaitMs ?? READ_WAIT_MS;
  }

  /** A read, retried while the server is away (bounded by readWaitMs). */
  private patient<T>(fn: () => Promise<T>): Promise<T> {
    return retryOnLoss(fn, this.readWaitMs, () => this.closed);
  }

  /** Wait (at most `maxMs`) until the server answers and the outbox is written; false when it did not. */
  async waitOnline(maxMs: number): Promise<boolean> {
    try {
      await retryOnLoss(
        async () => {
          await ensureSchema(this.shared);
          await this.drain();
        },
        maxMs,
        () => this.closed,
      );
      return true;
    } catch (e) {
      if (isConnectionLoss(e)) return false;
      throw e;
    }
  }

  /** host:port/database, without the password. */
  get target(): string {
    const t = this.shared.target;
    return `${t.host}:${t.port}/${t.database}`;
  }

  /** Connect and create or check the schema: the start-up check (one line on failure). */
  async open(): Promise<this> {
    await ensureSchema(this.shared);
    return this;
  }

  /** Entries kept in memory because the server was unreachable when they came. */
  get buffered(): number {
    return this.outbox.reduce((n, b) => n + b.entries.length, 0);
  }

  /** The transaction of one batch; returns how many entries were new. */
  private async write(b: Batch): Promise<number> {
    await ensureSchema(this.shared);
    const { projectKey, sessionId } = b.key;
    const subpath = b.key.subpath ?? '';
    const keep = firstCopies(b);
    return inTransaction(this.shared, async (c) => {
      // FOR UPDATE on the transcript row serialises writers of one key across processes and hosts:
      // seq stays dense and the uuid check below cannot race.
      type Row = { id: string; mtime: string; next_seq: string };
      const lock = async () => (await c.query<Row>(named('lock', [projectKey, sessionId, subpath]))).rows[0];
      // a key seen for the first time is created here; ON CONFLICT waits for a concurrent creator,
      // whose row is then locked like any other
      const row = (await lock()) ?? (await c.query<Row>(named('create', [projectKey, sessionId, subpath]))).rows[0] ?? (await lock());
      if (!row) throw new Error(`transcript row for ${storeKeyOf(b.key)} vanished while appending`);
      let fresh = keep;
      const uids = keep.map((i) => b.entries[i]!.uuid).filter((u): u is string => typeof u === 'string');
      if (Number(row.next_seq) > 0 && uids.length > 0) {
        const old = new Set((await c.query<{ uid: string }>(named('seen', [row.id, uids]))).rows.map((r) => r.uid));
        fresh = keep.filter((i) => {
          const u = b.entries[i]!.uuid;
          return typeof u !== 'string' || !old.has(u);
        });
      }
      // a pure replay (SDK retry, import) must not look like new activity: nothing changes
      if (fresh.length === 0) return 0;
      const start = Number(row.next_seq);
      const seqs = fresh.map((_, k) => start + k);
      const freshUids = fresh.map((i) => (typeof b.entries[i]!.uuid === 'string' ? (b.entries[i]!.uuid as string) : null));
      await c.query(named('insert', [row.id, seqs, freshUids, fresh.map((i) => b.payloads[i]!)]));
      const mtime = Math.max(Date.now(), Number(row.mtime) + 1);
      await c.query(named('touch', [row.id, mtime, start + fresh.length]));
      if (b.key.subpath === undefined) {
        const s = (await c.query<{ mtime: string; data: string }>(named('getSummary', [projectKey, sessionId]))).rows[0];
        const prev: SessionSummaryEntry | undefined = s
          ? { sessionId, mtime: Number(s.mtime), data: JSON.parse(s.data) as Record<string, unknown> }
          : undefined;
        const fold = await loadFold();
        const next = fold(
          prev,
          b.key,
          fresh.map((i) => b.entries[i]!),
          { mtime },
        );
        await c.query(named('putSummary', [projectKey, sessionId, mtime, JSON.stringify(next.data)]));
      }
      return fresh.length;
    });
  }

  /** Append now, without the outbox; returns how many entries were new (tests, `store copy`). */
  async appendNow(key: SessionKey, entries: SessionStoreEntry[]): Promise<number> {
    storeKeyOf(key);
    if (entries.length === 0) return 0;
    return this.write({ key, entries, payloads: entries.map((e) => JSON.stringify(e)) });
  }

  async append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    storeKeyOf(key); // refuse ambiguous keys before anything is queued
    if (entries.length === 0) return;
    // serialised up front: an entry that cannot be stored fails the whole batch, and only this batch
    const b: Batch = { key, entries, payloads: entries.map((e) => JSON.stringify(e)) };
    if (this.outbox.length > 0) {
      this.outbox.push(b);
      return;
    }
    try {
      await this.write(b);
    } catch (e) {
      if (!isConnectionLoss(e) || this.closed || this.ending) throw e;
      this.outbox.push(b);
      this.startPump();
    }
  }

  private startPump(): void {
    this.pump ??= (async () => {
      for (let attempt = 0; this.outbox.length > 0 && !this.closed; attempt++) {
        await new Promise((r) => setTimeout(r, RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]));
        if (await this.flushOutbox()) attempt = -1;
      }
    })().finally(() => {
      this.pump = undefined;
    });
  }

  /**
   * Write the outbox in order; true when it is empty. Stops at the first connection loss. One flush
   * at a time (the pump, a read and `end()` may all ask): a batch is never written twice at once.
   */
  private flushOutbox(): Promise<boolean> {
    this.flushing ??= this.flushInOrder().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }

  private async flushInOrder(): Promise<boolean> {
    while (this.outbox.length > 0) {
      try {
        await this.write(this.outbox[0]!);
      } catch (e) {
        if (isConnectionLoss(e)) return false;
        // not a network problem (a bug, a revoked grant): keep the batch and surface it on the next read
        throw e;
      }
      this.outbox.shift();
    }
    return true;
  }

  /** Push buffered entries out now; throws "unreachable" when the server is still away. */
  async drain(): Promise<void> {
    if (this.outbox.length === 0) return;
    if (!(await this.flushOutbox())) {
      throw new PgStoreError(
        'unreachable',
        `cannot reach PostgreSQL at ${this.shared.target.host}:${this.shared.target.port} (connection lost); ${this.buffered} transcript entries are waiting to be written`,
        this.shared.target,
      );
    }
  }

  async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
    storeKeyOf(key);
    const rows = await this.patient(async () => {
      await this.drain();
      await ensureSchema(this.shared);
      return withClient(this.shared, (c) => c.query<{ payload: string }>(named('load', [key.projectKey, key.sessionId, key.subpath ?? ''])));
    });
    if (rows.rows.length === 0) return null;
    return rows.rows.map((r) => JSON.parse(r.payload) as SessionStoreEntry);
  }

  private read<R extends pg.QueryResultRow>(name: keyof typeof Q, values: unknown[]): Promise<R[]> {
    // every read sees what is still buffered: the outbox goes out first
    return this.patient(async () => {
      await this.drain();
      await ensureSchema(this.shared);
      return (await withClient(this.shared, (c) => c.query<R>(named(name, values)))).rows;
    });
  }

  async listSessions(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>> {
    assertKeySegment('projectKey', projectKey);
    const rows = await this.read<{ session_id: string; mtime: string }>('sessions', [projectKey]);
    return rows.map((r) => ({ sessionId: r.session_id, mtime: Number(r.mtime) }));
  }

  async listSessionSummaries(projectKey: string): Promise<SessionSummaryEntry[]> {
    const rows = await this.read<{ session_id: string; mtime: string; data: string }>('summaries', [projectKey]);
    return rows.map((r) => ({ sessionId: r.session_id, mtime: Number(r.mtime), data: JSON.parse(r.data) as Record<string, unknown> }));
  }

  /** Deleting a main transcript also deletes its subkeys and summary; a subkey goes alone. */
  async delete(key: SessionKey): Promise<void> {
    storeKeyOf(key);
    await this.patient(() => this.drain());
    await ensureSchema(this.shared);
    await inTransaction(this.shared, async (c) => {
      if (key.subpath !== undefined) {
        await c.query(named('delSub', [key.projectKey, key.sessionId, key.subpath]));
        return;
      }
      await c.query(named('delMain', [key.projectKey, key.sessionId]));
      await c.query(named('delSummary', [key.projectKey, key.sessionId]));
    });
  }

  async listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    storeKeyOf(key);
    const rows = await this.read<{ subpath: string }>('subkeys', [key.projectKey, key.sessionId]);
    return rows.map((r) => r.subpath);
  }

  /** Whether a main transcript for `sessionId` exists (in `projectKey`, or in any project). */
  async hasSession(sessionId: string, projectKey?: string): Promise<boolean> {
    assertKeySegment('sessionId', sessionId);
    return (await this.read('has', [sessionId, projectKey ?? null])).length > 0;
  }

  /** Same answer as SqliteSessionStore.lastContext (the shared `contextOfTail`). */
  async lastContext(sessionId: string, options: PgLastContextOptions = {}): Promise<number> {
    const scan = options.scan ?? 60;
    assertKeySegment('sessionId', sessionId);
    if (scan <= 0) return 0;
    const rows = await this.read<{ payload: string }>('tail', [sessionId, options.projectKey ?? null, scan]);
    return contextOfTail(parsed(rows.map((r) => r.payload)));
  }

  /** Every projectKey with at least one stored transcript. */
  async projects(): Promise<string[]> {
    return (await this.read<{ project_key: string }>('projects', [])).map((r) => r.project_key);
  }

  /**
   * Flush what is buffered (for at most `graceMs`), then give the pool back. Resolves to how many
   * entries could not be written (they are reported through `onLost`, never dropped silently).
   */
  async end(graceMs = END_GRACE_MS): Promise<number> {
    if (this.ending) return this.ending;
    this.ending = (async () => {
      const deadline = Date.now() + graceMs;
      while (this.outbox.length > 0 && Date.now() < deadline) {
        if (await this.flushOutbox().catch(() => false)) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      const left = this.buffered;
      if (left > 0) this.onLost(left, `${this.target}`);
      this.closed = true;
      await releasePool(this.shared);
      return left;
    })();
    return this.ending;
  }

  /**
   * Give the pool back. With entries still buffered (the server is away) the process keeps trying
   * for up to 30 s before it lets go (see `end`), so a CLI that just returns does not lose them.
   */
  close(): void {
    if (this.closed || this.ending) return;
    if (this.outbox.length > 0) {
      void this.end();
      return;
    }
    this.closed = true;
    void releasePool(this.shared);
  }
}
