/**
 * The fuzzing model's vocabulary and options: the fault kinds, the roles it tells apart, and the options
 * a scenario file's `"fuzz"` key takes (src/sim/items.ts). Names only, importing nothing, so the
 * scenario's shape does not import the model (src/sim/fuzz/model.ts) that reads it.
 */

export const FAULT_KINDS = [
  'prose',
  'bad_fields',
  'unknown_tool',
  'repeat',
  'bad_json',
  'max_tokens_cut',
  'empty',
  'refusal',
  'huge',
  'unknown_block',
  'usage',
  'drop_mid',
  'sse_error',
  'slow',
  'http_error',
  'stuck',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const FUZZ_ROLES = ['clarify', 'goal', 'judge', 'handoff', 'coordinator', 'worker', 'other'] as const;
export type FuzzRole = (typeof FUZZ_ROLES)[number];

/** The options, all JSON-able (a scenario file's `"fuzz"` key takes the same object). */
export interface FuzzOptions {
  seed: number | string;
  /** Probability that a request gets a fault (default 0.25). */
  rate?: number;
  /** Relative weights by kind; a kind left out keeps its default, 0 turns it off. */
  weights?: Partial<Record<FaultKind, number>>;
  /** Only these kinds (every other weight becomes 0). */
  only?: FaultKind | readonly FaultKind[];
  /** Only requests of these roles get faults (default: all). */
  roles?: readonly FuzzRole[];
  /** The file the plausible workers make and the goal checks (default: the one the prompts name). */
  artifact?: string;
  /** Upper bound of every wait a fault adds, in ms (default 30000). */
  maxDelayMs?: number;
  /** Size range of huge answers, in bytes (default [1e6, 2e6]). */
  hugeBytes?: readonly [number, number];
}
