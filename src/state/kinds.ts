/**
 * The failure kinds a manifest row records: a saved format, declared once here (no zod, so the CLI's
 * start path can read them without loading the schemas; src/state/schemas.ts re-exports them).
 */
export const FAILURE_KINDS = [
  'auth',
  'config',
  'quota',
  'overloaded',
  'network',
  'timeout',
  'context-full',
  'guard-denied',
  'interrupted',
  'killed',
  'store',
  'budget',
  // the run's --deadline passed: the step was stopped at a message boundary, resumable on the next wake
  'deadline',
  'internal',
  'unknown',
  // the model's answer broke the step's contract: no valid verdict after the one reminder (issue 19)
  'model',
  // a result its step's gate did not accept: no complete brief, no goal, work the judge did not accept
  'rejected',
] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];
