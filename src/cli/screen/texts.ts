/**
 * What the screen says, in en and zh: friendly names for flower's own tools, verdict lines, the
 * live line and the input prompt. (messages.ts keeps the older lines; these are the screen's own.)
 */
import type { Lang } from '../../config/index.js';
import type { RejectReason } from '../../human/index.js';
import { stepLabel } from '../../state/index.js';

export type Outcome = 'achieved' | 'not_yet' | 'unreachable' | '';

const zh = {
  submittedBrief: '交了需求确认书',
  submittedGoal: (n: number) => `定了目标:${n} 条判定项`,
  submittingVerdict: '交了判定',
  wroteHandoff: '写了交接书',
  checkedInbox: '看了收件箱',
  dispatch: (type: string, desc: string) => `派人 ${type}${desc ? `:${desc}` : ''}`,
  plan: (n: number) => `更新了计划(${n} 项)`,
  rejected: (what: string, why: string) => `${what}被退回:${why}`,
  docName: { brief: '需求确认书', goal: '目标', verdict: '判定', handoff: '交接书' } as Record<'brief' | 'goal' | 'verdict' | 'handoff', string>,
  docShort: { brief: '需求确认书', goal: '目标', verdict: '判定', handoff: '交接书' } as Record<'brief' | 'goal' | 'verdict' | 'handoff', string>,
  refused: (what: string, list: string) => `${what}没收下:${list}`,
  issueSep: '; ',
  reason: {
    required: '缺了',
    expected_list: '应为列表',
    expected_text: '应为文字',
    expected_object: '应为对象',
    expected_boolean: '应为 true 或 false',
    expected_number: '应为数字',
    empty: '不能为空',
    empty_list: '至少要一条',
    not_allowed: '取值不对',
    invalid: '不合格',
  } as Record<RejectReason, string>,
  oneOf: (xs: readonly string[]) => `只能是 ${xs.join(' / ')}`,
  seeLog: '(详见 flower log)',
  outcome: { achieved: '达成', not_yet: '未达成', unreachable: '无法达成', '': '没有明确结论' } as Record<Outcome, string>,
  verdict: (o: string, passed: number, total: number) => `判定:${o}${total ? ` — ${passed}/${total} 条通过` : ''}`,
  verdictWord: '判定',
  round: (n: number) => `第 ${n} 轮`,
  waiting: '等你回答',
  quiet: (s: string) => `安静 ${s}`,
  timeLeft: (s: string) => `还剩 ${s}`,
  ctx: '上下文',
  promptIdle: '> ',
  promptAsk: (id: string) => `${id}> `,
  inputIdle: '打字 = 捎话给它 · ? 问 = 旁路提问 · Ctrl-C = 打断',
  inputAsk: (n: number) => `${n ? `数字 1-${n} 选一项,或` : ''}直接回答 · 回车跳过`,
  failedStep: (step: string, why: string, next: string) => `x 步骤 '${step}' 失败:${why} — ${next}`,
  limitStop: (step: string, why: string) => `x 在步骤 '${step}' 停下:${why}(会话都在,什么也没丢)`,
  continueHint: (cmd: string) => `在这里再运行 \`${cmd}\` 接着做`,
  stepRejected: '结果没通过检查',
  notAccepted: (step: string) => `${step} 没通过,再来一轮`,
  lastVerdict: (o: string, passed: number, total: number) => `最近判定:${o}${total ? ` ${passed}/${total}` : ''}`,
  /** a step's name on screen (src/state/steps.ts) */
  step: (name: string) => stepLabel(name, 'zh'),
  moreLines: (n: number) => `… 还有 ${n} 行`,
} as const;

type Catalog = { [K in keyof typeof zh]: (typeof zh)[K] extends string ? string : (typeof zh)[K] };

const en: Catalog = {
  submittedBrief: 'submitted the brief',
  submittedGoal: (n: number) => `set the goal: ${n} checks`,
  submittingVerdict: 'handed in a verdict',
  wroteHandoff: 'wrote the handoff',
  checkedInbox: 'checked the inbox',
  dispatch: (type: string, desc: string) => `dispatch ${type}${desc ? `: ${desc}` : ''}`,
  plan: (n: number) => `updated the plan (${n} items)`,
  rejected: (what: string, why: string) => `${what} was rejected: ${why}`,
  docName: { brief: 'the brief', goal: 'the goal', verdict: 'the verdict', handoff: 'the handoff' },
  docShort: { brief: 'brief', goal: 'goal', verdict: 'verdict', handoff: 'handoff' },
  refused: (what: string, list: string) => `${what} not accepted: ${list}`,
  issueSep: '; ',
  reason: {
    required: 'required',
    expected_list: 'expected a list',
    expected_text: 'expected text',
    expected_object: 'expected an object',
    expected_boolean: 'expected true or false',
    expected_number: 'expected a number',
    empty: 'empty',
    empty_list: 'needs at least one item',
    not_allowed: 'not an allowed value',
    invalid: 'invalid',
  },
  oneOf: (xs: readonly string[]) => `one of ${xs.join(' / ')}`,
  seeLog: '(more: flower log)',
  outcome: { achieved: 'achieved', not_yet: 'not yet', unreachable: 'unreachable', '': 'no clear verdict' },
  verdict: (o: string, passed: number, total: number) => `verdict: ${o}${total ? ` — ${passed}/${total} checks` : ''}`,
  verdictWord: 'verdict',
  round: (n: number) => `round ${n}`,
  waiting: 'waiting for you',
  quiet: (s: string) => `quiet ${s}`,
  timeLeft: (s: string) => `${s} left`,
  ctx: 'ctx',
  promptIdle: '> ',
  promptAsk: (id: string) => `${id}> `,
  inputIdle: 'type = tell it · ? asks aside · Ctrl-C interrupts',
  inputAsk: (n: number) => `${n ? `a digit 1-${n} picks, or ` : ''}type an answer · Enter skips`,
  failedStep: (step: string, why: string, next: string) => `x step '${step}' failed: ${why} — ${next}`,
  limitStop: (step: string, why: string) => `x stopped at step '${step}': ${why} (every session is kept; nothing is lost)`,
  continueHint: (cmd: string) => `run \`${cmd}\` here to continue`,
  stepRejected: 'the result did not pass its check',
  notAccepted: (step: string) => `${step} not accepted; another round`,
  lastVerdict: (o: string, passed: number, total: number) => `last verdict: ${o}${total ? ` ${passed}/${total}` : ''}`,
  step: (name: string) => stepLabel(name, 'en'),
  moreLines: (n: number) => `… ${n} more ${n === 1 ? 'line' : 'lines'}`,
};

export type ScreenTexts = Catalog;

export function screenTexts(lang: Lang): ScreenTexts {
  return lang === 'zh' ? zh : en;
}
