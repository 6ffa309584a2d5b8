/**
 * The terminal's side of the human channel, as pure functions: where a typed line goes, and the
 * lines a question, its outcome or a remark print as. The terminal writer (cli/) owns the screen;
 * these own the decisions, so they can be tested as tables.
 *
 * Non-interactive runs (stdin not a TTY: pipes, CI): nobody can answer, so the channel is built with
 * `timeoutS: 0` (see `interactiveTimeout`) and every question ends at once with "nobody is here,
 * decide yourself and record the assumption" — no responder process, nothing that can hang.
 *
 * Glyphs are ASCII only (issue #7: Terminal.app crashed twice in glyph fallback).
 */
import type { Lang } from '../config/index.js';
import { asciiDigits } from './options.js';
import type { Ask, Mail } from './types.js';

export type Route =
  /** `? …` / `？ …`: a side question for the oracle, never an answer */
  | { kind: 'oracle'; question: string }
  /** the pending question gets this text */
  | { kind: 'answer'; id: string; text: string }
  /** a number within the pending question's options; `index` is 0-based */
  | { kind: 'pick'; id: string; index: number; option: string }
  /** an empty line skips the pending question */
  | { kind: 'decline'; id: string }
  /** nothing pending: the text goes to the inbox (channel.send) */
  | { kind: 'mail'; text: string }
  /** stdin closed: decline what is pending (id null when nothing is) and drop the prompt */
  | { kind: 'eof'; id: string | null }
  /** nothing to do (an empty line or a bare `?` with nothing pending) */
  | { kind: 'none' };

/**
 * Where a typed line goes. `line` is null at EOF. The full-width `？` counts as `?`: an IME left in
 * Chinese mode types it, and the original's check compared two ASCII `?`, so those side questions
 * were silently mailed to the agent.
 */
export function routeLine(line: string | null, ctx: { pending: Pick<Ask, 'id' | 'options'> | null }): Route {
  const pending = ctx.pending;
  if (line === null) return { kind: 'eof', id: pending?.id ?? null };
  const s = line.replace(/[\r\n]+$/, '').trim();
  if (s.startsWith('?') || s.startsWith('？')) {
    const question = s.slice(1).trim();
    return question === '' ? { kind: 'none' } : { kind: 'oracle', question };
  }
  if (s === '') return pending ? { kind: 'decline', id: pending.id } : { kind: 'none' };
  if (!pending) return { kind: 'mail', text: s };
  const digits = asciiDigits(s);
  if (/^\d+$/.test(digits)) {
    const n = Number(digits);
    if (n >= 1 && n <= pending.options.length) return { kind: 'pick', id: pending.id, index: n - 1, option: pending.options[n - 1]! };
  }
  return { kind: 'answer', id: pending.id, text: s };
}

/** Split a multi-line text into lines, continuation lines under the first one's text. */
const indent = (text: string, pad: string): string[] =>
  text
    .trimEnd()
    .split(/\r?\n/)
    .map((l, i) => (i === 0 ? l : `${pad}${l}`));

const T = {
  zh: {
    quota: (n: number) => `(还能问 ${n} 次)`,
    hintAsk: (withOptions: boolean) => `回答后回车${withOptions ? ';输入序号选一项' : ''};直接回车跳过`,
    hintIdle: '输入的话会转给 agent 并记进需求;以 ? 开头是旁路提问',
    timeout: '! 无人应答,agent 会自己判断并记下假设',
    overBudget: (q: string) => `! 提问额度用完,这个问题没有问出来:${q}`,
    invalid: '! agent 发来一个空问题,已退回',
    declined: '. 已跳过',
    queued: (id: string) => `+ 收到(${id}),会转给 agent`,
    delivered: (id: string) => `+ 已送达(${id})`,
  },
  en: {
    quota: (n: number) => `(${n} more question${n === 1 ? '' : 's'} allowed)`,
    hintAsk: (withOptions: boolean) => `type an answer and Enter${withOptions ? '; a number picks an option' : ''}; Enter alone skips`,
    hintIdle: 'what you type goes to the agent and into the brief; start with ? for a side question',
    timeout: '! No answer; the agent decides and records the assumption',
    overBudget: (q: string) => `! Question quota used up; not asked: ${q}`,
    invalid: '! The agent sent an empty question; returned',
    declined: '. Skipped',
    queued: (id: string) => `+ Received (${id}); passed on to the agent`,
    delivered: (id: string) => `+ Delivered (${id})`,
  },
} as const;

/** `? question`, numbered options, and `(还能问 N 次)` only when a quota exists. */
export function renderAsk(ask: Pick<Ask, 'question' | 'options' | 'remaining'>, lang: Lang = 'zh'): string[] {
  const lines = indent(`? ${ask.question}`, '  ');
  ask.options.forEach((o, i) => {
    lines.push(...indent(`  ${i + 1}. ${o}`, '     '));
  });
  if (ask.remaining >= 0) lines.push(`  ${T[lang].quota(ask.remaining)}`);
  return lines;
}

/** The line an outcome prints as (`+ answer`, `! …`, `. 已跳过`); a pending question prints as renderAsk. */
export function renderSettled(ask: Pick<Ask, 'question' | 'options' | 'remaining' | 'state' | 'answer'>, lang: Lang = 'zh'): string[] {
  const t = T[lang];
  switch (ask.state) {
    case 'asked':
      return renderAsk(ask, lang);
    case 'answered':
      return indent(`+ ${ask.answer ?? ''}`, '  ');
    case 'timeout':
      return [t.timeout];
    case 'over_budget':
      return indent(t.overBudget(ask.question), '  ');
    case 'invalid':
      return [t.invalid];
    case 'declined':
      return [ask.answer ? `${t.declined}: ${ask.answer}` : t.declined];
  }
}

export function renderMail(mail: Pick<Mail, 'id' | 'state'>, lang: Lang = 'zh'): string {
  return mail.state === 'queued' ? T[lang].queued(mail.id) : T[lang].delivered(mail.id);
}

/** The input line's hint: how to answer while a question is pending, else what typing does. */
export function inputHint(pending: Pick<Ask, 'options'> | null, lang: Lang = 'zh'): string {
  return pending ? T[lang].hintAsk(pending.options.length > 0) : T[lang].hintIdle;
}

/** The channel's timeout for this stdin: without a TTY nobody can answer, so questions end at once. */
export function interactiveTimeout(stdinIsTty: boolean, timeoutS: number | null): number | null {
  return stdinIsTty ? timeoutS : 0;
}
