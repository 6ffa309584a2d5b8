/**
 * `flower fleet work`: a worker process with N slots, each one an engine worker (pg-boss `work`, one
 * job at a time) that runs takes (take.ts). The engine finds the next task, keeps retries and expires
 * the takes of dead workers (this process runs its supervision too); the worker keeps its leases.
 *
 * Stopping: `stop('after-step')` (the first SIGTERM) takes nothing new, lets every take finish its step
 * and hands the tasks back; `stop('now')` (the second) stops every step at once (resumable, recorded as
 * killed) and hands back. `--drain` stops by itself when no task is queued or running anywhere.
 */
import fs from 'node:fs';
import { QUEUE, FleetQueue, type Job } from './queue.js';
import type { FleetTiming } from './settings.js';
import { HandBack, Take, type StopMode, type TakeContext } from './take.js';
import type { TakeOutcome, TaskData } from './tasks.js';

export interface WorkerOptions {
  url: string;
  slots: number;
  workdir: string;
  drain: boolean;
  timing: FleetTiming;
  flowerBin: string;
  env: Record<string, string | undefined>;
  host: string;
  askTimeoutS: number;
  /** one event of the worker's log (NDJSON with --json, a line otherwise) */
  emit: (e: Record<string, unknown>) => void;
}

/** Exit code of a worker that lost a lease it did not give up (its tasks are another's now). */
export const EXIT_LEASE_LOST = 75;

export class FleetWorker {
  private queue: FleetQueue | undefined;
  private readonly takes = new Map<string, Take>();
  private readonly engineWorkers: string[] = [];
  private stopping: StopMode | null = null;
  private exitCode = 0;
  private finish!: (code: number) => void;
  /** resolves with the exit code once every take has ended and the queue is closed */
  readonly done: Promise<number> = new Promise((r) => (this.finish = r));
  private drainTimer: NodeJS.Timeout | undefined;

  constructor(private readonly o: WorkerOptions) {}

  async start(): Promise<void> {
    fs.mkdirSync(this.o.workdir, { recursive: true });
    this.queue = await FleetQueue.open(this.o.url, {
      supervise: true,
      timing: this.o.timing,
      max: this.o.slots * 2 + 2,
      onError: (e) => this.o.emit({ kind: 'queue_error', error: e.message, host: this.o.host }),
    });
    const ctx: TakeContext = {
      queue: this.queue,
      url: this.o.url,
      timing: this.o.timing,
      workdir: this.o.workdir,
      flowerBin: this.o.flowerBin,
      env: this.o.env,
      host: this.o.host,
      askTimeoutS: this.o.askTimeoutS,
      emit: this.o.emit,
      leaseLost: (task) => this.lost(task),
    };
    for (let i = 0; i < this.o.slots; i++) {
      const id = await this.queue.boss.work<TaskData>(QUEUE, { batchSize: 1, includeMetadata: true, pollingIntervalSeconds: this.o.timing.pollS }, ([job]) =>
        this.take(job as Job, ctx),
      );
      this.engineWorkers.push(id);
    }
    this.o.emit({ kind: 'worker_start', host: this.o.host, pid: process.pid, slots: this.o.slots, lease_s: this.o.timing.leaseS });
    if (this.o.drain) this.drainTimer = setInterval(() => void this.drainCheck(), this.o.timing.pollS * 1000);
  }

  private async take(job: Job, ctx: TakeContext): Promise<TakeOutcome> {
    const t = new Take(job, ctx);
    this.takes.set(job.id, t);
    if (this.stopping) t.stop(this.stopping);
    try {
      return await t.run();
    } catch (e) {
      if (!(e instanceof HandBack)) this.o.emit({ kind: 'task_failed', task: job.data.id, error: (e as Error).message, host: this.o.host });
      throw e; // the engine records the failure and offers the task again, or ends it failed
    } finally {
      this.takes.delete(job.id);
      // after the engine has recorded this take's end (it does so as soon as the handler settles)
      if (this.stopping && this.takes.size === 0) setImmediate(() => void this.close());
    }
  }

  /** Nothing queued, retrying or running anywhere, and no take here: a draining worker is done. */
  private async drainCheck(): Promise<void> {
    if (this.stopping || this.takes.size > 0 || !this.queue) return;
    const open = await this.queue.boss.getQueueSize(QUEUE, { before: 'completed' }).catch(() => 1);
    if (open === 0 && this.takes.size === 0) this.stop('after-step');
  }

  stop(mode: StopMode): void {
    if (this.stopping === 'now' || (this.stopping === mode && mode === 'after-step')) return;
    this.stopping = mode;
    this.o.emit({ kind: 'worker_stopping', mode, host: this.o.host, running: [...this.takes.values()].map((t) => t.task.id) });
    // no new takes: the engine's workers stop fetching (a take in progress goes on)
    for (const id of this.engineWorkers) void this.queue?.boss.offWork({ id }).catch(() => {});
    for (const t of this.takes.values()) t.stop(mode);
    if (this.takes.size === 0) void this.close();
  }

  private lost(task: string): void {
    this.o.emit({ kind: 'lease_lost', task, host: this.o.host });
    this.exitCode = EXIT_LEASE_LOST;
    this.stop('now');
  }

  private closing: Promise<void> | undefined;
  private close(): Promise<void> {
    this.closing ??= (async () => {
      clearInterval(this.drainTimer);
      await this.queue?.close();
      this.o.emit({ kind: 'worker_end', host: this.o.host, pid: process.pid });
      this.finish(this.exitCode);
    })();
    return this.closing;
  }
}
