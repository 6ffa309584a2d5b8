/**
 * A fleet task: what `flower fleet add` puts in the queue (the engine's job data holds all of it), and
 * how its state is read back for `flower fleet status`. Pure: no I/O, table-tested.
 *
 * A task's id is its flower project name on every host (FLOWER_PROJECT) and names its branch
 * (`flower/<id>`); the queue's job ids are the engine's and may change (a stopped task retried is a new job).
 */
import crypto from 'node:crypto';
import { z } from 'zod';
import { ConfigError } from '../errors.js';

export const TASK_DATA_VERSION = 1;

export const taskDataSchema = z.object({
  version: z.literal(TASK_DATA_VERSION),
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{1,62}$/),
  request: z.string().min(1),
  repo: z.string().min(1),
  base: z.string().optional(),
  name: z.string().optional(),
  budget_usd: z.number().positive().optional(),
  /** an absolute ISO time: a duration given to `add` counts from then */
  deadline: z.string().optional(),
  added_at: z.string(),
});
export type TaskData = z.infer<typeof taskDataSchema>;

/** A new task id: short, lower case, safe in a branch name and a project name. */
export function newTaskId(): string {
  return `t-${crypto.randomBytes(5).toString('hex')}`;
}

export const branchOf = (id: string): string => `flower/${id}`;

export interface TaskInput {
  request: string;
  repo?: string | undefined;
  base?: string | undefined;
  name?: string | undefined;
  budget?: number | undefined;
  deadline?: string | undefined;
}

/**
 * The tasks of a file given to `flower fleet add --file`: one per line, either a JSON object
 * (`{"request": …, "repo": …, "name": …, "base": …, "budget": …, "deadline": …}`) or the request as
 * plain text (then the command line's --repo and the rest apply). Blank lines and `#` comments are skipped.
 */
export function parseTaskLines(text: string, defaults: Omit<TaskInput, 'request'>, file = 'the task file'): TaskInput[] {
  const out: TaskInput[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    if (!line.startsWith('{')) {
      out.push({ ...defaults, request: line });
      continue;
    }
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (e) {
      throw new ConfigError('bad-task-line', `${file} line ${i + 1} is not JSON: ${(e as Error).message}`);
    }
    const r = lineSchema.safeParse(v);
    if (!r.success) {
      const why = r.error.issues.map((x) => `${x.path.join('.') || 'line'}: ${x.message}`).join('; ');
      throw new ConfigError('bad-task-line', `${file} line ${i + 1}: ${why}`);
    }
    out.push({ ...defaults, ...r.data });
  }
  return out;
}

const lineSchema = z.strictObject({
  request: z.string().min(1),
  repo: z.string().min(1).optional(),
  base: z.string().min(1).optional(),
  name: z.string().min(1).optional(),
  budget: z.number().positive().optional(),
  deadline: z.string().min(1).optional(),
});

/** The states `flower fleet status` shows (the fixed list the acceptance scripts read). */
export type TaskState = 'queued' | 'running' | 'waiting' | 'achieved' | 'stopped' | 'failed';

/** What a take of a task ended with, kept as the engine's job output. */
export interface TakeOutcome {
  outcome: 'achieved' | 'stopped' | 'failed' | 'handed-back';
  /** budget, deadline, not-achieved, cancelled, … for a stop; the failure's one line for a failure */
  reason?: string;
  passed?: number;
  total?: number;
}

/** The engine's states (pg-boss job_state). */
export type JobState = 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';

export interface StateInputs {
  job: JobState;
  /** the job's output: a TakeOutcome written by a worker, or the engine's `{ value: { message } }` / an error */
  output: unknown;
  /** the project's run lock is held (a flower runs the task now) */
  locked: boolean;
  /** the project's run is waiting on a person (questions in flower.waiting, believed under the lock) */
  waiting: boolean;
}

/** The task's state and the reason shown next to it. */
export function taskState(s: StateInputs): { state: TaskState; reason: string | null } {
  const out = outcomeOf(s.output);
  switch (s.job) {
    case 'created':
    case 'retry':
      return { state: 'queued', reason: s.job === 'retry' ? (out?.reason ?? failureText(s.output)) : null };
    case 'active':
      return { state: s.waiting ? 'waiting' : 'running', reason: null };
    case 'cancelled':
      return { state: 'stopped', reason: 'cancelled' };
    case 'failed':
      return { state: 'failed', reason: out?.reason ?? failureText(s.output) ?? 'failed' };
    case 'completed':
      if (out?.outcome === 'achieved') return { state: 'achieved', reason: out.total ? `${out.passed ?? 0}/${out.total}` : null };
      if (out?.outcome === 'failed') return { state: 'failed', reason: out.reason ?? 'failed' };
      return { state: 'stopped', reason: out?.reason ?? null };
  }
}

function outcomeOf(v: unknown): TakeOutcome | null {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Partial<TakeOutcome>;
  return typeof o.outcome === 'string' ? (o as TakeOutcome) : null;
}

/** The one line of an engine failure output (an error serialised by the engine, or its timeout note). */
export function failureText(v: unknown): string | null {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as { message?: unknown; value?: { message?: unknown } };
  const m = typeof o.message === 'string' ? o.message : typeof o.value?.message === 'string' ? o.value.message : null;
  if (!m) return null;
  if (/failed by timeout in active state/.test(m)) return 'the worker running it stopped answering (lease expired)';
  return m.split('\n')[0]!.slice(0, 300);
}
