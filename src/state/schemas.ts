/**
 * The saved formats, as valibot schemas. Readers go JSON → version → schema (see `readVersioned`).
 *
 * - lineage.json: version 0 (the seed: `{ workspace, woke, steps }`, no `version`) and version 1
 *   (adds `version: 1` and, optionally, `workbench` — where the notes live when --isolate moved them —
 *   and `request` — the person's sentence, recorded before the first spawn so a run killed before its
 *   clarify session reached the store is still continued by a bare `flower`).
 *   The seed's three fields keep their meaning in every version.
 * - manifest.json: an array of rows (no file-level version; a row may carry fields a newer flower adds,
 *   they are kept). The optional row fields (`failure`, `attempt_failures`, `verdict`, `sandboxed`, `skills`, `request`) are declared here, in `StepResult`
 *   and `manifestRowSchema`, so other parts only fill them.
 *
 * Why valibot and not zod (which the tool schemas of src/docs and src/human use, because the SDK's `tool()`
 * takes zod): `flower status` reads these files on every start, and zod takes ~45 ms to load (95 modules)
 * where valibot takes ~7 ms (one file) — measured by bench/modules.ts, reported by bench/start.ts. The rules
 * are zod's as they were: numbers finite (zod 4's z.number()), integers safe, unknown keys dropped from
 * lineage and kept on manifest rows. One difference, on the safe side: a manifest row's unknown field
 * named `constructor` or `prototype` is dropped (valibot never copies those keys; `__proto__` is refused
 * before, by parseJsonStrict); step names in lineage are kept whatever they are.
 */
import * as v from 'valibot';
import { FAILURE_KINDS, type FailureKind } from './kinds.js';

export const LINEAGE_VERSION = 1;

/** zod 4's z.number(): NaN and ±Infinity (`1e999` in JSON) are not numbers */
export const num = v.pipe(v.number(), v.finite());
/** `field: message` for the first few issues of a failed parse, the way every reader reports them */
export function issuesText(issues: readonly v.BaseIssue<unknown>[], root = '(root)'): string {
  return issues
    .slice(0, 3)
    .map((i) => `${v.getDotPath(i) ?? root}: ${i.message}`)
    .join('; ');
}

// step name → session id. Not v.record: valibot leaves the keys `constructor` and `prototype` out of the
// record it builds, and a step may be called anything (`__proto__` is refused before, by parseJsonStrict)
const steps = v.custom<Record<string, string>>(
  (x) => typeof x === 'object' && x !== null && !Array.isArray(x) && Object.values(x).every((s) => typeof s === 'string'),
  'Invalid type: Expected an object of step names to session ids (strings)',
);
const lineageV0Entries = {
  workspace: v.string(),
  woke: v.pipe(v.number(), v.safeInteger(), v.minValue(0)),
  steps,
};
const lineageV0 = v.object(lineageV0Entries);
const lineageV1 = v.object({
  ...lineageV0Entries,
  version: v.literal(1),
  workbench: v.optional(v.string()),
  request: v.optional(v.object({ text: v.string(), at: v.string() })),
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
  0: v.pipe(
    lineageV0,
    v.transform((x): LineageRecord => ({ version: 1, ...x })),
  ),
  1: v.pipe(
    lineageV1,
    v.transform((x): LineageRecord => ({ ...x })),
  ),
} as const;

// the kinds live in kinds.ts (no schema library: the CLI's flag parsers read them at start)
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
const failure = { kind: v.string(), retryable: v.boolean(), message: v.string(), status: v.optional(num) };

export const manifestRowSchema = v.looseObject({
  step: v.string(),
  run: v.string(),
  session_id: v.nullable(v.string()),
  ok: v.boolean(),
  cost_usd: num,
  num_turns: num,
  text: v.string(),
  error: v.nullable(v.string()),
  started_at: v.string(),
  ended_at: v.nullable(v.string()),
  attempts: num,
  errors: v.array(v.string()),
  resumed: v.boolean(),
  retired: v.optional(v.array(v.string()), () => []),
  context: v.optional(num, 0),
  duration_s: num,
  failure: v.optional(v.object(failure)),
  attempt_failures: v.optional(v.array(v.looseObject({ attempt: num, ...failure }))),
  verdict: v.optional(v.object({ outcome: v.picklist(['achieved', 'not_yet', 'unreachable']), passed: num, total: num })),
  sandboxed: v.optional(v.boolean()),
  skills: v.optional(v.array(v.object({ name: v.string(), hash: v.string() }))),
  request: v.optional(v.string()),
});

export const manifestSchema = v.array(manifestRowSchema);

/** One row as read back (a PostgreSQL row, one entry the ui shows): the row, or why it is not one. */
export function checkManifestRow(x: unknown): { ok: true; row: ManifestRow } | { ok: false; reason: string } {
  const r = v.safeParse(manifestRowSchema, x);
  // the schema's output is the row plus the fields a newer flower added, kept as they are
  return r.success ? { ok: true, row: r.output as ManifestRow } : { ok: false, reason: issuesText(r.issues, 'row') };
}
