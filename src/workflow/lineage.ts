/**
 * Lineage — `<runDir>/lineage.json` `{ workspace, woke, steps }`: which step used which session.
 *
 * The two invariants of continuity (seed):
 * 1. the mapping reaches the disk the moment a session id exists (a SIGHUP runs no `finally`);
 * 2. anything that doesn't match — another workspace path, a session gone from sessions.db, a damaged
 *    file — silently means "start fresh": continuity is a bonus, its failure must never stop work.
 * Better than the original: every write re-reads the file under a lock and merges per step, so two
 * workflows in one folder keep each other's entries; a damaged file is kept aside, not overwritten.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readJsonOrKeepAside, stamp, withFileLock, writeJsonAtomic } from '../store/files.js';

export interface LineageData {
  workspace: string;
  woke: number;
  steps: Record<string, string>;
}

const isLineage = (v: unknown): v is LineageData => {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.workspace === 'string'
    && typeof o.woke === 'number' && Number.isInteger(o.woke) && o.woke >= 0
    && typeof o.steps === 'object' && o.steps !== null && !Array.isArray(o.steps)
    && Object.values(o.steps).every((s) => typeof s === 'string');
};

export interface LineageOpenOptions {
  /** keep only entries whose session is still in sessions.db */
  alive?: (sessionId: string) => boolean;
  /** told once when a damaged file was kept aside */
  onCorrupt?: (keptAt: string, reason: string) => void;
}

export class Lineage {
  readonly path: string;
  readonly workspace: string;
  woke = 0;
  steps: Record<string, string> = {};
  private alive: ((sessionId: string) => boolean) | undefined;

  private constructor(file: string, workspace: string) {
    this.path = file;
    this.workspace = workspace;
  }

  private live(steps: Record<string, string>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [step, sid] of Object.entries(steps)) {
      if (!this.alive || safe(() => this.alive!(sid), false)) out[step] = sid;
    }
    return out;
  }

  static fileIn(runDir: string): string {
    return path.join(path.resolve(runDir), 'lineage.json');
  }

  /** Read lineage for `workspace`; a mismatch of any kind yields an empty lineage, never an error. */
  static open(runDir: string, workspace: string, o: LineageOpenOptions = {}): Lineage {
    const lin = new Lineage(Lineage.fileIn(runDir), path.resolve(workspace));
    lin.alive = o.alive;
    const data = lin.read(o.onCorrupt);
    if (data) {
      lin.woke = data.woke;
      lin.steps = lin.live(data.steps);
    }
    return lin;
  }

  /** Read-only view of the file for `workspace` (no store check, nothing written except keeping a damaged file aside). */
  static peek(runDir: string, workspace: string): LineageData {
    const lin = new Lineage(Lineage.fileIn(runDir), path.resolve(workspace));
    const d = lin.read();
    return d ?? { workspace: lin.workspace, woke: 0, steps: {} };
  }

  private read(onCorrupt?: (keptAt: string, reason: string) => void): LineageData | null {
    let r;
    try {
      r = readJsonOrKeepAside(this.path, isLineage);
    } catch {
      return null;
    }
    if (r.state === 'corrupt') {
      safe(() => onCorrupt?.(r.keptAt, r.reason), undefined);
      return null;
    }
    if (r.state !== 'ok' || r.value.workspace !== this.workspace) return null;
    return r.value;
  }

  /** Count this wake (1 on the first run) and write it. */
  bump(): number {
    this.update((d) => {
      d.woke = Math.max(d.woke, this.woke) + 1;
    });
    return this.woke;
  }

  /** Remember `step → sessionId` now (a write failure is swallowed: it must never stop the run). */
  remember(step: string, sessionId: string): void {
    this.steps[step] = sessionId;
    this.update((d) => {
      d.steps[step] = sessionId;
    });
  }

  private update(change: (d: LineageData) => void): void {
    try {
      withFileLock(this.path, () => {
        const onDisk = this.read() ?? { workspace: this.workspace, woke: 0, steps: {} };
        const d: LineageData = { workspace: this.workspace, woke: Math.max(onDisk.woke, this.woke), steps: { ...onDisk.steps, ...this.steps } };
        change(d);
        writeJsonAtomic(this.path, d);
        this.woke = d.woke;
        // entries other processes added are ours to continue too (if their sessions still exist)
        this.steps = this.live(d.steps);
      });
    } catch {
      // invariant 2: continuity failing never stops work
    }
  }

  /**
   * `--new`: move lineage.json and `extra` files together into `<into>/<YYYYmmdd-HHMMSS>/` (never
   * deleted) and start from zero. sessions.db is not touched: it is the archive of every transcript.
   * Returns the archive folder, or null when there was nothing to move.
   */
  archive(into: string, extra: string[] = []): string | null {
    const files = [this.path, ...extra].filter((f) => fs.existsSync(f));
    this.woke = 0;
    this.steps = {};
    if (files.length === 0) return null;
    let dir = path.join(into, stamp());
    for (let i = 2; fs.existsSync(dir); i++) dir = path.join(into, `${stamp()}-${i}`);
    fs.mkdirSync(dir, { recursive: true });
    for (const f of files) fs.renameSync(f, path.join(dir, path.basename(f)));
    return dir;
  }
}

function safe<T>(fn: () => T, fallback: T): T {
  try {
    return fn();
  } catch {
    return fallback;
  }
}
