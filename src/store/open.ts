/**
 * The one opener of backends: from the settings (FLOWER_STORE / --store, FLOWER_PROJECT, resolved over
 * the .env chain) and the run layout, the session store, the run records, where they live, a
 * connection check, a wait for a server that went away, and one close. The Runtime and every CLI
 * command that opens a store come here, so none of them names a concrete backend class (or tests for
 * one): a third backend is added in this file.
 */
import fs from 'node:fs';
import { FileRunRecords, type RunLayout, type RunRecords } from '../state/index.js';
import { chooseStore, type StoreChoice } from './choose.js';
import { SqliteSessionStore } from './sqlite.js';
import { PostgresRunRecords, PostgresSessionStore } from './postgres/index.js';

/** A backend's session store: the SDK's SessionStore plus flower's reads and listings. */
export type BackendSessions = SqliteSessionStore | PostgresSessionStore;

/** A store that lives on a server, which can go away mid-run and come back. */
export interface StoreServer {
  /** host:port/database, never the password */
  readonly target: string;
  /** Wait at most `maxMs` until it answers again (and what it buffered is written); false when it did not. */
  waitOnline(maxMs: number): Promise<boolean>;
}

export interface OpenedStore {
  readonly choice: StoreChoice;
  /**
   * The session store; null when not asked for (`sessions: false`), or when the files backend has no
   * sessions.db yet and `sessions: 'existing'` asked not to create one.
   */
  readonly sessions: BackendSessions | null;
  /** lineage, manifest rows, the run lock */
  readonly records: RunRecords;
  /** where the sessions live, for messages: the sessions.db path, or `PostgreSQL host:port/db (project P)` */
  readonly where: string;
  /** the sessions.db path when the sessions are that one file */
  readonly file: string | undefined;
  /** present when the sessions live on a server (PostgreSQL) */
  readonly server: StoreServer | undefined;
  /** Connect and check the schemas (nothing to do for files): an unusable server fails here, in one line. */
  ready(): Promise<void>;
  /** Close the sessions and the records. */
  close(): void;
}

export interface OpenStoreOptions {
  /** 'create' (default): open or create sessions.db; 'existing': only when it exists; false: none (the caller has its own) */
  sessions?: 'create' | 'existing' | false;
  /** records the caller already has: used instead of the backend's (and opened and closed with it) */
  records?: RunRecords;
}

/**
 * Open the store the settings name. Nothing connects yet: `ready()` does (the CLI awaits it before
 * anything else; the Runtime before its first model call).
 */
export function openStore(env: Record<string, string | undefined>, layout: RunLayout, o: OpenStoreOptions = {}): OpenedStore {
  const choice = chooseStore(env, layout);
  const mode = o.sessions ?? 'create';
  if (choice.backend === 'postgres') {
    const pg = mode === false ? null : new PostgresSessionStore(choice.url);
    let records: RunRecords;
    try {
      records = o.records ?? new PostgresRunRecords(choice.url, choice.project);
    } catch (e) {
      pg?.close();
      throw e;
    }
    return opened(choice, pg, records, {
      where: `PostgreSQL ${pg?.target ?? records.where} (project ${choice.project})`,
      file: undefined,
      server: pg ?? undefined,
      open: async () => {
        await pg?.open();
      },
    });
  }
  const file = layout.sessionsDb;
  const sqlite = mode === 'create' || (mode === 'existing' && fs.existsSync(file)) ? new SqliteSessionStore(file) : null;
  return opened(choice, sqlite, o.records ?? new FileRunRecords(layout), { where: file, file, server: undefined, open: async () => {} });
}

function opened(
  choice: StoreChoice,
  sessions: BackendSessions | null,
  records: RunRecords,
  b: { where: string; file: string | undefined; server: StoreServer | undefined; open: () => Promise<void> },
): OpenedStore {
  let ready: Promise<void> | undefined;
  let closed = false;
  return {
    choice,
    sessions,
    records,
    where: b.where,
    file: b.file,
    server: b.server,
    ready: () => {
      ready ??= (async () => {
        await b.open();
        await records.open?.();
      })();
      return ready;
    },
    close: () => {
      if (closed) return;
      closed = true;
      try {
        sessions?.close();
      } finally {
        records.close?.();
      }
    },
  };
}
