/**
 * What `flower [ask]` does before it loads the flow's modules (the SDK, the roles, the docs — about a
 * second of loading on a busy machine): take the folder's run lock and record the person's sentence in
 * lineage. A kill in that second used to leave nothing behind, so a bare `flower` had nothing to
 * continue; now only Node's own start-up is unprotected. Imports only the state layer.
 */
import path from 'node:path';
import { detectLang, hasCredentials, resolveEnv } from '../config/index.js';
import { FileRunRecords, RunLayout, type RunLockHeld, type StateNotice } from '../state/index.js';
import { chooseStore } from '../store/choose.js';
import { holdFolder } from './folder-lock.js';
import { CliExit, type CliIO } from './io.js';
import { messages } from './messages.js';
import type { GlobalOptions } from './globals.js';

export interface EarlyOptions {
  new?: boolean;
  wait?: boolean;
}

/**
 * The run lock (exit 1 naming the holder, or wait with `--wait`), then `ask` recorded as the request
 * (not with `--new`: the flow archives first and records it after). null when the lock cannot even be
 * tried here (an unwritable run dir): the flow then reports it properly.
 */
export async function holdAndRecord(words: string[], o: EarlyOptions, g: GlobalOptions, io: CliIO): Promise<RunLockHeld | null> {
  const ask = words.join(' ').trim();
  // no sentence (a bare wake, a pipe, a terminal prompt): nothing to record early, and a folder where
  // there turns out to be nothing to do must stay untouched — the flow takes the lock itself
  if (!ask) return null;
  // no credentials: the flow offers `flower setup` or exits naming them, and nothing is created
  const resolved = resolveEnv(io.env);
  if (!hasCredentials(resolved)) return null;
  const cwd = io.cwd ?? process.cwd();
  const ws = path.resolve(cwd, g.workspace);
  const layout = RunLayout.of({ cwd, workspace: ws, runDir: path.resolve(cwd, g.runDir) });
  // a PostgreSQL store keeps the lock (an advisory lock) and lineage there, never in local files: the
  // flow takes both once it has connected
  try {
    if (chooseStore(resolved.env, layout).backend !== 'files') return null;
  } catch {
    return null;
  }
  // the files' records, made here rather than by src/store/open.ts: opening loads the database
  // drivers and the SDK, the second this file exists to win
  const records = new FileRunRecords(layout);
  let held: RunLockHeld;
  try {
    held = await holdFolder(records, { wait: o.wait ?? false }, io);
  } catch (e) {
    if (e instanceof CliExit) throw e;
    return null;
  }
  if (!o.new) {
    const t = messages(detectLang(io.env));
    const onNotice = (n: StateNotice) =>
      io.stderr.write(n.kind === 'foreign' ? `! ${n.path}: ${n.reason}; kept it as ${n.keptAt} and started fresh here\n` : `${t.lineageCorrupt(n.keptAt)}\n`);
    try {
      await records.updateLineage(
        layout.workspace,
        (d) => {
          d.request = { text: ask, at: new Date().toISOString() };
        },
        { onNotice },
      );
    } catch {
      /* continuity is a bonus: the flow records it again before its first spawn */
    }
  }
  return held;
}
