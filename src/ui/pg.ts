/**
 * `flower ui` on a PostgreSQL store (FLOWER_STORE / --store = postgres://…): the project's manifest
 * rows and lineage through PostgresRunRecords, transcripts through PostgresSessionStore, the notes from
 * the workspace's files (as the files store). Read-only, and nothing is created in the run dir.
 *
 * fingerprint() must stay synchronous and cheap (the page polls it): a background poll (every
 * POLL_MS) asks the server for one digest of what the pages show, and fingerprint() returns the last
 * one. Session readings are cached per transcript, keyed by its next_seq (and its subagents'), so a
 * growing session is read again only when it grew.
 */
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import { PostgresRunRecords, PostgresSessionStore, acquirePool, releasePool, withClient, type SharedPool } from '../store/postgres/index.js';
import { noteLayouts, readNotes } from './data.js';
import type { LineageView, Problem, SearchHit, SessionReader, Snapshot, TranscriptPage, UiRow, UiSource } from './source.js';
import { stat } from './sqlite.js';
import { TRACE_WINDOW, likePattern } from './sqlite-trace.js';
import { rowOf, traceOf, type Trace } from './trace.js';
import { figuresOf, foldCalls, verdictCallOf, type ModelCall, type SessionFigures, type VerdictCall } from './transcript.js';
import type { RunInbox } from '../state/index.js';

/** How often the live fingerprint is refreshed from the server. */
export const POLL_MS = 1000;
/** How long a ui read waits for a server that went away (then the page shows a problem, not a hang). */
export const UI_WAIT_MS = 5000;

export interface PgSourceOptions {
  url: string;
  /** the project name (FLOWER_PROJECT, or the absolute workspace path) */
  project: string;
  /** this host's workspace: where the notes are */
  workspace: string;
  /** the local run dir (only for where the notes' layout may be; nothing is read or written there) */
  runDir: string;
  pollMs?: number;
}

// One digest of everything the pages show for a project: its manifest rows, lineage and wake count,
// whether its run lock is held (records.ts: advisory lock class 2), and the transcripts of `sessions`.
const FINGERPRINT = `SELECT
  (SELECT count(*) || ':' || coalesce(md5(string_agg(row, E'\\n' ORDER BY run, idx)), '') FROM flower.manifest WHERE project = $1) AS manifest,
  (SELECT coalesce(string_agg(step || '=' || session_id, ',' ORDER BY step COLLATE "C"), '') FROM flower.lineage WHERE project = $1) AS lineage,
  (SELECT coalesce(max(woke || ':' || coalesce(workbench, '')), '') FROM flower.wakes WHERE project = $1) AS wakes,
  (SELECT count(*) FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 2 AND l.objid = hashtext($1)::oid AND l.objsubid = 2) AS lock,
  (SELECT count(*) || ':' || coalesce(sum(next_seq), 0) || ':' || coalesce(max(mtime), 0) FROM flower.transcripts WHERE session_id = ANY($2::text[])) AS transcripts`;

const MAIN = `SELECT id, project_key, next_seq FROM flower.transcripts WHERE session_id = $1 AND subpath = '' ORDER BY mtime DESC LIMIT 1`;
const SUBS = `SELECT id, subpath, next_seq FROM flower.transcripts WHERE project_key = $1 AND session_id = $2 AND subpath <> '' ORDER BY mtime, subpath COLLATE "C"`;
const SEARCH = `SELECT seq, payload FROM flower.entries WHERE transcript = $1 AND payload ILIKE $2 ESCAPE '\\' ORDER BY seq LIMIT $3`;
const PAGE = 'SELECT seq, payload FROM flower.entries WHERE transcript = $1 AND seq >= $2 ORDER BY seq LIMIT $3';

interface MainKey {
  id: string;
  projectKey: string;
  nextSeq: number;
}
interface SubKey {
  id: string;
  subpath: string;
  nextSeq: number;
}

const problemOf = (where: string, e: unknown): Problem => ({
  file: where,
  message: `cannot be read (${(e as Error).message}); what it holds is not shown`,
});

/** The SessionReader over PostgreSQL: the same readings as SqliteReader, from loaded entries. */
export class PgSessionReader implements SessionReader {
  problem: Problem | null = null;
  private readonly mainCache = new Map<string, { key: string; calls: ModelCall[]; verdict: VerdictCall | null }>();
  private readonly figCache = new Map<string, { key: string; figures: SessionFigures }>();

  constructor(
    private readonly shared: SharedPool,
    private readonly store: PostgresSessionStore,
    private readonly where: string,
  ) {}

  /** Runs a read; a failure becomes the store's problem (the page shows it) and `fallback`. */
  private async guard<T>(fallback: T, fn: () => Promise<T>): Promise<T> {
    try {
      const out = await fn();
      this.problem = null;
      return out;
    } catch (e) {
      this.problem = problemOf(this.where, e);
      return fallback;
    }
  }

  private async mainKey(sid: string): Promise<MainKey | null> {
    if (!sid || sid.includes('/')) return null;
    const r = await withClient(this.shared, (c) => c.query<{ id: string; project_key: string; next_seq: string }>(MAIN, [sid]));
    const row = r.rows[0];
    return row ? { id: String(row.id), projectKey: row.project_key, nextSeq: Number(row.next_seq) } : null;
  }

  private async subKeys(k: MainKey, sid: string): Promise<SubKey[]> {
    const r = await withClient(this.shared, (c) => c.query<{ id: string; subpath: string; next_seq: string }>(SUBS, [k.projectKey, sid]));
    return r.rows.map((x) => ({ id: String(x.id), subpath: x.subpath, nextSeq: Number(x.next_seq) }));
  }

  private async load(k: MainKey, sid: string, subpath?: string): Promise<SessionStoreEntry[]> {
    return (await this.store.load({ projectKey: k.projectKey, sessionId: sid, ...(subpath !== undefined ? { subpath } : {}) })) ?? [];
  }

  /** calls and verdict of the main transcript, read again only when it grew */
  private async main(sid: string): Promise<{ calls: ModelCall[]; verdict: VerdictCall | null } | null> {
    const k = await this.mainKey(sid);
    if (!k) return null;
    const key = `${k.id}:${k.nextSeq}`;
    const c = this.mainCache.get(sid);
    if (c?.key === key) return c;
    const entries = await this.load(k, sid);
    const next = { key, calls: foldCalls(entries, sid), verdict: verdictCallOf(entries) };
    this.mainCache.set(sid, next);
    return next;
  }

  has(sid: string): Promise<boolean> {
    return this.guard(false, async () => (await this.mainKey(sid)) !== null);
  }

  calls(sid: string): Promise<ModelCall[]> {
    return this.guard([], async () => (await this.main(sid))?.calls ?? []);
  }

  verdict(sid: string): Promise<VerdictCall | null> {
    return this.guard(null, async () => (await this.main(sid))?.verdict ?? null);
  }

  subagents(sid: string): Promise<string[]> {
    return this.guard([], async () => {
      const k = await this.mainKey(sid);
      return k ? (await this.subKeys(k, sid)).map((s) => s.subpath) : [];
    });
  }

  page(sid: string, subpath: string | undefined, from: number, limit: number): Promise<TranscriptPage | null> {
    return this.guard(null, async () => {
      const k = await this.mainKey(sid);
      if (!k) return null;
      const t = subpath ? (await this.subKeys(k, sid)).find((s) => s.subpath === subpath) : k;
      if (!t) return null;
      const r = await withClient(this.shared, (c) => c.query<{ seq: string; payload: string }>(PAGE, [t.id, Math.max(0, from), limit]));
      return { entries: r.rows.map((x) => ({ seq: Number(x.seq), entry: safeParse(x.payload) })), total: t.nextSeq };
    });
  }

  trace(sid: string): Promise<Trace> {
    const empty = traceOf({ main: [], subs: [] });
    return this.guard(empty, async () => {
      const k = await this.mainKey(sid);
      if (!k) return empty;
      // the same window as the SQLite reader: a long transcript's newest TRACE_WINDOW entries
      const rows = (es: readonly unknown[]) => es.slice(-TRACE_WINDOW).map((e, i) => rowOf(i + Math.max(0, es.length - TRACE_WINDOW), e));
      const subs: Array<{ subpath: string; rows: ReturnType<typeof rows> }> = [];
      for (const s of await this.subKeys(k, sid)) subs.push({ subpath: s.subpath, rows: rows(await this.load(k, sid, s.subpath)) });
      const main = await this.load(k, sid);
      return traceOf({ main: rows(main), from: Math.max(0, main.length - TRACE_WINDOW), subs });
    });
  }

  search(sid: string, q: string, limit: number): Promise<SearchHit[]> {
    return this.guard([], async () => {
      const k = await this.mainKey(sid);
      if (!k || !q) return [];
      const out: SearchHit[] = [];
      for (const t of [{ id: k.id, subpath: '' }, ...(await this.subKeys(k, sid))]) {
        if (out.length >= limit) break;
        const r = await withClient(this.shared, (c) => c.query<{ seq: string; payload: string }>(SEARCH, [t.id, likePattern(q), limit - out.length]));
        for (const x of r.rows) out.push({ sub: t.subpath, seq: Number(x.seq), entry: safeParse(x.payload) });
      }
      return out;
    });
  }

  figures(sid: string): Promise<SessionFigures> {
    return this.guard(figuresOf([], [], sid), async () => {
      const k = await this.mainKey(sid);
      if (!k) return figuresOf([], [], sid);
      const subs = await this.subKeys(k, sid);
      const key = `${k.id}:${k.nextSeq}|${subs.map((s) => `${s.id}:${s.nextSeq}`).join(',')}`;
      const c = this.figCache.get(sid);
      if (c?.key === key) return c.figures;
      const main = await this.load(k, sid);
      const parts: SessionStoreEntry[][] = [];
      for (const s of subs) parts.push(await this.load(k, sid, s.subpath));
      const figures = figuresOf(main, parts, sid);
      this.figCache.set(sid, { key, figures });
      return figures;
    });
  }
}

function safeParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return { type: 'unreadable', text: s.slice(0, 2000) };
  }
}

export class PgSource implements UiSource {
  readonly sessions: PgSessionReader;
  readonly where: string;
  private readonly records: PostgresRunRecords;
  private readonly store: PostgresSessionStore;
  private readonly shared: SharedPool;
  private remote = { records: '-', transcripts: '-', ids: '' };
  private pollProblem: Problem | null = null;
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  private cached: { fp: string; snap: Snapshot } | null = null;
  private closed = false;

  constructor(readonly o: PgSourceOptions) {
    this.records = new PostgresRunRecords(o.url, o.project, { waitMs: UI_WAIT_MS });
    this.store = new PostgresSessionStore(o.url, { readWaitMs: UI_WAIT_MS });
    this.shared = acquirePool(o.url);
    this.where = this.records.where;
    this.sessions = new PgSessionReader(this.shared, this.store, this.where);
  }

  /** The project's durable inbox (the page's one writable corner). */
  get inbox(): RunInbox {
    return this.records.inbox;
  }

  /** Opened and checked (one line when the server cannot be used), the first fingerprint read, polling. */
  static async open(o: PgSourceOptions): Promise<PgSource> {
    const s = new PgSource(o);
    try {
      await s.records.open();
      await s.store.open();
    } catch (e) {
      s.close();
      throw e;
    }
    await s.poll();
    s.timer = setInterval(() => {
      void s.poll();
    }, o.pollMs ?? POLL_MS);
    s.timer.unref();
    return s;
  }

  /** The sessions the pages draw: every row's session and retired ones, and the lineage's. */
  private sessionIds(): string[] {
    const snap = this.cached?.snap;
    if (!snap) return [];
    const ids = new Set<string>(Object.values(snap.lineage?.steps ?? {}));
    for (const r of snap.rows) for (const s of [...(r.retired ?? []), r.session_id]) if (s) ids.add(s);
    return [...ids];
  }

  /** One digest from the server; a poll still running is not started twice. */
  poll(): Promise<void> {
    this.polling ??= (async () => {
      const ids = this.sessionIds();
      try {
        const r = await withClient(this.shared, (c) => c.query<Record<string, string>>(FINGERPRINT, [this.o.project, ids]));
        const row = r.rows[0] ?? {};
        this.remote = {
          records: ['manifest', 'lineage', 'wakes', 'lock'].map((k) => String(row[k] ?? '')).join('|'),
          transcripts: String(row.transcripts ?? ''),
          ids: ids.join(','),
        };
        this.pollProblem = null;
      } catch (e) {
        if (!this.closed) this.pollProblem = problemOf(this.where, e);
      } finally {
        this.polling = undefined;
      }
    })();
    return this.polling;
  }

  /** What the snapshot shows: rows, lineage, lock (from the last poll) and the notes folders' stat. */
  private recordsPrint(): string {
    const parts = [this.remote.records, this.pollProblem ? 'down' : 'up'];
    const lin = this.cached?.snap.lineage;
    // the notes are files in the workspace: their folder's stat, as the files store does
    if (lin) for (const l of noteLayouts(this.o.runDir, lin)) parts.push(stat(l.notes));
    return parts.join('|');
  }

  fingerprint(): string {
    return `${this.recordsPrint()}|${this.remote.transcripts}`;
  }

  async snapshot(): Promise<Snapshot> {
    const fp = this.recordsPrint();
    if (this.cached?.fp === fp) return this.cached.snap;
    const problems: Problem[] = [];
    let rows: UiRow[] = [];
    let lineage: LineageView | null = null;
    let lock: Snapshot['lock'] = 'unknown';
    try {
      rows = await this.records.readRows();
      const l = await this.records.readLineage(this.o.workspace, { keep: false });
      if (l)
        lineage = {
          workspace: l.workspace,
          woke: l.woke,
          steps: l.steps,
          ...(l.workbench ? { workbench: l.workbench } : {}),
          ...(l.request ? { request: l.request } : {}),
        };
      lock = (await this.records.runLockHolder()) ? 'held' : 'free';
    } catch (e) {
      problems.push(problemOf(this.where, e));
    }
    const snap: Snapshot = { runDir: this.where, lock, rows, lineage, notes: readNotes(this.o.runDir, lineage), problems };
    this.cached = { fp, snap };
    // sessions the last digest did not watch yet (a new step): watched from now on
    if (this.sessionIds().join(',') !== this.remote.ids) await this.poll();
    return snap;
  }

  storeProblem(): Problem | null {
    return this.sessions.problem ?? this.pollProblem;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    this.records.close();
    this.store.close();
    void releasePool(this.shared);
  }
}
