/**
 * Terminal text, in zh (the seed's wording) and en. On-disk formats and step names stay Chinese in
 * both; only what a person reads on screen changes.
 */
import type { Lang } from '../config/index.js';

const zh = {
  resumedTag: (woke: number) => `<- 接上次 · 第 ${woke} 次唤醒`,
  done: '+ 完成',
  failed: 'x 失败',
  turns: (n: number) => `${n} 轮`,
  abortedAt: (step: string) => `在步骤 '${step}' 中止`,
  aborted: (why: string) => `已中止:${why}`,
  total: (cost: string, manifest: string) => `总花费 $${cost} · 清单 ${manifest}`,
  simulated: '(模拟)',
  retry: (label: string) => `~ 重试 ${label}`,
  lineageCorrupt: (kept: string) => `! 续接记录损坏,已另存为 ${kept},这次从头开始`,
  wakeBanner: (where: string, checks: number, ctx: string, woke: number) =>
    `<- 在 ${where} 接上上次  需求已确认${checks ? ` · 目标 ${checks} 条` : ''}${ctx ? ` · 干活上下文 ${ctx}` : ''} · 第 ${woke} 次唤醒`,
  askWhat: '要做什么? 一句话就够,回车开始(Ctrl-C 退出)',
  askWake: '接着上次? 直接回车 = 接着做;也可以说点新的;/new = 重开一件事(Ctrl-C 退出)',
  nothingToDo: '没有要做的事:给 flower 一句话,例如 flower "写个 md 转 html 的脚本"',
  nonTty: '. 标准输入不是终端:全自动运行,提问立即按"无人应答"处理(--timeout 0;给 --timeout 秒数,就能在别处用 flower answer 回答)',
  archived: (dir: string) => `. 已归档到 ${dir}`,
  question: (id: string) => `? (${id})`,
  remaining: (n: number) => `(还能问 ${n} 次)`,
  answerHint: '输入数字选一项,或直接回答;回车跳过',
  answered: (a: string) => `+ ${a}`,
  noAnswer: '! 无人应答,让它自己决定并记下假设',
  overBudget: '! 提问额度用完',
  skipped: '. 已跳过',
  mailQueued: '+ 收到,下个检查点交给它',
  mailDelivered: '+ 已送达',
  unverifiable: (text: string) => `! ${text}`,
  handoffNear: (ctx: string, at: string) => `# 上下文 ${ctx},快到交接线 ${at}`,
  handoffWriting: '# 正在写交接…',
  handoffDone: (path: string, degraded: boolean) => `# 交接完成${degraded ? '(降级)' : ''}:${path}`,
  offline: (text: string) => `! ${text}`,
  asideHead: (q: string) => `# 旁路:${q}`,
  asidePrompt: (q: string, recent: string) =>
    `${q}\n\n---\n(旁边正在干活;下面是最近的动静,每条截到 200 字。只读,不要动任何文件。)\n${recent || '(还没有动静)'}`,
  interrupted: (remark: string) => `~ 已打断${remark ? `:${remark}` : ''},接着同一个会话`,
  answeredElsewhere: (id: string) => `  (${id} 在别处回答了:flower answer / flower ui)`,
  tooLate: (id: string) => `! 晚了一步:${id} 已经在别处回答了,你这句没有交给它`,
  stopAsked: '. 收到"这一步做完就停"(flower stop --after-step):当前这一步做完就停下',
  stoppedAfter: (step: string, cmd: string) => `. 按要求在「${step}」之后停下;输入 ${cmd} 接着做`,
  interruptHint: '! 要打断吗?输入想对它说的话回车(直接回车 = 不说),它会在下一个消息边界停下接着你的话做(进行中的子任务会丢);再按一次 Ctrl-C 退出',
} as const;

type Catalog = { [K in keyof typeof zh]: (typeof zh)[K] extends string ? string : (typeof zh)[K] };

const en: Catalog = {
  resumedTag: (woke: number) => `<- resumed · wake #${woke}`,
  done: '+ done',
  failed: 'x failed',
  turns: (n: number) => `${n} ${n === 1 ? 'turn' : 'turns'}`,
  abortedAt: (step: string) => `stopped at step '${step}'`,
  aborted: (why: string) => `aborted: ${why}`,
  total: (cost: string, manifest: string) => `total $${cost} · manifest ${manifest}`,
  simulated: ' (simulated)',
  retry: (label: string) => `~ retry ${label}`,
  lineageCorrupt: (kept: string) => `! the lineage file was damaged; kept it as ${kept} and started fresh`,
  wakeBanner: (where: string, checks: number, ctx: string, woke: number) =>
    `<- resuming in ${where}  brief confirmed${checks ? ` · goal ${checks} items` : ''}${ctx ? ` · work context ${ctx}` : ''} · wake #${woke}`,
  askWhat: 'What should I do? One sentence is enough; Enter starts (Ctrl-C quits)',
  askWake: 'Continue where it stopped? Enter = continue; or say something new; /new = start something else (Ctrl-C quits)',
  nothingToDo: 'nothing to do: give flower a sentence, e.g. flower "write a markdown-to-html script"',
  nonTty:
    '. stdin is not a terminal: running fully automatic, questions time out at once (--timeout 0; give --timeout SECONDS to answer them with flower answer from elsewhere)',
  archived: (dir: string) => `. archived to ${dir}`,
  question: (id: string) => `? (${id})`,
  remaining: (n: number) => `(${n} questions left)`,
  answerHint: 'type a number to pick, or answer in words; Enter skips',
  answered: (a: string) => `+ ${a}`,
  noAnswer: '! nobody answered; it will decide and record the assumption',
  overBudget: '! question quota used up',
  skipped: '. skipped',
  mailQueued: '+ got it; handed over at the next checkpoint',
  mailDelivered: '+ delivered',
  unverifiable: (text: string) => `! ${text}`,
  handoffNear: (ctx: string, at: string) => `# context ${ctx}, nearing the handoff line ${at}`,
  handoffWriting: '# writing the handoff…',
  handoffDone: (path: string, degraded: boolean) => `# handoff done${degraded ? ' (degraded)' : ''}: ${path}`,
  offline: (text: string) => `! ${text}`,
  asideHead: (q: string) => `# aside: ${q}`,
  asidePrompt: (q: string, recent: string) =>
    `${q}\n\n---\n(Work is going on beside you; here is what happened lately, each line cut to 200 characters. Read only: touch no file.)\n${recent || '(nothing yet)'}`,
  interrupted: (remark: string) => `~ interrupted${remark ? `: ${remark}` : ''}; the same session goes on`,
  answeredElsewhere: (id: string) => `  (${id} was answered elsewhere: flower answer / flower ui)`,
  tooLate: (id: string) => `! too late: ${id} was already answered elsewhere; your line was not given to it`,
  stopAsked: '. asked to stop after this step (flower stop --after-step): stopping when the step in progress ends',
  stoppedAfter: (step: string, cmd: string) => `. stopped after ${step}, as asked; type ${cmd} to continue`,
  interruptHint:
    '! Interrupt? Type what to tell it and Enter (Enter alone = nothing): it stops at the next message boundary and goes on from your words (work in flight in a subagent is lost). Ctrl-C again quits',
};

export type Messages = Catalog;

export function messages(lang: Lang): Messages {
  return lang === 'zh' ? zh : en;
}

/** A step name for the screen (src/state/steps.ts owns the table). */
export { stepLabel } from '../state/index.js';
