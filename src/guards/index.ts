export { isEphemeral, judgeEphemeral, EPHEMERAL_VERBS } from './ephemeral.js';
export type { EphemeralVerdict } from './ephemeral.js';
// roles' walls, spill, index, isolation, the workbench and the dispatcher (issue: roles and guards)
export { HANDS_ON_TOOLS, WHITELISTED_TOOLS, isMainThread, toolCall, deny } from './common.js';
export type { ToolHookInput } from './common.js';
export { GUARD_TEXT } from './messages.js';
export { whitelistGuard, whitelistDecision, delegateGuard, delegateDecision } from './wall.js';
export type { WallDecision, WhitelistOptions, DelegateOptions } from './wall.js';
export { spillGuard, spillDecision, spillFile, replaceLongStrings, readsSpill, preview, pointer, SPILL_TOOLS, SPILL_THRESHOLD, SPILL_HEAD } from './spill.js';
export type { SpillOptions, SpillTarget } from './spill.js';
export { indexGuard, touchesWorkbench, writtenPath, INDEX_TOOLS } from './index-guard.js';
export type { IndexTarget } from './index-guard.js';
export { isolateGuard, isolateDecision, isolated, wantsIsolation, requireGitRepo, ISOLATED } from './isolate.js';
export type { IsolateOptions } from './isolate.js';
export { Workbench, WORKBENCH_FOLDERS, WORKBENCH_RULES, ARTIFACT_CHARS, DESC_LINES, describe, writeAtomic } from './workbench.js';
export type { WorkbenchOptions, WorkbenchFolder, IndexEntry } from './workbench.js';
export { guardHooks, guardPlan } from './hooks.js';
export type { GuardedSpec, GuardHooksOptions } from './hooks.js';
