import type { EventSink, RunLimits, Runtime, StepFailure, StepResult } from '../runtime/index.js';

/** What a Workflow needs of a Runtime (a narrow surface, so control flow can be tested with a stand-in). */
export type WorkflowRuntime = Pick<Runtime, 'run' | 'runDir' | 'workspace' | 'onSession'> & {
  hasSession(sessionId: string): boolean | Promise<boolean>;
  /** lineage's records (default: the files in `runDir`) */
  records?: RunRecords;
  /** every path; lineage records its workbench so `flower status` finds the notes of an --isolate run */
  layout?: RunLayout;
  /** this wake's budget and deadline (none: unlimited) */
  limits?: RunLimits;
} & Partial<Pick<Runtime, 'amend'>>;
import type { RunLayout, RunRecords } from '../state/index.js';
import type { Lineage } from './lineage.js';

/**
 * The dict a Workflow threads through its steps. Passed steps leave their output under their own
 * name; keys starting with `_` are the framework's. Success means `_failedAt` is absent.
 */
export interface WorkflowContext {
  [key: string]: unknown;
  _runtime?: WorkflowRuntime;
  _onEvent?: EventSink;
  _lineage?: Lineage;
  /** wake number: 1 on the first run in this folder, +1 each run (continuous workflows only) */
  _woke?: number;
  /** step name → session id */
  _sessions: Record<string, string>;
  _results: Record<string, StepResult>;
  _failedAt?: string;
  /** the StepAbort message, when a gate aborted */
  _aborted?: string;
  /** the step after which the run stopped because the person asked (`flower stop --after-step`) */
  _stoppedAfter?: string;
  /** why the gate of the current attempt rejected its result (set by the gate; cleared per attempt) */
  _rejected?: string;
  /** the run's budget or deadline stopped this wake (limits.ts); the next wake resumes */
  _limit?: StepFailure;
}

/**
 * The run's limit that stopped a failed step, if one did: decided by the limits themselves (a step's
 * own maxTurns or maxBudgetUsd is a `budget` failure too, but leaves the run's limits open).
 */
export function limitOf(rt: WorkflowRuntime, r: StepResult): StepFailure | null {
  return r.ok ? null : (rt.limits?.blocked() ?? null);
}
