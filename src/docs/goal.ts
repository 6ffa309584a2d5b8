/**
 * 目标 (notes/目标.md): one sentence saying what "done" looks like, plus a checklist an
 * independent judge can run and observe. The brief guards "are we building the right thing";
 * this guards "is it done" — the worker's own "done" is systematically optimistic.
 */
import path from 'node:path';
import { readDocument, replaceDocument, type Written } from './io.js';
import { bullets, headingTable, parseSections } from './sections.js';

export type GoalSection = 'statement' | 'checks';

export const GOAL_NAMES: Readonly<Record<GoalSection, string>> = { statement: '目标', checks: '判定清单' };

export const GOAL_HEADINGS = headingTable<GoalSection>({
  checks: ['判定清单', '判定条件', '验收清单', '检查项', '判定', 'checklist', 'checks'],
  statement: ['目标', '完成标志', 'goal'],
});

/**
 * Marks a check that cannot be verified in this environment: `[此环境无法验证:原因]` or
 * `[cannot verify here: reason]`. Such a check's fate is sealed at goal time — HT002 found 4 of
 * 15 items unverifiable only after $37 of work — so they are surfaced right away.
 */
export const UNVERIFIABLE =
  /\[\s*(?:(?:此环境)?无法验证|(?:cannot|can't|can not)\s+(?:be\s+)?verif(?:y|ied)(?:\s+(?:here|in this environment))?)\s*(?:[:：]\s*([^\]]*))?\]?/i;

/** The reason given in a check's unverifiable mark, '' when none was given, null when unmarked. */
export function unverifiableReason(check: string): string | null {
  const m = UNVERIFIABLE.exec(check);
  return m ? (m[1] ?? '').trim() : null;
}

/** Append the canonical mark to a check (structured submissions carry the reason separately). */
export function markUnverifiable(check: string, reason: string): string {
  return `${check.trim()} [此环境无法验证:${reason.trim() || '未说明'}]`;
}

export interface GoalFields {
  statement: string;
  checks: string[];
}

/** Null when `text` is a 目标.md flower may replace (a complete goal); else why it is not flower's. */
export function goalForeign(text: string): string | null {
  const g = Goal.parse(text);
  return g.complete() ? null : `is not a complete goal (missing: ${g.missing().join(', ')}) — a file flower did not write`;
}

export class Goal {
  statement: string;
  checks: string[];
  path: string | null = null;

  constructor(init: Partial<GoalFields> = {}) {
    this.statement = (init.statement ?? '').trim();
    this.checks = (init.checks ?? []).map((c) => c.trim()).filter((c) => c !== '');
  }

  static parse(text: string): Goal {
    const sec = parseSections(text, GOAL_HEADINGS);
    return new Goal({ statement: sec.statement ?? '', checks: bullets(sec.checks ?? '') });
  }

  get unverifiable(): string[] {
    return this.checks.filter((c) => UNVERIFIABLE.test(c));
  }

  missing(): string[] {
    const out: string[] = [];
    if (this.statement.trim() === '') out.push(GOAL_NAMES.statement);
    if (this.checks.length === 0) out.push(GOAL_NAMES.checks);
    return out;
  }

  /** A statement and at least one check. */
  complete(): boolean {
    return this.missing().length === 0;
  }

  /** The human changed the goal: appended, not replaced — seeing what changed beats losing it. */
  amend(extra: string): this {
    const x = (extra ?? '').trim();
    if (x !== '') this.statement = `${this.statement.trim()}\n\n(已修改)${x}`;
    return this;
  }

  toMarkdown(): string {
    const lines = [`# ${GOAL_NAMES.statement}`, this.statement.trim(), '', `# ${GOAL_NAMES.checks}`];
    lines.push(...(this.checks.length > 0 ? this.checks.map((c) => `- ${c}`) : ['(空)']));
    return lines.join('\n') + '\n';
  }

  promptBlock(): string {
    const out = [`## ${GOAL_NAMES.statement}`, this.statement.trim()];
    if (this.checks.length > 0) out.push('', `## ${GOAL_NAMES.checks}`, ...this.checks.map((c) => `- ${c}`));
    return out.join('\n');
  }

  /** null when missing, unreadable or damaged. */
  static load(file: string): Goal | null {
    const abs = path.resolve(file);
    const r = readDocument(abs);
    if (r.status !== 'ok') return null;
    const g = Goal.parse(r.text);
    g.path = abs;
    return g;
  }

  write(file: string, opts: { now?: Date } = {}): Written {
    // a 目标.md flower did not write (not a complete goal) is moved aside first, never overwritten
    const w = replaceDocument(file, () => this.toMarkdown(), opts.now, { foreign: goalForeign });
    this.path = w.path;
    return w;
  }
}
