/**
 * StepResult and the manifest (`<runDir>/manifest.json`): an array of rows, one per step attempt
 * sequence, each with every StepResult field plus `duration_s` and `run`.
 *
 * Invariant (seed): several flower processes may share one run dir. Every write re-reads the file
 * under a lock, keeps other runs' rows untouched, replaces this run's rows with the current ones, and
 * renames a temp file into place — so a kill -9 mid-write leaves the previous complete file.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { readJsonOrKeepAside, stamp, withFileLock, writeJsonAtomic } from '../store/files.js';

export interface StepResult {
  step: string;
  session_id: string | null;
  ok: boolean;
  cost_usd: number;
  num_turns: number;
  /** main-thread prose only; synthetic API errors go to `errors` */
  text: string;
  error: string | null;
  started_at: string;
  ended_at: string | null;
  /** failed attempts + 1; handoffs and human interrupts do not count */
  attempts: number;
  errors: string[];
  resumed: boolean;
  /** sessions retired by handoff, oldest first */
  retired: string[];
  /** last main-thread context size in tokens */
  context: number;
}

export interface ManifestRow extends StepResult {
  duration_s: number;
  run: string;
}

export function newRunId(d = new Date()): string {
  return `${stamp(d)}-${crypto.randomBytes(3).toString('hex')}`;
}

export function durationS(r: StepResult): number {
  if (!r.ended_at) return 0;
  const ms = Date.parse(r.ended_at) - Date.parse(r.started_at);
  return Number.isFinite(ms) ? Math.round(ms / 10) / 100 : 0;
}

export function toRow(r: StepResult, run: string): ManifestRow {
  return { ...r, duration_s: durationS(r), run };
}

const isRowArray = (v: unknown): v is ManifestRow[] =>
  Array.isArray(v) && v.every((r) => typeof r === 'object' && r !== null && typeof (r as { step?: unknown }).step === 'string');

export type ManifestWarning = (message: string) => void;

export class Manifest {
  readonly path: string;
  readonly run: string;
  private rows: ManifestRow[] = [];
  private readonly warn: ManifestWarning;

  constructor(runDir: string, run: string, warn: ManifestWarning = () => {}) {
    this.path = path.join(runDir, 'manifest.json');
    this.run = run;
    this.warn = warn;
  }

  /** This process's rows, in order. */
  own(): readonly ManifestRow[] {
    return this.rows;
  }

  /** Add or replace (same index) a row of this run, then merge it into the file. */
  record(r: StepResult, index?: number): number {
    const row = toRow(r, this.run);
    const i = index ?? this.rows.length;
    this.rows[i] = row;
    this.flush();
    return i;
  }

  /** Re-read, keep others' rows, replace ours, write atomically — under the file lock. */
  flush(): void {
    withFileLock(this.path, () => {
      const read = readJsonOrKeepAside(this.path, isRowArray);
      if (read.state === 'corrupt') {
        this.warn(`manifest ${this.path} ${read.reason}; kept it as ${read.keptAt} and started a new one`);
      }
      const others = read.state === 'ok' ? read.value.filter((r) => r.run !== this.run) : [];
      writeJsonAtomic(this.path, [...others, ...this.rows.filter(Boolean)]);
    });
  }

  static read(runDir: string): ManifestRow[] {
    const file = path.join(runDir, 'manifest.json');
    try {
      const v: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
      return isRowArray(v) ? v : [];
    } catch {
      return [];
    }
  }
}
