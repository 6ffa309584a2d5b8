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
  retry: (label: string) => `~ 重试 ${label}`,
  lineageCorrupt: (kept: string) => `! 续接记录损坏,已另存为 ${kept},这次从头开始`,
} as const;

type Catalog = { [K in keyof typeof zh]: (typeof zh)[K] extends string ? string : (typeof zh)[K] };

const en: Catalog = {
  resumedTag: (woke: number) => `<- resumed · wake #${woke}`,
  done: '+ done',
  failed: 'x failed',
  turns: (n: number) => `${n} turns`,
  abortedAt: (step: string) => `stopped at step '${step}'`,
  aborted: (why: string) => `aborted: ${why}`,
  total: (cost: string, manifest: string) => `total $${cost} · manifest ${manifest}`,
  retry: (label: string) => `~ retry ${label}`,
  lineageCorrupt: (kept: string) => `! the lineage file was damaged; kept it as ${kept} and started fresh`,
};

export type Messages = Catalog;

export function messages(lang: Lang): Messages {
  return lang === 'zh' ? zh : en;
}
