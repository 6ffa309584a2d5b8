export {
  FlowerError,
  ConfigError,
  StateCorrupt,
  InternalError,
  errorText,
} from './errors.js';
export type { ErrorContext } from './errors.js';
export {
  writeFileAtomic,
  writeJsonAtomic,
  readJsonOrKeepAside,
  keepAside,
  keepCopy,
  parseJsonStrict,
  withFileLock,
  pidAlive,
  stamp,
} from './files.js';
export type { AsideReason, JsonRead } from './files.js';
export {
  RunLayout,
  NAMES,
  WORKBENCH_FOLDERS,
  safeStepName,
  workbenchPaths,
  isolatedWorkbenchRoot,
} from './layout.js';
export type { RunLayoutInput, WorkbenchPaths, WorkbenchFolder } from './layout.js';
export {
  LINEAGE_VERSION,
  LINEAGE_SCHEMAS,
  FAILURE_KINDS,
  manifestRowSchema,
  manifestSchema,
  checkManifestRow,
} from './schemas.js';
export type { LineageRecord, StepResult, ManifestRow, FailureKind, StepFailureRecord, VerdictRecord } from './schemas.js';
export { readVersioned, versionOf, futureVersion } from './read.js';
export type { VersionedRead } from './read.js';
export { FileRunRecords, archiveFolder } from './records.js';
export type { RunRecords, ReadOptions, StateNotice, NoticeSink, FileRecordPaths } from './records.js';
export { acquireRunLock, runLockHolder, processStartTime, currentHolder, holderAlive } from './runlock.js';
export type { LockHolder, RunLockHeld, RunLockResult, AcquireOptions } from './runlock.js';
export { FileInbox, newItemId, INBOX_POLL_MS } from './inbox.js';
export { INBOX_VERSION, ITEM_SCHEMAS, WAITING_SCHEMAS, OUTCOME_SCHEMAS, parseItem, parseOutcome, parseWaiting } from './inbox-format.js';
export type { RunInbox, InboxItem, InboxItemBody, InboxKind, InboxNotice, InboxOutcome, ItemState, WaitingQuestion, WaitingSet } from './inbox-format.js';
export { SEED_STEPS, JUDGE_MARK, judgeStepName, stepLabel } from './steps.js';
