/**
 * StepResult and the manifest: rows, one per step attempt sequence, each with every StepResult field
 * plus `duration_s` and `run` (format: src/state/schemas.ts, docs/continuity.md).
 *
 * Invariant (seed): several flower processes may share one run dir. Every write goes through
 * `RunRecords.upsertRows`, which keeps other runs' rows untouched and replaces this run's rows with the
 * current ones atomically — so a kill -9 mid-write leaves the previous complete file. The files backend
 * does its I/O before the returned promise is first awaited, so a signal handler's `record` lands too.
 *
 * One write at a time: two writes in flight at once (PostgreSQL: two transactions on two pooled
 * connections) may commit in either order, and the older rows committed last would undo the newer —
 * a step's session id, written the moment it exists, lost to the step-start row. A `record` made while
 * a write runs waits for it, then one write takes every row as it stands by then.
 */
import { FileRunRecords, RunLayout, stamp, type ManifestRow, type ReadOptions, type RunRecords, type StepResult } from '../state/index.js';
import { nodeCrypto } from '../state/crypto.js';

export type { StepResult, ManifestRow };

export function newRunId(d = new Date()): string {
  return `${stamp(d)}-${nodeCrypto().randomBytes(3).toString('hex')}`;
}

export function durationS(r: StepResult): number {
  if (!r.ended_at) return 0;
  const ms = Date.parse(r.ended_at) - Date.parse(r.started_at);
  return Number.isFinite(ms) ? Math.round(ms / 10) / 100 : 0;
}

export function toRow(r: StepResult, run: string): ManifestRow {
  return { ...r, duration_s: durationS(r), run };
}

const noop = (): void => {};

export type ManifestWarning = (message: string) => void;

const recordsFor = (where: RunRecords | string): RunRecords => (typeof where === 'string' ? new FileRunRecords(RunLayout.of({ runDir: where })) : where);

export class Manifest {
  /** where the rows live (the manifest file for the files backend) */
  readonly path: string;
  readonly run: string;
  private rows: ManifestRow[] = [];
  private readonly warn: ManifestWarning;
  private readonly records: RunRecords;
  /** the write in progress, and the one waiting for it (it takes the rows as they are when it starts) */
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;
  /** sealed (the process is dying of a signal): the rows written so far are the last */
  private sealed = false;

  constructor(where: RunRecords | string, run: string, warn: ManifestWarning = () => {}) {
    this.records = recordsFor(where);
    this.path = this.records.manifestAt ?? this.records.where;
    this.run = run;
    this.warn = warn;
  }

  /** This process's rows, in order. */
  own(): readonly ManifestRow[] {
    return this.rows;
  }

  /** Add or replace (same index) a row of this run, then merge it into the records. A failing write rejects. */
  async record(r: StepResult, index?: number): Promise<number> {
    const i = index ?? this.rows.length;
    if (this.sealed) return i;
    this.rows[i] = toRow(r, this.run);
    await this.write();
    return i;
  }

  /**
   * Write the rows now when no write runs (the files backend's I/O happens before this returns), else
   * once the running write has ended — one queued write for any number of records, each of them waiting
   * for the write that carries its row.
   */
  private write(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.running) return this.start();
    const settle = (): Promise<void> => {
      this.queued = null;
      return this.start();
    };
    this.queued = this.running.then(settle, settle);
    return this.queued;
  }

  private start(): Promise<void> {
    const w: Promise<void> = this.flush().finally(() => {
      if (this.running === w) this.running = null;
    });
    this.running = w;
    return w;
  }

  /** Resolves once every write asked for so far has ended (failed ones too). */
  settled(): Promise<void> {
    const last = this.queued ?? this.running;
    return last ? last.then(noop, noop) : Promise.resolve();
  }

  /** No more writes: what is written or queued now is the last (a process dying of a signal). */
  seal(): void {
    this.sealed = true;
  }

  /** The index the next `record` without one will take (so a caller can hold it before awaiting). */
  nextIndex(): number {
    return this.rows.length;
  }

  /** Keep others' rows, replace ours. */
  flush(): Promise<void> {
    return this.records.upsertRows(this.run, this.rows.filter(Boolean), {
      onNotice: (n) => this.warn(`manifest damaged: ${n.reason}; started a new one`),
    });
  }

  /**
   * Every row in a run dir (or records), oldest first; a damaged manifest reads as none, unless
   * `strict` (read-only commands: the damage throws a `StateCorrupt` naming the file).
   */
  static read(where: RunRecords | string, o: ReadOptions = {}): Promise<ManifestRow[]> {
    return recordsFor(where).readRows(o);
  }
}
