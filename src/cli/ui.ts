/**
 * `flower ui [-r RUNDIR] [--port N] [--host H] [--open]` — serve a web view of a run dir (read-only but
 * for the inbox: the waiting question's answer, remarks, stop after this step) until
 * Ctrl-C or SIGTERM. The first stdout line is the full URL with this start's random access token.
 * With FLOWER_STORE / --store = postgres://… it shows what that store holds for the project
 * (FLOWER_PROJECT, else the workspace path), as `flower status` and `flower log` do, and the store's
 * fleet when it has one: its tasks on the first page, each linking to that task's runs.
 * A run dir that is not there, is a file, or cannot be read is refused at start (one line naming it):
 * a page that says "No runs recorded yet" forever would hide the mistyped path.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { resolveEnv } from '../config/index.js';
import { FileRunRecords, RunLayout } from '../state/index.js';
import { chooseStore } from '../store/index.js';
import { handoffPolicy, thresholds } from '../runtime/window.js';
import { EXIT, type CliIO } from './io.js';
import { ReadRefused, refusing } from './refuse.js';
import type { GlobalOptions } from './globals.js';

export interface UiOptions {
  port: number;
  host: string;
  open: boolean;
  /** -r was given (otherwise the run dir is looked for upward, like git) */
  runDirGiven: boolean;
}

/** xdg-open / open when one is on PATH; false when none is (the URL is printed either way). */
function openBrowser(url: string, env: Record<string, string | undefined>): boolean {
  const cmd = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? null : 'xdg-open';
  if (!cmd) return false;
  const onPath = (env.PATH ?? '').split(path.delimiter).some((d) => d && fs.existsSync(path.join(d, cmd)));
  if (!onPath) return false;
  try {
    const child = spawn(cmd, [url], { stdio: 'ignore', detached: true });
    child.on('error', () => {});
    child.unref();
    return true;
  } catch {
    return false;
  }
}

/** The files backend's run dir must be a folder flower can read; else one line naming it. */
function usableRunDir(runDir: string, given: boolean): void {
  let st: fs.Stats;
  try {
    st = fs.statSync(runDir);
  } catch {
    const how = given ? 'name the folder a run wrote with -r' : 'start a run here first, or name its run dir with -r';
    throw new ReadRefused(EXIT.usage, 'no-run-dir', `no run dir at ${runDir}: nothing to show (${how})`, runDir);
  }
  if (!st.isDirectory()) throw new ReadRefused(EXIT.usage, 'not-a-folder', `the run dir ${runDir} is a file, not a folder`, runDir);
  try {
    fs.accessSync(runDir, fs.constants.R_OK | fs.constants.X_OK);
  } catch {
    throw new ReadRefused(EXIT.failure, 'run-dir-unreadable', `cannot read the run dir ${runDir} (permission denied)`, runDir);
  }
}

export function ui(o: UiOptions, g: GlobalOptions, io: CliIO): Promise<number> {
  return refusing(io, { json: g.json ?? false, zh: false }, () => serve(o, g, io));
}

async function serve(o: UiOptions, g: GlobalOptions, io: CliIO): Promise<number> {
  const { FileSource, PgSource, UiFleet, findRunDir, handle, newToken, serveUi } = await import('../ui/index.js');
  const cwd = io.cwd ?? process.cwd();
  const runDir = o.runDirGiven ? path.resolve(cwd, g.runDir) : findRunDir(cwd);
  const env = resolveEnv(io.env, cwd).env;
  const policy = handoffPolicy(env, undefined);
  // the store named by FLOWER_STORE / --store, like status and log (a PostgreSQL one that cannot be used: one line, exit 1)
  const workspace = path.resolve(cwd, g.workspace);
  // the page reads through its own readers (src/ui/pg.ts, src/ui/data.ts), never writing: the backend
  // is chosen by src/store/choose.ts, as for a run
  const choice = chooseStore(env, RunLayout.of({ cwd, workspace, runDir }));
  if (choice.backend !== 'postgres') usableRunDir(runDir, o.runDirGiven);
  const pg = choice.backend === 'postgres' ? await PgSource.open({ url: choice.url, project: choice.project, workspace, runDir }) : null;
  // the store's fleet, when it has one: its tasks on the first page, each linking to its runs (docs/fleet.md)
  const fleet = choice.backend === 'postgres' && pg ? await UiFleet.open({ url: choice.url, runDir }) : undefined;
  const source = pg ?? new FileSource(RunLayout.of({ cwd, runDir }));
  const shown = pg ? pg.where : runDir;
  const empty = pg ? false : fs.readdirSync(runDir).length === 0;
  // the inbox of the same store: the page's one writable corner (answers, remarks, stop after this step)
  const inbox = pg ? pg.inbox : new FileRunRecords(RunLayout.of({ cwd, runDir })).inbox;
  const app = { source, token: newToken(), window: policy.window, threshold: thresholds(policy).at, inbox, ...(fleet ? { fleet } : {}) };
  const server = await serveUi(app, { host: o.host, port: o.port }).catch((e: unknown) => {
    fleet?.close();
    source.close();
    throw e;
  });
  io.stdout.write(`${server.url}\n`);
  // read the run dir once now, while the person opens the page: the first load then finds it cached
  setImmediate(() => {
    void handle(app, 'GET', `/?token=${app.token}`);
  });
  io.stdout.write(`flower ui — read-only view of ${shown}${empty ? ' (nothing there yet; the page fills in when a run starts)' : ''} · Ctrl-C to stop\n`);
  if (o.open && !openBrowser(server.url, io.env)) io.stdout.write('(no browser opener found: open the URL above yourself)\n');
  await new Promise<void>((resolve) => {
    const stop = () => {
      process.removeListener('SIGINT', stop);
      process.removeListener('SIGTERM', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await server.close();
  fleet?.close();
  source.close();
  return EXIT.ok;
}
