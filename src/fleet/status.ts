/**
 * What `flower fleet status` shows, and what `flower ui` can read: every task with its state, host,
 * wakes, spend and branch. The latest engine job of each task gives the state; flower's own tables
 * give the rest (the run lock: who runs it now; flower.waiting: a question open; flower.wakes; the
 * manifest rows' costs), read in one query per table.
 */
import { acquirePool, ensureSchema, releasePool, withClient } from '../store/postgres/index.js';
import { LATEST_JOBS, QUEUE, QUEUE_SCHEMA, type FleetQueue, type JobRow } from './queue.js';
import { branchOf, taskDataSchema, taskState, type TaskState } from './tasks.js';

/** One task as `flower fleet status --json` prints it (one object per line). */
export interface TaskStatus {
  id: string;
  name: string | null;
  state: TaskState;
  /** why it stopped or failed, or its pass count when achieved (`3/3`); null otherwise */
  reason: string | null;
  /** the host running it now (from the project's run lock), else null */
  host: string | null;
  /** since when that host runs it */
  since: string | null;
  wakes: number;
  cost_usd: number;
  branch: string;
  repo: string;
  request: string;
  /** takes the engine has counted (the first is 0) and how many it allows */
  retries: number;
  retry_limit: number;
  job: string;
  added_at: string;
}

interface Facts {
  holder: Map<string, { pid: number; host: string; since: string }>;
  waiting: Map<string, { pid: number; host: string; questions: unknown[] }>;
  wakes: Map<string, number>;
  cost: Map<string, number>;
}

async function factsOf(url: string, projects: string[]): Promise<Facts> {
  const f: Facts = { holder: new Map(), waiting: new Map(), wakes: new Map(), cost: new Map() };
  if (projects.length === 0) return f;
  const p = acquirePool(url);
  try {
    await ensureSchema(p);
    await withClient(p, async (c) => {
      const h = await c.query<{ project: string; holder: string }>(
        `SELECT h.project, h.holder FROM flower.runlock h WHERE h.project = ANY($1) AND EXISTS (
           SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.classid = 2 AND l.objid = hashtext(h.project)::oid AND l.objsubid = 2)`,
        [projects],
      );
      for (const r of h.rows) f.holder.set(r.project, JSON.parse(r.holder) as { pid: number; host: string; since: string });
      const w = await c.query<{ project: string; data: string }>('SELECT project, data FROM flower.waiting WHERE project = ANY($1)', [projects]);
      for (const r of w.rows) f.waiting.set(r.project, JSON.parse(r.data) as { pid: number; host: string; questions: unknown[] });
      const k = await c.query<{ project: string; woke: number }>('SELECT project, woke FROM flower.wakes WHERE project = ANY($1)', [projects]);
      for (const r of k.rows) f.wakes.set(r.project, r.woke);
      const m = await c.query<{ project: string; cost: number | null }>(
        `SELECT project, sum(COALESCE((row::jsonb->>'cost_usd')::float8, 0)) AS cost FROM flower.manifest WHERE project = ANY($1) GROUP BY project`,
        [projects],
      );
      for (const r of m.rows) f.cost.set(r.project, Number(r.cost ?? 0));
    });
  } finally {
    await releasePool(p);
  }
  return f;
}

/** Every task of the fleet (or those whose id starts with `prefix`), oldest first. */
export async function fleetStatus(queue: FleetQueue, url: string, prefix?: string): Promise<TaskStatus[]> {
  const jobs = await queue.latest(prefix);
  const f = await factsOf(
    url,
    jobs.map((j) => j.data.id),
  );
  return jobs.map((j) => statusOf(j, f));
}

/** What `flower ui` reads of the fleet: its tasks, and how many engine jobs of the fleet's queue could not be read as tasks. */
export interface FleetRead {
  tasks: TaskStatus[];
  unreadable: number;
}

/**
 * Every task of the fleet, read without starting the engine (which would create its schema): null when
 * the store has no queue tables, i.e. no fleet was ever used there. A job whose data is not a task's
 * (not written by `flower fleet add`) is counted, not shown.
 */
export async function readFleet(url: string): Promise<FleetRead | null> {
  const p = acquirePool(url);
  let rows: JobRow[] | null;
  try {
    rows = await withClient(p, async (c) => {
      const t = await c.query<{ ok: boolean }>('SELECT to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL AS ok', [
        `${QUEUE_SCHEMA}.job`,
        `${QUEUE_SCHEMA}.archive`,
      ]);
      if (!t.rows[0]?.ok) return null;
      return (await c.query<JobRow>(LATEST_JOBS, [QUEUE, null])).rows;
    });
  } finally {
    await releasePool(p);
  }
  if (rows === null) return null;
  const jobs = rows.filter((j) => taskDataSchema.safeParse(j.data).success);
  const f = await factsOf(
    url,
    jobs.map((j) => j.data.id),
  );
  return { tasks: jobs.map((j) => statusOf(j, f)), unreadable: rows.length - jobs.length };
}

function statusOf(j: JobRow, f: Facts): TaskStatus {
  const id = j.data.id;
  const holder = f.holder.get(id);
  const w = f.waiting.get(id);
  // the waiting set is believed only while its writer holds the project's lock
  const waiting = !!(holder && w && w.pid === holder.pid && w.host === holder.host && w.questions.length > 0);
  const { state, reason } = taskState({ job: j.state, output: j.output, locked: !!holder, waiting });
  const live = state === 'running' || state === 'waiting';
  return {
    id,
    name: j.data.name ?? null,
    state,
    reason,
    host: live ? (holder?.host ?? null) : null,
    since: live ? (holder?.since ?? null) : null,
    wakes: f.wakes.get(id) ?? 0,
    cost_usd: Math.round((f.cost.get(id) ?? 0) * 1e6) / 1e6,
    branch: branchOf(id),
    repo: j.data.repo,
    request: j.data.request,
    retries: j.retry_count,
    retry_limit: j.retry_limit,
    job: j.job_id,
    added_at: j.data.added_at,
  };
}
