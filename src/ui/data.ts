/**
 * Everything `flower ui` reads, and nothing else reads for it: the run dir's manifest.json and
 * lineage.json (through the state layer's layout, schemas and versioned reader, read-only), the
 * workspace's notes, and sessions.db (./sqlite.ts). Nothing is ever written, nothing kept aside.
 *
 * A damaged file is never fatal: it becomes a `Problem` (the page shows a banner naming the file).
 * The page talks to the `UiSource` interface only; ./pg.ts is the PostgreSQL store behind it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { LINEAGE_SCHEMAS, NAMES, RunLayout, StateCorrupt, checkManifestRow, parseJsonStrict, readVersioned, runLockHolder } from '../state/index.js';
import { SqliteReader, stat } from './sqlite.js';
import type { LineageView, NoteFile, Notes, Problem, Snapshot, UiRow, UiSource } from './source.js';

/**
 * Manifest rows from text, each checked with the state layer's row schema: what is readable is kept,
 * what is not is counted — a problem naming the file (the page shows the rest).
 */
export function parseManifest(text: string, file: string): { rows: UiRow[]; problems: Problem[] } {
  let v: unknown;
  try {
    v = parseJsonStrict(text);
  } catch (e) {
    return { rows: [], problems: [{ file, message: `is not valid JSON (${(e as Error).message}); no run can be shown from it` }] };
  }
  if (!Array.isArray(v)) return { rows: [], problems: [{ file, message: 'is not a list of step rows; no run can be shown from it' }] };
  const rows: UiRow[] = [];
  let bad = 0;
  for (const r of v) {
    const p = checkManifestRow(r);
    if (p.ok) rows.push(p.row as UiRow);
    else bad++;
  }
  return { rows, problems: bad ? [{ file, message: `has ${bad} unreadable row${bad === 1 ? '' : 's'} (not shown)` }] : [] };
}

/** lineage.json through the state layer's versioned reader, read-only (a damaged file is left where it is). */
export function readLineage(file: string): { lineage: LineageView | null; problems: Problem[] } {
  try {
    const r = readVersioned(file, LINEAGE_SCHEMAS, { keep: false });
    if (r.state === 'missing') return { lineage: null, problems: [] };
    const { workspace, woke, steps, workbench, request } = r.value;
    return { lineage: { workspace, woke, steps, ...(workbench ? { workbench } : {}), ...(request ? { request } : {}) }, problems: [] };
  } catch (e) {
    const message = e instanceof StateCorrupt ? e.message.split(file).join('').trim() : String(e);
    return { lineage: null, problems: [{ file, message: `${message}; sessions per step and the workspace notes are not shown` }] };
  }
}

function readText(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/**
 * The layouts the notes of `lineage` may be under, most likely first: the workbench lineage recorded
 * (--isolate), else the default `<workspace>/.flower`, else an isolated one from before lineage kept it.
 */
export function noteLayouts(runDir: string, lineage: LineageView): RunLayout[] {
  const base = { cwd: runDir, workspace: lineage.workspace, runDir };
  return lineage.workbench ? [RunLayout.of({ ...base, workbench: lineage.workbench })] : [RunLayout.of(base), RunLayout.of({ ...base, isolate: true })];
}

/** The workspace's notes of `lineage` (any store: the notes are files in the workspace). */
export function readNotes(runDir: string, lineage: LineageView | null): Notes {
  const none: Notes = { dir: null, brief: null, goal: null, qa: null, handoffs: {} };
  if (!lineage) return none;
  const layout = noteLayouts(runDir, lineage).find((l) => fs.existsSync(l.notes));
  if (!layout) return none;
  const note = (file: string): NoteFile | null => {
    const text = readText(file);
    return text === null ? null : { file, text };
  };
  const handoffs: Record<string, NoteFile> = {};
  try {
    for (const name of fs.readdirSync(layout.notes).filter(RunLayout.isHandoffName).sort()) {
      const n = note(path.join(layout.notes, name));
      if (n) handoffs[name.slice(NAMES.handoffPrefix.length, -'.md'.length)] = n;
    }
  } catch {
    /* an unreadable folder: no handoff notes shown */
  }
  return { dir: layout.notes, brief: note(layout.brief), goal: note(layout.goal), qa: note(layout.qa), handoffs };
}

function lockState(file: string): Snapshot['lock'] {
  if (!fs.existsSync(file)) return 'unknown';
  try {
    return runLockHolder(file) ? 'held' : 'free';
  } catch {
    return 'unknown';
  }
}

/** The run dir on disk: manifest.json, lineage.json, sessions.db and the workspace's notes. */
export class FileSource implements UiSource {
  readonly sessions: SqliteReader;
  private cached: { fp: string; snap: Snapshot } | null = null;

  constructor(readonly layout: RunLayout) {
    this.sessions = new SqliteReader(layout.sessionsDb);
  }

  static at(runDir: string): FileSource {
    return new FileSource(RunLayout.of({ runDir: path.resolve(runDir) }));
  }

  get runDir(): string {
    return this.layout.runDir;
  }

  fingerprint(): string {
    const db = this.layout.sessionsDb;
    const parts = [stat(this.layout.manifest), stat(this.layout.lineage), stat(db), stat(`${db}-wal`), stat(this.layout.runLock)];
    const lin = this.cached?.snap.lineage;
    if (lin) for (const l of noteLayouts(this.runDir, lin)) parts.push(stat(l.notes));
    return parts.join('|');
  }

  async snapshot(): Promise<Snapshot> {
    const fp = this.fingerprint();
    if (this.cached?.fp === fp) return this.cached.snap;
    const problems: Problem[] = [];
    let rows: UiRow[] = [];
    const m = readText(this.layout.manifest);
    if (m !== null) {
      const r = parseManifest(m, this.layout.manifest);
      rows = r.rows;
      problems.push(...r.problems);
    }
    const l = readLineage(this.layout.lineage);
    problems.push(...l.problems);
    const lock = lockState(this.layout.runLock);
    const snap: Snapshot = { runDir: this.runDir, lock, rows, lineage: l.lineage, notes: readNotes(this.runDir, l.lineage), problems };
    this.cached = { fp: this.fingerprint(), snap };
    return snap;
  }

  storeProblem(): Problem | null {
    return this.sessions.problem;
  }

  close(): void {
    this.sessions.close();
  }
}

/** The run dir when -r was not given: ./runs, ../runs, … up to the root (like git), else ./runs. */
export function findRunDir(cwd: string): string {
  let dir = path.resolve(cwd);
  for (;;) {
    const l = RunLayout.of({ cwd: dir });
    if ([l.manifest, l.lineage, l.sessionsDb].some((f) => fs.existsSync(f))) return l.runDir;
    const up = path.dirname(dir);
    if (up === dir) return RunLayout.of({ cwd }).runDir;
    dir = up;
  }
}
