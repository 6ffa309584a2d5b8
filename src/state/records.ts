/**
 * RunRecords — what a run dir remembers, behind one async, backend-neutral interface: lineage per
 * workspace, the manifest's rows, and the run lock. `FileRunRecords` keeps them in files
 * (lineage.json, manifest.json, run.lock); a PostgreSQL backend implements the same interface.
 *
 * Invariants of the files backend:
 * - every write re-reads under the file lock and merges (several processes may share a run dir);
 * - a damaged file is kept aside (`.corrupt-<stamp>`), a lineage of ANOTHER workspace is kept aside
 *   (`.kept-<stamp>`) — both with a notice — never overwritten;
 * - a file from a newer flower (future version) is neither read nor written: StateCorrupt state-future-version.
 */
import fs from 'node:fs';
import path from 'node:path';
import { StateCorrupt } from './errors.js';
import { keepAside, stamp, withFileLock, writeJsonAtomic } from './files.js';
import { NAMES } from './layout.js';
import { readVersioned } from './read.js';
import { FileInbox } from './inbox.js';
import type { RunInbox } from './inbox-format.js';
import { acquireRunLock, type AcquireOptions, type RunLockResult } from './runlock.js';
import { LINEAGE_SCHEMAS, LINEAGE_VERSION, manifestSchema, type LineageRecord, type ManifestRow } from './schemas.js';

/**
 * How a read-only caller reads: `strict: true` throws the damage (a `StateCorrupt` naming the file:
 * `state-corrupt`, `state-unreadable`, `state-future-version`) instead of reading it as nothing, and
 * implies `keep: false` — a read-only command reports, it never moves a file.
 */
export interface ReadOptions {
  strict?: boolean;
}

/** Something the person should hear about: a file set aside. */
export interface StateNotice {
  kind: 'corrupt' | 'foreign';
  /** the file as it was named */
  path: string;
  /** where it is now */
  keptAt: string;
  reason: string;
}
export type NoticeSink = (n: StateNotice) => void;

export interface RunRecords {
  /** where the records live (a folder, a database URL without secrets) — for messages */
  readonly where: string;
  /** the one file the manifest rows are in, when they are in one (for `flower`'s closing line) */
  readonly manifestAt?: string;
  /**
   * The lineage of `workspace` (absolute), or null when there is none for it. Read-only: a lineage of
   * another workspace is left where it is (null); a damaged one is kept aside (notice) unless `keep: false`;
   * `strict`: a damaged or unreadable one throws (see `ReadOptions`).
   */
  readLineage(workspace: string, o?: { onNotice?: NoticeSink; keep?: boolean } & ReadOptions): Promise<LineageRecord | null>;
  /** Read-merge-write the lineage of `workspace` atomically; `change` edits the merged record. */
  updateLineage(workspace: string, change: (d: LineageRecord) => void, o?: { onNotice?: NoticeSink }): Promise<LineageRecord>;
  /** `--new`: move the lineage of `workspace` out of the way (files: into `into`); the path it went to, or null. */
  archiveLineage(workspace: string, into: string): Promise<string | null>;
  /** Replace the rows of `run` with `rows`, keeping every other run's rows. */
  upsertRows(run: string, rows: readonly ManifestRow[], o?: { onNotice?: NoticeSink }): Promise<void>;
  /**
   * Every row, oldest first. Read-only: a damaged manifest reads as none, unless `strict` (then it
   * throws a `StateCorrupt` naming the file; see `ReadOptions`).
   */
  readRows(o?: ReadOptions): Promise<ManifestRow[]>;
  /** The run lock of this folder. */
  acquireRunLock(o?: AcquireOptions): Promise<RunLockResult>;
  /** The durable inbox: the questions waiting now, and answers, mail and stops posted from outside. */
  readonly inbox: RunInbox;
  /** Connect and check (a database's records; files need nothing): an unusable server fails here. */
  open?(): Promise<unknown>;
  /** Let go of the connection (a database's records; files hold none). */
  close?(): void;
}

export interface FileRecordPaths {
  lineage: string;
  manifest: string;
  runLock: string;
  /** the inbox folder (default `inbox/` beside lineage) */
  inbox?: string;
}

const emptyLineage = (workspace: string): LineageRecord => ({ version: LINEAGE_VERSION, workspace, woke: 0, steps: {} });

export class FileRunRecords implements RunRecords {
  readonly where: string;
  readonly manifestAt: string;
  readonly inbox: RunInbox;

  constructor(readonly paths: FileRecordPaths) {
    this.where = path.dirname(paths.lineage);
    this.manifestAt = paths.manifest;
    this.inbox = new FileInbox(paths.inbox ?? path.join(this.where, NAMES.inbox));
  }

  private readFile(keep: boolean, onNotice?: NoticeSink, strict = false): LineageRecord | null {
    try {
      const r = readVersioned(this.paths.lineage, LINEAGE_SCHEMAS, { keep: keep && !strict });
      return r.state === 'ok' ? r.value : null;
    } catch (e) {
      if (strict) throw e;
      if (e instanceof StateCorrupt && e.code === 'state-corrupt') {
        if (e.keptAt) onNotice?.({ kind: 'corrupt', path: this.paths.lineage, keptAt: e.keptAt, reason: e.message });
        return null;
      }
      throw e;
    }
  }

  async readLineage(workspace: string, o: { onNotice?: NoticeSink; keep?: boolean } & ReadOptions = {}): Promise<LineageRecord | null> {
    const d = this.readFile(o.keep ?? true, o.onNotice, o.strict);
    return d && d.workspace === workspace ? d : null;
  }

  async updateLineage(workspace: string, change: (d: LineageRecord) => void, o: { onNotice?: NoticeSink } = {}): Promise<LineageRecord> {
    return withFileLock(this.paths.lineage, () => {
      let d = this.readFile(true, o.onNotice);
      if (d && d.workspace !== workspace) {
        // one lineage.json per run dir: another workspace's continuity is kept, not replaced
        const keptAt = keepAside(this.paths.lineage, 'kept');
        o.onNotice?.({ kind: 'foreign', path: this.paths.lineage, keptAt, reason: `it belonged to the workspace ${d.workspace}` });
        d = null;
      }
      const next: LineageRecord = d ? { ...d, steps: { ...d.steps } } : emptyLineage(workspace);
      change(next);
      next.version = LINEAGE_VERSION;
      writeJsonAtomic(this.paths.lineage, next);
      return next;
    });
  }

  async archiveLineage(workspace: string, into: string): Promise<string | null> {
    void workspace; // one lineage per file: whatever is there moves (it is kept, not lost)
    if (!fs.existsSync(this.paths.lineage)) return null;
    fs.mkdirSync(into, { recursive: true });
    const target = path.join(into, path.basename(this.paths.lineage));
    fs.renameSync(this.paths.lineage, target);
    return target;
  }

  async upsertRows(run: string, rows: readonly ManifestRow[], o: { onNotice?: NoticeSink } = {}): Promise<void> {
    withFileLock(this.paths.manifest, () => {
      let others: ManifestRow[] = [];
      try {
        const r = readVersioned(this.paths.manifest, { 0: manifestSchema });
        if (r.state === 'ok') others = (r.value as ManifestRow[]).filter((x) => x.run !== run);
      } catch (e) {
        if (!(e instanceof StateCorrupt && e.code === 'state-corrupt')) throw e;
        if (e.keptAt) o.onNotice?.({ kind: 'corrupt', path: this.paths.manifest, keptAt: e.keptAt, reason: e.message });
      }
      // rows quote tool output and errors: private
      writeJsonAtomic(this.paths.manifest, [...others, ...rows], 0o600);
    });
  }

  async readRows(o: ReadOptions = {}): Promise<ManifestRow[]> {
    try {
      const r = readVersioned(this.paths.manifest, { 0: manifestSchema }, { keep: false });
      return r.state === 'ok' ? (r.value as ManifestRow[]) : [];
    } catch (e) {
      if (o.strict) throw e;
      return [];
    }
  }

  acquireRunLock(o: AcquireOptions = {}): Promise<RunLockResult> {
    return acquireRunLock(this.paths.runLock, o);
  }
}

/** A fresh folder name under `into` for an archive (`<stamp>`, `-2`, … when taken). */
export function archiveFolder(into: string, now = new Date()): string {
  let dir = path.join(into, stamp(now));
  for (let i = 2; fs.existsSync(dir); i++) dir = path.join(into, `${stamp(now)}-${i}`);
  return dir;
}
