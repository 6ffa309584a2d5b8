/**
 * flower — a long-horizon agent framework on the Claude Agent SDK.
 * The public API mirrors the seed: AgentSpec, Runtime, Step, Workflow, wakeState, Lineage, Resilience …
 */
export { FlowerError, ConfigError, ModelError, GuardDenied, StateCorrupt, InternalError } from './errors.js';
export { AgentSpec, Runtime, Manifest, normalize, contextOf, PERMISSION_MODES } from './runtime/index.js';
export type {
  AgentSpecOptions, CompactPolicy, Hooks, RuntimeOptions, RunOptions, FlowerStore,
  StepResult, ManifestRow, FlowerEvent, EventKind, EventSink,
} from './runtime/index.js';
export { SqliteSessionStore, projectKeyFor } from './store/index.js';
export { resolveEnv, parseDotenv, detectLang } from './config/index.js';
export type { Lang } from './config/index.js';
export { Step, StepAbort, Workflow, Lineage, wakeState } from './workflow/index.js';
export type { StepOptions, PromptSource, WorkflowOptions, WorkflowRunOptions, WorkflowContext, LineageData, WakeState, WakeOptions } from './workflow/index.js';
