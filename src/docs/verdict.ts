/**
 * A judge's verdict: achieved / not_yet / unreachable, or '' when no clear conclusion was found.
 * '' is never a pass — "can't tell" is not "done", and a vague sentence must not close the work.
 *
 * Words are matched on word boundaries: the original matched `no` inside "nothing" and "unknown",
 * so "nothing is missing" read as not_yet. `yes`/`no` now count only as the whole conclusion or
 * its leading word, and negated English ("not achieved") is a not_yet phrase of its own — with
 * boundaries, "not achieved" would otherwise hit `achieved`.
 */
import { bullets, headingTable, splitSections, stripFences } from './sections.js';

export type VerdictState = 'achieved' | 'not_yet' | 'unreachable' | '';

export interface CheckResult {
  item: string;
  /** null: could not be determined — counted as not passed. */
  pass: boolean | null;
  evidence: string;
}

export interface VerdictFields {
  state: VerdictState;
  reason: string;
  failed: string[];
  checks?: CheckResult[];
}

type VerdictSection = 'state' | 'reason' | 'failed';

export const VERDICT_NAMES: Readonly<Record<VerdictSection, string>> = { state: '结论', reason: '理由', failed: '未通过' };

export const VERDICT_HEADINGS = headingTable<VerdictSection>({
  state: ['结论', '判定', 'verdict', 'conclusion'],
  reason: ['理由', '依据', 'reason', 'reasons', 'rationale'],
  failed: ['未通过', 'failed', 'failed checks', 'failed items'],
});

export const AMBIGUOUS_REASON = '判定者没有给出明确结论,按未达成处理。';
export const NO_REASON = '(没给理由)';

// ASCII words need boundaries; CJK has no spaces, so a CJK word is a plain substring.
const w = (src: string) => new RegExp(`(?<![a-z0-9_])(?:${src})(?![a-z0-9_])`);
const cjk = (...words: string[]) => new RegExp(words.join('|'));

/** Fixed priority: unreachable, then not_yet, then achieved (未达成 and 无法达成 contain 达成). */
const STATE_WORDS: readonly (readonly [RegExp, Exclude<VerdictState, ''>])[] = [
  // "Can't verify here" is unreachable, never a pass (HT001: the judge read a Darwin branch in
  // the source and passed a Linux ELF).
  [cjk('无法验证', '没法验证', '验证不了', '无法判定', '无法达成', '不可达成', '不能达成', '不可能达成', '达不成', '做不到'), 'unreachable'],
  [w("unverifiable|unreachable|impossible|unachievable|not achievable|can(?:not|'t| not) be (?:achieved|verified|reached|met)"), 'unreachable'],
  [cjk('尚未达成', '未达成', '没达成', '没有达成', '并未达成'), 'not_yet'],
  [
    /(?<![a-z0-9_])(?:not[ _-]yet|unmet|unachieved)(?![a-z0-9_])|(?:(?<![a-z0-9_])not|n['’]t)(?:\s+(?:been|yet|fully|be|all))*\s+(?:achieved|met|reached|satisfied|done|completed?)(?![a-z0-9_])/,
    'not_yet',
  ],
  [cjk('已达成', '达成'), 'achieved'],
  [w('achieved'), 'achieved'],
];

const EXACT: ReadonlyMap<string, Exclude<VerdictState, ''>> = new Map([
  ['1', 'achieved'],
  ['true', 'achieved'],
  ['yes', 'achieved'],
  ['是', 'achieved'],
  ['0', 'not_yet'],
  ['false', 'not_yet'],
  ['no', 'not_yet'],
  ['否', 'not_yet'],
]);

function bare(text: string): string {
  return text
    .toLowerCase()
    .replace(/[*_`【】[\]"'“”。.!！,，;；:：\s]+/g, ' ')
    .trim();
}

/** The state named by a conclusion text, '' when it names none. */
export function classifyVerdict(text: string, opts: { standaloneDigits?: boolean } = {}): VerdictState {
  const low = text.toLowerCase();
  const whole = bare(text);
  const exact = EXACT.get(whole);
  if (exact) return exact;
  for (const [re, state] of STATE_WORDS) if (re.test(low)) return state;
  const lead = /^(yes|no)(?![a-z0-9_])/.exec(whole);
  if (lead) return lead[1] === 'yes' ? 'achieved' : 'not_yet';
  // Only a lone digit: "1 of 4 checks failed" must not read as 1 = achieved.
  if (opts.standaloneDigits && (text.match(/\d+/g) ?? []).length === 1) {
    if (/(?<![\w./])1(?![\w./%])/.test(text)) return 'achieved';
    if (/(?<![\w./])0(?![\w./%])/.test(text)) return 'not_yet';
  }
  return '';
}

/** What the worker is told after a rejection, in the terminal's language (the seed's wording in zh). */
const FEEDBACK = {
  zh: {
    head: '上一轮的产出没有达成目标。判定者给的理由:',
    noReason: NO_REASON,
    failed: '没通过的判定项:',
    seen: (ev: string) => `(看到的:${ev})`,
    next: '接着做:只补上面这些差距。不要重头开始,也不要扩大范围。',
  },
  en: {
    head: "The last round did not reach the goal. The judge's reason:",
    noReason: '(no reason given)',
    failed: 'Checks that did not pass:',
    seen: (ev: string) => ` (seen: ${ev})`,
    next: 'Go on: close only these gaps. Do not start over, and do not widen the scope.',
  },
} as const;

// A bare "无" / "none" in 未通过 means nothing failed, not a failed item named "无".
const NONE_ITEM = /^(?:无|没有|暂无|none|n\/a|nothing|-)$/i;

export class Verdict {
  state: VerdictState;
  reason: string;
  failed: string[];
  declare checks?: CheckResult[];

  constructor(init: Partial<VerdictFields> = {}) {
    this.state = init.state ?? '';
    this.reason = (init.reason ?? '').trim();
    this.failed = [...(init.failed ?? [])];
    if (init.checks !== undefined) this.checks = init.checks.map((c) => ({ ...c }));
    if (this.failed.length === 0 && this.checks) {
      this.failed = this.checks.filter((c) => c.pass !== true).map((c) => c.item);
    }
    if (this.state === '' && !this.reason.startsWith(AMBIGUOUS_REASON)) {
      this.reason = this.reason === '' ? AMBIGUOUS_REASON : `${AMBIGUOUS_REASON}\n${this.reason}`;
    }
  }

  /** A clear conclusion was found (any of the three). Not the same as achieved. */
  get ok(): boolean {
    return this.state !== '';
  }

  get achieved(): boolean {
    return this.state === 'achieved';
  }

  get unreachable(): boolean {
    return this.state === 'unreachable';
  }

  /**
   * How many checks passed, of how many: from the per-check results when the judge gave them, else
   * the goal's check count less the failed items (a markdown verdict lists only what failed).
   * An unclear verdict passes nothing it did not show.
   */
  tally(goalChecks = 0): { passed: number; total: number } {
    if (this.checks && this.checks.length > 0) {
      return { passed: this.checks.filter((c) => c.pass === true).length, total: this.checks.length };
    }
    const total = Math.max(goalChecks, this.failed.length);
    if (total === 0) return { passed: 0, total: 0 };
    if (this.state === 'achieved') return { passed: total - this.failed.length, total };
    return { passed: this.failed.length > 0 ? total - this.failed.length : 0, total };
  }

  /**
   * Sections 结论 / 理由 / 未通过. Without a 结论 section the text before the first heading (or,
   * when there is none, the whole text) is read for the conclusion; a bare `1`/`true` or
   * `0`/`false` reply is accepted — a judge told "answer 0/1" may do exactly that.
   */
  static parse(text: string): Verdict {
    const split = splitSections(text ?? '', VERDICT_HEADINGS);
    const first = (k: VerdictSection) => split.sections.find((s) => s.key === k && s.body !== '')?.body ?? '';
    const stateText = first('state');
    const state =
      stateText !== ''
        ? classifyVerdict(stateText, { standaloneDigits: true })
        : classifyVerdict(split.preamble !== '' ? split.preamble : stripFences(text ?? '').trim());
    return new Verdict({
      state,
      reason: first('reason'),
      failed: bullets(first('failed')).filter((f) => !NONE_ITEM.test(f)),
    });
  }

  /**
   * What the worker is told after a rejection: the judge's reason and the failed items, and to
   * close only those gaps. No proposed fixes — how to close them is the worker's job.
   */
  feedback(lang: 'zh' | 'en' = 'zh'): string {
    const t = FEEDBACK[lang];
    const parts = [t.head, '', this.reason || t.noReason];
    const evidence = new Map((this.checks ?? []).map((c) => [c.item, c.evidence.trim()]));
    if (this.failed.length > 0) {
      parts.push('', t.failed);
      for (const f of this.failed) {
        const ev = evidence.get(f);
        parts.push(ev ? `- ${f}${t.seen(ev)}` : `- ${f}`);
      }
    }
    parts.push('', t.next);
    return parts.join('\n');
  }
}
