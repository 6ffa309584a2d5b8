/**
 * The judge gate of 干活: after every work round a FRESH judge session (never resumed across rounds,
 * never in lineage — its value is not knowing how hard the worker tried) judges the frozen goal.
 * achieved → pass; not yet → the same work session continues with the judge's feedback; unreachable →
 * ask the human; nobody answers → stop without spending the remaining rounds.
 *
 * "Done" means a fresh judge verified it (issue 19): a verdict is held against the goal's checks
 * (docs/review) — when the judge submits it (the channel's reviewer tells it once what is missing) and
 * here again. A judge round that gives no valid verdict is told once, in the same session, to submit
 * one; if it still does not, its row is a failed row with a typed `model` failure and the flow stops
 * cleanly — never `ok: true` with no verdict, never another work round judged by nobody.
 */
import type { Lang } from '../../config/index.js';
import { AMBIGUOUS_REASON, Brief, DEFAULT_AMEND_LABEL, Goal, reviewVerdict, Verdict } from '../../docs/index.js';
import { ConfigError } from '../../errors.js';
import { judge } from '../../roles/index.js';
import { event, failure, type AgentSpec, type StepResult } from '../../runtime/index.js';
import { limitOf, type WorkflowContext, type WorkflowRuntime } from '../context.js';
import { type Step, StepAbort } from '../step.js';
import { texts } from './prompts.js';
import { GOAL_KEY, ROUND_KEY, VERDICT_KEY, failurePolicy, keptAside, stepSpec, type FlowChannel, type StarterStepOptions } from './steps.js';
import { judgeStepName } from '../../state/index.js';

export interface WithGoalOptions extends StarterStepOptions {
  /** for the standard judge: may run the artifact with Bash (default false) */
  canRun?: boolean;
  goalPath: string;
  /** 需求.md: remarks the person sent during the run (运行中补充) reach the judge with the goal */
  briefPath?: string;
  manifestPath: string;
  /** total work rounds (0 and 1 both mean one); `retries` says the same as rounds − 1 */
  rounds?: number;
  lang: Lang;
}

const SUBMIT_VERDICT = 'mcp__human__submit_verdict';

/**
 * The verdict where people look: on the judge's manifest row (`verdict`: outcome and pass count over the
 * goal's checks) and as an event with the judge's own cost, so the screen shows "verdict: achieved — 5/5".
 */
async function recordVerdict(v: Verdict, j: StepResult, ctx: WorkflowContext): Promise<{ passed: number; total: number }> {
  const { passed, total } = v.tally();
  if (v.state !== '') await ctx._runtime?.amend?.(j, { verdict: { outcome: v.state, passed, total } });
  const secs = j.ended_at ? (Date.parse(j.ended_at) - Date.parse(j.started_at)) / 1000 : 0;
  ctx._onEvent?.(
    event('task', `${j.step}: ${v.state} ${passed}/${total}`, {
      kind: 'verdict',
      step: j.step,
      outcome: v.state,
      passed,
      total,
      reason: v.reason,
      failed: v.failed,
      ok: j.ok,
      error: j.error,
      cost_usd: j.cost_usd,
      num_turns: j.num_turns,
      duration_s: Number.isFinite(secs) ? secs : 0,
    }),
  );
  return { passed, total };
}

/**
 * The round's verdict, believed: the submitted one, else a clear prose verdict; held against the goal.
 * Null: none — and none from a judge run that failed (a fuzzing model's judge submitted, then its
 * session was refused: the flow exited 0 "achieved" on a failed row, issue 19).
 */
function verdictOf(channel: FlowChannel, j: StepResult, checks: readonly string[], lang: Lang, prose: boolean): Verdict | null {
  const submitted = channel.takeSubmission('verdict');
  if (!j.ok) return null;
  if (submitted && submitted.state !== '') return reviewVerdict(submitted, checks, lang).verdict;
  if (!prose) return null;
  const parsed = Verdict.parse(j.text);
  return parsed.state === '' ? null : reviewVerdict(parsed, checks, lang).verdict;
}

interface JudgeRound {
  verdict: Verdict | null;
  /** the row the verdict (or the failure) is recorded on: the last judge run of the round */
  row: StepResult;
}

/**
 * Run the judge; a judge that ran but submitted nothing is told once, in the same session, to submit.
 * Its prose is read as a verdict only when it cannot submit at all (a judge without the channel's tool).
 */
async function judgeRound(
  rt: WorkflowRuntime,
  spec: AgentSpec,
  channel: FlowChannel,
  prompt: string,
  stepName: string,
  checks: readonly string[],
  lang: Lang,
  ctx: WorkflowContext,
): Promise<JudgeRound> {
  const prose = !channel.toolNames.includes(SUBMIT_VERDICT);
  const opts = { stepName, ...(ctx._onEvent ? { onEvent: ctx._onEvent } : {}) };
  channel.verdictReviewer?.expect(checks);
  // a verdict submitted before this judge ran is nobody's: it must not judge this round
  channel.takeSubmission('verdict');
  const j = await rt.run(spec, prompt, opts);
  const v = verdictOf(channel, j, checks, lang, prose);
  if (v || !j.ok || prose || !j.session_id) return { verdict: v, row: j };
  // this run gave no verdict: its row says so (never ok with no document), whatever the reminder brings
  const why = texts(lang).noVerdict;
  await ctx._runtime?.amend?.(j, { ok: false, error: why, failure: failure('model', why) });
  const again = await rt.run(spec, texts(lang).verdictMissing, { ...opts, resume: j.session_id });
  return { verdict: verdictOf(channel, again, checks, lang, prose), row: again };
}

/** The goal block the judge reads: the frozen goal, and what the person added mid-run. */
function goalBlockFor(goal: Goal | null, o: WithGoalOptions): string {
  const t = texts(o.lang);
  const remarks = o.briefPath ? (Brief.load(o.briefPath)?.amendments ?? []).filter((a) => a.label === DEFAULT_AMEND_LABEL) : [];
  return (
    (goal?.complete() ? goal.promptBlock() : t.noGoal) +
    (remarks.length ? `\n\n${t.midRunRemarks(remarks.map((a) => `- (${a.time}) ${a.text.trim()}`).join('\n'))}` : '')
  );
}

/** The work rounds: `rounds`, or `retries` + 1; both given must agree. */
function roundsOf(step: Step, o: WithGoalOptions): number {
  const fromRetries = o.retries !== undefined ? o.retries + 1 : undefined;
  if (o.rounds !== undefined && fromRetries !== undefined && Math.max(1, o.rounds) !== fromRetries) {
    throw new ConfigError(
      'bad-step',
      `withGoal('${step.name}'): rounds ${o.rounds} and retries ${o.retries} disagree (rounds = retries + 1); give one of them.`,
      {
        field: 'retries',
        step: step.name,
      },
    );
  }
  return o.rounds ?? fromRetries ?? 3;
}

/**
 * The judged work step. `judgeSpec` null or undefined: the standard judge,
 * `judge('<step>·判定', { channel, canRun, lang, submits: ['verdict'], instructions })`.
 */
export function withGoal(step: Step, judgeSpec: AgentSpec | null | undefined, channel: FlowChannel, o: WithGoalOptions): Step {
  const t = texts(o.lang);
  const rounds = roundsOf(step, o);
  const spec = stepSpec(judgeSpec, o.instructions, () =>
    judge(`${step.name}·判定`, {
      channel,
      canRun: o.canRun ?? false,
      lang: o.lang,
      submits: ['verdict'],
      ...(o.instructions ? { instructions: o.instructions } : {}),
    }),
  );
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
    const checks = goal?.complete() ? goal.checks : [];
    const round = await judgeRound(
      rt,
      spec,
      channel,
      t.judgePrompt(goalBlockFor(goal, o), r.text.trim() || t.noReply),
      judgeStepName(step.name, n),
      checks,
      o.lang,
      ctx,
    );
    if (!round.verdict) return noVerdict(round.row, ctx, o.lang);
    const v = round.verdict;
    ctx[VERDICT_KEY] = v;
    const tally = await recordVerdict(v, round.row, ctx);
    if (v.achieved) return true;
    const firstReason = v.reason.split('\n').find((l) => l.trim() && !l.startsWith(AMBIGUOUS_REASON)) ?? '';
    ctx._rejected = `verdict ${v.state}${tally.total ? ` (${tally.passed}/${tally.total})` : ''}${firstReason.trim() ? `: ${firstReason.trim()}` : ''}`;
    if (!v.unreachable) {
      feedback = v.feedback(o.lang);
      return false;
    }
    const next = await unreachable(v, goal, ctx, channel, o);
    feedback = next.feedback;
    return next.pass;
  };
  const { onFail } = failurePolicy(o);
  return step.with({
    ...(onFail !== undefined ? { onFail } : {}),
    retries: Math.max(0, rounds - 1),
    gate,
    onReject: (r) => (r === judged ? feedback : t.wakeSilent),
  });
}

/** No valid verdict after the one reminder: the judge row fails with a typed `model` failure, and the flow stops cleanly. */
async function noVerdict(row: StepResult, ctx: WorkflowContext, lang: Lang): Promise<never> {
  const t = texts(lang);
  // the judge ran out of the run's budget or time: that stops the wake, not the judge's contract
  const limit = ctx._runtime ? limitOf(ctx._runtime, row) : null;
  if (limit) {
    ctx._limit = limit;
    throw new StepAbort(limit.message);
  }
  const why = row.ok ? t.noVerdict : t.judgeFailed(row.error ?? row.failure?.message ?? 'failed');
  if (row.ok) await ctx._runtime?.amend?.(row, { ok: false, error: why, failure: failure('model', why) });
  throw new StepAbort(t.noVerdictStop(row.step, why));
}

/** Unreachable: the person decides — accept, change the goal, or overrule the judge. */
async function unreachable(
  v: Verdict,
  goal: Goal | null,
  ctx: WorkflowContext,
  channel: FlowChannel,
  o: WithGoalOptions,
): Promise<{ pass: boolean; feedback: string }> {
  const t = texts(o.lang);
  const [accept, change] = t.unreachableOptions;
  const a = await channel.ask(t.unreachableQ(v.reason), [...t.unreachableOptions], { framework: true });
  if (a.state !== 'answered') throw new StepAbort(t.nobodyAnswered(v.reason, o.goalPath, o.manifestPath));
  const answer = (a.answer ?? '').trim();
  if (a.optionIndex === 0 || answer === accept) return { pass: true, feedback: '' };
  if (a.optionIndex === 1 || answer === change) {
    const g2 = await channel.ask(t.newGoalQ, [], { framework: true });
    const extra = (g2.state === 'answered' ? (g2.answer ?? '') : '').trim();
    if (!extra) return { pass: false, feedback: v.feedback(o.lang) };
    const cur = goal ?? new Goal();
    cur.amend(extra);
    keptAside(ctx, cur.write(o.goalPath));
    ctx[GOAL_KEY] = cur;
    return { pass: false, feedback: `${t.goalChanged(extra)}\n\n${cur.promptBlock()}` };
  }
  return { pass: false, feedback: t.judgeWrong(answer) };
}
