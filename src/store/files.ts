/** Moved to src/state/files.ts (the state layer owns every durable-file primitive); re-exported so old imports keep working. */
export * from '../state/files.js';
