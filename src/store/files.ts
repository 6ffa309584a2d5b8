/** Moved to src/state/files.ts (the state layer owns every durable-file primitive); kept importable. */
export * from '../state/files.js';
