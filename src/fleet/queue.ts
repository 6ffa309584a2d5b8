/**
 * The queue: pg-boss 10 on the store's PostgreSQL, in its own schema `flower_queue`. Taking a task,
 * retries, hand-backs, expiry of a dead worker's take, cancel and retry are the engine's; the one thing
 * flower adds is the heartbeat (pg-boss 10 has none), one documented UPDATE of the engine's own
 * `started_on` column (docs/fleet.md):
 *
 *   the engine expires an active job when started_on + expire_in < now(). A task's jobs are sent with
 *   expire_in = EXPIRE_CAP_S (the engine's in-process limit of one take, read when the job is fetched),
 *   and the heartbeat sets started_on = now() - expire_in + lease, so the take expires one lease after
 *   the last heartbeat. The UPDATE is a compare-and-set on started_on: a worker whose take expired (and
 *   was maybe taken by another) learns it from the row count, and never touches another's take.
 */
import { createRequire } from 'node:module';
import type PgBossType from 'pg-boss';
import { asPgStoreError, targetOf } from '../store/postgres/index.js';
import { failureText, type JobState, type TakeOutcome, type TaskData } from './tasks.js';
import type { FleetRetry, FleetTiming } from './settings.js';

export const QUEUE = 'flower-fleet';
export const QUEUE_SCHEMA = 'flower_queue';
/** the engine's cap on one take (it must stay under 24 h); the lease is the heartbeat's, see above */
export const EXPIRE_CAP_S = 23 * 3600;

// loaded with the first queue, not with the module (`flower --help` never pays for it)
let engine: typeof PgBossType | undefined;
const PgBoss = (): typeof PgBossType => (engine ??= createRequire(import.meta.url)('pg-boss') as typeof PgBossType);

export interface QueueOptions {
  /** run the engine's supervision (expiry of dead takes, archiving): workers do, `add`/`status` do not */
  supervise?: boolean;
  timing?: FleetTiming;
  /** connections of the engine's pool */
  max?: number;
  onError?: (e: Error) => void;
}

export type Boss = PgBossType;
export type Job = PgBossType.JobWithMetadata<TaskData>;

/** One job row as `status` reads it (the latest job of each task). */
export interface JobRow {
  job_id: string;
  state: JobState;
  data: TaskData;
  output: unknown;
  retry_count: number;
  retry_limit: number;
  created_on: Date;
  completed_on: Date | null;
}

const COLS = 'id::text AS job_id, state::text AS state, data, output, retry_count, retry_limit, created_on, completed_on';
/**
 * The latest job of every task ($1: the queue, $2: a start of the task id or null), oldest task first,
 * from the engine's tables (`status`, and `flower ui`, which reads them without starting the engine).
 */
export const LATEST_JOBS = `SELECT * FROM (
    SELECT DISTINCT ON (data->>'id') * FROM (
      SELECT ${COLS} FROM ${QUEUE_SCHEMA}.job WHERE name = $1
      UNION ALL SELECT ${COLS} FROM ${QUEUE_SCHEMA}.archive WHERE name = $1) j
    WHERE ($2::text IS NULL OR data->>'id' LIKE $2 || '%')
    ORDER BY data->>'id', created_on DESC) t
  ORDER BY (data->>'added_at'), data->>'id'`;

export class FleetQueue {
  private constructor(readonly boss: Boss) {}

  static async open(url: string, o: QueueOptions = {}): Promise<FleetQueue> {
    const Boss = PgBoss();
    const boss = new Boss({
      connectionString: url,
      schema: QUEUE_SCHEMA,
      application_name: 'flower-fleet',
      max: o.max ?? 4,
      supervise: o.supervise ?? false,
      schedule: false,
      migrate: true,
      ...(o.timing ? { maintenanceIntervalSeconds: o.timing.superviseS, pollingIntervalSeconds: o.timing.pollS } : {}),
      // finished tasks stay readable by `flower fleet status` for 30 days
      deleteAfterDays: 30,
    });
    // without a listener an error event (a dropped connection) would end the process
    boss.on('error', o.onError ?? (() => {}));
    try {
      await boss.start();
    } catch (e) {
      // one line naming host:port, as every command on this store says it (docs/postgres.md)
      await boss.stop({ graceful: false, wait: false }).catch(() => {});
      throw asPgStoreError(e, targetOf(url));
    }
    const q = new FleetQueue(boss);
    await q.ensureQueue();
    return q;
  }

  private async ensureQueue(): Promise<void> {
    if (await this.boss.getQueue(QUEUE)) return;
    try {
      await this.boss.createQueue(QUEUE, { name: QUEUE, policy: 'standard' });
    } catch (e) {
      // another process created it at the same moment
      if (!(await this.boss.getQueue(QUEUE))) throw e;
    }
  }

  /** Queue one take of a task; the engine's job id. */
  async send(data: TaskData, retry: FleetRetry): Promise<string> {
    const id = await this.boss.send(QUEUE, data, {
      expireInSeconds: EXPIRE_CAP_S,
      retryLimit: retry.retryLimit,
      retryDelay: retry.retryDelayS,
      singletonKey: data.id,
      retentionDays: 30,
    });
    if (!id) throw new Error(`the queue did not take task ${data.id}`);
    return id;
  }

  /**
   * The heartbeat: this take stays ours for `leaseS` more seconds. Returns the new started_on, or null
   * when the take is no longer ours (expired, cancelled, or taken by another worker). The compare is
   * within a millisecond: the server keeps microseconds, a JavaScript Date milliseconds.
   */
  async renew(jobId: string, startedOn: Date, leaseS: number): Promise<Date | null> {
    const r = await this.boss.getDb().executeSql(
      `UPDATE ${QUEUE_SCHEMA}.job SET started_on = now() - expire_in + make_interval(secs => $4)
        WHERE name = $1 AND id = $2 AND state = 'active'
          AND abs(extract(epoch FROM started_on - $3::timestamptz)) < 0.001 RETURNING started_on`,
      [QUEUE, jobId, startedOn, leaseS],
    );
    return (r.rows[0]?.started_on as Date | undefined) ?? null;
  }

  /** The engine's state of one job (null: gone). */
  async jobState(jobId: string): Promise<JobState | null> {
    const j = await this.boss.getJobById<TaskData>(QUEUE, jobId, { includeArchive: true });
    return (j?.state as JobState | undefined) ?? null;
  }

  /** The latest job of every task (or of the tasks whose id starts with `prefix`), oldest task first. */
  async latest(prefix?: string): Promise<JobRow[]> {
    const r = await this.boss.getDb().executeSql(LATEST_JOBS, [QUEUE, prefix ?? null]);
    return r.rows as JobRow[];
  }

  /** Mark a job done with what its take ended with. */
  complete(jobId: string, out: TakeOutcome): Promise<void> {
    return this.boss.complete(QUEUE, jobId, out as unknown as object);
  }

  cancel(jobId: string): Promise<void> {
    return this.boss.cancel(QUEUE, jobId);
  }

  resume(jobId: string): Promise<void> {
    return this.boss.resume(QUEUE, jobId);
  }

  /** A failed job offered again (the engine adds one retry). */
  retry(jobId: string): Promise<void> {
    return this.boss.retry(QUEUE, jobId);
  }

  async close(graceful = true): Promise<void> {
    await this.boss.stop({ graceful, wait: true, timeout: 5000 }).catch(() => {});
  }
}

export { failureText };
