/**
 * Which project `flower status` / `flower log` read, found the way git finds a repository: from the
 * workspace (`-w`, default the current folder) upward, the first folder with a `runs/` holding
 * lineage.json or manifest.json. `-r` names the run dir outright. A `-w` that does not exist is an
 * error (it used to report the current folder's runs and exit 0); so is a `-w` or run dir that is a
 * file (exit 2), and a run dir that cannot be read (exit 1: it would read as "flower has not run here").
 */
import fs from 'node:fs';
import path from 'node:path';
import { NAMES } from '../state/index.js';
import { EXIT } from './io.js';
import { ReadRefused } from './refuse.js';

export interface Located {
  workspace: string;
  runDir: string;
  /** true when a project was found (upward, or through -r) */
  found: boolean;
}

const RUN_DIR = NAMES.runDir;
const MARKERS = [NAMES.lineage, NAMES.manifest];

const isDir = (p: string): boolean => {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
};

const hasRecords = (runDir: string): boolean => MARKERS.some((m) => fs.existsSync(path.join(runDir, m)));

/** A run dir that is there but cannot be searched: its records would read as none. */
function unreadable(runDir: string): boolean {
  if (!isDir(runDir)) return false;
  try {
    fs.accessSync(runDir, fs.constants.R_OK | fs.constants.X_OK);
    return false;
  } catch {
    return true;
  }
}

const isFile = (p: string): boolean => fs.existsSync(p) && !isDir(p);

/**
 * The workspace a run dir's lineage recorded, when it is readable and still there. Only this one field,
 * read leniently (every lineage version has it): finding the project must not fail on a lineage that
 * `status` itself will then report as damaged or foreign.
 */
function recordedWorkspace(runDir: string): string | undefined {
  try {
    const ws = (JSON.parse(fs.readFileSync(path.join(runDir, NAMES.lineage), 'utf8')) as { workspace?: unknown }).workspace;
    return typeof ws === 'string' && isDir(ws) ? ws : undefined;
  } catch {
    return undefined;
  }
}

export interface LocateInput {
  cwd: string;
  workspace: string;
  runDir: string;
  workspaceGiven?: boolean;
  runDirGiven?: boolean;
  /** the "no such folder" line, in the terminal's language */
  noSuchFolder: (dir: string) => string;
  /** Chinese lines for the refusals below (default English) */
  zh?: boolean;
}

const texts = (zh: boolean) => ({
  file: (p: string) => (zh ? `${p} 是文件,不是目录` : `${p} is a file, not a folder`),
  runFile: (p: string) => (zh ? `运行目录 ${p} 是文件,不是目录` : `the run dir ${p} is a file, not a folder`),
  cannotRead: (p: string) => (zh ? `读不了运行目录 ${p}(没有权限)` : `cannot read the run dir ${p} (permission denied)`),
});

/** The run dir chosen, checked: a file there is a usage error, an unreadable folder a failure. */
function checked(l: Located, zh: boolean): Located {
  if (isFile(l.runDir)) throw new ReadRefused(EXIT.usage, 'not-a-folder', texts(zh).runFile(l.runDir), l.runDir);
  if (unreadable(l.runDir)) throw new ReadRefused(EXIT.failure, 'run-dir-unreadable', texts(zh).cannotRead(l.runDir), l.runDir);
  return l;
}

export function locate(i: LocateInput): Located {
  const zh = i.zh ?? false;
  const ws = path.resolve(i.cwd, i.workspace);
  if (i.workspaceGiven && isFile(ws)) throw new ReadRefused(EXIT.usage, 'not-a-folder', texts(zh).file(ws), ws);
  if (i.workspaceGiven && !isDir(ws)) throw new ReadRefused(EXIT.failure, 'no-such-folder', i.noSuchFolder(ws), ws);
  if (i.runDirGiven) {
    const runDir = path.resolve(i.cwd, i.runDir);
    return checked({ workspace: i.workspaceGiven ? ws : (recordedWorkspace(runDir) ?? ws), runDir, found: hasRecords(runDir) }, zh);
  }
  // `flower -w /other "…"` keeps runs/ in the folder it was started from: ./runs whose lineage names /other
  const here = path.resolve(i.cwd, RUN_DIR);
  if (i.workspaceGiven && hasRecords(here) && recordedWorkspace(here) === ws) return { workspace: ws, runDir: here, found: true };
  // upward from the workspace: the project root is the folder that holds runs/
  for (let dir = ws; ; dir = path.dirname(dir)) {
    const runDir = path.join(dir, RUN_DIR);
    // a runs/ that cannot be searched may hold this project's records: say so rather than look past it
    if (hasRecords(runDir) || unreadable(runDir)) {
      return checked({ workspace: i.workspaceGiven && dir === ws ? ws : (recordedWorkspace(runDir) ?? dir), runDir, found: true }, zh);
    }
    if (path.dirname(dir) === dir) break;
  }
  return checked({ workspace: ws, runDir: i.workspaceGiven ? path.join(ws, RUN_DIR) : path.resolve(i.cwd, i.runDir), found: false }, zh);
}
