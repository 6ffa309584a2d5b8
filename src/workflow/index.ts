export { Step, StepAbort } from './step.js';
export type { StepOptions, PromptSource, Awaitable } from './step.js';
export { Workflow } from './workflow.js';
export type { WorkflowOptions, WorkflowRunOptions } from './workflow.js';
export type { WorkflowContext, WorkflowRuntime } from './context.js';
export { Lineage } from './lineage.js';
export type { LineageData, LineageOpenOptions } from './lineage.js';
export { wakeState, notesDirOf } from './wake.js';
export type { WakeState, WakeOptions } from './wake.js';
