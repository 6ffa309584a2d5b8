export { AgentSpec, PERMISSION_MODES } from './spec.js';
export type { AgentSpecOptions, CompactPolicy, Hooks } from './spec.js';
export { Runtime } from './runtime.js';
export type { RuntimeOptions, RunOptions, FlowerStore } from './runtime.js';
export { Manifest, newRunId, durationS, toRow } from './manifest.js';
export type { StepResult, ManifestRow } from './manifest.js';
export { normalize, contextOf, event } from './events.js';
export type { FlowerEvent, EventKind, EventSink } from './events.js';
