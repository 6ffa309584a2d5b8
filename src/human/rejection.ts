/**
 * A submission the schema did not accept, as a typed value: one `{ field, reason }` per zod issue, so
 * the screen, the step's reason and the log read fields and reasons instead of re-parsing the text the
 * model was told. The model still gets the whole explanation (`explain`), with zod's own messages.
 *
 * The wire schema (`wireSchema`): the same JSON Schema the model reads, but the MCP server's own check
 * lets every input through, so the one real parse is the handler's and its issues stay typed (the
 * server's check answers with `MCP error -32602` and a page of JSON, which nobody can read).
 */
import { z } from 'zod';
import type { Lang } from '../config/index.js';

export type RejectReason =
  | 'required'
  | 'expected_list'
  | 'expected_text'
  | 'expected_object'
  | 'expected_boolean'
  | 'expected_number'
  | 'empty'
  | 'empty_list'
  | 'not_allowed'
  | 'invalid';

export interface FieldIssue {
  /** the field's path, `checks.0.item`; `(input)` for the whole input */
  field: string;
  reason: RejectReason;
  /** the values a `not_allowed` field may take */
  allowed?: string[];
  /** the schema's own message, as the model was told it */
  message: string;
}

const EXPECTED: Readonly<Record<string, RejectReason>> = {
  array: 'expected_list',
  string: 'expected_text',
  object: 'expected_object',
  boolean: 'expected_boolean',
  number: 'expected_number',
};

function at(input: unknown, path: readonly PropertyKey[]): unknown {
  let v = input;
  for (const k of path) v = typeof v === 'object' && v !== null ? (v as Record<PropertyKey, unknown>)[k] : undefined;
  return v;
}

/** zod's issues as fields and reasons; `input` is what was submitted (a missing field is `required`). */
export function fieldIssues(error: z.ZodError, input: unknown): FieldIssue[] {
  return error.issues.map((i) => {
    const field = i.path.length ? i.path.map(String).join('.') : '(input)';
    const base = { field, message: i.message };
    if (i.code === 'invalid_type') {
      if (at(input, i.path) === undefined) return { ...base, reason: 'required' };
      return { ...base, reason: EXPECTED[i.expected] ?? 'invalid' };
    }
    if (i.code === 'too_small') return { ...base, reason: i.origin === 'array' ? 'empty_list' : 'empty' };
    if (i.code === 'invalid_value') return { ...base, reason: 'not_allowed', allowed: i.values.map(String) };
    return { ...base, reason: 'invalid' };
  });
}

/** What the model is told: every field with the schema's own message (it needs them to fix the document). */
export function explain(issues: readonly FieldIssue[], lang: Lang): string {
  const lines = issues.map((i) => `- ${i.field}: ${i.message}`);
  return `${lang === 'zh' ? '没有收下,缺少或不合格的字段:' : 'Not received; missing or invalid fields:'}\n${lines.join('\n')}`;
}

/** A plain one-line summary (`acceptance: expected_list; goal: required`), for logs and the step's reason. */
export function issueSummary(issues: readonly FieldIssue[]): string {
  return issues.map((i) => `${i.field}: ${i.reason.replace(/_/g, ' ')}${i.allowed ? ` (${i.allowed.join(', ')})` : ''}`).join('; ');
}

/**
 * The schema the MCP server is given for `shape`: its JSON Schema is the real one (types, limits,
 * descriptions, the required fields), its own parse accepts anything. At run time the Agent SDK's
 * `createSdkMcpServer` passes an object schema through as it is, and the MCP server takes an object
 * schema or a raw shape alike; the type is the SDK's raw shape, hence the cast at the call.
 */
export function wireSchema(shape: z.ZodRawShape): z.ZodObject {
  const known = wired.get(shape);
  if (known) return known;
  const real = z.toJSONSchema(z.object(shape), { io: 'input', target: 'draft-7' }) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const open = Object.fromEntries(
    Object.keys(shape).map((k) => [
      k,
      z
        .unknown()
        .optional()
        .meta(real.properties?.[k] ?? {}),
    ]),
  );
  const wire = z.object(open).meta({ required: real.required ?? [] });
  wired.set(shape, wire);
  return wire;
}

// once per shape: the shapes are constants, and every `.meta()` is an entry in zod's registry
const wired = new WeakMap<z.ZodRawShape, z.ZodObject>();
