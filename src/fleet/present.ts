/**
 * How a task reads to a person, the same in `flower fleet status` and in `flower ui`: its state with the
 * host and since when it runs, or why it stopped or failed; its spend; and the fleet's count by state.
 * Pure: rows of text from status records, no I/O. The texts are as given (a task's name, request and a
 * failure's reason are a user's or a tool's words): each renderer escapes them for its screen.
 */
import type { TaskStatus } from './status.js';
import type { TaskState } from './tasks.js';

/** One task as a line of the fleet's list. */
export interface TaskRow {
  id: string;
  name: string | null;
  state: TaskState;
  /** `running on host-a since 2025-01-02T03:04:05.000Z`, `achieved: 3/3`, `failed: cannot clone …`, `queued` */
  stateText: string;
  /** the same without the state: `on host-a since …`, `3/3`, `cannot clone …`, or null */
  detail: string | null;
  /** `$0.0123` */
  spend: string;
  wakes: number;
  branch: string;
  request: string;
}

/** The states in the order the fleet's count names them. */
export const STATE_ORDER: readonly TaskState[] = ['running', 'waiting', 'queued', 'achieved', 'stopped', 'failed'];

/** True when the store's fleet has at least one task (a store without the queue's tables reads as null). */
export function hasFleetTasks(tasks: readonly TaskStatus[] | null | undefined): tasks is readonly TaskStatus[] {
  return !!tasks && tasks.length > 0;
}

type StateFacts = Pick<TaskStatus, 'state' | 'reason' | 'host' | 'since'>;

const live = (s: StateFacts): boolean => s.state === 'running' || s.state === 'waiting';

/** What goes with the state: `on host-a since …` while it runs or waits, else the reason (`3/3`, `cancelled`, a failure's line), or null. */
export function stateDetail(s: StateFacts): string | null {
  if (!live(s)) return s.reason || null;
  const d = `${s.host ? `on ${s.host}` : ''}${s.host && s.since ? ' ' : ''}${s.since ? `since ${s.since}` : ''}`;
  return d || null;
}

/** The state as `flower fleet status` prints it: `running on host-a since …`, `achieved: 3/3`, `queued`. */
export function stateText(s: StateFacts): string {
  const d = stateDetail(s);
  return d ? `${s.state}${live(s) ? ' ' : ': '}${d}` : s.state;
}

export const spendText = (usd: number): string => `$${(Number.isFinite(usd) ? usd : 0).toFixed(4)}`;

export function taskRow(s: TaskStatus): TaskRow {
  return {
    id: s.id,
    name: s.name,
    state: s.state,
    stateText: stateText(s),
    detail: stateDetail(s),
    spend: spendText(s.cost_usd),
    wakes: s.wakes,
    branch: s.branch,
    request: s.request,
  };
}

/** `6 tasks: 1 running, 2 queued, 2 achieved, 1 failed` (states with no task left out). */
export function fleetCount(tasks: readonly Pick<TaskStatus, 'state'>[]): string {
  const n = new Map<TaskState, number>();
  for (const t of tasks) n.set(t.state, (n.get(t.state) ?? 0) + 1);
  const parts = STATE_ORDER.filter((s) => n.has(s)).map((s) => `${n.get(s)} ${s}`);
  return `${tasks.length} task${tasks.length === 1 ? '' : 's'}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}
