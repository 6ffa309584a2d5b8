/**
 * The store the Runtime hands the SDK: every append goes to SQLite unchanged; every load (the copy a
 * resume feeds the binary) is the cleaned view — stale glances expired, old large results trimmed to
 * spill files (when enabled), API-error debris, old denials and interrupt residue pruned, the chain
 * relinked. Rows are never rewritten, so a later resume may apply another policy.
 */
import path from 'node:path';
import type { SessionKey, SessionStore, SessionStoreEntry, SessionSummaryEntry } from '@anthropic-ai/claude-agent-sdk';
import { RunLayout } from '../state/index.js';
import type { SqliteSessionStore } from './sqlite.js';
import type { PostgresSessionStore } from './postgres/index.js';
import { SpillFiles, writeNow } from './spill-files.js';
import { spillFileName, views, type ExpireOptions, type TrimOptions, type ViewReport } from './views/index.js';

/** The trim view's knobs: the newest `keepRecent` (20) large results stay, a result of `minChars` (2000) or more is large. */
export type TrimKnobs = Omit<TrimOptions, 'spill'>;
/** The stale-glance view's knobs: the newest `keepRecent` (6) glance results stay, one over `maxChars` (2000) is left to trim. */
export type ExpireKnobs = ExpireOptions;

export interface ViewPolicy {
  /** trim old large tool results into spill files (off by default in the API, on for the CLI's flow); an object: on, with these knobs */
  trim: boolean | TrimKnobs;
  /** expire stale results of read-only glance commands (default on); an object: on, with these knobs */
  ephemeral: boolean | ExpireKnobs;
  /** denied calls kept in the resumed context (default 1: the newest, so the model doesn't retry it in a loop) */
  keepDenials: number;
}

export const DEFAULT_VIEW_POLICY: Readonly<ViewPolicy> = Object.freeze({ trim: false, ephemeral: true, keepDenials: 1 });

/**
 * Where trimmed results go, written at once: `<dir>/<sha16>.txt`, `dir` = `RunLayout.viewSpill`
 * (`<workspace>/.flower/spill`, inside the workspace, so Read reaches it). Returns the path relative to the
 * workspace. ViewedStore writes its files off the load's path instead (spill-files.ts).
 */
export function spillWriter(workspace: string, dir = RunLayout.of({ workspace }).viewSpill): (text: string) => string {
  return (text: string) => {
    const abs = path.join(dir, spillFileName(text));
    // a spill copy is made again from sessions.db on every resume, so it needs no fsync (bench: ~0.5 s on 373 files)
    writeNow(abs, text);
    return path.relative(workspace, abs);
  };
}

/** A view's knobs when it is on (`true` = the defaults), undefined when it is off. */
const knobs = <T extends object>(v: boolean | T): T | undefined => (v === true ? ({} as T) : v === false ? undefined : { ...v });

export class ViewedStore implements SessionStore {
  /** what the last load() changed, for `trimReport` */
  lastReport: ViewReport | undefined;

  private readonly spills: SpillFiles;

  constructor(
    readonly inner: SqliteSessionStore | PostgresSessionStore,
    readonly workspace: string,
    readonly policy: ViewPolicy = DEFAULT_VIEW_POLICY,
    readonly spillDir: string = RunLayout.of({ workspace }).viewSpill,
  ) {
    this.spills = new SpillFiles(workspace, spillDir);
  }

  append(key: SessionKey, entries: SessionStoreEntry[]): Promise<void> {
    return this.inner.append(key, entries);
  }

  async load(key: SessionKey): Promise<SessionStoreEntry[] | null> {
    const raw = await this.inner.load(key);
    if (!raw) return raw;
    const batch = this.policy.trim ? this.spills.batch() : undefined;
    const { entries, report } = views(raw, {
      expire: knobs(this.policy.ephemeral) ?? false,
      trim: batch ? { ...knobs(this.policy.trim), spill: batch.spill } : false,
      prune: { keepDenials: this.policy.keepDenials },
    });
    batch?.flush();
    this.lastReport = report;
    // a subagent's transcript is loaded after listSubkeys, right before the binary starts: wait for its files here
    if (key.subpath !== undefined) await this.spills.written();
    return entries;
  }

  /**
   * Resolves once the file of every result trimmed so far is whole at its name (spill-files.ts); rejects
   * with the first that could not be written.
   */
  spillsWritten(): Promise<void> {
    return this.spills.written();
  }

  listSessions(projectKey: string): Promise<Array<{ sessionId: string; mtime: number }>> {
    return this.inner.listSessions(projectKey);
  }

  listSessionSummaries(projectKey: string): Promise<SessionSummaryEntry[]> {
    return this.inner.listSessionSummaries(projectKey);
  }

  delete(key: SessionKey): Promise<void> {
    return this.inner.delete(key);
  }

  /**
   * Also the wait for the trimmed results' files. On a resume the SDK calls load(), writes the transcript it
   * hands the binary, calls this, and spawns the binary only once it has the answer (sdk.mjs 0.3.332, see
   * docs/sdk-facts.md): waiting here, no tool call of the resumed session can find a file missing.
   */
  async listSubkeys(key: { projectKey: string; sessionId: string }): Promise<string[]> {
    const [keys] = await Promise.all([this.inner.listSubkeys(key), this.spills.written()]);
    return keys;
  }

  hasSession(sessionId: string, projectKey?: string): Promise<boolean> {
    return this.inner.hasSession(sessionId, projectKey);
  }

  lastContext(sessionId: string, opts?: { projectKey?: string }): Promise<number> {
    return this.inner.lastContext(sessionId, opts);
  }

  /** A store that can say it cannot be written (SQLite: a file); a PostgreSQL store is checked by connecting. */
  checkWritable(o?: { minFreeBytes?: number }): void {
    if ('checkWritable' in this.inner) this.inner.checkWritable(o);
  }

  /** The session's last saved cost: one indexed read where the store has it, else from the loaded tail. */
  async lastCost(sessionId: string, opts: { projectKey?: string } = {}): Promise<number> {
    if ('lastCost' in this.inner) return this.inner.lastCost(sessionId, opts);
    const entries = (await this.inner.load({ projectKey: opts.projectKey ?? '', sessionId })) ?? [];
    for (let i = entries.length - 1; i >= 0; i--) {
      const e = entries[i]!;
      if (e.type === 'cost-state' && typeof e.totalCostUSD === 'number' && Number.isFinite(e.totalCostUSD)) return e.totalCostUSD;
    }
    return 0;
  }

  close(): void {
    this.inner.close();
  }
}
