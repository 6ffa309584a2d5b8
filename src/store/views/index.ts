// Resume-time views over stored transcripts: pure functions of SessionStoreEntry[] (no I/O; the trim
// spill writer is injected). Inputs are never mutated; changed entries are new objects, unchanged
// entries are shared with the input.
export { views } from './views.js';
export type { ViewOptions } from './views.js';
export { expire, staleNote, STALE_PREFIX } from './expire.js';
export type { ExpireOptions, ViewResult } from './expire.js';
export { trim, spillFileName, archivedNote, ARCHIVED_PREFIX } from './trim.js';
export type { TrimOptions } from './trim.js';
export { prune, isApiErrorEntry, INTERRUPT_NOTE } from './prune.js';
export type { PruneOptions } from './prune.js';
export { healOrphans, healUuid, ORPHAN_NOTE } from './heal.js';
export { relink, bridgeDangling } from './relink.js';
export type { RelinkOptions } from './relink.js';
export { trimReport, emptyReport } from './report.js';
export type { ViewReport } from './report.js';
export { isDenialEntry, isInterruptedResult } from './entry.js';
export type { Entry, Block } from './entry.js';
