/**
 * One take of a task by one slot of a worker: keep the lease, prepare the workspace, run the default
 * flow as a child `flower` process (FLOWER_PROJECT = the task id, the same store), commit and push after
 * every step, and say what the take ended with.
 *
 * Why a child process and not the flow in-process: a run's process-wide state (its private
 * CLAUDE_CONFIG_DIR, its signal rescue, its advisory lock connection, its exit) stays one run's; a
 * step is stopped or killed the way any `flower` is; and a slot that crashes takes no other slot with
 * it. The child is tied to its worker by a lifeline (a pipe on fd 3, src/cli/lifeline.ts): when the
 * worker dies, even by SIGKILL, the child records its step as killed and exits, so a dead host's task
 * is never worked on by an orphan while another host takes it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PostgresRunRecords } from '../store/postgres/index.js';
import { commitAndPush, prepare } from './git.js';
import type { FleetQueue, Job } from './queue.js';
import type { FleetTiming } from './settings.js';
import { branchOf, type TakeOutcome, type TaskData } from './tasks.js';

/** Why a take ends without a result: the engine offers the task again (one of its retries). */
export class HandBack extends Error {}

export type StopMode = 'after-step' | 'now';

export interface TakeContext {
  queue: FleetQueue;
  url: string;
  timing: FleetTiming;
  /** where this worker's clones live: <workdir>/<task id>/ws (the clone) and …/runs (the run dir) */
  workdir: string;
  /** bin/flower.js */
  flowerBin: string;
  env: Record<string, string | undefined>;
  host: string;
  /** how long a question waits for a person, in seconds */
  askTimeoutS: number;
  emit: (e: Record<string, unknown>) => void;
  /** the take is no longer ours and was not cancelled: the worker must stop at once */
  leaseLost: (task: string) => void;
}

export class Take {
  readonly task: TaskData;
  private child: ChildProcess | undefined;
  private stopping: StopMode | 'cancelled' | null = null;
  private stopItem: string | undefined;
  private startedOn: Date;
  private beat: NodeJS.Timeout | undefined;
  private pushes: Promise<unknown> = Promise.resolve();
  private lastError = '';

  constructor(
    private readonly job: Job,
    private readonly c: TakeContext,
  ) {
    this.task = job.data;
    this.startedOn = job.startedOn;
  }

  private get records(): PostgresRunRecords {
    return new PostgresRunRecords(this.c.url, this.task.id);
  }

  /** The whole take; resolves with the outcome the engine keeps, throws to hand the task back. */
  async run(): Promise<TakeOutcome> {
    await this.heartbeat(); // the first one at once: until it lands the take has the engine's long cap
    this.beat = setInterval(() => void this.heartbeat(), this.c.timing.heartbeatS * 1000);
    const t0 = Date.now();
    this.c.emit({ kind: 'task_start', task: this.task.id, job: this.job.id, host: this.c.host, pid: process.pid });
    let ended = 'handed-back';
    try {
      const out = await this.work(t0);
      ended = out.outcome;
      return out;
    } catch (e) {
      if (!(e instanceof HandBack)) ended = 'failed';
      throw e;
    } finally {
      clearInterval(this.beat);
      this.c.emit({ kind: 'task_end', task: this.task.id, job: this.job.id, host: this.c.host, pid: process.pid, outcome: ended });
    }
  }

  private async work(t0: number): Promise<TakeOutcome> {
    const dir = path.join(this.c.workdir, this.task.id);
    const ws = path.join(dir, 'ws');
    const branch = branchOf(this.task.id);
    await prepare(this.task.repo, ws, branch, this.task.base);
    const rec = this.records;
    let woke: boolean;
    let spent: number;
    try {
      woke = (await rec.readLineage(ws)) !== null;
      spent = (await rec.readRows()).reduce((s, r) => s + (r.cost_usd || 0), 0);
    } finally {
      rec.close();
    }
    const limits = this.limits(spent);
    if ('stop' in limits) return limits.stop;
    const code = await this.runFlower(ws, path.join(dir, 'runs'), woke, limits.env);
    await this.pushes;
    if (this.stopping !== 'now') await this.push(ws, branch, `flower: ${this.task.id} at the end of a take`);
    await this.forgetStop();
    return this.outcome(code, t0);
  }

  /** What is left of the task's budget and deadline; a stop when nothing is. */
  private limits(spent: number): { env: Record<string, string> } | { stop: TakeOutcome } {
    const env: Record<string, string> = {};
    if (this.task.budget_usd !== undefined) {
      const left = this.task.budget_usd - spent;
      if (left <= 0) return { stop: { outcome: 'stopped', reason: 'budget' } };
      env.FLOWER_BUDGET = String(Math.round(left * 1e6) / 1e6);
    }
    if (this.task.deadline !== undefined) {
      if (Date.parse(this.task.deadline) <= Date.now()) return { stop: { outcome: 'stopped', reason: 'deadline' } };
      env.FLOWER_DEADLINE = this.task.deadline;
    }
    return { env };
  }

  private runFlower(ws: string, runs: string, woke: boolean, limits: Record<string, string>): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    // the request on the first take only: on a later one words would be a remark added to the brief
    const args = [this.c.flowerBin, '--json', ...(woke ? [] : [this.task.request]), '--timeout', String(this.c.askTimeoutS), '--wait', '-w', ws, '-r', runs];
    const env: Record<string, string | undefined> = {
      ...this.c.env,
      ...limits,
      FLOWER_STORE: this.c.url,
      FLOWER_PROJECT: this.task.id,
      FLOWER_LIFELINE_FD: '3',
      FLOWER_NO_BEQUEST: '1',
    };
    if (!limits.FLOWER_BUDGET) delete env.FLOWER_BUDGET;
    if (!limits.FLOWER_DEADLINE) delete env.FLOWER_DEADLINE;
    const child = spawn(process.execPath, args, { cwd: ws, env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
    this.child = child;
    if (this.stopping === 'now' || this.stopping === 'cancelled') child.kill('SIGTERM');
    else if (this.stopping === 'after-step') void this.postStop();
    // what the run said, kept next to the clone (<workdir>/<id>/flower.log) for whoever looks after the host
    const log = fs.createWriteStream(path.join(path.dirname(ws), 'flower.log'), { flags: 'a' });
    lines(child.stdout!, (l) => {
      log.write(`${l}\n`);
      this.onEvent(l, ws);
    });
    lines(child.stderr!, (l) => {
      log.write(`${l}\n`);
      if (l.startsWith('x ')) this.lastError = l.slice(2).trim();
    });
    child.on('close', () => log.end());
    return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));
  }

  private onEvent(line: string, ws: string): void {
    let e: { kind?: string; final?: boolean; step?: string; ok?: boolean };
    try {
      e = JSON.parse(line) as typeof e;
    } catch {
      return;
    }
    if (e.kind !== 'step_result' || e.final === false) return;
    this.c.emit({ kind: 'task_step', task: this.task.id, step: e.step, ok: e.ok, host: this.c.host });
    void this.push(ws, branchOf(this.task.id), `flower: ${this.task.id} after ${e.step ?? 'a step'}`);
  }

  /** Commits and pushes, one after another; a failed push is said and retried with the next one. */
  private push(ws: string, branch: string, message: string): Promise<unknown> {
    this.pushes = this.pushes
      .then(() => commitAndPush(ws, branch, message))
      .then((r) => this.c.emit({ kind: 'task_push', task: this.task.id, committed: r.committed, host: this.c.host }))
      .catch((e: unknown) => this.c.emit({ kind: 'task_push_failed', task: this.task.id, error: (e as Error).message, host: this.c.host }));
    return this.pushes;
  }

  private async outcome(r: { code: number | null; signal: NodeJS.Signals | null }, t0: number): Promise<TakeOutcome> {
    if (this.stopping === 'cancelled') return { outcome: 'stopped', reason: 'cancelled' };
    if (this.stopping === 'now') throw new HandBack(`handed back: the worker on ${this.c.host} stopped at once`);
    const rec = this.records;
    const rows = await rec.readRows().finally(() => rec.close());
    const mine = rows.filter((x) => Date.parse(x.started_at) >= t0 - 1000);
    const last = mine.at(-1);
    const verdict = mine.findLast((x) => x.verdict)?.verdict;
    const limit = last?.failure?.kind === 'budget' || last?.failure?.kind === 'deadline' ? last.failure.kind : null;
    if (limit) return { outcome: 'stopped', reason: limit };
    if (this.stopping === 'after-step' && r.code === 0 && verdict?.outcome !== 'achieved')
      throw new HandBack(`handed back: the worker on ${this.c.host} was stopped`);
    if (r.code === 0 && verdict?.outcome === 'achieved') return { outcome: 'achieved', passed: verdict.passed, total: verdict.total };
    if (verdict && verdict.outcome !== 'achieved' && last?.verdict) {
      return { outcome: 'stopped', reason: `not achieved (${verdict.passed}/${verdict.total})`, passed: verdict.passed, total: verdict.total };
    }
    if (r.code === 0) return { outcome: 'stopped', reason: 'ended without an achieved verdict' };
    throw new Error(this.lastError || (r.signal ? `flower was killed by ${r.signal}` : `flower exited ${r.code}`));
  }

  /** SIGTERM (once): finish the step, then hand back. Twice, or a cancel: stop the step now. */
  stop(mode: StopMode | 'cancelled'): void {
    if (mode === 'after-step' && this.stopping) return;
    this.stopping = mode;
    if (!this.child) return;
    if (mode === 'after-step') void this.postStop();
    else this.child.kill('SIGTERM');
  }

  /** a stop-after-step in the project's durable inbox: the child takes it within a second */
  private async postStop(): Promise<void> {
    if (this.stopItem) return;
    const rec = this.records;
    try {
      this.stopItem = await rec.inbox.post({ version: 1, kind: 'stop-after-step', posted_at: new Date().toISOString(), from: `fleet@${this.c.host}` });
    } finally {
      rec.close();
    }
  }

  /** a stop the child never took must not stop the next take: it is claimed here and closed */
  private async forgetStop(): Promise<void> {
    if (!this.stopItem) return;
    const rec = this.records;
    try {
      if (await rec.inbox.claim(this.stopItem, `fleet@${this.c.host}`))
        await rec.inbox.finish(this.stopItem, { version: 1, state: 'too-late', at: new Date().toISOString(), detail: 'the take ended first' });
    } finally {
      rec.close();
    }
  }

  private beating: Promise<void> | undefined;

  /**
   * Renew the lease now, or join the renewal in flight. One at a time: a second UPDATE sent while the
   * first is in flight carries the started_on the first is replacing, so its compare-and-set matches no
   * row — read as a lost lease, and the live worker exits 75 (a heartbeat slower than its interval, on
   * a loaded server; test/fleet/lease.test.ts).
   */
  heartbeat(): Promise<void> {
    this.beating ??= this.renew().finally(() => {
      this.beating = undefined;
    });
    return this.beating;
  }

  private async renew(): Promise<void> {
    let next: Date | null;
    try {
      next = await this.c.queue.renew(this.job.id, this.startedOn, this.c.timing.leaseS);
    } catch (e) {
      // the server away for a moment: the next beat tries again; the lease says how long that may last
      this.c.emit({ kind: 'heartbeat_failed', task: this.task.id, error: (e as Error).message, host: this.c.host });
      return;
    }
    if (next) {
      this.startedOn = next;
      return;
    }
    const state = await this.c.queue.jobState(this.job.id).catch(() => null);
    if (state === 'cancelled') this.stop('cancelled');
    else this.c.leaseLost(this.task.id);
  }
}

function lines(s: NodeJS.ReadableStream, on: (l: string) => void): void {
  let buf = '';
  s.setEncoding('utf8');
  s.on('data', (chunk: string) => {
    buf += chunk;
    let i = buf.indexOf('\n');
    while (i >= 0) {
      on(buf.slice(0, i));
      buf = buf.slice(i + 1);
      i = buf.indexOf('\n');
    }
  });
}

export const hostName = (): string => os.hostname();
