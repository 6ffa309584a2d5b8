/**
 * What a structured submission becomes: the document (Brief, Goal, Verdict, Handoff) a schema-checked
 * tool input describes. Apart from the zod schemas (src/docs/schemas.ts), so a caller that only turns a
 * submission into a document — the Runtime after a handoff round — does not load zod.
 */
import { Brief } from './brief.js';
import { Goal, markUnverifiable } from './goal.js';
import { Handoff } from './handoff.js';
import type { BriefSubmission, GoalSubmission, HandoffSubmission, VerdictSubmission } from './schemas.js';
import { Verdict, type CheckResult } from './verdict.js';

const asList = (items: readonly string[]) =>
  items
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => `- ${s.replace(/^[-*+][ \t]+/, '')}`)
    .join('\n');

export function briefFromSubmission(x: BriefSubmission): Brief {
  return new Brief({
    goal: x.goal,
    acceptance: asList(x.acceptance),
    boundaries: asList(x.boundaries),
    unknowns: asList(x.unknowns),
  });
}

export function goalFromSubmission(x: GoalSubmission): Goal {
  return new Goal({
    statement: x.statement,
    checks: x.checks.map((c) => (c.unverifiable_reason ? markUnverifiable(c.text, c.unverifiable_reason) : c.text)),
  });
}

export const CONTRADICTORY_ACHIEVED = '结论写的是达成,但有判定项没通过或没有证据,按未达成处理。';

/**
 * "achieved" with a failed or undetermined check is not believed: the structured verdict exists
 * precisely so that a pass needs evidence for every item.
 */
export function verdictFromSubmission(x: VerdictSubmission): Verdict {
  const checks: CheckResult[] = x.checks.map((c) => ({ item: c.item, pass: c.pass, evidence: c.evidence }));
  const unproven = checks.some((c) => c.pass !== true);
  if (x.state === 'achieved' && unproven) {
    return new Verdict({ state: 'not_yet', reason: [CONTRADICTORY_ACHIEVED, x.reason].filter(Boolean).join('\n'), checks });
  }
  return new Verdict({ state: x.state, reason: x.reason, checks });
}

export function handoffFromSubmission(x: HandoffSubmission, opts: { step?: string } = {}): Handoff {
  return new Handoff({ ...x, ...(opts.step !== undefined ? { step: opts.step } : {}) });
}

export const fromSubmission = {
  brief: briefFromSubmission,
  goal: goalFromSubmission,
  verdict: verdictFromSubmission,
  handoff: handoffFromSubmission,
} as const;
