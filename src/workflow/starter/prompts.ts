/**
 * The fixed texts the starter flow sends, zh (canonical) and en. The model-facing texts say what to
 * do, never what went wrong (error detail in a prompt makes the model debug the network).
 */
import type { Lang } from '../../config/index.js';

type Texts = {
  clarifyPrompt: (ask: string) => string;
  clarifyResume: string;
  goalPrompt: (brief: string) => string;
  noBrief: string;
  noGoal: string;
  noReply: string;
  judgePrompt: (goal: string, reply: string) => string;
  midRunRemarks: (remarks: string) => string;
  workPrompt: (brief: string, goal: string) => string;
  wakeRemark: (remark: string) => string;
  wakeSilent: string;
  newChecklist: (goal: string) => string;
  unreachableQ: (reason: string) => string;
  unreachableOptions: [string, string, string];
  newGoalQ: string;
  judgeWrong: (answer: string) => string;
  nobodyAnswered: (reason: string, goalPath: string, manifest: string) => string;
  goalChanged: (goal: string) => string;
  unverifiable: (k: number, n: number, path: string) => string;
  verdictMissing: string;
  noVerdict: string;
  judgeFailed: (error: string) => string;
  noVerdictStop: (step: string, why: string) => string;
};

const zh: Texts = {
  clarifyPrompt: (ask) => `要做的事:${ask}\n\n先把需求弄清楚,然后用 submit_brief 提交四段确认书(目标 / 验收标准 / 边界 / 未知与假设)。`,
  clarifyResume: '继续刚才没做完的需求确认——这不是新开始。已经问过、已经答过的不要再问;只补还空着的部分,最后用 submit_brief 提交完整的四段确认书。',
  goalPrompt: (brief) => `把下面这份确认书变成一个可判定的目标,用 submit_goal 提交:一句话目标 + 判定清单(每条都能运行、能观察)。\n\n${brief}`,
  noBrief: '(没有确认书)',
  noGoal: '(没有目标)',
  noReply: '(这一轮没有回话)',
  midRunRemarks: (remarks) => `## 运行中人补充的要求(也算判定标准)\n${remarks}`,
  judgePrompt: (goal, reply) =>
    `${goal}\n\n---\n干活的一方这一轮的回话:\n${reply}\n\n---\n逐条到现场检查判定清单:看产物本身,不看源码、不信"已完成"。没有证据的一条就算没通过。用 submit_verdict 提交结论(达成 / 未达成 / 无法达成)、理由和每一条的证据。`,
  workPrompt: (brief, goal) => `${brief}\n\n---\n下面是完成的标准,做完后会有一个独立的判定者逐条检查:\n\n${goal}`,
  wakeRemark: (remark) => `人在唤醒时补充了一句:${remark}\n这句话已经写进确认书。把它纳入当前的工作,接着上次做。`,
  wakeSilent: '接着上次的地方继续做。先说一句你接下来要动哪里。',
  newChecklist: (goal) => `目标已经按补充重新设定,下面这份新的判定清单是最终标准:\n\n${goal}`,
  unreachableQ: (reason) => `判定者认为目标【无法达成】:${reason}\n接下来怎么办?`,
  unreachableOptions: ['接受这个结果,就这样往下走', '修改目标', '你判断错了,继续做'],
  newGoalQ: '新的目标是什么?(一句话,会追加到目标里)',
  judgeWrong: (answer) => `人认为判定有误,要继续做:${answer}`,
  nobodyAnswered: (reason, goalPath, manifest) => `判定为无法达成,但没有人回答,已停止。理由:${reason}。见 ${goalPath} 和 ${manifest}`,
  goalChanged: (goal) => `人修改了目标:${goal}`,
  unverifiable: (k, n, path) => `判定清单 ${n} 条里有 ${k} 条在这个环境无法验证;现在就可以修改 ${path}`,
  verdictMissing: '还没有收到你的判定。用 submit_verdict 提交:结论(达成 / 未达成 / 无法达成)、理由,以及判定清单每一条的结果和证据。',
  noVerdict: '判定者没有提交有效的判定(submit_verdict)',
  judgeFailed: (error) => `判定者这一轮失败了:${error}`,
  noVerdictStop: (step, why) => `${step}:${why},停在这里(做好的活儿留着,接着做时重新判定)`,
};

const en: Texts = {
  clarifyPrompt: (ask) =>
    `The request: ${ask}\n\nPin the requirement down, then submit the four-section brief (goal / acceptance criteria / boundaries / unknowns and assumptions) with submit_brief.`,
  clarifyResume:
    'Continue the clarification you had not finished — this is not a new start. Do not re-ask what was already asked or answered; fill only the sections still open, then submit the complete four-section brief with submit_brief.',
  goalPrompt: (brief) =>
    `Turn this brief into a decidable goal and submit it with submit_goal: a one-sentence goal plus a checklist (each item something you can run and observe).\n\n${brief}`,
  noBrief: '(no brief)',
  noGoal: '(no goal)',
  noReply: '(no reply this round)',
  midRunRemarks: (remarks) => `## What the person added during the run (these count as criteria too)\n${remarks}`,
  judgePrompt: (goal, reply) =>
    `${goal}\n\n---\nThe worker's reply this round:\n${reply}\n\n---\nCheck the checklist item by item on the spot: judge the artifact itself, not the source, and never believe "done". An item without evidence has failed. Submit the verdict (achieved / not_yet / unreachable), the reason and the evidence for each item with submit_verdict.`,
  workPrompt: (brief, goal) => `${brief}\n\n---\nThis is what done means; an independent judge will check it item by item afterwards:\n\n${goal}`,
  wakeRemark: (remark) => `On waking, the person added: ${remark}\nIt is already in the brief. Fold it into the work and carry on from where you stopped.`,
  wakeSilent: 'Continue from where you left off. First say in one line what you will touch next.',
  newChecklist: (goal) => `The goal was set again with the addition; this new checklist is authoritative:\n\n${goal}`,
  unreachableQ: (reason) => `The judge says the goal is UNREACHABLE: ${reason}\nWhat now?`,
  unreachableOptions: ['Accept this result and move on', 'Change the goal', 'The judge is wrong, keep working'],
  newGoalQ: 'What is the new goal? (one sentence, appended to the goal)',
  judgeWrong: (answer) => `The person says the judge was wrong and wants the work to go on: ${answer}`,
  nobodyAnswered: (reason, goalPath, manifest) => `judged unreachable and nobody answered; stopped. Reason: ${reason}. See ${goalPath} and ${manifest}`,
  goalChanged: (goal) => `The person changed the goal: ${goal}`,
  unverifiable: (k, n, path) => `${k} of ${n} checklist items cannot be verified here; you can edit ${path} now`,
  verdictMissing:
    "No verdict has arrived yet. Submit it with submit_verdict: the conclusion (achieved / not_yet / unreachable), the reason, and each checklist item's result with its evidence.",
  noVerdict: 'the judge submitted no valid verdict (submit_verdict)',
  judgeFailed: (error) => `the judge failed this round: ${error}`,
  noVerdictStop: (step, why) => `${step}: ${why}; stopped here (the work is kept and judged again when you continue)`,
};

export function texts(lang: Lang): Texts {
  return lang === 'zh' ? zh : en;
}
