/**
 * The judge's verdict held against the frozen goal. "Done" means a fresh judge verified it, so a
 * verdict is achieved only when EVERY check of the goal was judged, passed, and carries evidence;
 * anything less is not yet, with the reason. Pure: no I/O.
 *
 * Why: a fuzzing model found the guarantee broken (issue 19) — `{state: "achieved", checks: []}` was
 * tallied as 2/2 passed (an empty list proves nothing), `pass: true` with empty evidence was
 * achieved, and a verdict that judged one of two checks was achieved 1/1: nothing compared the
 * verdict's checks with the goal's.
 */
import type { Lang } from '../config/lang.js';
import { UNVERIFIABLE } from './goal.js';
import { Verdict, type CheckResult } from './verdict.js';

export interface VerdictReview {
  /** the verdict as the gate believes it: its checks are the goal's, in the goal's order */
  verdict: Verdict;
  /** why an achieved verdict was not believed (empty when it was, or when it did not claim achieved) */
  problems: string[];
}

const TEXT = {
  en: {
    notJudged: (item: string) => `not judged: ${item}`,
    notPassed: (item: string) => `not passed: ${item}`,
    noEvidence: (item: string) => `no evidence: ${item}`,
    noChecks: 'no check was judged',
    notProven: 'The verdict says achieved, but not every check of the goal was judged, passed and shown with evidence, so it counts as not yet:',
  },
  zh: {
    notJudged: (item: string) => `没有判定:${item}`,
    notPassed: (item: string) => `没有通过:${item}`,
    noEvidence: (item: string) => `没有证据:${item}`,
    noChecks: '一条判定项也没有判定',
    notProven: '结论写的是达成,但目标的判定项没有逐条判定、通过并给出证据,按未达成处理:',
  },
} as const;

/** A check's text as the judge may write it back: no bullet or number, no mark, case and spacing folded. */
export function normalizeCheck(s: string): string {
  return s
    .replace(UNVERIFIABLE, ' ')
    .replace(/^\s*(?:[-*+]|\d+[.)、]|\[[ xX]\])\s*/, '')
    .replace(/[`*_]/g, '')
    .replace(/[\s。.;；,，:：!！]+$/u, '')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** The shortest text a containment match may rest on: shorter ones match too much. */
const MIN_CONTAINED = 6;

/** For each goal check, the judged check that names it (each judged check used once), or undefined. */
export function matchChecks(goal: readonly string[], judged: readonly CheckResult[]): (CheckResult | undefined)[] {
  const used = new Set<number>();
  const norm = judged.map((c) => normalizeCheck(c.item));
  const find = (accept: (n: string) => boolean): number => norm.findIndex((n, i) => !used.has(i) && accept(n));
  const out = goal.map(() => undefined as CheckResult | undefined);
  // exact matches first, so a containment match cannot take a check another goal item names exactly
  goal.forEach((item, gi) => {
    const g = normalizeCheck(item);
    const i = find((n) => n === g);
    if (i >= 0) {
      used.add(i);
      out[gi] = judged[i];
    }
  });
  goal.forEach((item, gi) => {
    if (out[gi]) return;
    const g = normalizeCheck(item);
    const i = find((n) => Math.min(n.length, g.length) >= MIN_CONTAINED && (n.includes(g) || g.includes(n)));
    if (i >= 0) {
      used.add(i);
      out[gi] = judged[i];
    }
  });
  return out;
}

/**
 * The verdict the gate believes. A not_yet or unreachable verdict stands as given (its checks mapped
 * onto the goal's); an achieved one stands only when every goal check is judged, passed and evidenced —
 * otherwise it becomes not_yet, the problems leading its reason. Without goal checks, an achieved
 * verdict needs at least one judged check, each passed with evidence.
 */
export function reviewVerdict(v: Verdict, goalChecks: readonly string[], lang: Lang): VerdictReview {
  const t = TEXT[lang];
  const judged = v.checks ?? [];
  const goal = goalChecks.length > 0 ? goalChecks : judged.map((c) => c.item);
  const matched = matchChecks(goal, judged);
  const checks: CheckResult[] = goal.map((item, i) => {
    const c = matched[i];
    return c ? { item, pass: c.pass, evidence: c.evidence } : { item, pass: null, evidence: '' };
  });
  if (v.state !== 'achieved') {
    return { verdict: new Verdict({ state: v.state, reason: v.reason, failed: v.checks ? [] : v.failed, checks }), problems: [] };
  }
  const problems: string[] = [];
  if (goal.length === 0) problems.push(t.noChecks);
  goal.forEach((item, i) => {
    const c = matched[i];
    if (!c) problems.push(t.notJudged(item));
    else if (c.pass !== true) problems.push(t.notPassed(item));
    else if (!c.evidence.trim()) problems.push(t.noEvidence(item));
  });
  if (problems.length === 0) return { verdict: new Verdict({ state: 'achieved', reason: v.reason, checks }), problems };
  // a passed check without evidence is not a pass here: the tally must not count it
  const believed = checks.map((c) => (c.pass === true && !c.evidence.trim() ? { ...c, pass: null } : c));
  const reason = [t.notProven, ...problems.map((p) => `- ${p}`), v.reason].filter((s) => s.trim() !== '').join('\n');
  return { verdict: new Verdict({ state: 'not_yet', reason, checks: believed }), problems };
}
