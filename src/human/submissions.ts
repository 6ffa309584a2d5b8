/**
 * submit_brief / submit_goal / submit_verdict / submit_handoff: the documents as schema-checked tool
 * calls on the `human` server, so a role fills fields instead of writing markdown whose headings we
 * must guess (clarify-goal §5). The MCP server is given the wire schema (src/human/rejection.ts): the
 * model reads the real JSON Schema, and the one parse is the handler's, so a document that does not
 * fit comes back as typed issues (`{ field, reason }`, to `reject`) and as the whole explanation to the
 * model; one that fits is converted and the latest of each kind kept.
 */
import { tool, type AnyZodRawShape, type SdkMcpToolDefinition } from '@anthropic-ai/claude-agent-sdk';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Lang } from '../config/index.js';
import { CONTRADICTORY_ACHIEVED, fromSubmission, type Brief, type Goal, type Handoff, type Verdict } from '../docs/index.js';
import {
  submitBriefSchema,
  submitBriefShape,
  submitGoalSchema,
  submitGoalShape,
  submitHandoffSchema,
  submitHandoffShape,
  submitVerdictSchema,
  submitVerdictShape,
} from '../docs/schemas.js';
import { explain, fieldIssues, wireSchema, type FieldIssue } from './rejection.js';

export const SUBMISSION_KINDS = ['brief', 'goal', 'verdict', 'handoff'] as const;
export type SubmissionKind = (typeof SUBMISSION_KINDS)[number];

export interface SubmissionDocs {
  brief: Brief;
  goal: Goal;
  verdict: Verdict;
  handoff: Handoff;
}

export const submissionToolName = (kind: SubmissionKind): string => `submit_${kind}`;

const DESCRIBE: Readonly<Record<Lang, Readonly<Record<SubmissionKind, string>>>> = {
  zh: {
    brief: '交需求确认书:四部分(目标、验收标准、边界、未知与假设)逐项填写。这是确认需求唯一算数的交付方式;交了就结束,不要再在回复里贴全文。',
    goal: '交目标和判定清单:一句话的目标,加上每条都能当场运行并观察的判定项。',
    verdict: '交判定结论:达成 / 未达成 / 无法达成,逐条判定项给出证据。说不准就不是达成。',
    handoff: '交交接书:现在在做什么、已经定下的、走不通的路、下一步、现场的路径。',
  },
  en: {
    brief:
      'Submit the brief: fill its four parts (goal, acceptance criteria, boundaries, unknowns and assumptions). This is the only way clarification counts as done; after submitting, do not paste it into your reply.',
    goal: 'Submit the goal and its checklist: a one-sentence goal plus checks that can each be run and observed.',
    verdict: 'Submit the verdict: achieved / not_yet / unreachable, with evidence for every check. Unsure is not achieved.',
    handoff: 'Submit the handoff: what is being done, what is decided, dead ends, the next step, and paths to the scene.',
  },
};

const RECEIVED: Readonly<Record<Lang, { [K in SubmissionKind]: (doc: SubmissionDocs[K]) => string }>> = {
  zh: {
    brief: (b) => `已收到需求确认书(${lineCount(b.acceptance)} 条验收标准、${lineCount(b.boundaries)} 条边界、${lineCount(b.unknowns)} 条未知与假设)。`,
    goal: (g) => `已收到目标和 ${g.checks.length} 条判定项${g.unverifiable.length ? `(其中 ${g.unverifiable.length} 条标为无法验证)` : ''}。`,
    verdict: (v) => `已收到判定:${v.state}。${v.reason.startsWith(CONTRADICTORY_ACHIEVED) ? CONTRADICTORY_ACHIEVED : ''}`,
    handoff: () => '已收到交接书。',
  },
  en: {
    brief: (b) =>
      `Brief received (${lineCount(b.acceptance)} acceptance criteria, ${lineCount(b.boundaries)} boundaries, ${lineCount(b.unknowns)} unknowns and assumptions).`,
    goal: (g) => `Goal received with ${g.checks.length} checks${g.unverifiable.length ? ` (${g.unverifiable.length} marked unverifiable)` : ''}.`,
    verdict: (v) =>
      `Verdict received: ${v.state}.${v.reason.startsWith(CONTRADICTORY_ACHIEVED) ? ' It says achieved but a check failed or has no evidence, so it counts as not_yet.' : ''}`,
    handoff: () => 'Handoff received.',
  },
};

function lineCount(text: string): number {
  return text.split('\n').filter((l) => l.trim() !== '').length;
}

const text = (t: string, isError = false): CallToolResult => ({ content: [{ type: 'text', text: t }], ...(isError ? { isError: true } : {}) });

export type Keep = <K extends SubmissionKind>(kind: K, doc: SubmissionDocs[K]) => void;
/** A submission the schema did not accept: its fields and reasons, typed (the model gets `explain`). */
export type Reject = (kind: SubmissionKind, issues: FieldIssue[]) => void;

/**
 * A second look at a parsed document before it is kept (the verdict against the frozen goal): the
 * document to keep, and when it changed, what the model is told instead of the plain receipt.
 */
export type Review<K extends SubmissionKind> = (doc: SubmissionDocs[K]) => { doc: SubmissionDocs[K]; say?: string; isError?: boolean };
export type Reviews = { [K in SubmissionKind]?: () => Review<K> | undefined };

/** Where a submission goes: kept when it parses, its issues reported when it does not. */
export interface Sinks {
  keep: Keep;
  reject?: Reject | undefined;
}

/** Parse → convert → review → keep → say so; anything that does not parse is answered, never thrown. */
function accept<K extends SubmissionKind, S extends z.ZodType>(
  kind: K,
  schema: S,
  convert: (x: z.infer<S>) => SubmissionDocs[K],
  sinks: Sinks,
  lang: Lang,
  review?: () => Review<K> | undefined,
): (args: unknown) => Promise<CallToolResult> {
  const { keep, reject } = sinks;
  return async (args) => {
    const parsed = schema.safeParse(args);
    if (!parsed.success) {
      const issues = fieldIssues(parsed.error, args);
      reject?.(kind, issues);
      return text(explain(issues, lang), true);
    }
    const converted = convert(parsed.data);
    const r = review?.()?.(converted);
    const doc = r?.doc ?? converted;
    keep(kind, doc);
    return r?.say !== undefined ? text(r.say, r.isError ?? false) : text(RECEIVED[lang][kind](doc));
  };
}

// Erased to the general shape: a definition is invariant in its shape, and the server takes a mixed list.
// The handlers take `unknown` and parse themselves, so nothing relies on the specific argument type.
export type AnyToolDefinition = SdkMcpToolDefinition<AnyZodRawShape>;

/** The SDK's raw-shape type over the wire schema (src/human/rejection.ts says why the cast holds). */
const wire = (shape: z.ZodRawShape): AnyZodRawShape => wireSchema(shape) as unknown as AnyZodRawShape;

export function submissionTools(kinds: Iterable<SubmissionKind>, keep: Sinks, lang: Lang, reviews: Reviews = {}): AnyToolDefinition[] {
  const d = DESCRIBE[lang];
  const make: { [K in SubmissionKind]: () => AnyToolDefinition } = {
    brief: () =>
      tool<AnyZodRawShape>(submissionToolName('brief'), d.brief, wire(submitBriefShape), accept('brief', submitBriefSchema, fromSubmission.brief, keep, lang)),
    goal: () =>
      tool<AnyZodRawShape>(submissionToolName('goal'), d.goal, wire(submitGoalShape), accept('goal', submitGoalSchema, fromSubmission.goal, keep, lang)),
    verdict: () =>
      tool<AnyZodRawShape>(
        submissionToolName('verdict'),
        d.verdict,
        wire(submitVerdictShape),
        accept('verdict', submitVerdictSchema, fromSubmission.verdict, keep, lang, reviews.verdict),
      ),
    handoff: () =>
      tool<AnyZodRawShape>(
        submissionToolName('handoff'),
        d.handoff,
        wire(submitHandoffShape),
        accept('handoff', submitHandoffSchema, (x) => fromSubmission.handoff(x), keep, lang),
      ),
  };
  return [...new Set(kinds)].map((k) => make[k]());
}
