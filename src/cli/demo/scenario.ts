/**
 * The demo's scripted model: every role's answers for one small real task (a Markdown-to-HTML script),
 * then a wake with "also support code blocks". Items are queued in the order the requests come, and
 * each carries a matcher as a safety net, so a flow that drifts fails loudly (onUnexpected: 'error')
 * instead of answering the wrong role. The worker really writes files and the judge really runs them;
 * the verdict is computed from what the judge's command printed.
 */
import path from 'node:path';
import { toolResultsOf, type SimCall, type SimItem, type SimScriptItem } from '../../sim/index.js';
import { MD2HTML_V1, MD2HTML_V2, SAMPLE_V1, SAMPLE_V2 } from './md2html.js';

const WORKER_MARK = '[demo-worker]';
const clarifier = { firstUserIncludes: 'submit_brief' };
const goalSetter = { firstUserIncludes: 'submit_goal' };
const judge = { firstUserIncludes: 'submit_verdict' };
const coordinator = { toolsInclude: 'Agent', not: { firstUserIncludes: [WORKER_MARK] } };
const workerReq = { firstUserIncludes: WORKER_MARK };

function verdictFrom(call: SimCall, needles: string[], checks: string[]): SimItem {
  const out = toolResultsOf(call.body).at(-1)?.content ?? '';
  const seen = needles.filter((n) => out.includes(n));
  const pass = seen.length === needles.length;
  return {
    type: 'tool_use',
    name: 'mcp__human__submit_verdict',
    input: {
      state: pass ? 'achieved' : 'not_yet',
      reason: pass ? '' : `输出里没有 ${needles.filter((n) => !seen.includes(n)).join('、')}`,
      checks: checks.map((item, i) => ({ item, pass: i === 0 ? pass : true, evidence: i === 0 ? `node md2html.mjs sample.md 输出了 ${out.length} 个字符,含 ${seen.join('、') || '(无)'}` : '同上' })),
    },
  };
}

const CHECKS_V1 = ['node md2html.mjs sample.md 输出含 <h1> 和 <ul>', '不带参数运行时打印用法并以非 0 退出'];
const CHECKS_V2 = [...CHECKS_V1.slice(0, 1), 'sample.md 里的 js 代码块输出为 <pre><code class="language-js">', CHECKS_V1[1]!];

/** The first run: clarify (one question nobody answers), set the goal, work through a worker, judge. */
export function firstRun(ws: string): SimScriptItem[] {
  const file = (n: string) => path.join(ws, n);
  return [
    { type: 'tool_use', match: clarifier, text: '先问一个会改变做法的问题。', name: 'mcp__human__ask', input: { question: '转换结果输出到哪里?', options: ['标准输出', '同名 .html 文件'] } },
    {
      type: 'tool_use', match: clarifier, name: 'mcp__human__submit_brief',
      input: {
        goal: '写一个命令行脚本 md2html.mjs,把 Markdown 文件转成 HTML,给想快速预览笔记的人用。',
        acceptance: ['运行 node md2html.mjs sample.md,标准输出是对应的 HTML(标题、段落、列表、强调、行内代码、链接)', '不带参数运行时打印用法并以非 0 退出'],
        boundaries: ['不引入第三方依赖,只用 Node 自带模块', '不做完整的 CommonMark,常用语法即可'],
        unknowns: ['输出位置没人回答:假设写到标准输出,需要文件时用 > 重定向'],
      },
    },
    { type: 'text', match: clarifier, text: '确认书已提交。' },
    {
      type: 'tool_use', match: goalSetter, name: 'mcp__human__submit_goal',
      input: { statement: 'node md2html.mjs sample.md 能输出正确的 HTML', checks: CHECKS_V1.map((text) => ({ text })) },
    },
    { type: 'text', match: goalSetter, text: '目标已提交。' },
    {
      type: 'tool_use', match: coordinator, text: '派一个人去写脚本和样例。', name: 'Agent',
      input: { description: '写 md2html.mjs', subagent_type: 'worker', run_in_background: false, prompt: `${WORKER_MARK} 在 ${ws} 写 md2html.mjs(只用 Node 自带模块)和一个 sample.md,然后运行 node md2html.mjs sample.md 检查输出。` },
    },
    { type: 'tool_use', match: workerReq, name: 'Write', input: { file_path: file('md2html.mjs'), content: MD2HTML_V1 } },
    { type: 'tool_use', match: workerReq, name: 'Write', input: { file_path: file('sample.md'), content: SAMPLE_V1 } },
    { type: 'tool_use', match: workerReq, name: 'Bash', input: { command: 'node md2html.mjs sample.md', description: 'run the converter' } },
    { type: 'text', match: workerReq, text: '结论:md2html.mjs 已写好并跑通。\n证据:node md2html.mjs sample.md 输出 <h1>Demo</h1> 等。\n产出:md2html.mjs、sample.md\n未验证:无' },
    { type: 'text', match: coordinator, text: 'md2html.mjs 写好了:node md2html.mjs sample.md 输出 HTML。' },
    { type: 'tool_use', match: judge, name: 'Bash', input: { command: 'node md2html.mjs sample.md', description: 'check the artifact' } },
    (call: SimCall) => verdictFrom(call, ['<h1>', '<ul>'], CHECKS_V1),
    { type: 'text', match: judge, text: '判定已提交。' },
  ];
}

/** The wake: the remark re-derives the goal, the same work session continues, a fresh judge checks. */
export function wakeRun(ws: string): SimScriptItem[] {
  const file = (n: string) => path.join(ws, n);
  return [
    {
      type: 'tool_use', match: goalSetter, name: 'mcp__human__submit_goal',
      input: { statement: 'node md2html.mjs sample.md 能输出正确的 HTML,代码块带语言标记', checks: CHECKS_V2.map((text) => ({ text })) },
    },
    { type: 'text', match: goalSetter, text: '新目标已提交。' },
    {
      type: 'tool_use', match: coordinator, text: '接着上次:加代码块支持。', name: 'Agent',
      input: { description: '加代码块高亮', subagent_type: 'worker', run_in_background: false, prompt: `${WORKER_MARK} 给 ${ws}/md2html.mjs 加上 \`\`\`lang 代码块支持(<pre><code class="language-lang">),在 sample.md 里加一个代码块并运行检查。` },
    },
    { type: 'tool_use', match: workerReq, name: 'Write', input: { file_path: file('md2html.mjs'), content: MD2HTML_V2 } },
    { type: 'tool_use', match: workerReq, name: 'Write', input: { file_path: file('sample.md'), content: SAMPLE_V2 } },
    { type: 'tool_use', match: workerReq, name: 'Bash', input: { command: 'node md2html.mjs sample.md', description: 'run the converter' } },
    { type: 'text', match: workerReq, text: '结论:代码块支持已加上。\n证据:输出含 <pre><code class="language-js">。\n产出:md2html.mjs、sample.md\n未验证:无' },
    { type: 'text', match: coordinator, text: '代码块高亮的标记已加上。' },
    { type: 'tool_use', match: judge, name: 'Bash', input: { command: 'node md2html.mjs sample.md', description: 'check the artifact' } },
    (call: SimCall) => verdictFrom(call, ['<h1>', '<ul>', '<pre><code class="language-js">'], CHECKS_V2),
    { type: 'text', match: judge, text: '判定已提交。' },
  ];
}
