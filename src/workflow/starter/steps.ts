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
import { AMBIGUOUS_REASON, Brief, DEFAULT_AMEND_LABEL, Goal, Verdict, type Written } from '../../docs/index.js';
import { event, type AgentSpec, type StepResult } from '../../runtime/index.js';
import type { WorkflowContext } from '../context.js';
import { Step, StepAbort } from '../step.js';
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

export interface ClarifyStepOptions {
  briefPath: string;
  name?: string;
  /** run even when the brief is already complete */
  alwaysAsk?: boolean;
  lang: Lang;
}

/** A file flower did not write was moved aside before the new one: the person hears where it went. */
function keptAside(ctx: WorkflowContext, w: Written): void {
  if (!w.kept) return;
  ctx._onEvent?.(event('system', `${w.path} ${w.keptReason ?? 'was not written by flower'}; kept it as ${w.kept}`, { keptAside: w.kept, path: w.path }));
}

export function clarifyStep(spec: AgentSpec, channel: FlowChannel, ask: string | ((ctx: WorkflowContext) => string), o: ClarifyStepOptions): Step {
  const name = o.name ?? '确认需求';
  const t = texts(o.lang);
  return new Step(name, spec, (ctx) => t.clarifyPrompt(typeof ask === 'function' ? ask(ctx) : ask), {
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
      if (!b.complete()) {
        ctx[MISSING_KEY] = b.missing();
        ctx._rejected = `no complete brief (missing: ${b.missing().join(', ')})`;
        return false;
      }
      keptAside(ctx, b.write(o.briefPath));
      hydrateBrief(ctx, name, Brief.load(o.briefPath) ?? b);
      return true;
    },
    // the compact block, never the raw reply (a clarifier once pasted a whole codebase into it)
    reduce: (_r, ctx) => (ctx[BRIEF_KEY] as Brief).promptBlock(),
    resumePrompt: t.clarifyResume,
  });
}

export interface GoalStepOptions {
  goalPath: string;
  name?: string;
  briefKey?: string;
  /** re-derive even when 目标.md is complete (a wake remark amended the brief) */
  alwaysSet?: boolean;
  lang: Lang;
}

export function goalStep(spec: AgentSpec, channel: FlowChannel, o: GoalStepOptions): Step {
  const name = o.name ?? '设定目标';
  const briefKey = o.briefKey ?? '确认需求';
  const t = texts(o.lang);
  return new Step(name, spec, (ctx) => t.goalPrompt(typeof ctx[briefKey] === 'string' && ctx[briefKey] ? String(ctx[briefKey]) : t.noBrief), {
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
      if (!g.complete()) {
        ctx._rejected = 'no complete goal (a statement and at least one check)';
        return false;
      }
      keptAside(ctx, g.write(o.goalPath));
      hydrateGoal(ctx, name, g);
      const bad = g.unverifiable;
      if (bad.length > 0) {
        // announced once, at goal time, not after hours of work (HT002: found only after $37)
        ctx._onEvent?.(event('task', t.unverifiable(bad.length, g.checks.length, o.goalPath), { kind: 'unverifiable', unverifiable: bad, total: g.checks.length, path: o.goalPath }));
      }
      return true;
    },
    reduce: (_r, ctx) => (ctx[GOAL_KEY] as Goal).promptBlock(),
  });
}

/**
 * The verdict where people look: on the judge's manifest row (`verdict`: outcome and pass count) and
 * as an event with the judge's own cost, so the screen shows "verdict: achieved — 5/5 checks · $…".
 * A judge run that failed (no verdict at all) is left as the failed row it is.
 */
async function recordVerdict(v: Verdict, j: StepResult, goalChecks: number, ctx: WorkflowContext): Promise<{ passed: number; total: number }> {
  const { passed, total } = v.tally(goalChecks);
  if (j.ok && v.state !== '') await ctx._runtime?.amend?.(j, { verdict: { outcome: v.state, passed, total } });
  const secs = j.ended_at ? (Date.parse(j.ended_at) - Date.parse(j.started_at)) / 1000 : 0;
  ctx._onEvent?.(event('task', `${j.step}: ${v.state || 'unclear'} ${passed}/${total}`, {
    kind: 'verdict', step: j.step, outcome: v.state, passed, total, reason: v.reason, failed: v.failed,
    ok: j.ok, error: j.error, cost_usd: j.cost_usd, num_turns: j.num_turns, duration_s: Number.isFinite(secs) ? secs : 0,
  }));
  return { passed, total };
}

export interface WithGoalOptions {
  goalPath: string;
  /** 需求.md: remarks the person sent during the run (运行中补充) reach the judge with the goal */
  briefPath?: string;
  manifestPath: string;
  /** total work rounds (0 and 1 both mean one) */
  rounds?: number;
  lang: Lang;
}

/**
 * Wrap the work step with a verdict after every round: a FRESH judge session (never resumed, never in
 * lineage — its value is not knowing how hard the worker tried). achieved → pass; not yet or unclear →
 * the same work session continues with the judge's feedback; unreachable → ask the human; nobody
 * answers → stop without spending the remaining rounds.
 */
export function withGoal(step: Step, judgeSpec: AgentSpec, channel: FlowChannel, o: WithGoalOptions): Step {
  const t = texts(o.lang);
  const inner = step.gate;
  // feedback belongs to the round it judged: a failed round (no verdict) must not reuse a stale one
  let feedback = '';
  let judged: StepResult | undefined;
  const gate = async (r: StepResult, ctx: WorkflowContext): Promise<boolean> => {
    feedback = '';
    judged = r;
    if (inner && !(await inner(r, ctx))) return false;
    const rt = ctx._runtime;
    if (!rt) throw new StepAbort('no runtime to run the judge with; refusing to pass unjudged work');
    const n = (Number(ctx[ROUND_KEY]) || 0) + 1;
    ctx[ROUND_KEY] = n;
    const goal = (ctx[GOAL_KEY] as Goal | undefined)?.complete() ? (ctx[GOAL_KEY] as Goal) : Goal.load(o.goalPath);
    // the judge reads the frozen goal; what the person asked for mid-run must not pass unchecked
    const remarks = o.briefPath ? (Brief.load(o.briefPath)?.amendments ?? []).filter((a) => a.label === DEFAULT_AMEND_LABEL) : [];
    const goalBlock = (goal?.complete() ? goal.promptBlock() : t.noGoal)
      + (remarks.length ? `\n\n${t.midRunRemarks(remarks.map((a) => `- (${a.time}) ${a.text.trim()}`).join('\n'))}` : '');
    const j = await rt.run(judgeSpec, t.judgePrompt(goalBlock, r.text.trim() || t.noReply), {
      stepName: `${step.name}·判定#${n}`,
      ...(ctx._onEvent ? { onEvent: ctx._onEvent } : {}),
    });
    const v = channel.takeSubmission('verdict') ?? Verdict.parse(j.ok ? j.text : '');
    ctx[VERDICT_KEY] = v;
    const tally = await recordVerdict(v, j, goal?.checks.length ?? 0, ctx);
    if (v.achieved) return true;
    const firstReason = v.reason.split('\n').find((l) => l.trim() && !l.startsWith(AMBIGUOUS_REASON)) ?? v.reason.split('\n')[0] ?? '';
    ctx._rejected = `${j.ok ? `verdict ${v.state || 'unclear'}${tally.total ? ` (${tally.passed}/${tally.total})` : ''}` : `the judge failed: ${j.error ?? ''}`}${firstReason.trim() ? `: ${firstReason.trim()}` : ''}`;
    if (!v.unreachable) {
      feedback = v.feedback();
      return false;
    }
    const [accept, change] = t.unreachableOptions;
    const a = await channel.ask(t.unreachableQ(v.reason), [...t.unreachableOptions], { framework: true });
    if (a.state !== 'answered') throw new StepAbort(t.nobodyAnswered(v.reason, o.goalPath, o.manifestPath));
    const answer = (a.answer ?? '').trim();
    if (a.optionIndex === 0 || answer === accept) return true;
    if (a.optionIndex === 1 || answer === change) {
      const g2 = await channel.ask(t.newGoalQ, [], { framework: true });
      const extra = (g2.state === 'answered' ? g2.answer ?? '' : '').trim();
      if (extra) {
        const cur = goal ?? new Goal();
        cur.amend(extra);
        keptAside(ctx, cur.write(o.goalPath));
        ctx[GOAL_KEY] = cur;
        feedback = `${t.goalChanged(extra)}\n\n${cur.promptBlock()}`;
      } else {
        feedback = v.feedback();
      }
      return false;
    }
    feedback = t.judgeWrong(answer);
    return false;
  };
  return step.with({
    retries: Math.max(0, (o.rounds ?? 3) - 1),
    gate,
    onReject: (r) => (r === judged ? feedback : t.wakeSilent),
  });
}
