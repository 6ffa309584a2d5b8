/**
 * The fleet: tasks on PostgreSQL's queue engine (pg-boss), worked by many hosts, each task a flower
 * project continued from the store when its host dies. docs/fleet.md says how it is used and why.
 * Layer: above workflow (a worker runs the default flow as a child `flower`), below cli and ui.
 */
export { FleetQueue, QUEUE, QUEUE_SCHEMA, EXPIRE_CAP_S, LATEST_JOBS } from './queue.js';
export type { JobRow } from './queue.js';
export { fleetStatus, readFleet } from './status.js';
export type { TaskStatus, FleetRead } from './status.js';
export { hasFleetTasks, stateText, stateDetail, spendText, taskRow, fleetCount, STATE_ORDER } from './present.js';
export type { TaskRow } from './present.js';
export { addTasks, cancelTask, findTask, retryTask, taskDataOf, repoOf } from './ops.js';
export type { CancelResult, RetryResult } from './ops.js';
export { FleetWorker, EXIT_LEASE_LOST } from './worker.js';
export type { WorkerOptions } from './worker.js';
export { GitError } from './git.js';
export { fleetTiming, fleetRetry, takeoverBound, DEFAULT_TIMING, DEFAULT_RETRY } from './settings.js';
export type { FleetTiming, FleetRetry } from './settings.js';
export { parseTaskLines, taskState, failureText, branchOf, newTaskId, taskDataSchema, TASK_DATA_VERSION } from './tasks.js';
export type { TaskData, TaskInput, TaskState, TakeOutcome, JobState, StateInputs } from './tasks.js';
