/**
 * What the model reads when a guard steps in. Short on purpose: every denial stays in the context for the
 * rest of the session (≈270 chars each in the seed's measurements), and long scolding breeds
 * "learned helplessness" — the model stops trying instead of changing course.
 */
import type { Lang } from '../config/lang.js';

export const GUARD_TEXT = {
  whitelist: {
    zh: (tool: string) => `本角色不能用 ${tool}:不跑命令、不写文件。把你的结论直接写在回复里。`,
    en: (tool: string) => `${tool} is not available to this role: no commands, no file writes. Put your answer in the reply text.`,
  },
  delegate: {
    zh: (tool: string) => `你是协调者,不亲手干活(${tool} 被拦下)。派一个 worker(Agent 工具)去做,任务简报写清目标、约束和产出位置。`,
    en: (tool: string) => `You coordinate and do not do hands-on work (${tool} denied). Dispatch a worker (Agent tool) with a brief: goal, constraints, where outputs go.`,
  },
  glance: {
    zh: (reason: string) => ` 这里只放行只读的查看命令,这条不是:${reason}。`,
    en: (reason: string) => ` Only read-only glances run here; this one is not: ${reason}.`,
  },
  spill: {
    zh: (chars: number, file: string) => `[输出过长,已转存:${chars} 字符 → ${file} —— 用 Read 看全文,用 Grep 搜索] 开头:`,
    en: (chars: number, file: string) => `[output spilled: ${chars} chars → ${file} — use Read for the full text, Grep to search] Head:`,
  },
} as const;

export const textFor = <T>(t: { zh: T; en: T }, lang: Lang): T => (lang === 'zh' ? t.zh : t.en);
