export { isEphemeral, judgeEphemeral, EPHEMERAL_VERBS, GLANCE_MAX_CHARS } from '../glance/ephemeral.js';
export type { EphemeralVerdict } from '../glance/ephemeral.js';
// roles' walls, spill, index, isolation, the workbench and the dispatcher (issue: roles and guards)
export { HANDS_ON_TOOLS, WHITELISTED_TOOLS, isMainThread, toolCall, deny } from './common.js';
export type { ToolHookInput } from './common.js';
export { GUARD_TEXT } from './messages.js';
export { whitelistGuard, whitelistDecision, delegateGuard, delegateDecision } from './wall.js';
export type { WallDecision, WhitelistOptions, DelegateOptions } from './wall.js';
export {
  spillGuard,
  spillDecision,
  spillFile,
  replaceLongStrings,
  hasLongString,
  readsSpill,
  preview,
  pointer,
  SPILL_TOOLS,
  SPILL_THRESHOLD,
  SPILL_HEAD,
} from './spill.js';
export type { SpillOptions, SpillTarget } from './spill.js';
export { indexGuard, touchesWorkbench, writtenPath, INDEX_TOOLS } from './index-guard.js';
export type { IndexTarget } from './index-guard.js';
export { isolateGuard, isolateDecision, isolated, wantsIsolation, requireGitRepo, ISOLATED } from './isolate.js';
export type { IsolateOptions } from './isolate.js';
export { agentsForNet, sessionToolsForNet, wantsWeb, withWeb, WEB, WEB_TOOLS } from './web.js';
export { Workbench, WORKBENCH_FOLDERS, WORKBENCH_RULES, ARTIFACT_CHARS, DESC_LINES, describe, writeAtomic } from './workbench.js';
export type { WorkbenchOptions, WorkbenchFolder, IndexEntry } from './workbench.js';
export { guardHooks, guardPlan } from './hooks.js';
export type { GuardedSpec, GuardHooksOptions, Hooks } from './hooks.js';
export { toolCallGuard } from './calls.js';
export {
  allowlistGuard,
  allowlistHook,
  allowlistDecision,
  allowlistMatcher,
  unwatchedTools,
  toolPolicy,
  toolSet,
  hasTool,
  sessionTools,
  readRefusal,
  mcpPaths,
  listedFor,
  ALWAYS_ALLOWED,
  DEFAULT_WORKER_TOOLS,
  WRITE_TOOLS,
  READ_TOOLS,
  GLANCE_TIMEOUT_MS,
} from './allowlist.js';
export type { ToolPolicy, ToolSet, PolicySpec, PolicyOptions, Decision } from './allowlist.js';
export { sandboxSettings, sandboxMissing, glanceWrap, parseNet, secretFilePaths } from './sandbox.js';
export type { NetPolicy, Floor, SandboxInput } from './sandbox.js';
export { PathWall, resolveReal, inside, protectedName, NODE_FS } from './paths.js';
export type { PathWallInput, PathRefusal, Place, FsView } from './paths.js';
export { failClosed, failClosedHook, DECISION_TIMEOUT_S, DECISION_BUDGET_MS } from './failclosed.js';
export type { FailClosedOptions } from './failclosed.js';
export { confineHooks, confineAnswer } from './confine.js';
export { outputGuard, outputDecision, redactDeep, OUTPUT_TOOLS, OUTPUT_MATCHER } from './redact.js';
export type { OutputGuardOptions } from './redact.js';
export { isSecretName, isSecretValue, secretsIn, scrubScript, redact, startupFileHoldsSecret, urlPassword, MIN_SECRET_CHARS } from './secrets.js';
export type { SecretsFound } from './secrets.js';
export { HOME_CREDENTIALS, SYSTEM_CREDENTIALS, SHELL_STARTUP_FILES, isCredentialName, isEnvFileName, homeCredentialPaths } from '../glance/credentials.js';
export { pathRefusalText } from './messages.js';
export { repeatGuard, repeatHook, Streaks, canonical, REPEAT_DENY, REPEAT_CUT } from './repeat.js';
