/**
 * What the ui's pages read, as shapes: a `UiSource` (the run dir's files, ./data.ts; or PostgreSQL,
 * ./pg.ts) and its `SessionReader` (sessions.db, ./sqlite.ts). Types only, so every reader imports them
 * and none imports another reader for them.
 */
import type { ManifestRow } from '../state/index.js';
import type { Trace } from './trace.js';
import type { ModelCall, SessionFigures, VerdictCall } from './transcript.js';

/** A manifest row as the state layer declares it (its optional fields are declared in src/state/schemas.ts). */
export type UiRow = ManifestRow;

export interface Problem {
  file: string;
  message: string;
}

export interface LineageView {
  workspace: string;
  woke: number;
  steps: Record<string, string>;
  /** the workbench root when --isolate moved it out of the workspace */
  workbench?: string;
  /** the request recorded before the first spawn of the task (runs from before rows carried `request` show it) */
  request?: { text: string; at: string };
}

export interface NoteFile {
  file: string;
  text: string;
}

export interface Notes {
  dir: string | null;
  brief: NoteFile | null;
  goal: NoteFile | null;
  qa: NoteFile | null;
  /** the handoff notes (交接-<step>.md) by safe step name (state's safeStepName) */
  handoffs: Record<string, NoteFile>;
}

export interface Snapshot {
  runDir: string;
  /**
   * Is a flower process working in this run dir? 'held': the run lock's holder is alive; 'free': the
   * lock file is there but its holder is gone (a row without an end was stopped); 'unknown': no lock file.
   */
  lock: 'held' | 'free' | 'unknown';
  rows: UiRow[];
  lineage: LineageView | null;
  notes: Notes;
  problems: Problem[];
}

export interface TranscriptPage {
  /** entries with their position in the transcript */
  entries: Array<{ seq: number; entry: unknown }>;
  total: number;
}

/** What the pages need from a session store. */
export interface SessionReader {
  has(sessionId: string): Promise<boolean>;
  /** main-thread model calls, oldest first */
  calls(sessionId: string): Promise<ModelCall[]>;
  subagents(sessionId: string): Promise<string[]>;
  page(sessionId: string, subpath: string | undefined, from: number, limit: number): Promise<TranscriptPage | null>;
  figures(sessionId: string): Promise<SessionFigures>;
  verdict(sessionId: string): Promise<VerdictCall | null>;
  /** the timeline, subagents and file changes of the session and its subagents (./trace.ts) */
  trace(sessionId: string): Promise<Trace>;
  /** entries of the session or its subagents whose stored text holds `q` (literally), oldest first */
  search(sessionId: string, q: string, limit: number): Promise<SearchHit[]>;
}

export interface SearchHit {
  /** '' for the main thread, else the subagent's subpath */
  sub: string;
  seq: number;
  entry: unknown;
}

export interface UiSource {
  /** changes whenever something the pages show may have changed; cheap (stat calls only) */
  fingerprint(): string;
  snapshot(): Promise<Snapshot>;
  sessions: SessionReader;
  /** a problem of the session store itself (not a SQLite file, …), if any */
  storeProblem(): Problem | null;
}
