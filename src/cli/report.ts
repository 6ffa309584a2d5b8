/**
 * `flower report [RUN]` — one run's analysis, read-only: its steps and sessions, the main thread's
 * context curve per step, cache hits, tool counts, denied coordinator calls, the coordinator's own Bash
 * commands, spill savings (src/cli/report-analysis.ts, src/cli/report-render.ts).
 *
 * It reads what `flower status` reads, through the same store (FLOWER_STORE / --store): the manifest
 * rows and the transcripts of their sessions. A damaged manifest or transcript is never an empty
 * report: one line naming the file, exit 1. Nothing is written and no model is called.
 */
import fs from 'node:fs';
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import { detectLang } from '../config/index.js';
import { RunLayout, type ManifestRow } from '../state/index.js';
import { parseManifest } from '../ui/data.js';
import { EXIT, CliExit, type CliIO } from './io.js';
import type { GlobalOptions } from './globals.js';
import { locate } from './locate.js';
import { analyseRun, type RunReport, type SessionEntries } from './report-analysis.js';
import { renderReport } from './report-render.js';
import { one } from './status.js';
import { backendsFor, type Backends } from './store.js';
import { tilde } from './term.js';
import { usageTexts } from './usage.js';
import { screenWidth } from './term.js';

const fail = (message: string): CliExit => new CliExit(EXIT.failure, `x ${message}`);

/** The rows: from manifest.json read strictly (damage is named), or from the PostgreSQL store. */
async function rowsOf(b: Backends, zh: boolean): Promise<ManifestRow[]> {
  const file = b.records.manifestAt;
  if (!file) return b.records.readRows();
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw fail(`${tilde(file)} ${zh ? '读不了' : 'cannot be read'} (${(e as Error).message})`);
  }
  const r = parseManifest(text, file);
  if (r.problems.length) throw fail(`${tilde(file)} ${r.problems[0]!.message}`);
  return r.rows;
}

/** A session's transcripts (main thread and subagents) under the workspace's project key, else any project's. */
async function entriesOf(b: Backends, sessionId: string): Promise<SessionEntries | null> {
  const s = b.sessions;
  if (!s) return null;
  const keys = [b.projectKey, ...(await s.projects()).filter((k) => k !== b.projectKey)];
  for (const projectKey of keys) {
    const main = await s.load({ projectKey, sessionId });
    if (!main) continue;
    const subagents: SessionStoreEntry[][] = [];
    for (const subpath of await s.listSubkeys({ projectKey, sessionId })) subagents.push((await s.load({ projectKey, sessionId, subpath })) ?? []);
    return { main, subagents };
  }
  return null;
}

/** The transcripts of every session the rows name; a store that cannot be read is named. */
async function sessionsOf(b: Backends, rows: readonly ManifestRow[], storeName: string, zh: boolean): Promise<Record<string, SessionEntries>> {
  const out: Record<string, SessionEntries> = {};
  const sids = new Set(rows.flatMap((r) => [...r.retired, ...(r.session_id ? [r.session_id] : [])]));
  for (const sid of sids) {
    try {
      const e = await entriesOf(b, sid);
      if (e) out[sid] = e;
    } catch (e) {
      throw fail(`${storeName} ${zh ? '读不了' : 'cannot be read'} (${one((e as Error).message)}); ${zh ? '会话' : 'session'} ${one(sid)}`);
    }
  }
  return out;
}

/** The report of `run` (default: the last run) in the project found from -w / -r. */
export async function reportOf(runId: string | undefined, g: GlobalOptions, io: CliIO): Promise<RunReport> {
  const zh = detectLang(io.env) === 'zh';
  const cwd = io.cwd ?? process.cwd();
  const at = locate({ ...g, cwd, noSuchFolder: usageTexts(detectLang(io.env)).noSuchFolder });
  const layout = RunLayout.of({ cwd, workspace: at.workspace, runDir: at.runDir });
  const b = await backendsFor(io.env, layout);
  try {
    const rows = await rowsOf(b, zh);
    const run = runId ?? rows.at(-1)?.run;
    if (!run) throw fail(zh ? `${tilde(at.runDir)} 里还没有记录任何运行` : `no run recorded in ${tilde(at.runDir)} yet`);
    const mine = rows.filter((r) => r.run === run);
    if (mine.length === 0) throw fail(zh ? `没有运行 ${one(run)};flower log 列出各次运行` : `no run ${one(run)} here; flower log lists the runs`);
    const storeName = b.records.manifestAt ? tilde(layout.sessionsDb) : zh ? 'PostgreSQL 会话库' : 'the PostgreSQL session store';
    return analyseRun({ run, rows: mine, sessions: await sessionsOf(b, mine, storeName, zh) });
  } finally {
    b.close();
  }
}

export async function report(runId: string | undefined, o: { json?: boolean }, g: GlobalOptions, io: CliIO): Promise<number> {
  const r = await reportOf(runId, g, io);
  if (o.json) {
    // one line: --json output is NDJSON on every command
    io.stdout.write(`${JSON.stringify(r)}\n`);
    return EXIT.ok;
  }
  const cols = io.stdout.isTTY ? screenWidth(io.stdout.columns) : 0;
  io.stdout.write(`${renderReport(r, { zh: detectLang(io.env) === 'zh', cols })}\n`);
  return EXIT.ok;
}
