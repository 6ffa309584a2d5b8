/**
 * The starter flow's steps: 确认需求 (clarify) → 设定目标 (set the goal) → 干活 (work, judged).
 *
 * Documents are frozen on disk (`.flower/notes/需求.md`, `目标.md`) by the gates, so a finished step
 * is skipped on the next run but still hydrates ctx — downstream steps read ctx, never the disk.
 * A structured submission (submit_brief / submit_goal / submit_verdict) wins; the reply's markdown is
 * the fallback.
 */
import type { McpServerConfig } from '@anthropic-ai/claude-agent-sdk';
import type { Lang } from '../../config/index.js';
import { Brief, Goal, type Verdict, type Written } from '../../docs/index.js';
import { issueSummary, type FieldIssue } from '../../human/index.js';
import { clarifier, judge } from '../../roles/index.js';
import { event, type AgentSpec } from '../../runtime/index.js';
import type { WorkflowContext } from '../context.js';
import { Step, type StepOptions } from '../step.js';
import { SEED_STEPS } from '../../state/index.js';
import { texts } from './prompts.js';

export const BRIEF_KEY = '_brief';
export const MISSING_KEY = '_brief_missing';
export const GOAL_KEY = '_goal';
export const VERDICT_KEY = '_verdict';
export const ROUND_KEY = '_goal_rounds';

export type Submission = 'brief' | 'goal' | 'verdict';

/** What the flow needs of the human channel. */
export interface FlowChannel {
  readonly server: McpServerConfig;
  readonly toolNames: readonly string[];
  ask(question: string, options?: string[], o?: { framework?: boolean }): Promise<{ state: string; answer?: string | null; optionIndex?: number | null }>;
  takeSubmission(kind: 'brief'): Brief | null;
  takeSubmission(kind: 'goal'): Goal | null;
  takeSubmission(kind: 'verdict'): Verdict | null;
  /** what the latest rejected submission of a kind got wrong, typed (HumanChannel has it) */
  takeRejection?(kind: Submission): readonly FieldIssue[] | null;
  /** holds each submitted verdict against the frozen goal's checks as it arrives (HumanChannel has it) */
  readonly verdictReviewer?: { expect(checks: readonly string[]): void };
}

/** A gate's reason with what the last rejected `submit_<kind>` got wrong; taken either way, so a later round never reads it. */
function withRefusal(channel: FlowChannel, kind: Submission, why: string | null): string {
  const issues = channel.takeRejection?.(kind) ?? null;
  if (why === null) return '';
  return issues?.length ? `${why}; submit_${kind} not accepted: ${issueSummary(issues)}` : why;
}

function hydrateBrief(ctx: WorkflowContext, name: string, b: Brief): void {
  ctx[BRIEF_KEY] = b;
  ctx[name] = b.promptBlock();
  delete ctx[MISSING_KEY];
}

function hydrateGoal(ctx: WorkflowContext, name: string, g: Goal): void {
  ctx[GOAL_KEY] = g;
  ctx[name] = g.promptBlock();
}

/** What the starter's steps take beyond their own: the role's extra rules and the Step's failure policy. */
export interface StarterStepOptions {
  /** extra rules, appended after the role's (to the given spec's, or to the default one's) */
  instructions?: string;
  /** what the workflow does when the step fails (Step's onFail; default 'stop') */
  onFail?: StepOptions['onFail'];
  /** business retries after a failed or rejected attempt (Step's retries; default 0) */
  retries?: number;
}

/** The spec given (with the extra rules appended), or the standard one. */
export function stepSpec(spec: AgentSpec | null | undefined, instructions: string | undefined, standard: () => AgentSpec): AgentSpec {
  if (!spec) return standard();
  const extra = instructions?.trim();
  if (!extra) return spec;
  return spec.with({ instructions: spec.instructions.trim() ? `${spec.instructions}\n\n${extra}` : extra });
}

/** Step's onFail and retries, when given (Step checks them). */
export function failurePolicy(o: StarterStepOptions): Pick<StepOptions, 'onFail' | 'retries'> {
  return { ...(o.onFail !== undefined ? { onFail: o.onFail } : {}), ...(o.retries !== undefined ? { retries: o.retries } : {}) };
}

export interface ClarifyStepOptions extends StarterStepOptions {
  briefPath: string;
  name?: string;
  /** run even when the brief is already complete */
  alwaysAsk?: boolean;
  lang: Lang;
}

/** A file flower did not write was moved aside before the new one: the person hears where it went. */
export function keptAside(ctx: WorkflowContext, w: Written): void {
  if (!w.kept) return;
  ctx._onEvent?.(event('system', `${w.path} ${w.keptReason ?? 'was not written by flower'}; kept it as ${w.kept}`, { keptAside: w.kept, path: w.path }));
}

/** 确认需求. `spec` null or undefined: the standard `clarifier(name, { channel, lang, instructions })`. */
export function clarifyStep(
  spec: AgentSpec | null | undefined,
  channel: FlowChannel,
  ask: string | ((ctx: WorkflowContext) => string),
  o: ClarifyStepOptions,
): Step {
  const name = o.name ?? SEED_STEPS.clarify;
  const t = texts(o.lang);
  const role = stepSpec(spec, o.instructions, () => clarifier(name, { channel, lang: o.lang, ...(o.instructions ? { instructions: o.instructions } : {}) }));
  return new Step(name, role, (ctx) => t.clarifyPrompt(typeof ask === 'function' ? ask(ctx) : ask), {
    when: (ctx) => {
      if (o.alwaysAsk) return true;
      const b = Brief.load(o.briefPath);
      if (b?.complete()) {
        hydrateBrief(ctx, name, b);
        return false;
      }
      return true;
    },
    gate: (r, ctx) => {
      const b = channel.takeSubmission('brief') ?? Brief.parse(r.text);
      const why = withRefusal(channel, 'brief', b.complete() ? null : `no complete brief (missing: ${b.missing().join(', ')})`);
      if (!b.complete()) {
        ctx[MISSING_KEY] = b.missing();
        ctx._rejected = why;
        return false;
      }
      keptAside(ctx, b.write(o.briefPath));
      hydrateBrief(ctx, name, Brief.load(o.briefPath) ?? b);
      return true;
    },
    // the compact block, never the raw reply (a clarifier once pasted a whole codebase into it)
    reduce: (_r, ctx) => (ctx[BRIEF_KEY] as Brief).promptBlock(),
    resumePrompt: t.clarifyResume,
    ...failurePolicy(o),
  });
}

export interface GoalStepOptions extends StarterStepOptions {
  goalPath: string;
  name?: string;
  briefKey?: string;
  /** re-derive even when 目标.md is complete (a wake remark amended the brief) */
  alwaysSet?: boolean;
  lang: Lang;
}

/** 设定目标. `spec` null or undefined: the standard `judge(name, { channel, lang, submits: ['goal'], instructions })`. */
export function goalStep(spec: AgentSpec | null | undefined, channel: FlowChannel, o: GoalStepOptions): Step {
  const name = o.name ?? SEED_STEPS.goal;
  const briefKey = o.briefKey ?? SEED_STEPS.clarify;
  const t = texts(o.lang);
  const role = stepSpec(spec, o.instructions, () =>
    judge(name, { channel, lang: o.lang, submits: ['goal'], ...(o.instructions ? { instructions: o.instructions } : {}) }),
  );
  return new Step(name, role, (ctx) => t.goalPrompt(typeof ctx[briefKey] === 'string' && ctx[briefKey] ? String(ctx[briefKey]) : t.noBrief), {
    when: (ctx) => {
      if (o.alwaysSet) return true;
      const g = Goal.load(o.goalPath);
      if (g?.complete()) {
        hydrateGoal(ctx, name, g);
        return false;
      }
      return true;
    },
    gate: (r, ctx) => {
      const g = channel.takeSubmission('goal') ?? Goal.parse(r.text);
      const why = withRefusal(channel, 'goal', g.complete() ? null : 'no complete goal (a statement and at least one check)');
      if (!g.complete()) {
        ctx._rejected = why;
        return false;
      }
      keptAside(ctx, g.write(o.goalPath));
      hydrateGoal(ctx, name, g);
      const bad = g.unverifiable;
      if (bad.length > 0) {
        // announced once, at goal time, not after hours of work (HT002: found only after $37)
        ctx._onEvent?.(
          event('task', t.unverifiable(bad.length, g.checks.length, o.goalPath), {
            kind: 'unverifiable',
            unverifiable: bad,
            total: g.checks.length,
            path: o.goalPath,
          }),
        );
      }
      return true;
    },
    reduce: (_r, ctx) => (ctx[GOAL_KEY] as Goal).promptBlock(),
    ...failurePolicy(o),
  });
}
