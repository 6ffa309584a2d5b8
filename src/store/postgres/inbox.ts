// The durable inbox in PostgreSQL (src/state/inbox-format.ts has the contract): items are rows of
// flower.inbox per project, claimed by `UPDATE … WHERE state = 'pending' RETURNING` — one statement,
// so exactly one claimer gets each row however many hosts try; the waiting set is one row per project
// in flower.waiting, believed only while its writer still holds the project's run lock (a killed
// flower's connection is gone, and its advisory lock with it).
import type pg from 'pg';
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
  type LockHolder,
  type RunInbox,
  type WaitingSet,
} from '../../state/index.js';
import { withClient, type SharedPool } from './pool.js';

/** How often a running flower looks for new rows (a NOTIFY would save the wait; a second is the promise). */
export const PG_INBOX_POLL_MS = 1000;

export interface PgInboxDeps {
  shared: SharedPool;
  project: string;
  where: string;
  /** the records' retry-on-loss wrapper (the schema is ensured inside it) */
  patient<T>(fn: () => Promise<T>): Promise<T>;
  /** who holds the project's run lock now */
  holder(): Promise<LockHolder | null>;
}

export class PostgresInbox implements RunInbox {
  readonly where: string;

  constructor(private readonly d: PgInboxDeps) {
    this.where = d.where;
  }

  private q<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    return this.d.patient(() => withClient(this.d.shared, (c) => c.query<R>(text, values)));
  }

  async publishWaiting(w: WaitingSet): Promise<void> {
    await this.q(
      `INSERT INTO flower.waiting(project, owner, data) VALUES($1, $2, $3)
       ON CONFLICT(project) DO UPDATE SET owner = excluded.owner, data = excluded.data, updated_at = now()`,
      [this.d.project, w.owner, JSON.stringify(w)],
    );
  }

  async clearWaiting(owner: string): Promise<void> {
    await this.q('DELETE FROM flower.waiting WHERE project = $1 AND owner = $2', [this.d.project, owner]);
  }

  async readWaiting(): Promise<WaitingSet | null> {
    const r = await this.q<{ data: string }>('SELECT data FROM flower.waiting WHERE project = $1', [this.d.project]);
    const w = r.rows[0] ? parseWaiting(r.rows[0].data) : null;
    if (!w) return null;
    const h = await this.d.holder();
    return h && h.pid === w.pid && h.host === w.host ? w : null;
  }

  async post(body: InboxItemBody): Promise<string> {
    const r = await this.q<{ id: string }>('INSERT INTO flower.inbox(project, body) VALUES($1, $2) RETURNING id::text AS id', [
      this.d.project,
      JSON.stringify({ ...body, version: INBOX_VERSION }),
    ]);
    return r.rows[0]!.id;
  }

  async pending(o: { onNotice?: (n: InboxNotice) => void } = {}): Promise<InboxItem[]> {
    const r = await this.q<{ id: string; body: string }>(`SELECT id::text AS id, body FROM flower.inbox WHERE project = $1 AND state = 'pending' ORDER BY id`, [
      this.d.project,
    ]);
    const out: InboxItem[] = [];
    for (const row of r.rows) {
      const p = parseItem(row.body);
      if (p.ok) {
        out.push({ id: row.id, body: p.body });
        continue;
      }
      // set aside, not deleted: the row stays as it was, only marked so nobody applies or re-reports it
      const kept = await this.q(`UPDATE flower.inbox SET state = 'kept' WHERE id = $1 AND state = 'pending'`, [row.id]);
      const name = `flower.inbox row ${row.id}`;
      if (kept.rowCount) o.onNotice?.({ path: name, keptAt: `${name} (state 'kept')`, reason: p.reason });
    }
    return out;
  }

  async claim(id: string, by: string): Promise<boolean> {
    const r = await this.q(`UPDATE flower.inbox SET state = 'claimed', claimed_by = $3 WHERE id = $1 AND project = $2 AND state = 'pending' RETURNING id`, [
      id,
      this.d.project,
      by,
    ]);
    return r.rowCount === 1;
  }

  async finish(id: string, outcome: InboxOutcome): Promise<void> {
    await this.q(`UPDATE flower.inbox SET state = 'done', outcome = $3 WHERE id = $1 AND project = $2`, [
      id,
      this.d.project,
      JSON.stringify({ ...outcome, version: INBOX_VERSION }),
    ]);
  }

  async state(id: string): Promise<ItemState> {
    if (!/^\d+$/.test(id)) return { state: 'missing' };
    const r = await this.q<{ state: string; outcome: string | null }>('SELECT state, outcome FROM flower.inbox WHERE id = $1 AND project = $2', [
      id,
      this.d.project,
    ]);
    const row = r.rows[0];
    if (!row || row.state === 'kept') return { state: 'missing' };
    if (row.state === 'pending') return { state: 'pending' };
    const outcome = row.outcome ? parseOutcome(row.outcome) : null;
    return outcome ? { state: 'done', outcome } : { state: 'claimed' };
  }

  watch(onChange: () => void, o: { pollMs?: number } = {}): () => void {
    const timer = setInterval(onChange, o.pollMs ?? PG_INBOX_POLL_MS);
    timer.unref();
    return () => clearInterval(timer);
  }
}
