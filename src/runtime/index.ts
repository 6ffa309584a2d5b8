export { AgentSpec, PERMISSION_MODES } from './spec.js';
export { removeConfigDir } from './options.js';
export type { AgentSpecOptions, CompactPolicy, Hooks, McpServerSource } from './spec.js';
export { Runtime } from './runtime.js';
export { INTERRUPT_NOTE, fatalMessage, retryable, waitOnline } from './recover.js';
export {
  FAILURE_KINDS,
  failure,
  isFailureKind,
  isModelNotFound,
  fromApiError,
  fromText,
  fromInterrupt,
  fromResultSubtype,
  fromThrown,
  fatalLine,
} from './failure.js';
export type { FailureKind, StepFailure, ApiErrorSignal } from './failure.js';
export type { RuntimeOptions, RunOptions, FlowerStore } from './runtime.js';
export { Manifest, newRunId, durationS, toRow } from './manifest.js';
export type { StepResult, ManifestRow } from './manifest.js';
export { normalize, contextOf, event } from './events.js';
export type { FlowerEvent, EventKind, EventSink } from './events.js';
export {
  thresholds,
  defaultWindow,
  resolveWindow,
  handoffPolicy,
  guessWindow,
  configuredModel,
  positiveInt,
  formatTokens,
  modelMismatch,
  normalModel,
  wantedModel,
  calibrationFile,
  calibrationKey,
  readCalibration,
  calibratedWindow,
  rememberOverflow,
  statedLimit,
  LARGE_WINDOW,
  SMALL_WINDOW,
  HEADROOM_FLOOR,
  HEADROOM_FRACTION,
  MIN_AT,
  WARN_GAP,
  MIN_WARN,
  MAX_GENERATIONS,
  MAX_DEGRADED_STREAK,
  STARTUP_FLOOR,
} from './window.js';
export type { HandoffPolicy, Thresholds, WindowSource } from './window.js';
export {
  HANDOFF_PROMPT,
  HANDOFF_SERVER,
  HANDOFF_TOOL,
  HANDOFF_TOOL_NAME,
  handoffPrompt,
  handoffServer,
  handoffFrom,
  safeStepName,
  handoffFile,
  writeHandoffRecord,
  generationsMessage,
  degradedStreakMessage,
  sectionsOf,
  Generations,
} from './handoff.js';
export type { StopContext, Emit, GenerationHost, GenerationStep, HandoffRoute } from './handoff.js';
export {
  DEFAULT_RESILIENCE,
  NO_RETRY,
  RESUME_PROMPT,
  backoff,
  classify,
  shouldRetry,
  isOverflow,
  overflowLimit,
  endpoint,
  reachable,
  resilienceFromEnv,
} from './resilience.js';
export { Resilience } from './resilience.js';
export type { ResilienceOptions, ErrorClass, Endpoint } from './resilience.js';
export { RunLimits, parseBudget, parseDeadline, budgetLine, deadlineLine } from './limits.js';
export type { LimitSettings, LimitKind } from './limits.js';
