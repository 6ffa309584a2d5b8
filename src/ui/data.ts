/**
 * Everything `flower ui` reads, and nothing else reads for it: the run dir's manifest.json,
 * lineage.json and sessions.db, and the workspace's notes. Strictly read-only:
 *
 * - sessions.db during a live run (its -wal file exists) is opened read-only and closed at once, so
 *   WAL readers and the writer never wait for each other and no lock is taken;
 * - a quiescent sessions.db (no -wal) is read into memory and opened from there: a read-only
 *   connection on a WAL-mode file would create -wal and -shm files in the run dir and leave them.
 *
 * A damaged file is never fatal: it becomes a `Problem` (the page shows a banner naming the file).
 * The page talks to the `UiSource` interface only, so another store (PostgreSQL) can stand behind it.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { ManifestRow } from '../runtime/manifest.js';
import { foldCalls, figuresOf, verdictCallOf, type ModelCall, type SessionFigures, type VerdictCall } from './transcript.js';

/** A manifest row with the optional fields of CONTRACTS.md (older rows lack them). */
export type UiRow = ManifestRow & {
  failure?: { kind: string; retryable: boolean; message: string; status?: number };
  verdict?: { outcome: 'achieved' | 'not_yet' | 'unreachable'; passed: number; total: number };
};

export interface Problem {
  file: string;
  message: string;
}

export interface LineageView {
  workspace: string;
  woke: number;
  steps: Record<string, string>;
}

export interface NoteFile {
  file: string;
  text: string;
}

export interface Notes {
  dir: string | null;
  brief: NoteFile | null;
  goal: NoteFile | null;
  qa: NoteFile | null;
  /** 交接-<step>.md by file name */
  handoffs: NoteFile[];
}

export interface Snapshot {
  runDir: string;
  rows: UiRow[];
  lineage: LineageView | null;
  notes: Notes;
  problems: Problem[];
}

export interface TranscriptPage {
  /** entries with their position in the transcript */
  entries: Array<{ seq: number; entry: unknown }>;
  total: number;
}

/** What the pages need from a session store. */
export interface SessionReader {
  has(sessionId: string): Promise<boolean>;
  /** main-thread model calls, oldest first */
  calls(sessionId: string): Promise<ModelCall[]>;
  subagents(sessionId: string): Promise<string[]>;
  page(sessionId: string, subpath: string | undefined, from: number, limit: number): Promise<TranscriptPage | null>;
  figures(sessionId: string): Promise<SessionFigures>;
  verdict(sessionId: string): Promise<VerdictCall | null>;
}

export interface UiSource {
  /** changes whenever something the pages show may have changed; cheap (stat calls only) */
  fingerprint(): string;
  snapshot(): Promise<Snapshot>;
  sessions: SessionReader;
  /** a problem of the session store itself (not a SQLite file, …), if any */
  storeProblem(): Problem | null;
}

type Rec = Record<string, unknown>;
const isRec = (v: unknown): v is Rec => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Manifest rows from text: what is readable is kept; what is not is a problem naming the file. */
export function parseManifest(text: string, file: string): { rows: UiRow[]; problems: Problem[] } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { rows: [], problems: [{ file, message: `is not valid JSON (${(e as Error).message}); no run can be shown from it` }] };
  }
  if (!Array.isArray(v)) return { rows: [], problems: [{ file, message: 'is not a list of step rows; no run can be shown from it' }] };
  const rows: UiRow[] = [];
  let bad = 0;
  for (const r of v) {
    if (isRec(r) && typeof r.step === 'string' && typeof r.run === 'string') {
      rows.push({
        ...(r as unknown as UiRow),
        ok: r.ok === true,
        cost_usd: typeof r.cost_usd === 'number' ? r.cost_usd : 0,
        num_turns: typeof r.num_turns === 'number' ? r.num_turns : 0,
        duration_s: typeof r.duration_s === 'number' ? r.duration_s : 0,
        started_at: typeof r.started_at === 'string' ? r.started_at : '',
        ended_at: typeof r.ended_at === 'string' ? r.ended_at : null,
        session_id: typeof r.session_id === 'string' ? r.session_id : null,
        retired: Array.isArray(r.retired) ? r.retired.filter((s): s is string => typeof s === 'string') : [],
        text: typeof r.text === 'string' ? r.text : '',
        error: typeof r.error === 'string' ? r.error : null,
        errors: Array.isArray(r.errors) ? r.errors.map(String) : [],
        context: typeof r.context === 'number' ? r.context : 0,
      });
    } else bad++;
  }
  return { rows, problems: bad ? [{ file, message: `has ${bad} unreadable row${bad === 1 ? '' : 's'} (not shown)` }] : [] };
}

export function parseLineage(text: string, file: string): { lineage: LineageView | null; problems: Problem[] } {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return { lineage: null, problems: [{ file, message: `is not valid JSON (${(e as Error).message}); sessions per step and the workspace notes are not shown` }] };
  }
  if (!isRec(v) || typeof v.workspace !== 'string' || !isRec(v.steps)) {
    return { lineage: null, problems: [{ file, message: 'is not a lineage record ({ workspace, woke, steps }); sessions per step and the workspace notes are not shown' }] };
  }
  const steps: Record<string, string> = {};
  for (const [k, s] of Object.entries(v.steps)) if (typeof s === 'string') steps[k] = s;
  return { lineage: { workspace: v.workspace, woke: typeof v.woke === 'number' ? v.woke : 0, steps }, problems: [] };
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

const stat = (f: string): string => {
  try {
    const s = fs.statSync(f);
    return `${s.mtimeMs}:${s.size}`;
  } catch {
    return '-';
  }
};

/** Where the notes live: `<workspace>/.flower/notes`, or an isolated workbench's `<parent>/.flower-<name>/notes`. */
export function notesDirs(workspace: string): string[] {
  const ws = path.resolve(workspace);
  return [path.join(ws, '.flower', 'notes'), path.join(path.dirname(ws), `.flower-${path.basename(ws)}`, 'notes')];
}

function readNotes(workspace: string | null): Notes {
  const none: Notes = { dir: null, brief: null, goal: null, qa: null, handoffs: [] };
  if (!workspace) return none;
  const dir = notesDirs(workspace).find((d) => fs.existsSync(d));
  if (!dir) return none;
  const note = (name: string): NoteFile | null => {
    const file = path.join(dir, name);
    const text = readText(file);
    return text === null ? null : { file, text };
  };
  let handoffs: NoteFile[] = [];
  try {
    handoffs = fs.readdirSync(dir).filter((f) => f.startsWith('交接-') && f.endsWith('.md')).sort()
      .map((f) => note(f)).filter((n): n is NoteFile => n !== null);
  } catch { /* unreadable folder: no handoffs shown */ }
  // 需求.md / 目标.md sit in the workspace's own notes even when the workbench is isolated
  const own = path.join(path.resolve(workspace), '.flower', 'notes');
  const doc = (name: string) => note(name) ?? (() => {
    const t = readText(path.join(own, name));
    return t === null ? null : { file: path.join(own, name), text: t };
  })();
  return { dir, brief: doc('需求.md'), goal: doc('目标.md'), qa: doc('问答记录.md'), handoffs };
}

interface CallCache {
  nextSeq: number;
  lastSeq: number;
  calls: ModelCall[];
}

/** sessions.db, read-only (see the module comment). */
export class SqliteReader implements SessionReader {
  private mem: { key: string; db: Database.Database } | null = null;
  private readonly callCache = new Map<string, CallCache>();
  private readonly figCache = new Map<string, { key: string; figures: SessionFigures }>();
  problem: Problem | null = null;

  constructor(readonly file: string) {}

  /** Runs `fn` on a connection; null when there is no usable database. */
  private withDb<T>(fn: (db: Database.Database) => T): T | null {
    if (!fs.existsSync(this.file)) return null;
    const live = fs.existsSync(`${this.file}-wal`);
    let db: Database.Database;
    try {
      if (live) {
        this.dropMem();
        db = new Database(this.file, { readonly: true, fileMustExist: true, timeout: 5000 });
      } else {
        const key = stat(this.file);
        if (this.mem?.key !== key) {
          this.dropMem();
          const buf = fs.readFileSync(this.file);
          // a WAL-mode header (format bytes 2/2) cannot be opened from memory; the content is the same
          if (buf.length > 19 && buf[18] === 2 && buf[19] === 2) { buf[18] = 1; buf[19] = 1; }
          this.mem = { key, db: new Database(buf, { readonly: true }) };
        }
        db = this.mem.db;
      }
    } catch (e) {
      this.problem = { file: this.file, message: `cannot be read as a session store (${(e as Error).message}); context curves and transcripts are not shown` };
      return null;
    }
    try {
      const out = fn(db);
      this.problem = null;
      return out;
    } catch (e) {
      this.problem = { file: this.file, message: `cannot be read as a session store (${(e as Error).message}); context curves and transcripts are not shown` };
      return null;
    } finally {
      if (live) db.close();
    }
  }

  private dropMem(): void {
    this.mem?.db.close();
    this.mem = null;
  }

  close(): void {
    this.dropMem();
  }

  /** The main transcript's store key for a session id (newest write when several projects have it). */
  private mainKey(db: Database.Database, sid: string): { key: string; nextSeq: number } | null {
    if (!sid || sid.includes('/')) return null;
    const tail = `/${sid}`;
    const rows = db.prepare<[number, string], { store_key: string; next_seq: number; mtime: number }>(
      'SELECT store_key, next_seq, mtime FROM meta WHERE substr(store_key, -?) = ?').all(tail.length, tail)
      .filter((r) => r.store_key.indexOf('/') === r.store_key.length - tail.length)
      .sort((a, b) => b.mtime - a.mtime);
    return rows[0] ? { key: rows[0].store_key, nextSeq: rows[0].next_seq } : null;
  }

  /**
   * Call-shaped entries of one transcript after `afterSeq`, as minimal entries for foldCalls. The LIKE
   * pre-filter is a plain byte match (instr() would count characters); json_extract hands over only the
   * fields a call needs, so the big payloads never become JS strings (bench/ui.ts: 100k entries).
   */
  private callEntries(db: Database.Database, key: string, afterSeq: number, onSeq?: (seq: number) => void): Iterable<unknown> {
    const rows = db.prepare<[string, number], { seq: number; f: string }>(
      `SELECT seq, json_extract(payload, '$.type', '$.isSidechain', '$.isApiErrorMessage', '$.uuid', '$.timestamp', '$.message.model', '$.message.id', '$.message.usage') AS f
       FROM entries WHERE store_key = ? AND seq > ? AND payload LIKE '%"assistant"%' ORDER BY seq`).iterate(key, afterSeq);
    return (function* () {
      for (const r of rows) {
        onSeq?.(r.seq);
        let f: unknown[];
        try { f = JSON.parse(r.f) as unknown[]; } catch { continue; }
        yield { type: f[0], isSidechain: f[1], isApiErrorMessage: f[2], uuid: f[3], timestamp: f[4], message: { model: f[5], id: f[6], usage: f[7] } };
      }
    })();
  }

  private callsIn(db: Database.Database, sid: string): ModelCall[] {
    const k = this.mainKey(db, sid);
    if (!k) return [];
    const c = this.callCache.get(k.key);
    if (c && c.nextSeq === k.nextSeq) return c.calls;
    // a growing session: only its new entries are read
    const from = c && c.nextSeq < k.nextSeq ? c.lastSeq : -1;
    const calls = c && from >= 0 ? [...c.calls.map((x) => ({ ...x }))] : [];
    let last = from;
    foldCalls(this.callEntries(db, k.key, from, (seq) => { last = seq; }), sid, calls);
    this.callCache.set(k.key, { nextSeq: k.nextSeq, lastSeq: Math.max(last, from), calls });
    return calls;
  }

  async has(sid: string): Promise<boolean> {
    return this.withDb((db) => this.mainKey(db, sid) !== null) ?? false;
  }

  async calls(sid: string): Promise<ModelCall[]> {
    return this.withDb((db) => this.callsIn(db, sid)) ?? [];
  }

  /** Many sessions in one connection (the landing page). */
  async callsOf(sids: readonly string[]): Promise<Map<string, ModelCall[]>> {
    return this.withDb((db) => new Map(sids.map((s) => [s, this.callsIn(db, s)]))) ?? new Map();
  }

  async subagents(sid: string): Promise<string[]> {
    return this.withDb((db) => {
      const k = this.mainKey(db, sid);
      if (!k) return [];
      return db.prepare<[string, string], string>('SELECT store_key FROM meta WHERE store_key >= ? AND store_key < ? ORDER BY mtime')
        .pluck().all(`${k.key}/`, `${k.key}0`).map((s) => s.slice(k.key.length + 1));
    }) ?? [];
  }

  async page(sid: string, subpath: string | undefined, from: number, limit: number): Promise<TranscriptPage | null> {
    return this.withDb((db) => {
      const k = this.mainKey(db, sid);
      if (!k) return null;
      const key = subpath ? `${k.key}/${subpath}` : k.key;
      const total = subpath
        ? db.prepare<[string], number>('SELECT next_seq FROM meta WHERE store_key = ?').pluck().get(key)
        : k.nextSeq;
      if (total === undefined) return null;
      const entries = db.prepare<[string, number, number], { seq: number; payload: string }>(
        'SELECT seq, payload FROM entries WHERE store_key = ? AND seq >= ? ORDER BY seq LIMIT ?').all(key, Math.max(0, from), limit)
        .map((r) => ({ seq: r.seq, entry: safeParse(r.payload) }));
      return { entries, total };
    });
  }

  /** Entries of `keys` whose payload matches a LIKE pattern, parsed. */
  private matching(db: Database.Database, keys: string[], likes: string[]): unknown[] {
    const out: unknown[] = [];
    const where = likes.map(() => 'payload LIKE ?').join(' OR ');
    const st = db.prepare<unknown[], string>(`SELECT payload FROM entries WHERE store_key = ? AND (${where}) ORDER BY seq`).pluck();
    for (const k of keys) for (const p of st.iterate(k, ...likes)) out.push(safeParse(p));
    return out;
  }

  /** tool_use blocks of assistant entries, as minimal entries (content only) */
  private toolEntries(db: Database.Database, key: string): unknown[] {
    const rows = db.prepare<[string], string>(
      `SELECT json_extract(payload, '$.message.content') FROM entries WHERE store_key = ? AND payload LIKE '%"tool_use"%' AND json_extract(payload, '$.type') = 'assistant' ORDER BY seq`).pluck().all(key);
    return rows.map((c) => ({ type: 'assistant', message: { content: safeParse(c) } }));
  }

  async figures(sid: string): Promise<SessionFigures> {
    return this.withDb((db) => {
      const k = this.mainKey(db, sid);
      if (!k) return figuresOf([], [], sid);
      const subs = db.prepare<[string, string], { store_key: string; next_seq: number }>(
        'SELECT store_key, next_seq FROM meta WHERE store_key >= ? AND store_key < ?').all(`${k.key}/`, `${k.key}0`);
      const cacheKey = `${k.nextSeq}|${subs.map((s) => `${s.store_key}:${s.next_seq}`).join(',')}`;
      const c = this.figCache.get(k.key);
      if (c?.key === cacheKey) return c.figures;
      // only what the figures read: call fields, tool_use blocks, and tool results that are spill pointers
      const spillLikes = ['%output spilled: %', '%输出过长,已转存%'];
      const part = (key: string, sub: boolean): unknown[] => [
        ...(sub ? [...this.callEntries(db, key, -1)].map((e) => ({ ...(e as object), isSidechain: true })) : []),
        ...this.toolEntries(db, key),
        ...this.matching(db, [key], spillLikes).filter((e) => (e as { type?: unknown }).type === 'user'),
      ];
      const main = [...this.callsIn(db, sid).map((m) => ({
        type: 'assistant', timestamp: m.at, message: { id: m.id, model: 'x', usage: { input_tokens: m.input, cache_creation_input_tokens: m.cacheCreation, cache_read_input_tokens: m.cacheRead, output_tokens: m.output } },
      })), ...part(k.key, false)];
      const figures = figuresOf(main, subs.map((s) => part(s.store_key, true)), sid);
      this.figCache.set(k.key, { key: cacheKey, figures });
      return figures;
    }) ?? figuresOf([], [], sid);
  }

  async verdict(sid: string): Promise<VerdictCall | null> {
    return this.withDb((db) => {
      const k = this.mainKey(db, sid);
      if (!k) return null;
      // a judge's transcript is short; only entries naming the tool are parsed
      const rows = db.prepare<[string], string>(
        `SELECT payload FROM entries WHERE store_key = ? AND instr(payload, 'submit_verdict') > 0 ORDER BY seq`).pluck().all(k.key);
      return verdictCallOf(rows.map(safeParse));
    }) ?? null;
  }
}

function safeParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return { type: 'unreadable', text: s.slice(0, 2000) };
  }
}

/** The run dir on disk: manifest.json, lineage.json, sessions.db and the workspace's notes. */
export class FileSource implements UiSource {
  readonly manifestFile: string;
  readonly lineageFile: string;
  readonly sessions: SqliteReader;
  private cached: { fp: string; snap: Snapshot } | null = null;

  constructor(readonly runDir: string) {
    this.manifestFile = path.join(runDir, 'manifest.json');
    this.lineageFile = path.join(runDir, 'lineage.json');
    this.sessions = new SqliteReader(path.join(runDir, 'sessions.db'));
  }

  fingerprint(): string {
    const db = this.sessions.file;
    const parts = [stat(this.manifestFile), stat(this.lineageFile), stat(db), stat(`${db}-wal`)];
    const ws = this.cached?.snap.lineage?.workspace;
    if (ws) for (const d of notesDirs(ws)) parts.push(stat(d));
    return parts.join('|');
  }

  async snapshot(): Promise<Snapshot> {
    const fp = this.fingerprint();
    if (this.cached?.fp === fp) return this.cached.snap;
    const problems: Problem[] = [];
    let rows: UiRow[] = [];
    const m = readText(this.manifestFile);
    if (m !== null) {
      const r = parseManifest(m, this.manifestFile);
      rows = r.rows;
      problems.push(...r.problems);
    }
    let lineage: LineageView | null = null;
    const l = readText(this.lineageFile);
    if (l !== null) {
      const r = parseLineage(l, this.lineageFile);
      lineage = r.lineage;
      problems.push(...r.problems);
    }
    const snap: Snapshot = { runDir: this.runDir, rows, lineage, notes: readNotes(lineage?.workspace ?? null), problems };
    this.cached = { fp: this.fingerprint(), snap };
    return snap;
  }

  storeProblem(): Problem | null {
    return this.sessions.problem;
  }

  close(): void {
    this.sessions.close();
  }
}

/** The run dir when -r was not given: ./runs, ../runs, … up to the root (like git), else ./runs. */
export function findRunDir(cwd: string): string {
  let dir = path.resolve(cwd);
  for (;;) {
    const cand = path.join(dir, 'runs');
    if (['manifest.json', 'lineage.json', 'sessions.db'].some((f) => fs.existsSync(path.join(cand, f)))) return cand;
    const up = path.dirname(dir);
    if (up === dir) return path.join(path.resolve(cwd), 'runs');
    dir = up;
  }
}
