/**
 * 交接书 (notes/交接-<step>.md): written when a session's context is nearly full, so a fresh
 * session takes over instead of a lossy auto-compact. Five sections, each against one mistake
 * of the successor: 现在在做什么 (not knowing where it stands), 已经定下的 (re-opening settled
 * decisions — with the why), 走不通的路 (paying again for dead ends: the most expensive and most
 * forgotten), 下一步 (half an hour deciding what to do), 现场 (paths, not content).
 *
 * Only doing + next are required: demanding dead ends early in a task forces invention.
 * The short aliases 进度 / 决策 / 文件 count only as full headings (`## 文件`, `**文件**`):
 * as bare `文件: src/a.ts` lines they are ordinary body text, which is what they usually are.
 */
import path from 'node:path';
import { readDocument, replaceDocument, type Written } from './io.js';
import { headChars, headingTable, parseSections } from './sections.js';

export const HANDOFF_SECTIONS = ['doing', 'decided', 'deadends', 'next', 'scene'] as const;
export type HandoffSection = (typeof HANDOFF_SECTIONS)[number];

export const HANDOFF_NAMES: Readonly<Record<HandoffSection, string>> = {
  doing: '现在在做什么',
  decided: '已经定下的',
  deadends: '走不通的路',
  next: '下一步',
  scene: '现场',
};

export const HANDOFF_REQUIRED: readonly HandoffSection[] = ['doing', 'next'];

export const HANDOFF_HEADINGS = headingTable<HandoffSection>({
  doing: ['现在在做什么', '现在在做', '当前进度', { text: '进度', strict: true }, 'doing now', 'currently doing', 'doing'],
  decided: ['已经定下的', '已定的事', { text: '决策', strict: true }, 'decided', 'decisions'],
  deadends: ['走不通的路', '试过不行的', '排除的路', 'dead ends', 'dead-ends', 'deadends'],
  next: ['下一步', 'next step', 'next steps', 'next'],
  scene: ['现场', { text: '文件', strict: true }, 'scene', { text: 'files', strict: true }],
});

/** Marks a handoff assembled mechanically because the real one could not be written. */
export const DEGRADED = '[降级:交接没写成]';
/** How much of the original task a degraded handoff keeps as its scene. */
export const DEGRADED_SCENE_CHARS = 1200;

export type HandoffFields = Record<HandoffSection, string>;

const TITLE = /^#[ \t]*交接书(?:[(（](.+)[)）])?[ \t]*$/m;

export class Handoff {
  doing: string;
  decided: string;
  deadends: string;
  next: string;
  scene: string;
  /** The step that handed off; only used in the title. */
  step: string;
  path: string | null = null;

  constructor(init: Partial<HandoffFields> & { step?: string } = {}) {
    this.doing = (init.doing ?? '').trim();
    this.decided = (init.decided ?? '').trim();
    this.deadends = (init.deadends ?? '').trim();
    this.next = (init.next ?? '').trim();
    this.scene = (init.scene ?? '').trim();
    this.step = (init.step ?? '').trim();
  }

  /** `step` defaults to the one named in a `# 交接书(<step>)` title, if any. */
  static parse(text: string, opts: { step?: string } = {}): Handoff {
    const sec = parseSections(text ?? '', HANDOFF_HEADINGS);
    const step = opts.step ?? TITLE.exec(text ?? '')?.[1]?.trim() ?? '';
    return new Handoff({ ...sec, step });
  }

  /**
   * The fallback when the handoff round failed, was forced (overflow) or parsed incomplete.
   * A partial handoff beats hitting the window: it says it is partial, tells the successor to
   * look at the scene first, and keeps the start of the original task.
   */
  static degraded(step: string, task: string, why = ''): Handoff {
    return new Handoff({
      step,
      doing: `${DEGRADED} 上一个会话在步骤「${step}」里上下文满了,但交接没能写出来${why ? `(${why})` : ''}。`,
      next: '先去现场看清楚已经做到哪一步:读工作台的 notes/ 和产出物,看 git status / git log,再接着做。不要假设前面什么都没做。',
      scene: `这一步最初拿到的任务是:\n\n${headChars((task ?? '').trim(), DEGRADED_SCENE_CHARS)}`,
    });
  }

  get isDegraded(): boolean {
    return this.doing.includes(DEGRADED);
  }

  /** Chinese names of the empty required sections. */
  missing(): string[] {
    return HANDOFF_REQUIRED.filter((k) => this[k].trim() === '').map((k) => HANDOFF_NAMES[k]);
  }

  complete(): boolean {
    return this.missing().length === 0;
  }

  toMarkdown(): string {
    const parts = [
      `# 交接书${this.step ? `(${this.step})` : ''}`,
      '',
      '> 上一个会话的上下文快满了,写下这份交接,换一个新会话接手。',
      '> 这个文件可读可改:觉得它漏了什么就直接改,接手的会话读的就是它。',
      '',
    ];
    for (const k of HANDOFF_SECTIONS) parts.push(`## ${HANDOFF_NAMES[k]}`, '', this[k].trim() || '(空)', '');
    return parts.join('\n').trimEnd() + '\n';
  }

  /**
   * The successor's opening prompt. It says outright that this is a takeover: otherwise a fresh
   * session assumes the conversation just started and asks for background nobody is there to give.
   */
  promptBlock(): string {
    const body = HANDOFF_SECTIONS.filter((k) => this[k].trim() !== '')
      .map((k) => `## ${HANDOFF_NAMES[k]}\n${this[k].trim()}`)
      .join('\n\n');
    const warn = this.isDegraded ? '\n注意:这份交接是降级的(上一个会话没能写完),内容不全。动手前先去现场核实做到了哪一步。\n' : '';
    return [
      '你在接手一段还没干完的活。上一个会话的上下文满了,它留下了这份交接。',
      '你没有它的记忆,只有这份交接和磁盘上的东西。需求和目标是冻结件,在工作台的 notes/ 里,自己去读。',
      warn,
      body,
      '',
      '---',
      '',
      '照「下一步」接着做。不要重头开始,也不要停下来问人要背景。',
    ].join('\n');
  }

  /** null when missing, unreadable or damaged; `(空)` reads as empty. */
  static load(file: string): Handoff | null {
    const abs = path.resolve(file);
    const r = readDocument(abs);
    if (r.status !== 'ok') return null;
    const h = Handoff.parse(r.text);
    h.path = abs;
    return h;
  }

  write(file: string, opts: { now?: Date } = {}): Written {
    const w = replaceDocument(file, () => this.toMarkdown(), opts.now);
    this.path = w.path;
    return w;
  }
}
