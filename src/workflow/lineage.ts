/**
 * Lineage — which step used which session, per workspace: `{ version, workspace, woke, steps, workbench? }`
 * (format and versions: docs/continuity.md; storage: a `RunRecords` — lineage.json in the files backend).
 *
 * The two invariants of continuity (seed):
 * 1. the mapping reaches the records the moment a session id exists (a SIGHUP runs no `finally`);
 * 2. anything that doesn't match — a session gone from sessions.db, a damaged file — means "start
 *    fresh": continuity is a bonus, its failure must never stop work. Two exceptions stop the run
 *    loudly instead: a lineage from a NEWER flower (never read, never overwritten) — and nothing else.
 * Never destroy: a damaged file is kept aside (`.corrupt-`), another workspace's lineage is kept aside
 * (`.kept-`), both with a notice; every write re-reads and merges per step, so two workflows in one
 * folder keep each other's entries.
 */
import fs from 'node:fs';
import path from 'node:path';
import {
  FileRunRecords,
  RunLayout,
  StateCorrupt,
  archiveFolder,
  type LineageRecord,
  type NoticeSink,
  type RunRecords,
  type StateNotice,
} from '../state/index.js';

/** @deprecated the record type lives in the state layer: `LineageRecord` */
export type LineageData = LineageRecord;

export interface LineageOpenOptions {
  /** keep only entries whose session is still in sessions.db */
  alive?: (sessionId: string) => boolean | Promise<boolean>;
  /** told when a file was kept aside (damaged, or another workspace's) */
  onNotice?: NoticeSink;
  /** @deprecated use onNotice: told when a damaged file was kept aside */
  onCorrupt?: (keptAt: string, reason: string) => void;
  /** the workbench root to record when it is not `<workspace>/.flower` (--isolate), so status finds the notes */
  workbench?: string;
}

/** Records for a run dir path (files backend), or the records given. */
export function recordsOf(where: RunRecords | string): RunRecords {
  if (typeof where !== 'string') return where;
  const l = RunLayout.of({ runDir: where });
  return new FileRunRecords(l);
}

const isFuture = (e: unknown) => e instanceof StateCorrupt && e.code === 'state-future-version';

export class Lineage {
  readonly workspace: string;
  woke = 0;
  steps: Record<string, string> = {};
  private alive: LineageOpenOptions['alive'];
  private notice: NoticeSink | undefined;
  private workbench: string | undefined;

  private constructor(
    readonly records: RunRecords,
    workspace: string,
  ) {
    this.workspace = path.resolve(workspace);
  }

  /** Where the files backend keeps lineage for this run dir. */
  static fileIn(runDir: string): string {
    return RunLayout.of({ runDir }).lineage;
  }

  /** Where these records live (the run dir for files). */
  get where(): string {
    return this.records.where;
  }

  private async live(steps: Record<string, string>): Promise<Record<string, string>> {
    const out: Record<string, string> = {};
    for (const [step, sid] of Object.entries(steps)) {
      let ok = true;
      if (this.alive) {
        try {
          ok = await this.alive(sid);
        } catch {
          ok = false;
        }
      }
      if (ok) out[step] = sid;
    }
    return out;
  }

  /** Read lineage for `workspace`; a mismatch of any kind yields an empty lineage (a future version throws). */
  static async open(where: RunRecords | string, workspace: string, o: LineageOpenOptions = {}): Promise<Lineage> {
    const lin = new Lineage(recordsOf(where), workspace);
    lin.alive = o.alive;
    lin.workbench = o.workbench;
    lin.notice = (n: StateNotice) => {
      try {
        o.onNotice?.(n);
        if (n.kind === 'corrupt') o.onCorrupt?.(n.keptAt, n.reason);
      } catch {
        /* a listener must not stop the run */
      }
    };
    let d: LineageRecord | null = null;
    try {
      d = await lin.records.readLineage(lin.workspace, { onNotice: lin.notice });
    } catch (e) {
      if (isFuture(e)) throw e;
    }
    if (d) {
      lin.woke = d.woke;
      lin.steps = await lin.live(d.steps);
    }
    return lin;
  }

  /**
   * Read-only view for `workspace` (no store check). `keep: false` leaves even a damaged file where it
   * is (`flower status` writes nothing); a future version throws, and with `strict` so does any damage
   * (a `StateCorrupt` naming the file: read-only commands report it rather than show an empty lineage).
   */
  static async peek(where: RunRecords | string, workspace: string, o: { keep?: boolean; strict?: boolean } = {}): Promise<LineageRecord> {
    const ws = path.resolve(workspace);
    let d: LineageRecord | null = null;
    try {
      d = await recordsOf(where).readLineage(ws, { keep: o.keep ?? true, ...(o.strict ? { strict: true } : {}) });
    } catch (e) {
      if (isFuture(e) || (o.strict && StateCorrupt.is(e))) throw e;
    }
    return d ?? { version: 1, workspace: ws, woke: 0, steps: {} };
  }

  /** Count this wake (1 on the first run) and write it. */
  async bump(): Promise<number> {
    await this.update((d) => {
      d.woke = Math.max(d.woke, this.woke) + 1;
    });
    return this.woke;
  }

  /**
   * Record the person's request BEFORE any agent spawns: a run killed before its clarify session
   * reached the store (batched appends: nothing is stored while the first turn runs) is continued
   * from it by a bare `flower`.
   */
  async recordRequest(text: string): Promise<void> {
    await this.update((d) => {
      d.request = { text, at: new Date().toISOString() };
    });
  }

  /** Remember `step → sessionId` now (a write failure is swallowed: it must never stop the run). */
  async remember(step: string, sessionId: string): Promise<void> {
    this.steps[step] = sessionId;
    await this.update((d) => {
      d.steps[step] = sessionId;
    });
  }

  private async update(change: (d: LineageRecord) => void): Promise<void> {
    try {
      const d = await this.records.updateLineage(
        this.workspace,
        (d) => {
          d.woke = Math.max(d.woke, this.woke);
          d.steps = { ...d.steps, ...this.steps };
          if (this.workbench !== undefined) d.workbench = this.workbench;
          change(d);
        },
        { ...(this.notice ? { onNotice: this.notice } : {}) },
      );
      this.woke = d.woke;
      // entries other processes added are ours to continue too (if their sessions still exist)
      this.steps = await this.live(d.steps);
    } catch (e) {
      if (isFuture(e)) throw e;
      // invariant 2: continuity failing never stops work
    }
  }

  /**
   * `--new`: move the lineage and `extra` files together into `<into>/<YYYYmmdd-HHMMSS>/` (never
   * deleted) and start from zero. sessions.db is not touched: it is the archive of every transcript.
   * Returns the archive folder, or null when there was nothing to move.
   */
  async archive(into: string, extra: string[] = []): Promise<string | null> {
    const files = extra.filter((f) => fs.existsSync(f));
    this.woke = 0;
    this.steps = {};
    const dir = archiveFolder(into);
    const moved = await this.records.archiveLineage(this.workspace, dir);
    if (files.length === 0 && moved === null) return null;
    fs.mkdirSync(dir, { recursive: true });
    for (const f of files) fs.renameSync(f, path.join(dir, path.basename(f)));
    return dir;
  }
}
