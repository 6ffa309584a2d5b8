/**
 * Which project `flower status` / `flower log` read, found the way git finds a repository: from the
 * workspace (`-w`, default the current folder) upward, the first folder with a `runs/` holding
 * lineage.json or manifest.json. `-r` names the run dir outright. A `-w` that does not exist is an
 * error (it used to report the current folder's runs and exit 0).
 */
import fs from 'node:fs';
import path from 'node:path';
import { NAMES } from '../state/index.js';
import { CliExit, EXIT } from './io.js';

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
}

export function locate(i: LocateInput): Located {
  const ws = path.resolve(i.cwd, i.workspace);
  if (i.workspaceGiven && !isDir(ws)) throw new CliExit(EXIT.failure, `x ${i.noSuchFolder(ws)}`);
  if (i.runDirGiven) {
    const runDir = path.resolve(i.cwd, i.runDir);
    return { workspace: i.workspaceGiven ? ws : (recordedWorkspace(runDir) ?? ws), runDir, found: hasRecords(runDir) };
  }
  // `flower -w /other "…"` keeps runs/ in the folder it was started from: ./runs whose lineage names /other
  const here = path.resolve(i.cwd, RUN_DIR);
  if (i.workspaceGiven && hasRecords(here) && recordedWorkspace(here) === ws) return { workspace: ws, runDir: here, found: true };
  // upward from the workspace: the project root is the folder that holds runs/
  for (let dir = ws; ; dir = path.dirname(dir)) {
    const runDir = path.join(dir, RUN_DIR);
    if (hasRecords(runDir)) {
      return { workspace: i.workspaceGiven && dir === ws ? ws : (recordedWorkspace(runDir) ?? dir), runDir, found: true };
    }
    if (path.dirname(dir) === dir) break;
  }
  return { workspace: ws, runDir: i.workspaceGiven ? path.join(ws, RUN_DIR) : path.resolve(i.cwd, i.runDir), found: false };
}
