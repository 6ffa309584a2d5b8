/**
 * The fleet's commands on the queue: add tasks, find one by its id (or a unique start of it), cancel
 * and retry. Each is the engine's own operation on the task's latest job; the one thing flower adds is
 * that a task which ended (achieved, stopped) and is retried gets a new job with the same task data,
 * so it wakes the same project and continues on the same branch.
 */
import path from 'node:path';
import { ConfigError } from '../errors.js';
import { parseDeadline } from '../runtime/limits.js';
import type { FleetQueue, JobRow } from './queue.js';
import type { FleetRetry } from './settings.js';
import { newTaskId, TASK_DATA_VERSION, type TaskData, type TaskInput } from './tasks.js';

/** A local repository path is made absolute (a worker elsewhere clones the same path on its host); a URL is kept as it is. */
export function repoOf(repo: string, cwd: string): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(repo) || /^[^/\s]+@[^:\s]+:/.test(repo)) return repo;
  return path.resolve(cwd, repo);
}

export function taskDataOf(t: TaskInput, cwd: string, now = Date.now()): TaskData {
  if (!t.repo) throw new ConfigError('no-repo', `the task "${t.request.slice(0, 60)}" names no repository: give --repo URL|PATH`);
  const d: TaskData = { version: TASK_DATA_VERSION, id: newTaskId(), request: t.request, repo: repoOf(t.repo, cwd), added_at: new Date(now).toISOString() };
  if (t.base) d.base = t.base;
  if (t.name) d.name = t.name;
  if (t.budget !== undefined) d.budget_usd = t.budget;
  // a duration counts from now, so every host reads the same moment
  if (t.deadline) d.deadline = new Date(parseDeadline(t.deadline, now, '--deadline')).toISOString();
  return d;
}

export async function addTasks(queue: FleetQueue, tasks: TaskData[], retry: FleetRetry): Promise<string[]> {
  const ids: string[] = [];
  for (const t of tasks) {
    await queue.send(t, retry);
    ids.push(t.id);
  }
  return ids;
}

/** The latest job of the task `id` names (the whole id, or a start of it that only one task has). */
export async function findTask(queue: FleetQueue, id: string): Promise<JobRow> {
  const rows = await queue.latest(id);
  const exact = rows.find((r) => r.data.id === id);
  if (exact) return exact;
  if (rows.length === 1) return rows[0]!;
  if (rows.length === 0) throw new ConfigError('no-task', `no task ${id} in the fleet (flower fleet status lists them)`);
  throw new ConfigError('ambiguous-task', `${id} names ${rows.length} tasks (${rows.map((r) => r.data.id).join(', ')}); give more of the id`);
}

export type CancelResult = 'cancelled' | 'already-ended';

export async function cancelTask(queue: FleetQueue, id: string): Promise<{ id: string; result: CancelResult }> {
  const j = await findTask(queue, id);
  if (j.state === 'completed' || j.state === 'cancelled' || j.state === 'failed') return { id: j.data.id, result: 'already-ended' };
  // a running take sees the cancel at its next heartbeat and stops its step at once (resumable)
  await queue.cancel(j.job_id);
  return { id: j.data.id, result: 'cancelled' };
}

export type RetryResult = 'requeued' | 'not-ended';

export async function retryTask(queue: FleetQueue, id: string, retry: FleetRetry): Promise<{ id: string; result: RetryResult }> {
  const j = await findTask(queue, id);
  if (j.state === 'failed') await queue.retry(j.job_id);
  else if (j.state === 'cancelled') await queue.resume(j.job_id);
  else if (j.state === 'completed') await queue.send(j.data, retry);
  else return { id: j.data.id, result: 'not-ended' };
  return { id: j.data.id, result: 'requeued' };
}
