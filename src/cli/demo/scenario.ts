/**
 * The demo's scripted model: every role's answers for one small real task (a Markdown-to-HTML script),
 * then a wake with "also support code blocks". Items are queued in the order the requests come, and
 * each carries a matcher as a safety net, so a flow that drifts fails loudly (onUnexpected: 'error')
 * instead of answering the wrong role. The worker really writes files and the judge really runs them;
 * the verdict is computed from what the judge's command printed.
 */
import path from 'node:path';
import { toolResultsOf, type SimCall, type SimItem, type SimScriptItem } from '../../sim/index.js';
import type { Lang } from '../../config/index.js';
import { MD2HTML_V1, MD2HTML_V2, SAMPLE_V1, SAMPLE_V2 } from './md2html.js';

/** What the scripted agents say, in the terminal's language (the matchers and files do not change). */
const PROSE = {
  zh: {
    ask: '先问一个会改变做法的问题。',
    question: '转换结果输出到哪里?',
    options: ['标准输出', '同名 .html 文件'],
    brief: {
      goal: '写一个命令行脚本 md2html.mjs,把 Markdown 文件转成 HTML,给想快速预览笔记的人用。',
      acceptance: ['运行 node md2html.mjs sample.md,标准输出是对应的 HTML(标题、段落、列表、强调、行内代码、链接)', '不带参数运行时打印用法并以非 0 退出'],
      boundaries: ['不引入第三方依赖,只用 Node 自带模块', '不做完整的 CommonMark,常用语法即可'],
      unknowns: ['输出位置没人回答:假设写到标准输出,需要文件时用 > 重定向'],
    },
    briefDone: '确认书已提交。',
    goal1: 'node md2html.mjs sample.md 能输出正确的 HTML',
    goalDone: '目标已提交。',
    checks1: ['node md2html.mjs sample.md 输出含 <h1> 和 <ul>', '不带参数运行时打印用法并以非 0 退出'],
    check2: 'sample.md 里的 js 代码块输出为 <pre><code class="language-js">',
    dispatch1: '派一个人去写脚本和样例。',
    task1: '写 md2html.mjs',
    brief1: (ws: string) => `在 ${ws} 写 md2html.mjs(只用 Node 自带模块)和一个 sample.md,然后运行 node md2html.mjs sample.md 检查输出。`,
    report1: '结论:md2html.mjs 已写好并跑通。\n证据:node md2html.mjs sample.md 输出 <h1>Demo</h1> 等。\n产出:md2html.mjs、sample.md\n未验证:无',
    coordDone1: 'md2html.mjs 写好了:node md2html.mjs sample.md 输出 HTML。',
    missing: (what: string) => `输出里没有 ${what}`,
    evidence: (n: number, seen: string) => `node md2html.mjs sample.md 输出了 ${n} 个字符,含 ${seen || '(无)'}`,
    same: '同上',
    sep: '、',
    verdictDone: '判定已提交。',
    goal2: 'node md2html.mjs sample.md 能输出正确的 HTML,代码块带语言标记',
    goal2Done: '新目标已提交。',
    dispatch2: '接着上次:加代码块支持。',
    task2: '加代码块高亮',
    brief2: (ws: string) => `给 ${ws}/md2html.mjs 加上 \`\`\`lang 代码块支持(<pre><code class="language-lang">),在 sample.md 里加一个代码块并运行检查。`,
    report2: '结论:代码块支持已加上。\n证据:输出含 <pre><code class="language-js">。\n产出:md2html.mjs、sample.md\n未验证:无',
    coordDone2: '代码块高亮的标记已加上。',
  },
  en: {
    ask: 'One question first: the answer changes how this is built.',
    question: 'Where should the converted HTML go?',
    options: ['standard output', 'a .html file next to the input'],
    brief: {
      goal: 'A command-line script md2html.mjs that turns a Markdown file into HTML, for people who want a quick preview of their notes.',
      acceptance: [
        'node md2html.mjs sample.md prints the matching HTML on stdout (headings, paragraphs, lists, emphasis, inline code, links)',
        'run without arguments it prints its usage and exits non-zero',
      ],
      boundaries: ['no third-party dependencies: Node built-ins only', 'not full CommonMark: the common syntax is enough'],
      unknowns: ['nobody said where the output goes: assumed stdout; redirect with > for a file'],
    },
    briefDone: 'Brief submitted.',
    goal1: 'node md2html.mjs sample.md prints correct HTML',
    goalDone: 'Goal submitted.',
    checks1: ['node md2html.mjs sample.md prints <h1> and <ul>', 'run without arguments it prints its usage and exits non-zero'],
    check2: 'the js code block in sample.md comes out as <pre><code class="language-js">',
    dispatch1: 'Sending a worker to write the script and a sample.',
    task1: 'write md2html.mjs',
    brief1: (ws: string) => `In ${ws} write md2html.mjs (Node built-ins only) and a sample.md, then run node md2html.mjs sample.md and check the output.`,
    report1:
      'Conclusion: md2html.mjs is written and works.\nEvidence: node md2html.mjs sample.md printed <h1>Demo</h1> and more.\nOutputs: md2html.mjs, sample.md\nUnverified: none',
    coordDone1: 'md2html.mjs is done: node md2html.mjs sample.md prints HTML.',
    missing: (what: string) => `the output lacks ${what}`,
    evidence: (n: number, seen: string) => `node md2html.mjs sample.md printed ${n} characters, including ${seen || '(none)'}`,
    same: 'as above',
    sep: ', ',
    verdictDone: 'Verdict submitted.',
    goal2: 'node md2html.mjs sample.md prints correct HTML, code blocks tagged with their language',
    goal2Done: 'New goal submitted.',
    dispatch2: 'Picking up where it stopped: code block support.',
    task2: 'add code block highlighting',
    brief2: (ws: string) =>
      `Add \`\`\`lang code block support (<pre><code class="language-lang">) to ${ws}/md2html.mjs, put a code block in sample.md and run the check.`,
    report2:
      'Conclusion: code block support is in.\nEvidence: the output has <pre><code class="language-js">.\nOutputs: md2html.mjs, sample.md\nUnverified: none',
    coordDone2: 'Code blocks now carry their language tag.',
  },
} as const;

const WORKER_MARK = '[demo-worker]';
const clarifier = { firstUserIncludes: 'submit_brief' };
const goalSetter = { firstUserIncludes: 'submit_goal' };
const judge = { firstUserIncludes: 'submit_verdict' };
const coordinator = { toolsInclude: 'Agent', not: { firstUserIncludes: [WORKER_MARK] } };
const workerReq = { firstUserIncludes: WORKER_MARK };

type Prose = (typeof PROSE)[Lang];

function verdictFrom(call: SimCall, needles: string[], checks: readonly string[], t: Prose): SimItem {
  const out = toolResultsOf(call.body).at(-1)?.content ?? '';
  const seen = needles.filter((n) => out.includes(n));
  const pass = seen.length === needles.length;
  return {
    type: 'tool_use',
    name: 'mcp__human__submit_verdict',
    input: {
      state: pass ? 'achieved' : 'not_yet',
      reason: pass ? '' : t.missing(needles.filter((n) => !seen.includes(n)).join(t.sep)),
      checks: checks.map((item, i) => ({ item, pass: i === 0 ? pass : true, evidence: i === 0 ? t.evidence(out.length, seen.join(t.sep)) : t.same })),
    },
  };
}

const checksV2 = (t: Prose): string[] => [t.checks1[0], t.check2, t.checks1[1]];

/** The first run: clarify (one question nobody answers), set the goal, work through a worker, judge. */
export function firstRun(ws: string, lang: Lang = 'zh'): SimScriptItem[] {
  const file = (n: string) => path.join(ws, n);
  const t = PROSE[lang];
  return [
    { type: 'tool_use', match: clarifier, text: t.ask, name: 'mcp__human__ask', input: { question: t.question, options: [...t.options] } },
    {
      type: 'tool_use',
      match: clarifier,
      name: 'mcp__human__submit_brief',
      input: { goal: t.brief.goal, acceptance: [...t.brief.acceptance], boundaries: [...t.brief.boundaries], unknowns: [...t.brief.unknowns] },
    },
    { type: 'text', match: clarifier, text: t.briefDone },
    {
      type: 'tool_use',
      match: goalSetter,
      name: 'mcp__human__submit_goal',
      input: { statement: t.goal1, checks: t.checks1.map((text) => ({ text })) },
    },
    { type: 'text', match: goalSetter, text: t.goalDone },
    {
      type: 'tool_use',
      match: coordinator,
      text: t.dispatch1,
      name: 'Agent',
      input: { description: t.task1, subagent_type: 'worker', run_in_background: false, prompt: `${WORKER_MARK} ${t.brief1(ws)}` },
    },
    { type: 'tool_use', match: workerReq, name: 'Write', input: { file_path: file('md2html.mjs'), content: MD2HTML_V1 } },
    { type: 'tool_use', match: workerReq, name: 'Write', input: { file_path: file('sample.md'), content: SAMPLE_V1 } },
    { type: 'tool_use', match: workerReq, name: 'Bash', input: { command: 'node md2html.mjs sample.md', description: 'run the converter' } },
    { type: 'text', match: workerReq, text: t.report1 },
    { type: 'text', match: coordinator, text: t.coordDone1 },
    { type: 'tool_use', match: judge, name: 'Bash', input: { command: 'node md2html.mjs sample.md', description: 'check the artifact' } },
    (call: SimCall) => verdictFrom(call, ['<h1>', '<ul>'], t.checks1, t),
    { type: 'text', match: judge, text: t.verdictDone },
  ];
}

/** The wake: the remark re-derives the goal, the same work session continues, a fresh judge checks. */
export function wakeRun(ws: string, lang: Lang = 'zh'): SimScriptItem[] {
  const file = (n: string) => path.join(ws, n);
  const t = PROSE[lang];
  return [
    {
      type: 'tool_use',
      match: goalSetter,
      name: 'mcp__human__submit_goal',
      input: { statement: t.goal2, checks: checksV2(t).map((text) => ({ text })) },
    },
    { type: 'text', match: goalSetter, text: t.goal2Done },
    {
      type: 'tool_use',
      match: coordinator,
      text: t.dispatch2,
      name: 'Agent',
      input: { description: t.task2, subagent_type: 'worker', run_in_background: false, prompt: `${WORKER_MARK} ${t.brief2(ws)}` },
    },
    { type: 'tool_use', match: workerReq, name: 'Write', input: { file_path: file('md2html.mjs'), content: MD2HTML_V2 } },
    { type: 'tool_use', match: workerReq, name: 'Write', input: { file_path: file('sample.md'), content: SAMPLE_V2 } },
    { type: 'tool_use', match: workerReq, name: 'Bash', input: { command: 'node md2html.mjs sample.md', description: 'run the converter' } },
    { type: 'text', match: workerReq, text: t.report2 },
    { type: 'text', match: coordinator, text: t.coordDone2 },
    { type: 'tool_use', match: judge, name: 'Bash', input: { command: 'node md2html.mjs sample.md', description: 'check the artifact' } },
    (call: SimCall) => verdictFrom(call, ['<h1>', '<ul>', '<pre><code class="language-js">'], checksV2(t), t),
    { type: 'text', match: judge, text: t.verdictDone },
  ];
}
