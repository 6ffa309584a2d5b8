/**
 * What `--help` and the command line's own errors say, in en and zh (FLOWER_LANG, else a zh locale).
 * File names (需求.md, 目标.md …) are on-disk names and stay as they are in both.
 */
import type { Lang } from '../config/index.js';
import { NAMES as N } from '../state/layout.js';

const en = {
  program: 'A long-horizon agent framework on the Claude Agent SDK.',
  examples: [
    'Examples:',
    '  flower "write a script that turns markdown into html"   clarify it, set a checklist, work, judge',
    '  flower --budget 5 --deadline 07:30                       continue the work here, within $5 and until 07:30',
    '  flower status                                            what happened here, and what is waiting for you',
  ].join('\n'),
  version: 'print the version',
  help: 'show help for a command',
  workspace: "the agents' working directory (created if missing)",
  runDir: `${N.sessionsDb}, ${N.manifest}, ${N.lineage} — relative to the current directory, not the workspace`,
  verbose: 'more on screen: tool names and results, worker prose, whole thinking, the effective configuration',
  quiet: 'less on screen: prose, questions, step lines and verdicts only (no tool calls, thinking or worker activity)',
  json: 'NDJSON on stdout (one JSON object per line) instead of the terminal view; human text goes to stderr',
  afterError: '(run with --help for usage)',
  plugin: 'load a plugin folder (skills, MCP servers) for the roles that declare it; repeatable (also FLOWER_PLUGINS)',
  store:
    'keep transcripts, lineage and manifest in PostgreSQL (postgres://user:password@host:port/db; default FLOWER_STORE, else the files in the run dir; see docs/postgres.md)',
  storeCmd: 'the store that keeps transcripts, lineage and manifest (files in the run dir, or PostgreSQL)',
  storeCopy: 'copy sessions, lineage and manifest rows from one store to another, idempotently (e.g. --from runs --to postgres://…)',
  storeFrom: '`runs` (or another run dir) or a postgres:// URL',
  storeTo: '`runs` (or another run dir) or a postgres:// URL',
  runBudget:
    'stop this run once it has spent USD dollars in all (every step, round, worker, judge and handoff); `flower --budget MORE` continues the same sessions (also FLOWER_BUDGET)',
  runDeadline: 'stop this run at a time (07:30) or after a duration (6h, 45m, 1h30m), at a clean boundary; `flower` again continues (also FLOWER_DEADLINE)',
  noSandbox: "run the model's commands outside the OS sandbox (bubblewrap): only flower's allowlists hold them — only if bubblewrap cannot be installed",
  net: 'network for the commands of roles that write: on (default; workers also get WebFetch/WebSearch), off, or comma-separated hosts (e.g. registry.npmjs.org,*.github.com; no web tools); judges and glances never have any',
  passEnv: 'let this variable reach the commands although it looks secret (a token, a password in a URL); repeatable (docs/security.md)',
  allowRead: 'let the tools read this credential place (e.g. ~/.npmrc) although it is on the list; repeatable (docs/security.md)',
  denyRead: 'keep the tools from reading this file or folder too; repeatable (docs/security.md)',
  notify:
    'POST one JSON object to this http(s) URL when the run needs you (a question waits, the goal is judged unreachable, a stop) and when it ends (default FLOWER_NOTIFY; docs/unattended.md)',
  notifyCmd: 'run this shell command with the same JSON on its stdin (default FLOWER_NOTIFY_CMD; e.g. a curl to ntfy, notify-send; docs/unattended.md)',
  noBequest: 'at the end of a run, leave CLAUDE.md and AGENTS.md alone: no hand-over block for the next tool (also FLOWER_NO_BEQUEST=1; docs/bequest.md)',
  bequest:
    'the hand-over for the next tool: write (or refresh) the block flower keeps in CLAUDE.md and AGENTS.md — what it did, where its notes are, how to go on — from what this folder remembers; your own text in those files is never touched (docs/bequest.md)',
  bequestRemove: 'take the block out of CLAUDE.md and AGENTS.md instead (a file that held only the block is deleted)',
  skills: "skills this agent may load: 'all' or comma-separated names (project: .flower/skills/, yours: ~/.config/flower/skills/)",
  skillsCmd: `the skills and plugins a run here loads: ${N.workbenchDir}/skills/ (project), ~/.config/flower/skills/ (yours), --plugin DIR / FLOWER_PLUGINS`,
  skillsNew: `start a project skill: writes ${N.workbenchDir}/skills/NAME/SKILL.md from a template`,
  skillsName: 'lowercase letters, digits and hyphens, e.g. deploy-checklist',
  go: `the default flow: clarify the request (${N.brief}), set a goal (${N.goal}), work, and let a fresh judge decide — \`flower "…"\` is \`flower go "…"\`; run it again in the same folder to continue; the request may come on stdin`,
  goAsk: 'what to do (one sentence); on a folder already in progress, a remark to add',
  asks: 'how many questions the agents may ask you (negative = unlimited)',
  rounds: 'total work rounds, each judged (reset on every wake)',
  noGoal: 'no goal step and no judge',
  judgeCanRun: 'let the judge run commands (stronger verdicts; it can touch the workspace)',
  timeout: 'how long to wait for your answer (≤ 0 = fully automatic; default 1800 on a terminal, 0 otherwise)',
  goNew: `archive ${N.lineage}, ${N.brief} and ${N.goal} into ${N.workbenchDir}/${N.notes}/${N.archive}/<ts>/ and start something else`,
  clarifyOnly: `only pin the requirement down (${N.brief})`,
  noTrim: 'keep old large tool results in the resumed context',
  window: "the model's context window in tokens (handoff threshold follows)",
  noHandoff: "use the SDK's own compaction instead of handoff",
  isolate: `each worker in its own git worktree (the workspace must be a git repository; the workbench moves to <parent>/${N.workbenchDir}-<name>)`,
  wait: 'when another flower run holds this folder, wait for it instead of exiting 1',
  once: 'run one agent on PROMPT: no workflow, no lineage; prints the answer, the session id, cost and turns',
  onceprompt: 'what to do',
  instructions: 'rules appended to the Claude Code system prompt',
  tools: 'comma-separated tools that need no approval',
  permissionMode: 'permission mode',
  budget: 'stop when the cost reaches this many USD',
  resume: 'continue this session',
  fork: 'with --resume: continue under a new session id, leaving the original untouched',
  onceWindow: "the model's context window in tokens (the handoff threshold follows; default FLOWER_WINDOW, then calibration, then the model name)",
  onceNoHandoff: 'let the harness compact the context itself instead of handing off to a fresh session',
  demo: 'run the whole flow on the embedded scripted model — no API key, no network — in a fresh temp folder, then wake it once',
  demoDir: 'run in this folder instead of a new temp folder',
  run: 'run your own Workflow: FILE is an ES module exporting a Workflow (or a function returning one)',
  runTarget: 'FILE[:EXPORT] (EXPORT defaults to default, then workflow)',
  runNew: `archive ${N.lineage}, ${N.brief} and ${N.goal} into ${N.workbenchDir}/${N.notes}/${N.archive}/<ts>/ and start fresh`,
  runAsk: 'words handed to a factory export as `ask` (see examples/team.mjs)',
  runWorkbench: "the workbench on (.flower/: big outputs spill to files, new sessions get its index) — default: on when a step's spec wants it",
  runNoWorkbench: 'the workbench off',
  runTrim: 'on resume, archive old large tool results to spill files (the default)',
  runTimeout: 'how long a question waits for your answer (≤ 0 = fully automatic; default 1800 on a terminal, 0 otherwise)',
  setup:
    'store your API key or gateway token (and optional gateway URL and model) in ~/.config/flower/.env, private (0600), checked against the endpoint first: a refused key or an unknown model is not stored (a 429 passes; FLOWER_NO_PROBE=1 skips the check); a picked model brings its FLOWER_WINDOW',
  setupYes: 'replace existing credentials without asking',
  status:
    'what this project remembers (found upward from the current folder, like git): brief, goal, wake count, step sessions and their context, spend — read-only, no model call',
  log: 'the manifest, one line per step run (newest last)',
  limit: 'how many rows',
  report:
    'one run, analysed (default the last): steps and sessions, context curve per step, cache hit rate, tool counts, denied coordinator calls, its Bash commands, spill savings — read-only',
  reportRun: 'a run id, as `flower log` shows it (default: the last run)',
  ui: 'a local, read-only web view of the runs: steps, verdicts, costs, context curves, handoffs, transcripts — prints a URL with an access token',
  uiHost: 'address to listen on',
  uiOpen: 'open the page in a browser',
  sim: 'serve a scripted model (Anthropic Messages API) on 127.0.0.1 — test workflows offline against the real harness',
  script: 'a JSON scenario (see docs/sim.md)',
  port: 'port to listen on (0 = any free port)',
  answer:
    'answer the question the flower running here is waiting on (the oldest one), from any terminal or over ssh: N picks option N, other words are the answer; no argument lists what is waiting',
  answerText: 'an option number, or the answer in words',
  answerId: 'answer this question (its id, e.g. q3) instead of the oldest',
  say: 'send a remark to the flower running here (or the next one): it reaches the agents as typed remarks do, and the brief',
  sayText: 'what to tell it',
  stop: 'ask the flower running here to stop',
  stopAfterStep: 'stop cleanly after the step in progress (the next `flower` continues from there)',
  stopNeedsAfterStep: 'say how to stop: `flower stop --after-step` (Ctrl-C at its terminal stops it at once)',
  notPositive: (v: string) => `'${v}' is not a positive number.`,
  notWhole: (v: string) => `'${v}' is not a whole number.`,
  notPositiveWhole: (v: string) => `'${v}' is not a positive whole number.`,
  notTokens: (v: string) => `'${v}' is not a positive whole number of tokens.`,
  notSeconds: (v: string) => `'${v}' is not a number of seconds.`,
  notPort: (v: string) => `'${v}' is not a port (0-65535).`,
  nearMiss: (word: string, cmd: string) =>
    `unknown command '${word}' — did you mean \`${cmd}\`? To ask flower to work on it, quote a sentence: flower "${word} …"`,
  internal: (msg: string) => `internal error: ${msg} (set FLOWER_DEBUG=1 for the stack)`,
  noSuchFolder: (dir: string) => `no such folder: ${dir}`,
};

export type UsageTexts = typeof en;

const zh: UsageTexts = {
  program: '基于 Claude Agent SDK 的长程智能体框架。',
  examples: [
    '例子:',
    '  flower "写个 md 转 html 的脚本"             先问清需求、定清单,再干活、判定',
    '  flower --budget 5 --deadline 07:30          在这里接着做,最多花 5 美元,07:30 前停',
    '  flower status                               这里发生了什么,有什么在等你',
  ].join('\n'),
  version: '显示版本号',
  help: '显示某个命令的帮助',
  workspace: '智能体的工作目录(不存在就创建)',
  runDir: `${N.sessionsDb}、${N.manifest}、${N.lineage} 所在目录——相对于当前目录,不是工作目录`,
  verbose: '屏幕上多显示一些:工具名和结果、子智能体的话、完整的思考、生效的配置',
  quiet: '屏幕上少显示一些:只有正文、提问、步骤行和判定(不显示工具调用、思考和子智能体的动静)',
  json: '在标准输出上输出 NDJSON(每行一个 JSON 对象),不用终端视图;给人看的文字走标准错误',
  afterError: '(用 --help 查看用法)',
  plugin: '为声明了它的角色加载一个插件目录(技能、MCP 服务);可重复(也可用 FLOWER_PLUGINS)',
  runBudget: '这次运行一共花到 USD 美元就停(所有步骤、轮次、子智能体、判定和交接都算);`flower --budget 更多` 接着同一批会话做(也可用 FLOWER_BUDGET)',
  runDeadline: '到某个时刻(07:30)或过一段时间(6h、45m、1h30m)就在干净的边界停下;再运行 `flower` 接着做(也可用 FLOWER_DEADLINE)',
  store: '把对话记录、lineage 和清单存进 PostgreSQL(postgres://用户:密码@主机:端口/库;默认取 FLOWER_STORE,否则用运行目录里的文件;见 docs/postgres.md)',
  storeCmd: '保存对话记录、lineage 和清单的地方(运行目录里的文件,或 PostgreSQL)',
  storeCopy: '把会话、lineage 和清单行从一个存储复制到另一个,重复执行不会重复写入(例如 --from runs --to postgres://…)',
  storeFrom: '`runs`(或别的运行目录)或一个 postgres:// 网址',
  storeTo: '`runs`(或别的运行目录)或一个 postgres:// 网址',
  noSandbox: '模型跑的命令不进操作系统沙箱(bubblewrap):只靠 flower 的白名单拦着——只在装不了 bubblewrap 时用',
  net: '会写文件的角色的命令能不能联网:on(默认;干活的人还有 WebFetch/WebSearch)、off,或逗号分隔的主机名(如 registry.npmjs.org,*.github.com;没有网页工具);判定者和只读查看永远不联网',
  passEnv: '让这个变量进到命令里,哪怕它看着像密钥(token、带密码的网址);可重复(见 docs/security.md)',
  allowRead: '让工具能读这个放凭据的地方(例如 ~/.npmrc),哪怕它在名单上;可重复(见 docs/security.md)',
  denyRead: '再多禁止工具读这个文件或目录;可重复(见 docs/security.md)',
  notify:
    '运行需要你的时候(有问题在等、目标被判定无法达成、停下了)和结束时,往这个 http(s) 网址 POST 一个 JSON 对象(默认取 FLOWER_NOTIFY;见 docs/unattended.md)',
  notifyCmd: '运行这条 shell 命令,同样的 JSON 从它的标准输入进去(默认取 FLOWER_NOTIFY_CMD;例如 curl 到 ntfy、notify-send;见 docs/unattended.md)',
  noBequest: '运行结束时不碰 CLAUDE.md 和 AGENTS.md:不给下一个工具留交接块(也可用 FLOWER_NO_BEQUEST=1;见 docs/bequest.md)',
  bequest:
    '给下一个工具的交接:按这个目录记得的东西,写(或更新)flower 在 CLAUDE.md 和 AGENTS.md 里的那一块——做了什么、笔记在哪、怎么接着做;这两个文件里你自己的内容一字不动(见 docs/bequest.md)',
  bequestRemove: '改为把那一块从 CLAUDE.md 和 AGENTS.md 里删掉(只剩这一块的文件整个删掉)',
  skills: "这个智能体可以加载的技能:'all' 或逗号分隔的名字(项目的:.flower/skills/,你自己的:~/.config/flower/skills/)",
  skillsCmd: `在这里运行时会加载的技能和插件:${N.workbenchDir}/skills/(项目)、~/.config/flower/skills/(你自己的)、--plugin DIR / FLOWER_PLUGINS`,
  skillsNew: `新建一个项目技能:按模板写 ${N.workbenchDir}/skills/NAME/SKILL.md`,
  skillsName: '小写字母、数字和连字符,例如 deploy-checklist',
  go: `默认流程:确认需求(${N.brief})、设定目标(${N.goal})、干活,再由一个新的判定者裁决——\`flower "…"\` 就是 \`flower go "…"\`;在同一个目录再运行一次就接着做;需求也可以从标准输入给`,
  goAsk: '要做什么(一句话);在已经开始的目录里,是追加的一句补充',
  asks: '智能体最多可以问你几次(负数 = 不限)',
  rounds: '一共干几轮,每轮都判定(每次唤醒重新计数)',
  noGoal: '不设目标,也不判定',
  judgeCanRun: '允许判定者运行命令(判定更可靠;它可能动到工作目录)',
  timeout: '等你回答多久(秒;≤ 0 = 全自动;终端上默认 1800,否则 0)',
  goNew: `把 ${N.lineage}、${N.brief} 和 ${N.goal} 归档到 ${N.workbenchDir}/${N.notes}/${N.archive}/<时间>/,开始另一件事`,
  clarifyOnly: `只把需求确认下来(${N.brief})`,
  noTrim: '续接时保留旧的大段工具输出',
  window: '模型的上下文窗口(token 数;交接线随之变化)',
  noHandoff: '用 SDK 自带的压缩,不做交接',
  isolate: `每个干活的人在自己的 git worktree 里(工作目录必须是 git 仓库;工作台移到 <上级目录>/${N.workbenchDir}-<名字>)`,
  wait: '这个文件夹正被另一次 flower 运行占用时,等它结束,而不是以 1 退出',
  once: '让一个智能体做 PROMPT:没有流程、没有续接记录;输出回答、会话 id、花费和轮数',
  onceprompt: '要做什么',
  instructions: '追加到 Claude Code 系统提示词后面的规则',
  tools: '不需要批准就能用的工具,逗号分隔',
  permissionMode: '权限模式',
  budget: '花费达到这么多美元就停',
  resume: '接着这个会话',
  fork: '配合 --resume:用新的会话 id 接着做,原会话不动',
  onceWindow: '模型的上下文窗口(token 数;交接线随之变化;默认取 FLOWER_WINDOW,再取校准值,再按模型名)',
  onceNoHandoff: '让 harness 自己压缩上下文,不交接给新会话',
  demo: '在内置的脚本模型上跑一遍完整流程——不要 API key,不联网——在一个新的临时目录里,然后唤醒一次',
  demoDir: '在这个目录里跑,不新建临时目录',
  run: '运行你自己的 Workflow:FILE 是导出 Workflow(或返回 Workflow 的函数)的 ES 模块',
  runTarget: 'FILE[:EXPORT](EXPORT 默认依次找 default、workflow)',
  runNew: `把 ${N.lineage}、${N.brief} 和 ${N.goal} 归档到 ${N.workbenchDir}/${N.notes}/${N.archive}/<时间>/,从头开始`,
  runAsk: '交给工厂函数导出的 `ask` 的话(见 examples/team.mjs)',
  runWorkbench: '打开工作台(.flower/:大段输出落到文件,新会话拿到它的索引)——默认:步骤的 spec 需要时打开',
  runNoWorkbench: '关闭工作台',
  runTrim: '续接时把旧的大段工具输出归档到 spill 文件(默认)',
  runTimeout: '提问等你回答多久(秒;≤ 0 = 全自动;终端上默认 1800,否则 0)',
  setup:
    '把 API key 或网关 token(以及可选的网关地址和模型)存到 ~/.config/flower/.env(0600,仅自己可读),先到接口上试一下:被拒的 key 或不存在的模型不存(429 算通过;FLOWER_NO_PROBE=1 跳过);选了模型会一并写上它的 FLOWER_WINDOW',
  setupYes: '已有凭据时不问,直接替换',
  status: '这个项目记得什么(像 git 一样从当前目录往上找):需求、目标、唤醒次数、各步骤的会话和上下文、花费——只读,不调模型',
  log: '清单,每次步骤运行一行(最新的在最后)',
  limit: '显示几行',
  report: '分析一次运行(默认最近一次):步骤和会话、每步的上下文曲线、缓存命中率、工具次数、被拦下的协调者调用、它自己跑的 Bash 命令、转存省下的量——只读',
  reportRun: '运行编号,即 flower log 里显示的(默认最近一次)',
  ui: '本地只读网页,看运行记录:步骤、判定、花费、上下文曲线、交接、对话记录——输出一个带访问令牌的网址',
  uiHost: '监听的地址',
  uiOpen: '在浏览器里打开',
  sim: '在 127.0.0.1 上提供一个脚本模型(Anthropic Messages API)——离线用真实 harness 测试流程',
  script: 'JSON 剧本(见 docs/sim.md)',
  port: '监听的端口(0 = 任意空闲端口)',
  answer: '回答这里正在运行的 flower 等着的问题(最早的那个),在哪个终端、ssh 上都行:N 选第 N 项,别的话就是回答;不带参数就列出正在等的问题',
  answerText: '选项序号,或直接写回答',
  answerId: '回答这个问题(它的编号,例如 q3),而不是最早的那个',
  say: '给这里正在运行的 flower(或下一次运行)捎句话:像在终端里打的话一样交给 agent,并记进需求',
  sayText: '要说的话',
  stop: '让这里正在运行的 flower 停下',
  stopAfterStep: '当前这一步做完就干净地停下(下次 `flower` 从那里接着做)',
  stopNeedsAfterStep: '说一下怎么停:`flower stop --after-step`(要立刻停,在它的终端里按 Ctrl-C)',
  notPositive: (v: string) => `'${v}' 不是正数。`,
  notWhole: (v: string) => `'${v}' 不是整数。`,
  notPositiveWhole: (v: string) => `'${v}' 不是正整数。`,
  notTokens: (v: string) => `'${v}' 不是正整数的 token 数。`,
  notSeconds: (v: string) => `'${v}' 不是秒数。`,
  notPort: (v: string) => `'${v}' 不是端口号(0-65535)。`,
  nearMiss: (word: string, cmd: string) => `没有 '${word}' 这个命令——是想用 \`${cmd}\` 吗?要让 flower 去做这件事,请用引号写一句话:flower "${word} …"`,
  internal: (msg: string) => `内部错误:${msg}(设 FLOWER_DEBUG=1 可看调用栈)`,
  noSuchFolder: (dir: string) => `没有这个目录:${dir}`,
};

export function usageTexts(lang: Lang): UsageTexts {
  return lang === 'zh' ? zh : en;
}

/** commander's own wording, translated: its headings and its error lines (it has no i18n of its own). */
const ZH_COMMANDER: Array<[RegExp, string]> = [
  [/^Usage:/m, '用法:'],
  [/^Global Options:/m, '全局选项:'],
  [/^Options:/m, '选项:'],
  [/^Commands:/m, '命令:'],
  [/^Arguments:/m, '参数:'],
  [/display help for command/g, '显示帮助'],
  [/output the version number/g, '显示版本号'],
  [/\(default: /g, '(默认:'],
  [/\(choices: /g, '(可选:'],
  [/^error: unknown option '([^']*)'(?:\n\(Did you mean ([^?]+)\?\))?/m, "错误:不认识的选项 '$1'"],
  [/^error: unknown command '([^']*)'/m, "错误:不认识的命令 '$1'"],
  [/^error: missing required argument '([^']*)'/m, "错误:缺少必填参数 '$1'"],
  [/^error: required option '([^']*)' not specified/m, "错误:必须给出选项 '$1'"],
  [/^error: option '([^']*)' argument missing/m, "错误:选项 '$1' 缺少值"],
  [/^error: option '([^']*)' argument '([^']*)' is invalid\. /m, "错误:选项 '$1' 的值 '$2' 无效。"],
  [/^error: too many arguments(?: for '([^']*)')?\. Expected (\d+) arguments? but got (\d+)\./m, '错误:参数太多,应为 $2 个,实际 $3 个。'],
  [/Allowed choices are /g, '可选:'],
];

export function translateCommander(text: string, lang: Lang): string {
  if (lang !== 'zh') return text;
  let out = text;
  for (const [re, to] of ZH_COMMANDER) out = out.replace(re, to);
  return out;
}

/**
 * One of commander's own error lines in flower's style: `x unknown option '--x' — see flower --help`,
 * its suggestion kept, in the terminal's language (commander writes `error: …` and a hint line).
 */
export function commanderError(text: string, lang: Lang, command: string): string {
  const [first = '', ...rest] = translateCommander(text, lang).trim().split('\n');
  const msg = first.replace(/^(?:error: |错误:)/, '').replace(/[.。]$/, '');
  const did = lang === 'zh' ? '(是不是想用 $1?)' : '(did you mean $1?)';
  const hint = rest
    .map((l) => l.trim().replace(/^\(Did you mean (.+)\?\)$/, did))
    .filter(Boolean)
    .join(' ');
  const see = lang === 'zh' ? `—— 见 ${command} --help` : `— see ${command} --help`;
  return `x ${msg}${hint ? ` ${hint}` : ''} ${see}\n`;
}
