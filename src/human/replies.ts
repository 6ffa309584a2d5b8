/**
 * Everything the model reads from the human channel: tool descriptions and the fixed replies.
 *
 * The fall-through replies all say the same thing in substance — decide yourself, write the
 * assumption under 未知与假设, don't re-ask — because a model told only "no answer" tends to ask
 * again or stall; the section name stays Chinese in both languages since it is the brief's heading.
 */
import type { Lang } from '../config/index.js';
import type { FallThrough, Replies } from './types.js';

export const DEFAULT_REPLIES: Readonly<Record<Lang, Replies>> = {
  zh: {
    timeout: '没人回答(人可能不在电脑前)。请自己判断,按最合理的假设继续,并把这条假设写进「未知与假设」;不要再问这个问题,也不要停下来等。',
    declined: '对方跳过了这个问题。请自己判断,按最合理的假设继续,并把假设写进「未知与假设」;不要再问这个问题。',
    over_budget: '提问额度已经用完,不能再问了。请自己判断,按最合理的假设继续,并把假设写进「未知与假设」。',
    invalid: '问题是空的,没有发出去(不占提问额度)。如果还需要问,请把问题本身写清楚。',
  },
  en: {
    timeout:
      'Nobody answered (the person may be away). Decide yourself, continue on the most reasonable assumption and record it under 未知与假设 (unknowns and assumptions). Do not ask this again and do not stall.',
    declined:
      'The person skipped this question. Decide yourself, continue on the most reasonable assumption and record it under 未知与假设 (unknowns and assumptions). Do not ask this again.',
    over_budget:
      'The question quota is used up; no more questions can be asked. Decide yourself, continue on the most reasonable assumption and record it under 未知与假设 (unknowns and assumptions).',
    invalid: 'The question was empty, so nothing was asked (this did not use the quota). If you still need to ask, write the question itself.',
  },
};

export function repliesFor(lang: Lang, overrides: Partial<Replies> = {}): Replies {
  const base = DEFAULT_REPLIES[lang];
  const out: Record<FallThrough, string> = { ...base };
  for (const k of Object.keys(base) as FallThrough[]) {
    const v = overrides[k];
    if (typeof v === 'string' && v.trim() !== '') out[k] = v;
  }
  return out;
}

const TEXTS = {
  zh: {
    askTool:
      '向人提一个问题,并等他回答。只问答案会改变做法的问题,一次只问一个;尽量给 options(人输入序号就能选)。' +
      '能从仓库里读到的就自己读,不要问。没人回答时你会收到说明:那就自己判断,把假设写进「未知与假设」,不要重复问。',
    askQuestion: '问题本身,一句话说清楚要人决定什么。',
    askOptions: '可选答案,每项一个短句。人可以输入序号选择,也可以回答别的。',
    inboxTool: '看看人在运行中主动发来的新消息。不会等待,没有新消息就立刻返回。',
    declinedBecause: (reason: string) => `(对方说:${reason})`,
    inboxEmpty: '没有新消息。',
    inboxHead: (n: number) => `人在运行中发来 ${n} 条新消息(按时间先后;和原来的需求冲突时,以后说的为准):`,
    inboxSaved: (file: string) => `这些话已经存进需求确认书(${file})的补充部分。`,
    inboxNotSaved: '这些话没有存档(没有设置需求确认书的路径);要紧的请你自己记下来。',
    inboxSomeNotSaved: '其中有的没能存进需求确认书;要紧的请你自己记下来。',
  },
  en: {
    askTool:
      'Ask the person one question and wait for the answer. Only ask what changes the approach, one question at a time; ' +
      'give options whenever you can (the person can pick one by number). Read the repository instead of asking what it can tell you. ' +
      'If nobody answers you are told so: then decide yourself, record the assumption under 未知与假设, and do not ask again.',
    askQuestion: 'The question itself: one sentence saying what the person should decide.',
    askOptions: 'Possible answers, one short phrase each. The person can pick one by number or answer something else.',
    inboxTool: 'Check for new messages the person sent while you work. Never waits: returns at once when there is nothing new.',
    declinedBecause: (reason: string) => `(The person said: ${reason})`,
    inboxEmpty: 'Nothing new.',
    inboxHead: (n: number) =>
      `The person sent ${n} new message${n === 1 ? '' : 's'} while you worked (oldest first; where they contradict the original request, the later word wins):`,
    inboxSaved: (file: string) => `They have been saved in the brief (${file}), in its amendments.`,
    inboxNotSaved: 'They were not saved anywhere (no brief path is set); write down what matters yourself.',
    inboxSomeNotSaved: 'Some could not be saved in the brief; write down what matters yourself.',
  },
} as const;

export type ChannelTexts = (typeof TEXTS)[Lang];

export function textsFor(lang: Lang): ChannelTexts {
  return TEXTS[lang];
}
