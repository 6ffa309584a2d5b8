/**
 * What the model reads when a guard steps in. Short on purpose: every denial stays in the context for the
 * rest of the session (≈270 chars each in the seed's measurements), and long scolding breeds
 * "learned helplessness" — the model stops trying instead of changing course.
 */
import type { Lang } from '../config/lang.js';
import type { PathRefusal } from './paths.js';

export const GUARD_TEXT = {
  whitelist: {
    zh: (tool: string) => `本角色不能用 ${tool}:不跑命令、不写文件。把你的结论直接写在回复里。`,
    en: (tool: string) => `${tool} is not available to this role: no commands, no file writes. Put your answer in the reply text.`,
  },
  delegate: {
    zh: (tool: string) => `你是协调者,不亲手干活(${tool} 被拦下)。派一个 worker(Agent 工具)去做,任务简报写清目标、约束和产出位置。`,
    en: (tool: string) =>
      `You coordinate and do not do hands-on work (${tool} denied). Dispatch a worker (Agent tool) with a brief: goal, constraints, where outputs go.`,
  },
  glance: {
    zh: (reason: string) => ` 这里只放行只读的查看命令,这条不是:${reason}。`,
    en: (reason: string) => ` Only read-only glances run here; this one is not: ${reason}.`,
  },
  notListed: {
    zh: (tool: string, tools: string) => `本角色不能用 ${tool}。可用的工具只有:${tools}。用它们,或者在回复里说明还需要什么。`,
    en: (tool: string, tools: string) => `${tool} is not one of this role's tools (${tools}). Use those, or say in your reply what else you need.`,
  },
  undeclaredAgent: {
    zh: (type: string, declared: string[]) =>
      declared.length
        ? `没有叫 ${type} 的 worker。只能派这些:${declared.join(', ')}(subagent_type 写其中一个)。`
        : `没有叫 ${type} 的 worker,这个角色也没有可派的 worker。自己回复结论即可。`,
    en: (type: string, declared: string[]) =>
      declared.length
        ? `There is no worker called ${type}. Dispatch one of the declared workers instead: ${declared.join(', ')} (as subagent_type).`
        : `There is no worker called ${type}, and this role has none to dispatch. Answer in your reply instead.`,
  },
  undeclaredThread: {
    zh: (type: string) => `${type} 不是声明过的 worker,不能用工具。结束并把情况报告回去。`,
    en: (type: string) => `${type} is not a declared worker and may use no tools. Stop and report back.`,
  },
  repeated: {
    zh: (tool: string, n: number) => `这个 ${tool} 调用(参数完全相同)已经连着做了 ${n} 次,结果不会变。用已有的结果,换个做法,或者结束并回复。`,
    en: (tool: string, n: number) =>
      `This exact ${tool} call (same input) was already made ${n} times in a row; its result will not change. Use what it returned, try something else, or finish with your reply.`,
  },
  unsandboxed: {
    zh: '命令只能在沙箱里跑(dangerouslyDisableSandbox 不可用)。去掉这个参数重试;沙箱拦下的操作就是不允许做的。',
    en: 'Commands run only inside the sandbox (dangerouslyDisableSandbox is not available). Retry without it; what the sandbox refuses is not allowed here.',
  },
  secretFile: {
    zh: (tool: string) => `${tool} 不能读凭据文件(.env 一类)。密钥由 flower 管,工具用不到;缺什么配置请在回复里说。`,
    en: (tool: string) =>
      `${tool} may not read credential files (.env and the like). flower holds the keys and tools never need them; say in your reply which setting you are missing.`,
  },
  glanceBackground: {
    zh: '只读查看命令在前台跑,不放到后台(run_in_background)。去掉这个参数重试,或者派 worker。',
    en: 'Glances run in the foreground, never in the background (run_in_background). Retry without it, or dispatch a worker.',
  },
  failed: {
    zh: (why: string) => `flower 没能判定这次调用(${why}),按规矩拒绝了。换个更简单的写法重试,或者派 worker 去做。`,
    en: (why: string) => `flower could not decide on this call (${why}), so it was refused. Retry in a simpler form, or dispatch a worker.`,
  },
  outside: {
    zh: (tool: string, p: string) => `${tool} 只能写工作区和工作台(.flower);${p} 在这些之外。把文件写进工作区(临时文件用命令写到 $TMPDIR)。`,
    en: (tool: string, p: string) =>
      `${tool} writes only inside the workspace and the workbench (.flower); ${p} is outside them. Write it inside the workspace (a command may write scratch files to $TMPDIR).`,
  },
  protectedPlace: {
    zh: (tool: string, p: string) => `${tool} 不能改 ${p}:这是 flower 自己的记录或下次启动时会读的文件,只有 flower 写。`,
    en: (tool: string, p: string) => `${tool} may not change ${p}: it is one of flower's own records or files it reads at start, and only flower writes it.`,
  },
  protectedName: {
    zh: (tool: string, name: string) => `${tool} 不能写 ${name}(git 和 Claude 的设置、MCP 配置、shell 启动文件、.env 文件一律不写)。需要的话在回复里说明。`,
    en: (tool: string, name: string) =>
      `${tool} may not write ${name} (git's and Claude's settings, MCP server lists, shell start-up files and .env files are never written by tools). Say in your reply if one needs a change.`,
  },
  credentialPlace: {
    zh: (tool: string, p: string) => `${tool} 不能读 ${p}:那里放着凭据。密钥由 flower 管,工具用不到;缺什么请在回复里说。`,
    en: (tool: string, p: string) =>
      `${tool} may not read ${p}: it holds credentials. flower holds the keys and tools never need them; say in your reply what you are missing.`,
  },
  unresolvable: {
    zh: (tool: string, p: string) => `${tool}:${p} 说不清真正写到哪里(链接太多、成环,或是别处文件的硬链接),拒绝。`,
    en: (tool: string, p: string) =>
      `${tool}: it is not clear where ${p} really lands (too many links, a loop, or a hard link to a file elsewhere), so it was refused.`,
  },
  redacted: {
    zh: (n: number) => `[flower 把 ${n} 处密钥值换成了 [secret]]`,
    en: (n: number) => `[flower replaced ${n} secret value${n === 1 ? '' : 's'} with [secret]]`,
  },
  withheld: {
    zh: 'flower 没能检查这段输出里有没有密钥,所以不给看。换个范围更小的命令重试。',
    en: 'flower could not check this output for secrets, so it is withheld. Retry with a narrower command.',
  },
  spill: {
    zh: (chars: number, file: string) => `[输出过长,已转存:${chars} 字符 → ${file} —— 用 Read 看全文,用 Grep 搜索] 开头:`,
    en: (chars: number, file: string) => `[output spilled: ${chars} chars → ${file} — use Read for the full text, Grep to search] Head:`,
  },
} as const;

export const textFor = <T>(t: { zh: T; en: T }, lang: Lang): T => (lang === 'zh' ? t.zh : t.en);

/** What the model reads for a path the wall refused. */
export function pathRefusalText(tool: string, r: PathRefusal, lang: Lang): string {
  const t = GUARD_TEXT;
  switch (r.kind) {
    case 'outside':
      return textFor(t.outside, lang)(tool, r.path);
    case 'protected':
      return textFor(t.protectedPlace, lang)(tool, r.place);
    case 'name':
      return textFor(t.protectedName, lang)(tool, r.name);
    case 'credential':
      return textFor(t.credentialPlace, lang)(tool, r.path);
    case 'unresolvable':
      return textFor(t.unresolvable, lang)(tool, r.path);
  }
}
