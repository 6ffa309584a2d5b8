/**
 * RunLayout — every path flower reads or writes, built ONCE from (cwd, workspace, run dir, workbench)
 * and passed down. No other module joins these file names: two places that spell `.flower/notes`
 * differently fail silently (with --isolate the workbench moves and `flower status` read the wrong
 * folder). Pure: nothing here touches the disk.
 */
import path from 'node:path';

/** Every file and folder name flower uses, in one place. */
export const NAMES = Object.freeze({
  /** the workbench folder under the workspace */
  workbenchDir: '.flower',
  /** the run dir, relative to the current directory (not the workspace) */
  runDir: 'runs',
  sessionsDb: 'sessions.db',
  manifest: 'manifest.json',
  lineage: 'lineage.json',
  runLock: 'run.lock',
  /** the durable inbox (answers, mail, stops from other processes) — in the run dir, out of the agents' reach */
  inbox: 'inbox',
  /** side questions (`? …`) run in their own run dir under the main one */
  aside: 'aside',
  scripts: 'scripts',
  artifacts: 'artifacts',
  notes: 'notes',
  spill: 'spill',
  index: 'INDEX.md',
  archive: 'archive',
  brief: '需求.md',
  goal: '目标.md',
  qa: '问答记录.md',
  handoffPrefix: '交接-',
  handoffArchive: '交接',
  /** project skills, versioned with the project: `<workspace>/.flower/skills/<name>/SKILL.md` */
  skills: 'skills',
  /** the hand-over for the next tool: a managed block in these two files of the workspace (src/docs/bequest.ts) */
  claudeMd: 'CLAUDE.md',
  agentsMd: 'AGENTS.md',
});

/** The workbench folders the index lists, in order. spill/ is not listed: its pointers say where. */
export const WORKBENCH_FOLDERS = [NAMES.scripts, NAMES.artifacts, NAMES.notes] as const;
export type WorkbenchFolder = (typeof WORKBENCH_FOLDERS)[number];

/** A step name as a file name: no `/\:*?"<>|` or control characters, trimmed, 'step' when nothing is left. */
export function safeStepName(step: string): string {
  // control characters too: they are legal on Linux but break every terminal that lists the folder
  const s = (step ?? '').replace(/[/\\:*?"<>|\u0000-\u001f]/g, '').trim();
  return s || 'step';
}

export interface WorkbenchPaths {
  root: string;
  scripts: string;
  artifacts: string;
  notes: string;
  spill: string;
  index: string;
}

/** The fixed inside of a workbench rooted at `root`. */
export function workbenchPaths(root: string): WorkbenchPaths {
  const r = path.resolve(root);
  return {
    root: r,
    scripts: path.join(r, NAMES.scripts),
    artifacts: path.join(r, NAMES.artifacts),
    notes: path.join(r, NAMES.notes),
    spill: path.join(r, NAMES.spill),
    index: path.join(r, NAMES.index),
  };
}

/** `--isolate`: the workbench moves out of the repository to `<parent>/.flower-<name>`, reachable from every worktree. */
export function isolatedWorkbenchRoot(workspace: string): string {
  const ws = path.resolve(workspace);
  return path.join(path.dirname(ws), `${NAMES.workbenchDir}-${path.basename(ws)}`);
}

export interface RunLayoutInput {
  /** what relative paths are resolved against (default process.cwd()) */
  cwd?: string;
  /** default '.' */
  workspace?: string;
  /** default 'runs' — relative to `cwd`, not the workspace */
  runDir?: string;
  /** an explicit workbench root (wins over `isolate`) */
  workbench?: string;
  /** the workbench moves to `<parent>/.flower-<name>` */
  isolate?: boolean;
  /** a workbench folder name under the workspace other than `.flower` */
  workbenchDirname?: string;
}

export class RunLayout implements WorkbenchPaths {
  readonly cwd: string;
  readonly workspace: string;
  // run dir (per current directory): the records
  readonly runDir: string;
  readonly sessionsDb: string;
  readonly manifest: string;
  readonly lineage: string;
  readonly runLock: string;
  readonly inbox: string;
  /** the run dir side questions use (`<runDir>/aside`) */
  readonly asideRunDir: string;
  // workbench (per workspace, or outside it with --isolate): the notes
  readonly root: string;
  readonly scripts: string;
  readonly artifacts: string;
  readonly notes: string;
  readonly spill: string;
  readonly index: string;
  readonly brief: string;
  readonly goal: string;
  readonly qa: string;
  /** `--new` archives and handoff generations go under here */
  readonly archive: string;
  readonly handoffArchive: string;
  /** where resume views spill trimmed tool results: always inside the workspace, so Read reaches it */
  readonly viewSpill: string;
  /** project skills: always in the workspace (they are versioned with it), even when the workbench moves */
  readonly projectSkills: string;
  /** the files the hand-over block for the next tool goes in: `<workspace>/CLAUDE.md`, `<workspace>/AGENTS.md` */
  readonly bequest: readonly string[];

  private constructor(readonly input: Readonly<RunLayoutInput>) {
    this.cwd = path.resolve(input.cwd ?? process.cwd());
    this.workspace = path.resolve(this.cwd, input.workspace ?? '.');
    this.runDir = path.resolve(this.cwd, input.runDir ?? NAMES.runDir);
    this.sessionsDb = path.join(this.runDir, NAMES.sessionsDb);
    this.manifest = path.join(this.runDir, NAMES.manifest);
    this.lineage = path.join(this.runDir, NAMES.lineage);
    this.runLock = path.join(this.runDir, NAMES.runLock);
    this.inbox = path.join(this.runDir, NAMES.inbox);
    this.asideRunDir = path.join(this.runDir, NAMES.aside);
    const dirname = input.workbenchDirname ?? NAMES.workbenchDir;
    const root =
      input.workbench !== undefined
        ? path.resolve(this.cwd, input.workbench)
        : input.isolate
          ? isolatedWorkbenchRoot(this.workspace)
          : path.join(this.workspace, dirname);
    const wb = workbenchPaths(root);
    this.root = wb.root;
    this.scripts = wb.scripts;
    this.artifacts = wb.artifacts;
    this.notes = wb.notes;
    this.spill = wb.spill;
    this.index = wb.index;
    this.brief = path.join(this.notes, NAMES.brief);
    this.goal = path.join(this.notes, NAMES.goal);
    this.qa = path.join(this.notes, NAMES.qa);
    this.archive = path.join(this.notes, NAMES.archive);
    this.handoffArchive = path.join(this.archive, NAMES.handoffArchive);
    this.viewSpill = path.join(this.workspace, NAMES.workbenchDir, NAMES.spill);
    this.projectSkills = path.join(this.workspace, NAMES.workbenchDir, NAMES.skills);
    this.bequest = Object.freeze([path.join(this.workspace, NAMES.claudeMd), path.join(this.workspace, NAMES.agentsMd)]);
  }

  static of(input: RunLayoutInput = {}): RunLayout {
    return new RunLayout({ ...input });
  }

  /** The same layout with the workbench at `root` (e.g. the one lineage recorded for an --isolate run). */
  withWorkbench(root: string): RunLayout {
    const { isolate: _i, ...rest } = this.input;
    return new RunLayout({ ...rest, cwd: this.cwd, workbench: path.resolve(this.cwd, root) });
  }

  /** The layout side questions run in: same workspace and workbench, run dir `<runDir>/aside`. */
  aside(): RunLayout {
    return new RunLayout({ ...this.input, cwd: this.cwd, runDir: this.asideRunDir, workbench: this.root });
  }

  /** Is the workbench outside the workspace (the Runtime must then add it as a directory)? */
  get externalWorkbench(): boolean {
    const rel = path.relative(this.workspace, this.root);
    return rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel);
  }

  /** `notes/交接-<safe step>.md` */
  handoff(step: string): string {
    return path.join(this.notes, `${NAMES.handoffPrefix}${safeStepName(step)}.md`);
  }

  /** Is this file name (in notes/) a handoff record? */
  static isHandoffName(name: string): boolean {
    return name.startsWith(NAMES.handoffPrefix) && name.endsWith('.md');
  }
}
