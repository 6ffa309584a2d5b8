/**
 * The judge's submit_verdict, held against the frozen goal the moment it arrives (docs/review): an
 * achieved verdict that does not judge, pass and evidence every check is kept as not yet, and the
 * judge is told why — the first time as an error it can fix in the same turn (one chance), then as the
 * record. The gate (workflow/starter) reviews whatever it takes once more.
 */
import type { Lang } from '../config/index.js';
import { reviewVerdict, type Verdict } from '../docs/index.js';
import type { Review } from './submissions.js';

const TEXT = {
  en: {
    fix: (p: string[]) =>
      `Not received as achieved — ${p.join('; ')}. Judge every check of the goal, each with the evidence you saw, and call submit_verdict again (once); until then it counts as not_yet.`,
    recorded: (p: string[]) => `Recorded as not_yet — ${p.join('; ')}.`,
  },
  zh: {
    fix: (p: string[]) =>
      `没有按"达成"收下——${p.join(';')}。逐条判定目标的每个判定项、写上看到的证据,再调用一次 submit_verdict(只有这一次机会);在那之前按未达成记。`,
    recorded: (p: string[]) => `按未达成记下——${p.join(';')}。`,
  },
} as const;

export class VerdictReviewer {
  private checks: readonly string[] = [];
  private sentBack = false;

  constructor(private readonly lang: Lang) {}

  /** The frozen goal's checks the next verdicts are held against; gives the judge its one chance to fix again. */
  expect(checks: readonly string[]): void {
    this.checks = [...checks];
    this.sentBack = false;
  }

  readonly review: Review<'verdict'> = (v: Verdict) => {
    const r = reviewVerdict(v, this.checks, this.lang);
    if (r.problems.length === 0) return { doc: r.verdict };
    const first = !this.sentBack;
    this.sentBack = true;
    return { doc: r.verdict, isError: first, say: first ? TEXT[this.lang].fix(r.problems) : TEXT[this.lang].recorded(r.problems) };
  };
}
