/**
 * flower — a long-horizon agent framework on the Claude Agent SDK.
 * The public API mirrors the seed: AgentSpec, Runtime, Step, Workflow, wakeState, Lineage, Resilience …
 * The scripted model is a separate entry: `flower-agent/sim`; the command line, callable in-process as
 * main(argv, { stdout, stderr, env }), is `flower-agent/cli` (src/cli/index.ts), which bin/flower.js runs.
 */
export { FlowerError, ConfigError, StateCorrupt, StoreError, InternalError } from './errors.js';

// state: every path (RunLayout), the saved formats, what a run dir remembers (RunRecords), the run lock
export { RunLayout, FileRunRecords, FileInbox, acquireRunLock, runLockHolder, LINEAGE_VERSION, INBOX_VERSION } from './state/index.js';
export type {
  RunLayoutInput,
  RunRecords,
  RunInbox,
  InboxItem,
  InboxItemBody,
  InboxOutcome,
  WaitingQuestion,
  WaitingSet,
  LineageRecord,
  StateNotice,
  LockHolder,
  RunLockHeld,
  RunLockResult,
  AcquireOptions,
  FailureKind,
} from './state/index.js';

// runtime: one agent step on the SDK, its attempt loop, events, manifest, resilience, handoff
export {
  AgentSpec,
  Runtime,
  RunLimits,
  parseBudget,
  parseDeadline,
  Manifest,
  normalize,
  contextOf,
  PERMISSION_MODES,
  Resilience,
  DEFAULT_RESILIENCE,
  NO_RETRY,
  RESUME_PROMPT,
  backoff,
  classify,
  shouldRetry,
  isOverflow,
  endpoint,
  reachable,
  resilienceFromEnv,
  FAILURE_KINDS,
  defaultWindow,
  handoffPolicy,
  thresholds,
  rememberOverflow,
  HANDOFF_PROMPT,
} from './runtime/index.js';
export type {
  AgentSpecOptions,
  CompactPolicy,
  Hooks,
  McpServerSource,
  RuntimeOptions,
  RunOptions,
  FlowerStore,
  StepResult,
  ManifestRow,
  StepFailure,
  FlowerEvent,
  EventKind,
  EventSink,
  ResilienceOptions,
  ErrorClass,
  Endpoint,
  HandoffPolicy,
  Thresholds,
} from './runtime/index.js';

// workflow: steps, lineage, wake state, the starter flow
export {
  Step,
  StepAbort,
  Workflow,
  Lineage,
  wakeState,
  starterFlow,
  clarifyStep,
  goalStep,
  withGoal,
  BRIEF_KEY,
  MISSING_KEY,
  GOAL_KEY,
  VERDICT_KEY,
  ROUND_KEY,
} from './workflow/index.js';
export type {
  StepOptions,
  PromptSource,
  WorkflowOptions,
  WorkflowRunOptions,
  WorkflowContext,
  WorkflowRuntime,
  LineageData,
  WakeState,
  WakeOptions,
  StarterOptions,
  StarterFlow,
  FlowChannel,
  ClarifyStepOptions,
  GoalStepOptions,
  StarterStepOptions,
  WithGoalOptions,
} from './workflow/index.js';

// store: SQLite sessions and the resume views
export {
  SqliteSessionStore,
  SqliteStoreError,
  StoreOpenError,
  StoreKeyError,
  ViewedStore,
  projectKeyFor,
  views,
  expire,
  trim,
  prune,
  relink,
  trimReport,
} from './store/index.js';
export type { ViewPolicy, ViewOptions, ViewReport } from './store/index.js';
export { PostgresSessionStore, PostgresRunRecords, PgStoreError } from './store/postgres/index.js';
export type { PgFailure, PgStoreOptions } from './store/postgres/index.js';
export type { TrimOptions as TrimPolicy, PruneOptions as PrunePolicy, ExpireOptions as EphemeralPolicy } from './store/views/index.js';

// roles and guards
export { coordinator, worker, clarifier, judge, oracle, COORDINATOR_RULES, WORKER_RULES, CLARIFIER_RULES, JUDGE_RULES, ORACLE_RULES } from './roles/index.js';
export { ROLE_PERMISSION_MODES } from './roles/index.js';
export type {
  RoleChannel,
  CoordinatorOptions,
  WorkerOptions,
  ClarifierOptions,
  JudgeOptions,
  OracleOptions,
  SessionRoleOptions,
  WorkerRoleOptions,
  RolePermissionMode,
} from './roles/index.js';
export {
  isEphemeral,
  guardHooks,
  whitelistGuard,
  delegateGuard,
  spillGuard,
  indexGuard,
  isolateGuard,
  isolated,
  requireGitRepo,
  Workbench,
} from './guards/index.js';

// documents and the human channel
export { Brief, Goal, Verdict, Handoff } from './docs/index.js';
export { HumanChannel, InboxWatcher } from './human/index.js';
export type { Ask, AskResult, Mail, HumanChannelOptions, InboxWatcherOptions } from './human/index.js';

// configuration
export { resolveEnv, parseDotenv, detectLang } from './config/index.js';
export type { Lang } from './config/index.js';
