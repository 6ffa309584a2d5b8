/** flower's errors live in the state layer (the bottom of the dependency graph); this path stays importable. */
export * from './state/errors.js';
