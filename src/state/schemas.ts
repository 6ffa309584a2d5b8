/**
 * The saved formats, as zod schemas. Readers go JSON → version → schema (see `readVersioned`).
 *
 * - lineage.json: version 0 (the seed: `{ workspace, woke, steps }`, no `version`) and version 1
 *   (adds `version: 1` and, optionally, `workbench` — where the notes live when --isolate moved them —
 *   and `request` — the person's sentence, recorded before the first spawn so a run killed before its
 *   clarify session reached the store is still continued by a bare `flower`).
 *   The seed's three fields keep their meaning in every version.
 * - manifest.json: an array of rows (no file-level version; a row may carry fields a newer flower adds,
 *   they are kept). The optional row fields (`failure`, `attempt_failures`, `verdict`, `sandboxed`, `skills`, `request`) are declared here, in `StepResult`
 *   and `manifestRowSchema`, so other parts only fill them.
 */
import { z } from 'zod';
import { FAILURE_KINDS, type FailureKind } from './kinds.js';

export const LINEAGE_VERSION = 1;

const steps = z.record(z.string(), z.string());
const lineageV0 = z.object({
  workspace: z.string(),
  woke: z.number().int().min(0),
  steps,
});
const lineageV1 = lineageV0.extend({
  version: z.literal(1),
  workbench: z.string().optional(),
  request: z.object({ text: z.string(), at: z.string() }).optional(),
});

export interface LineageRecord {
  version: 1;
  /** absolute workspace path this lineage belongs to */
  workspace: string;
  /** wakes so far (1 after the first run) */
  woke: number;
  /** step name → session id */
  steps: Record<string, string>;
  /** the workbench root when it is not `<workspace>/.flower` (--isolate), so `flower status` finds the notes */
  workbench?: string | undefined;
  /** the person's request as typed, recorded before the first agent spawns (a bare wake starts from it) */
  request?: { text: string; at: string } | undefined;
}

/** Schemas by version; a reader upgrades every older version to the current record. */
export const LINEAGE_SCHEMAS = {
  0: lineageV0.transform((v): LineageRecord => ({ version: 1, ...v })),
  1: lineageV1.transform((v): LineageRecord => ({ ...v })),
} as const;

// the kinds live in kinds.ts (no zod: the CLI's flag parsers read them at start)
export { FAILURE_KINDS, type FailureKind };

/** One retried attempt's failure: its number (1-based) and its typed kind. */
export interface AttemptFailureRecord extends StepFailureRecord {
  attempt: number;
}

export interface StepFailureRecord {
  kind: FailureKind;
  retryable: boolean;
  message: string;
  status?: number;
}

export interface VerdictRecord {
  outcome: 'achieved' | 'not_yet' | 'unreachable';
  passed: number;
  total: number;
}

/** What one step (a sequence of attempts) produced; the manifest row adds `duration_s` and `run`. */
export interface StepResult {
  step: string;
  session_id: string | null;
  ok: boolean;
  cost_usd: number;
  num_turns: number;
  /** main-thread prose only; synthetic API errors go to `errors` */
  text: string;
  /** a readable string (the seed's format); `failure` carries the typed kind */
  error: string | null;
  started_at: string;
  ended_at: string | null;
  /** failed attempts + 1; handoffs and human interrupts do not count */
  attempts: number;
  errors: string[];
  resumed: boolean;
  /** sessions retired by handoff, oldest first */
  retired: string[];
  /** last main-thread context size in tokens */
  context: number;
  failure?: StepFailureRecord;
  /**
   * The typed failure of each attempt that was retried, in order (the last attempt's is `failure`):
   * `errors` holds texts, several per attempt at times, so it cannot say which attempt failed how.
   */
  attempt_failures?: AttemptFailureRecord[];
  /** judge rows (干活·判定#N) */
  verdict?: VerdictRecord;
  sandboxed?: boolean;
  skills?: Array<{ name: string; hash: string }>;
  /** the person's request as typed for this run (every row of the run carries it; absent on rows before it was recorded) */
  request?: string;
}

export interface ManifestRow extends StepResult {
  duration_s: number;
  run: string;
}

/**
 * One manifest row. Required: what every row flower ever wrote has and readers rely on. The kind of a
 * failure is any string on READ (a newer flower may add a kind; its rows must not make ours corrupt).
 */
export const manifestRowSchema = z
  .object({
    step: z.string(),
    run: z.string(),
    session_id: z.string().nullable(),
    ok: z.boolean(),
    cost_usd: z.number(),
    num_turns: z.number(),
    text: z.string(),
    error: z.string().nullable(),
    started_at: z.string(),
    ended_at: z.string().nullable(),
    attempts: z.number(),
    errors: z.array(z.string()),
    resumed: z.boolean(),
    retired: z.array(z.string()).default([]),
    context: z.number().default(0),
    duration_s: z.number(),
    failure: z.object({ kind: z.string(), retryable: z.boolean(), message: z.string(), status: z.number().optional() }).optional(),
    attempt_failures: z
      .array(z.object({ attempt: z.number(), kind: z.string(), retryable: z.boolean(), message: z.string(), status: z.number().optional() }).loose())
      .optional(),
    verdict: z.object({ outcome: z.enum(['achieved', 'not_yet', 'unreachable']), passed: z.number(), total: z.number() }).optional(),
    sandboxed: z.boolean().optional(),
    skills: z.array(z.object({ name: z.string(), hash: z.string() })).optional(),
    request: z.string().optional(),
  })
  .loose();

export const manifestSchema = z.array(manifestRowSchema);
