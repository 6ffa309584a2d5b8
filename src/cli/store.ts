/**
 * Which store the read-only commands look at, and `flower store copy`.
 *
 * `backendsFor` opens what FLOWER_STORE / --store names (process env over the .env chain, as the
 * Runtime does) without needing credentials: `flower status` and `flower log` read the project's
 * lineage and rows from PostgreSQL the same way a run writes them.
 *
 * `flower store copy --from A --to B` (each `runs` — the SQLite file and JSON files of the run dir —
 * or a postgres:// URL) copies transcripts, lineage and manifest rows; running it again adds nothing.
 */
import path from 'node:path';
import type { SessionKey, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import { resolveEnv } from '../config/dotenv.js';
import { ConfigError } from '../errors.js';
import { RunLayout, type ManifestRow, type RunRecords } from '../state/index.js';
import { projectKeyFor } from '../store/keys.js';
import { openStore, type BackendSessions } from '../store/open.js';
import { redactUrl } from '../store/postgres/pool.js';
import { EXIT, type CliIO } from './io.js';
import type { GlobalOptions } from './globals.js';

type RawStore = BackendSessions;

export interface Backends {
  records: RunRecords;
  /** null: the files backend has no sessions.db yet (nothing to read, nothing created) */
  sessions: RawStore | null;
  /** the SDK project key the workspace's transcripts are under */
  projectKey: string;
  project: string;
  close(): void;
}

/** The store named by the settings, opened (a PostgreSQL one is checked: one line when unusable). */
export async function backendsFor(env: Record<string, string | undefined>, layout: RunLayout, o: { createSqlite?: boolean } = {}): Promise<Backends> {
  // a read-only command creates no sessions.db where there is none (nothing to read)
  const s = openStore(resolveEnv(env, layout.cwd).env, layout, { sessions: o.createSqlite ? 'create' : 'existing' });
  try {
    await s.ready();
  } catch (e) {
    s.close();
    throw e;
  }
  return { records: s.records, sessions: s.sessions, projectKey: s.choice.projectKey, project: s.choice.project, close: () => s.close() };
}

export interface CopyReport {
  transcripts: number;
  entries: number;
  lineageSteps: number;
  rows: number;
}

/** Every store key (main transcripts and their subkeys) of `projectKeys` in `from`. */
async function keysOf(from: RawStore): Promise<SessionKey[]> {
  const out: SessionKey[] = [];
  for (const projectKey of await from.projects()) {
    for (const { sessionId } of await from.listSessions(projectKey)) {
      out.push({ projectKey, sessionId });
      for (const subpath of await from.listSubkeys({ projectKey, sessionId })) out.push({ projectKey, sessionId, subpath });
    }
  }
  return out;
}

/**
 * The entries of `src` that `dst` does not have yet: by uuid, and uuid-less ones by content (as many
 * copies as `src` has more than `dst`). So a second copy adds nothing, and a copy back merges.
 */
export function missingEntries(src: readonly SessionStoreEntry[], dst: readonly SessionStoreEntry[]): SessionStoreEntry[] {
  const uuids = new Set<string>();
  const plain = new Map<string, number>();
  for (const e of dst) {
    if (typeof e.uuid === 'string') uuids.add(e.uuid);
    else {
      const k = JSON.stringify(e);
      plain.set(k, (plain.get(k) ?? 0) + 1);
    }
  }
  const out: SessionStoreEntry[] = [];
  for (const e of src) {
    if (typeof e.uuid === 'string') {
      if (!uuids.has(e.uuid)) {
        uuids.add(e.uuid);
        out.push(e);
      }
      continue;
    }
    const k = JSON.stringify(e);
    const n = plain.get(k) ?? 0;
    if (n > 0) plain.set(k, n - 1);
    else out.push(e);
  }
  return out;
}

async function appendCount(s: RawStore, key: SessionKey, entries: SessionStoreEntry[]): Promise<number> {
  if (entries.length === 0) return 0;
  return s.appendNow(key, entries);
}

export async function copyStore(from: Backends, to: Backends, workspace: string): Promise<CopyReport> {
  const report: CopyReport = { transcripts: 0, entries: 0, lineageSteps: 0, rows: 0 };
  if (from.sessions && to.sessions) {
    // the workspace's transcripts follow the project key of the target's settings (FLOWER_PROJECT)
    // (a history made before FLOWER_PROJECT was set has them under the workspace path's key)
    const mine = new Set([from.projectKey, projectKeyFor(workspace)]);
    const remap = (pk: string) => (mine.has(pk) ? to.projectKey : pk);
    for (const key of await keysOf(from.sessions)) {
      const src = (await from.sessions.load(key)) ?? [];
      const target = { ...key, projectKey: remap(key.projectKey) };
      const have = (await to.sessions.load(target)) ?? [];
      const added = await appendCount(to.sessions, target, missingEntries(src, have));
      if (added > 0) report.transcripts++;
      report.entries += added;
    }
  }
  const lin = await from.records.readLineage(workspace, { keep: false });
  if (lin) {
    await to.records.updateLineage(workspace, (d) => {
      for (const [step, sid] of Object.entries(lin.steps)) {
        if (d.steps[step] !== sid) report.lineageSteps++;
        d.steps[step] = sid;
      }
      d.woke = Math.max(d.woke, lin.woke);
      if (lin.workbench && !d.workbench) d.workbench = lin.workbench;
    });
  }
  const byRun = new Map<string, ManifestRow[]>();
  for (const r of await from.records.readRows()) byRun.set(r.run, [...(byRun.get(r.run) ?? []), r]);
  const existing = new Map<string, string>();
  for (const r of await to.records.readRows()) existing.set(r.run, `${existing.get(r.run) ?? ''}${JSON.stringify(r)}\n`);
  for (const [run, rows] of byRun) {
    const text = rows.map((r) => `${JSON.stringify(r)}\n`).join('');
    if (existing.get(run) === text) continue;
    await to.records.upsertRows(run, rows);
    report.rows += rows.length;
  }
  return report;
}

/** `runs` (or a folder) → that run dir's files; a postgres:// URL → that database. */
function endpointEnv(env: Record<string, string | undefined>, spec: string): { env: Record<string, string | undefined>; runDir?: string } {
  if (/^postgres(?:ql)?:\/\//i.test(spec.trim())) return { env: { ...env, FLOWER_STORE: spec.trim() } };
  if (!spec.trim()) throw new ConfigError('bad-store', 'store copy: --from and --to take `runs` (or a run dir) or a postgres:// URL');
  return { env: { ...env, FLOWER_STORE: 'runs' }, runDir: spec.trim() };
}

export async function storeCopy(o: { from: string; to: string }, g: GlobalOptions, io: CliIO): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const workspace = path.resolve(cwd, g.workspace);
  const open = (spec: string, create: boolean) => {
    const e = endpointEnv(io.env, spec);
    const runDir = path.resolve(cwd, e.runDir ?? g.runDir);
    return backendsFor(e.env, RunLayout.of({ cwd, workspace, runDir }), { createSqlite: create });
  };
  const from = await open(o.from, false);
  let to: Backends | undefined;
  try {
    to = await open(o.to, true);
    const r = await copyStore(from, to, workspace);
    const name = (s: string) => (/^postgres/i.test(s) ? redactUrl(s) : path.resolve(cwd, s));
    io.stdout.write(
      `copied ${r.entries} transcript entries (${r.transcripts} transcripts), ${r.lineageSteps} lineage steps, ${r.rows} manifest rows: ${name(o.from)} -> ${name(o.to)}\n`,
    );
    return EXIT.ok;
  } finally {
    from.close();
    to?.close();
  }
}
