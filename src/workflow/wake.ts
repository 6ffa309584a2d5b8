/**
 * wakeState — a read-only look at a folder: has it been here before, and what does it remember?
 * `waking` means the brief is complete (all four sections): a new sentence is then a remark on the
 * same task, not a new task. Writes nothing (a damaged lineage is only kept aside, unless `keep: false`).
 *
 * Where the notes are: the layout's; when none is given, the workbench lineage recorded (an --isolate
 * run moves it to `<parent>/.flower-<name>`), else `<workspace>/.flower/notes`.
 */
import { Brief } from '../docs/brief.js';
import { Goal } from '../docs/goal.js';
import { RunLayout, type RunRecords } from '../state/index.js';
import { Lineage } from './lineage.js';

export interface WakeState {
  waking: boolean;
  brief: Brief | null;
  goal: Goal | null;
  /** number of checklist items in the goal */
  checks: number;
  /** how many times this folder has been woken so far (0 = never) */
  woke: number;
  /** step name → session id, as lineage remembers it */
  steps: Record<string, string>;
  /** the layout the notes were read from (its workbench is the one lineage recorded, when it recorded one) */
  layout: RunLayout;
  /**
   * The brief is not complete, but lineage names a clarify or goal session or holds the request: a run
   * was cut short (a kill in its first seconds) and a bare `flower` continues it instead of answering
   * "nothing to do".
   */
  unfinished: boolean;
  /** the request recorded before the first spawn of this task (null when none was) */
  request: string | null;
}

export interface WakeOptions {
  /** relative to the current directory, not the workspace (default 'runs'); ignored when `layout` is given */
  runDir?: string;
  /** every path (wins over workspace / runDir) */
  layout?: RunLayout;
  /** lineage's records (default: the files in the run dir) */
  records?: RunRecords;
  /** false: leave a damaged lineage where it is (`flower status` writes nothing) */
  keep?: boolean;
  /** true: a damaged or unreadable lineage throws its `StateCorrupt` (read-only commands report it) */
  strict?: boolean;
  /** use the layout's workbench even when lineage recorded another (default: follow lineage only without a layout) */
  followLineage?: boolean;
}

/** The steps before the brief and goal are frozen; a session of theirs in lineage means a cut-short run. */
const UNFINISHED_STEPS = ['确认需求', '设定目标'];

/** The notes folder of a workspace's default layout. */
export function notesDirOf(workspace: string): string {
  return RunLayout.of({ workspace }).notes;
}

export async function wakeState(workspace = '.', o: WakeOptions = {}): Promise<WakeState> {
  let layout = o.layout ?? RunLayout.of({ workspace, ...(o.runDir !== undefined ? { runDir: o.runDir } : {}) });
  const lin = await Lineage.peek(o.records ?? layout.runDir, layout.workspace, { keep: o.keep ?? true, ...(o.strict ? { strict: true } : {}) });
  if ((o.followLineage ?? !o.layout) && lin.workbench && lin.workbench !== layout.root) layout = layout.withWorkbench(lin.workbench);
  const brief = Brief.load(layout.brief);
  const goal = Goal.load(layout.goal);
  const waking = brief?.complete() ?? false;
  return {
    waking,
    unfinished: !waking && (UNFINISHED_STEPS.some((s) => lin.steps[s] !== undefined) || !!lin.request?.text.trim()),
    request: lin.request?.text ?? null,
    brief,
    goal,
    checks: goal?.checks.length ?? 0,
    woke: lin.woke,
    steps: lin.steps,
    layout,
  };
}
