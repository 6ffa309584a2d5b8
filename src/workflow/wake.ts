/**
 * wakeState — a read-only look at a folder: has it been here before, and what does it remember?
 * `waking` means the brief is complete (all four sections): a new sentence is then a remark on the
 * same task, not a new task. Writes nothing (a damaged lineage is only kept aside).
 */
import path from 'node:path';
import { Brief, Goal } from '../docs/index.js';
import { Lineage } from './lineage.js';

export interface WakeState {
  waking: boolean;
  brief: Brief | null;
  goal: Goal | null;
  /** number of checklist items in 目标.md */
  checks: number;
  /** how many times this folder has been woken so far (0 = never) */
  woke: number;
  /** step name → session id, as lineage remembers it */
  steps: Record<string, string>;
}

export interface WakeOptions {
  /** relative to the current directory, not the workspace (default 'runs') */
  runDir?: string;
  /** where the notes live (default `<workspace>/.flower/notes`) */
  notesDir?: string;
}

export function notesDirOf(workspace: string): string {
  return path.join(path.resolve(workspace), '.flower', 'notes');
}

export function wakeState(workspace = '.', o: WakeOptions = {}): WakeState {
  const notes = o.notesDir ?? notesDirOf(workspace);
  const brief = Brief.load(path.join(notes, '需求.md'));
  const goal = Goal.load(path.join(notes, '目标.md'));
  const lin = Lineage.peek(o.runDir ?? 'runs', workspace);
  return {
    waking: brief?.complete() ?? false,
    brief,
    goal,
    checks: goal?.checks.length ?? 0,
    woke: lin.woke,
    steps: lin.steps,
  };
}
