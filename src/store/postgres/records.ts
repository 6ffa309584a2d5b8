// PostgresRunRecords: src/state's RunRecords in PostgreSQL, for one PROJECT (FLOWER_PROJECT, or the
// absolute workspace path by default). Row-level writes, never a read-modify-write of a blob: a
// lineage step is one row (project, step), the wake counter one row per project, a manifest row one
// row keyed (run, idx) — so processes on many hosts never lose each other's rows. The run lock is a
// session-level advisory lock per project: the server frees it when the holder's connection ends
// (a kill -9, a crashed host), so there is no stale lock to take over. The inbox is src/store/postgres/inbox.ts.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { checkManifestRow, StateCorrupt, writeJsonAtomic, processStartTime } from '../../state/index.js';
import type {
  AcquireOptions,
  LineageRecord,
  LockHolder,
  ManifestRow,
  NoticeSink,
  ReadOptions,
  RunInbox,
  RunLockResult,
  RunRecords,
} from '../../state/index.js';
import { asPgStoreError } from './errors.js';
import { acquirePool, inTransaction, releasePool, retryOnLoss, withClient, redactUrl, type SharedPool } from './pool.js';
import { PostgresInbox } from './inbox.js';
import { ensureSchema } from './schema.js';

// The two advisory-lock classes (first key of the two-int form): one for short lineage
// transactions, one for the run lock. The second key is hashtext(project).
const LINEAGE_LOCK = 1;
const RUN_LOCK = 2;

/** How long a lineage or manifest write waits for a server that went away (then it fails loudly). */
export const RECORDS_WAIT_MS = 30 * 60_000;

export class PostgresRunRecords implements RunRecords {
  readonly where: string;
  /** rows of flower.inbox and flower.waiting for this project (src/store/postgres/inbox.ts) */
  readonly inbox: RunInbox;
  private readonly shared: SharedPool;
  private closed = false;
  private readonly waitMs: number;

  constructor(
    readonly url: string,
    readonly project: string,
    o: { waitMs?: number } = {},
  ) {
    this.shared = acquirePool(url);
    this.where = `${redactUrl(url)} (project ${project})`;
    this.waitMs = o.waitMs ?? RECORDS_WAIT_MS;
    this.inbox = new PostgresInbox({
      shared: this.shared,
      project,
      where: this.where,
      patient: (fn) => this.patient(fn),
      holder: () => this.runLockHolder(),
    });
  }

  private async ready(): Promise<void> {
    await ensureSchema(this.shared);
  }

  /** The server dropping mid-run is waited out like a network loss: the write is retried, in order. */
  private patient<T>(fn: () => Promise<T>): Promise<T> {
    return retryOnLoss(
      async () => {
        await this.ready();
        return fn();
      },
      this.waitMs,
      () => this.closed,
    );
  }

  private async read(
    c: pg.PoolClient | pg.Pool,
  ): Promise<{ woke: number; workspace: string | null; workbench: string | null; steps: Record<string, string> } | null> {
    const w = await c.query<{ woke: number; workspace: string; workbench: string | null }>({
      name: 'flower_wakes_get',
      text: 'SELECT woke, workspace, workbench FROM flower.wakes WHERE project = $1',
      values: [this.project],
    });
    const s = await c.query<{ step: string; session_id: string }>({
      name: 'flower_lineage_get',
      text: 'SELECT step, session_id FROM flower.lineage WHERE project = $1 ORDER BY step COLLATE "C"',
      values: [this.project],
    });
    if (w.rows.length === 0 && s.rows.length === 0) return null;
    const row = w.rows[0];
    return {
      woke: row?.woke ?? 0,
      workspace: row?.workspace ?? null,
      workbench: row?.workbench ?? null,
      steps: Object.fromEntries(s.rows.map((r) => [r.step, r.session_id])),
    };
  }

  private record(workspace: string, d: NonNullable<Awaited<ReturnType<PostgresRunRecords['read']>>>): LineageRecord {
    // the project is the identity: another host's workspace path continues the same lineage
    const out: LineageRecord = { version: 1, workspace, woke: d.woke, steps: d.steps };
    if (d.workbench) out.workbench = d.workbench;
    return out;
  }

  // `strict` has nothing to add here: lineage rows are typed columns, so a damaged one cannot be read at all
  async readLineage(workspace: string, _o?: { onNotice?: NoticeSink; keep?: boolean } & ReadOptions): Promise<LineageRecord | null> {
    const d = await this.patient(() => withClient(this.shared, (c) => this.read(c)));
    return d ? this.record(workspace, d) : null;
  }

  updateLineage(workspace: string, change: (d: LineageRecord) => void, _o?: { onNotice?: NoticeSink }): Promise<LineageRecord> {
    return this.patient(() =>
      inTransaction(this.shared, async (c) => {
        // serialises read-change-write per project; the writes themselves touch only changed rows
        await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LINEAGE_LOCK, this.project]);
        const d = await this.read(c);
        const before = d ? this.record(workspace, d) : { version: 1 as const, workspace, woke: 0, steps: {} };
        const next: LineageRecord = { ...before, steps: { ...before.steps } };
        change(next);
        for (const [step, sid] of Object.entries(next.steps)) {
          if (before.steps[step] === sid) continue;
          await c.query({
            name: 'flower_lineage_put',
            text: `INSERT INTO flower.lineage(project, step, session_id, workspace) VALUES($1, $2, $3, $4)
                 ON CONFLICT(project, step) DO UPDATE SET session_id = excluded.session_id, workspace = excluded.workspace, updated_at = now()`,
            values: [this.project, step, sid, workspace],
          });
        }
        const gone = Object.keys(before.steps).filter((s) => !(s in next.steps));
        if (gone.length > 0) await c.query('DELETE FROM flower.lineage WHERE project = $1 AND step = ANY($2::text[])', [this.project, gone]);
        if (!d || next.woke !== before.woke || next.workbench !== before.workbench || d.workspace !== workspace) {
          await c.query({
            name: 'flower_wakes_put',
            text: `INSERT INTO flower.wakes(project, woke, workspace, workbench) VALUES($1, $2, $3, $4)
                 ON CONFLICT(project) DO UPDATE SET woke = excluded.woke, workspace = excluded.workspace, workbench = excluded.workbench, updated_at = now()`,
            values: [this.project, next.woke, workspace, next.workbench ?? null],
          });
        }
        next.version = 1;
        return next;
      }),
    );
  }

  /** `--new`: the lineage is written as lineage.json into `into` (next to the archived notes), then cleared. */
  archiveLineage(workspace: string, into: string): Promise<string | null> {
    return this.patient(() =>
      inTransaction(this.shared, async (c) => {
        await c.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [LINEAGE_LOCK, this.project]);
        const d = await this.read(c);
        if (!d) return null;
        fs.mkdirSync(into, { recursive: true });
        const file = path.join(into, 'lineage.json');
        writeJsonAtomic(file, { ...this.record(workspace, d), project: this.project });
        await c.query('DELETE FROM flower.lineage WHERE project = $1', [this.project]);
        await c.query('DELETE FROM flower.wakes WHERE project = $1', [this.project]);
        return file;
      }),
    );
  }

  async upsertRows(run: string, rows: readonly ManifestRow[], _o?: { onNotice?: NoticeSink }): Promise<void> {
    await this.patient(() =>
      inTransaction(this.shared, async (c) => {
        await c.query({ name: 'flower_manifest_trim', text: 'DELETE FROM flower.manifest WHERE run = $1 AND idx >= $2', values: [run, rows.length] });
        if (rows.length === 0) return;
        await c.query({
          name: 'flower_manifest_put',
          text: `INSERT INTO flower.manifest(run, idx, project, step, started_at, row)
               SELECT $1, i, $2, s, t, r FROM unnest($3::int[], $4::text[], $5::text[], $6::text[]) AS x(i, s, t, r)
               ON CONFLICT(run, idx) DO UPDATE SET project = excluded.project, step = excluded.step, started_at = excluded.started_at, row = excluded.row`,
          values: [run, this.project, rows.map((_, i) => i), rows.map((r) => r.step), rows.map((r) => r.started_at), rows.map((r) => JSON.stringify(r))],
        });
      }),
    );
  }

  /**
   * Every row of this project, oldest first. A row that is not JSON or not a manifest row (written by
   * hand, or by another program) is skipped — unless `strict` (a read-only command): then it throws a
   * `StateCorrupt` naming the table and the row, so `flower status` reports the damage instead of
   * showing fewer steps than ran.
   */
  async readRows(o: ReadOptions = {}): Promise<ManifestRow[]> {
    const r = await this.patient(() =>
      withClient(this.shared, (c) =>
        c.query<{ run: string; idx: number; row: string }>({
          name: 'flower_manifest_get_keyed',
          text: 'SELECT run, idx, row FROM flower.manifest WHERE project = $1 ORDER BY started_at, run, idx',
          values: [this.project],
        }),
      ),
    );
    const out: ManifestRow[] = [];
    for (const { run, idx, row } of r.rows) {
      const parsed = parseRow(row);
      if (parsed.ok) out.push(parsed.row);
      else if (o.strict)
        throw new StateCorrupt('state-corrupt', `flower.manifest row ${run}#${idx} in ${this.where} is damaged: ${parsed.reason}`, { path: this.where });
    }
    return out;
  }

  /** Who holds the run lock of this project now (null: nobody). */
  runLockHolder(): Promise<LockHolder | null> {
    return this.patient(() => withClient(this.shared, (c) => this.holder(c)));
  }

  private async holder(c: pg.PoolClient): Promise<LockHolder | null> {
    const r = await c.query<{ holder: string }>(
      `SELECT h.holder FROM flower.runlock h WHERE h.project = $1 AND EXISTS (
         SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $2 AND l.objid = hashtext($1)::oid AND l.objsubid = 2)`,
      [this.project, RUN_LOCK],
    );
    if (!r.rows[0]) return null;
    try {
      return JSON.parse(r.rows[0].holder) as LockHolder;
    } catch {
      return null;
    }
  }

  async acquireRunLock(o: AcquireOptions = {}): Promise<RunLockResult> {
    await this.ready();
    const wait = o.wait ?? false;
    const deadline = wait === true ? Infinity : wait === false ? 0 : Date.now() + wait;
    const poll = o.pollMs ?? 100;
    // the lock lives as long as this connection: it is kept out of the pool until release
    let client: pg.PoolClient;
    try {
      client = await this.shared.pool.connect();
    } catch (e) {
      throw asPgStoreError(e, this.shared.target);
    }
    client.on('error', () => {});
    try {
      for (;;) {
        const got = await client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [RUN_LOCK, this.project]);
        if (got.rows[0]?.ok) break;
        if (Date.now() >= deadline) {
          const h = await this.holder(client);
          client.release();
          return { heldBy: h ?? { pid: 0, startedAt: null, host: '?', since: '' } };
        }
        await new Promise((r) => setTimeout(r, poll));
      }
      const me: LockHolder = { pid: process.pid, startedAt: processStartTime(process.pid), host: os.hostname(), since: new Date().toISOString() };
      await client.query(
        `INSERT INTO flower.runlock(project, holder) VALUES($1, $2)
        ON CONFLICT(project) DO UPDATE SET holder = excluded.holder`,
        [this.project, JSON.stringify(me)],
      );
      let released = false;
      return {
        holder: me,
        release: async () => {
          if (released) return;
          released = true;
          try {
            await client.query('SELECT pg_advisory_unlock($1, hashtext($2))', [RUN_LOCK, this.project]);
            client.release();
          } catch (e) {
            // the connection is gone, and the server freed the lock with it
            client.release(e instanceof Error ? e : true);
          }
        },
      };
    } catch (e) {
      client.release(e instanceof Error ? e : true);
      throw asPgStoreError(e, this.shared.target);
    }
  }

  /** Connect and create or check the schema now (the start-up check: one line on failure). */
  async open(): Promise<this> {
    await this.ready();
    return this;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    void releasePool(this.shared);
  }
}

function parseRow(row: string): { ok: true; row: ManifestRow } | { ok: false; reason: string } {
  let v: unknown;
  try {
    v = JSON.parse(row);
  } catch (e) {
    return { ok: false, reason: `not JSON (${(e as Error).message})` };
  }
  return checkManifestRow(v);
}
