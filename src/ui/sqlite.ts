/**
 * sessions.db for the ui, strictly read-only:
 *
 * - during a live run (its -wal file exists) it is opened read-only and closed at once, so WAL readers
 *   and the writer never wait for each other and no lock is taken;
 * - a quiescent sessions.db (no -wal) is read into memory and opened from there: a read-only
 *   connection on a WAL-mode file would create -wal and -shm files in the run dir and leave them.
 *
 * Results are cached by the transcript's `next_seq`; a growing session is read incrementally. A file
 * whose schema version the store does not know is not queried (src/store/read-only.ts).
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import { readOnlySchemaProblem } from '../store/read-only.js';
import type { Problem, SearchHit, SessionReader, TranscriptPage } from './source.js';
import { TRACE_WINDOW, searchRows, traceRows } from './sqlite-trace.js';
import { traceOf, type Trace } from './trace.js';
import { foldCalls, figuresOf, verdictCallOf, type ModelCall, type SessionFigures, type VerdictCall } from './transcript.js';

/** size and mtime of a file ('-' when missing): what the live fingerprint and the memory copy key on */
export const stat = (f: string): string => {
  try {
    const s = fs.statSync(f);
    return `${s.mtimeMs}:${s.size}`;
  } catch {
    return '-';
  }
};

interface CallCache {
  nextSeq: number;
  lastSeq: number;
  calls: ModelCall[];
}

/**
 * Above this size a quiescent database is not copied into memory (it would be held twice: the file's
 * bytes and SQLite's copy) but opened read-only on file; SQLite then creates empty -wal/-shm files next
 * to it, the one trace the ui can leave, and only for a run dir this big.
 */
export const MEMORY_COPY_MAX = 1024 * 1024 * 1024;

function fileSize(f: string): number {
  try {
    return fs.statSync(f).size;
  } catch {
    return 0;
  }
}

export class SqliteReader implements SessionReader {
  private mem: { key: string; db: Database.Database } | null = null;
  private readonly callCache = new Map<string, CallCache>();
  private readonly figCache = new Map<string, { key: string; figures: SessionFigures }>();
  private readonly traceCache = new Map<string, { key: string; trace: Trace }>();
  problem: Problem | null = null;

  constructor(readonly file: string) {}

  /** Runs `fn` on a connection; null when there is no usable database. */
  private withDb<T>(fn: (db: Database.Database) => T): T | null {
    if (!fs.existsSync(this.file)) return null;
    // a database too big to copy into memory is opened on file like a live one (see MEMORY_COPY_MAX)
    const live = fs.existsSync(`${this.file}-wal`) || fileSize(this.file) > MEMORY_COPY_MAX;
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
          if (buf.length > 19 && buf[18] === 2 && buf[19] === 2) {
            buf[18] = 1;
            buf[19] = 1;
          }
          this.mem = { key, db: new Database(buf, { readonly: true }) };
        }
        db = this.mem.db;
      }
    } catch (e) {
      this.problem = { file: this.file, message: `cannot be read as a session store (${(e as Error).message}); context curves and transcripts are not shown` };
      return null;
    }
    try {
      // the store's schema version decides what this reader may query (src/store/read-only.ts)
      const unknown = readOnlySchemaProblem(db);
      if (unknown) {
        this.problem = { file: this.file, message: `${unknown}; context curves and transcripts are not shown` };
        return null;
      }
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
    const rows = db
      .prepare<[number, string], { store_key: string; next_seq: number; mtime: number }>(
        'SELECT store_key, next_seq, mtime FROM meta WHERE substr(store_key, -?) = ?',
      )
      .all(tail.length, tail)
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
    const rows = db
      .prepare<[string, number], { seq: number; f: string }>(
        `SELECT seq, json_extract(payload, '$.type', '$.isSidechain', '$.isApiErrorMessage', '$.uuid', '$.timestamp', '$.message.model', '$.message.id', '$.message.usage') AS f
       FROM entries WHERE store_key = ? AND seq > ? AND payload LIKE '%"assistant"%' ORDER BY seq`,
      )
      .iterate(key, afterSeq);
    return (function* () {
      for (const r of rows) {
        onSeq?.(r.seq);
        let f: unknown[];
        try {
          f = JSON.parse(r.f) as unknown[];
        } catch {
          continue;
        }
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
    foldCalls(
      this.callEntries(db, k.key, from, (seq) => {
        last = seq;
      }),
      sid,
      calls,
    );
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
    return (
      this.withDb((db) => {
        const k = this.mainKey(db, sid);
        if (!k) return [];
        return db
          .prepare<[string, string], string>('SELECT store_key FROM meta WHERE store_key >= ? AND store_key < ? ORDER BY mtime')
          .pluck()
          .all(`${k.key}/`, `${k.key}0`)
          .map((s) => s.slice(k.key.length + 1));
      }) ?? []
    );
  }

  async page(sid: string, subpath: string | undefined, from: number, limit: number): Promise<TranscriptPage | null> {
    return this.withDb((db) => {
      const k = this.mainKey(db, sid);
      if (!k) return null;
      const key = subpath ? `${k.key}/${subpath}` : k.key;
      const total = subpath ? db.prepare<[string], number>('SELECT next_seq FROM meta WHERE store_key = ?').pluck().get(key) : k.nextSeq;
      if (total === undefined) return null;
      const entries = db
        .prepare<[string, number, number], { seq: number; payload: string }>(
          'SELECT seq, payload FROM entries WHERE store_key = ? AND seq >= ? ORDER BY seq LIMIT ?',
        )
        .all(key, Math.max(0, from), limit)
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
    const rows = db
      .prepare<[string], string>(
        `SELECT json_extract(payload, '$.message.content') FROM entries WHERE store_key = ? AND payload LIKE '%"tool_use"%' AND json_extract(payload, '$.type') = 'assistant' ORDER BY seq`,
      )
      .pluck()
      .all(key);
    return rows.map((c) => ({ type: 'assistant', message: { content: safeParse(c) } }));
  }

  async figures(sid: string): Promise<SessionFigures> {
    return (
      this.withDb((db) => {
        const k = this.mainKey(db, sid);
        if (!k) return figuresOf([], [], sid);
        const subs = db
          .prepare<[string, string], { store_key: string; next_seq: number }>('SELECT store_key, next_seq FROM meta WHERE store_key >= ? AND store_key < ?')
          .all(`${k.key}/`, `${k.key}0`);
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
        const main = [
          ...this.callsIn(db, sid).map((m) => ({
            type: 'assistant',
            timestamp: m.at,
            message: {
              id: m.id,
              model: 'x',
              usage: { input_tokens: m.input, cache_creation_input_tokens: m.cacheCreation, cache_read_input_tokens: m.cacheRead, output_tokens: m.output },
            },
          })),
          ...part(k.key, false),
        ];
        const figures = figuresOf(
          main,
          subs.map((s) => part(s.store_key, true)),
          sid,
        );
        this.figCache.set(k.key, { key: cacheKey, figures });
        return figures;
      }) ?? figuresOf([], [], sid)
    );
  }

  /** the main key's subagent transcripts with their lengths */
  private subsOf(db: Database.Database, main: string): Array<{ store_key: string; next_seq: number }> {
    return db
      .prepare<[string, string], { store_key: string; next_seq: number }>(
        'SELECT store_key, next_seq FROM meta WHERE store_key >= ? AND store_key < ? ORDER BY mtime',
      )
      .all(`${main}/`, `${main}0`);
  }

  async trace(sid: string): Promise<Trace> {
    const empty = (): Trace => traceOf({ main: [], subs: [] });
    return (
      this.withDb((db) => {
        const k = this.mainKey(db, sid);
        if (!k) return empty();
        const subs = this.subsOf(db, k.key);
        const cacheKey = `${k.nextSeq}|${subs.map((s) => `${s.store_key}:${s.next_seq}`).join(',')}`;
        const c = this.traceCache.get(k.key);
        if (c?.key === cacheKey) return c.trace;
        const from = Math.max(0, k.nextSeq - TRACE_WINDOW);
        const trace = traceOf({
          main: traceRows(db, k.key, from),
          from,
          subs: subs.map((s) => ({ subpath: s.store_key.slice(k.key.length + 1), rows: traceRows(db, s.store_key, Math.max(0, s.next_seq - TRACE_WINDOW)) })),
        });
        this.traceCache.set(k.key, { key: cacheKey, trace });
        return trace;
      }) ?? empty()
    );
  }

  async search(sid: string, q: string, limit: number): Promise<SearchHit[]> {
    return (
      this.withDb((db) => {
        const k = this.mainKey(db, sid);
        if (!k || !q) return [];
        const out: SearchHit[] = [];
        for (const key of [k.key, ...this.subsOf(db, k.key).map((s) => s.store_key)]) {
          if (out.length >= limit) break;
          const sub = key === k.key ? '' : key.slice(k.key.length + 1);
          for (const r of searchRows(db, key, q, limit - out.length)) out.push({ sub, seq: r.seq, entry: safeParse(r.payload) });
        }
        return out;
      }) ?? []
    );
  }

  async verdict(sid: string): Promise<VerdictCall | null> {
    return (
      this.withDb((db) => {
        const k = this.mainKey(db, sid);
        if (!k) return null;
        // a judge's transcript is short; only entries naming the tool are parsed
        const rows = db
          .prepare<[string], string>(`SELECT payload FROM entries WHERE store_key = ? AND instr(payload, 'submit_verdict') > 0 ORDER BY seq`)
          .pluck()
          .all(k.key);
        return verdictCallOf(rows.map(safeParse));
      }) ?? null
    );
  }
}

function safeParse(s: string): unknown {
  try {
    return JSON.parse(s);
  } catch {
    return { type: 'unreadable', text: s.slice(0, 2000) };
  }
}
