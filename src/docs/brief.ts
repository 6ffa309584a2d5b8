/**
 * 需求确认书 (notes/需求.md): the only deliverable of clarification. Four sections, each guarding
 * one failure: 目标 (building the wrong thing), 验收标准 (nobody can say when it is done),
 * 边界 (scope creep in every subagent), 未知与假设 (silent wrong premises — written down so a
 * later reader can catch them).
 *
 * Remarks the human adds after the freeze (`## 运行中补充(HH:MM:SS)`, `## 唤醒时追加(HH:MM:SS)`)
 * are kept as their own list. The original folded them into 未知与假设, where a remark starting
 * with an alias word lost text; here everything from the first amendment heading on is opaque
 * human text: no alias headings, no fence stripping inside it.
 */
import path from 'node:path';
import { clock, readDocument, replaceDocument, unreadableError, writeAtomic, type Written } from './io.js';
import { ConfigError, StateCorrupt } from '../errors.js';
import { cleanBody, headingTable, matchHeading, normalizeNewlines, outsideFences, parseSections } from './sections.js';

export const BRIEF_SECTIONS = ['goal', 'acceptance', 'boundaries', 'unknowns'] as const;
export type BriefSection = (typeof BRIEF_SECTIONS)[number];

/** Canonical Chinese names: the headings on disk and what `missing()` reports. */
export const BRIEF_NAMES: Readonly<Record<BriefSection, string>> = {
  goal: '目标',
  acceptance: '验收标准',
  boundaries: '边界',
  unknowns: '未知与假设',
};

export const BRIEF_HEADINGS = headingTable<BriefSection>({
  goal: ['目标', 'goal'],
  acceptance: ['验收标准', '验收条件', '验收', 'acceptance criteria', 'acceptance'],
  boundaries: ['边界', '范围边界', '不做什么', 'boundaries', 'boundary', 'out of scope'],
  unknowns: [
    '未知与假设',
    '未知项与假设',
    '未知项',
    '已知未知',
    '假设',
    '未知',
    'unknowns and assumptions',
    'unknowns & assumptions',
    'assumptions',
    'unknowns',
  ],
});

export const DEFAULT_AMEND_LABEL = '运行中补充';
export const WAKE_AMEND_LABEL = '唤醒时追加';

export interface Amendment {
  label: string;
  /** `HH:MM:SS`, local time of the append. */
  time: string;
  text: string;
}

export interface BriefFields {
  goal: string;
  acceptance: string;
  boundaries: string;
  unknowns: string;
  amendments?: Amendment[];
}

const AMEND_HEAD = /^##[ \t]*(\S[^\n]*?)[ \t]*[(（](\d{1,2}:\d{2}:\d{2})[)）][ \t]*$/;

function amendmentHeading(line: string): { label: string; time: string } | null {
  const m = AMEND_HEAD.exec(line);
  if (!m || matchHeading(line, BRIEF_HEADINGS)) return null;
  return { label: m[1]!.trim(), time: m[2]! };
}

function parseAmendments(lines: readonly string[]): Amendment[] {
  const out: Amendment[] = [];
  let cur: { label: string; time: string; lines: string[] } | null = null;
  const flush = () => {
    if (!cur) return;
    const text = remark(cur.lines.join('\n'));
    if (text !== '') out.push({ label: cur.label, time: cur.time, text });
  };
  for (const line of lines) {
    const h = amendmentHeading(line);
    if (h) {
      flush();
      cur = { ...h, lines: [] };
    } else if (cur) {
      cur.lines.push(line);
    }
  }
  flush();
  return out;
}

function remark(text: string): string {
  return normalizeNewlines(text)
    .split('\n')
    .map((l) => l.replace(/[ \t]+$/, ''))
    .join('\n')
    .trim();
}

const sameText = (a: string, b: string) => remark(a) === remark(b);

/** The first line of an amend file that did not exist yet (a remark arrived before the brief froze). */
export const AMEND_FILE_HEADER = '# 运行中的补充';

/**
 * Null when `text` is a 需求.md flower may replace: a complete brief, or what the mailbox writes
 * before the freeze (the amend header and remarks only). Anything else — a person's own notes, an
 * incomplete brief — is not flower's to overwrite: the reason says why (it is then kept aside).
 */
export function briefForeign(text: string): string | null {
  const lines = normalizeNewlines(text ?? '').split('\n');
  const outside = outsideFences(lines);
  const at = lines.findIndex((l, i) => outside[i] && amendmentHeading(l) !== null);
  const frozen = (at < 0 ? lines : lines.slice(0, at)).join('\n').trim();
  if (frozen === '' || frozen === AMEND_FILE_HEADER) return null;
  const b = Brief.parse(text);
  if (b.complete()) return null;
  return `is not a complete brief (missing: ${b.missing().join(', ')}) — a file flower did not write`;
}

export class Brief {
  goal: string;
  acceptance: string;
  boundaries: string;
  unknowns: string;
  amendments: Amendment[];
  /** Absolute path it was loaded from or written to. */
  path: string | null = null;

  constructor(init: Partial<BriefFields> = {}) {
    this.goal = (init.goal ?? '').trim();
    this.acceptance = (init.acceptance ?? '').trim();
    this.boundaries = (init.boundaries ?? '').trim();
    this.unknowns = (init.unknowns ?? '').trim();
    this.amendments = [...(init.amendments ?? [])];
  }

  /** The four sections out of a clarifier's reply (or a 需求.md). Sections not found stay ''. */
  static parse(text: string): Brief {
    const lines = normalizeNewlines(text ?? '').split('\n');
    const outside = outsideFences(lines);
    const at = lines.findIndex((l, i) => outside[i] && amendmentHeading(l) !== null);
    const frozen = at < 0 ? lines : lines.slice(0, at);
    const sec = parseSections(frozen.join('\n'), BRIEF_HEADINGS);
    return new Brief({
      goal: sec.goal ?? '',
      acceptance: sec.acceptance ?? '',
      boundaries: sec.boundaries ?? '',
      unknowns: sec.unknowns ?? '',
      amendments: at < 0 ? [] : parseAmendments(lines.slice(at)),
    });
  }

  /** Chinese names of the empty sections, in document order. */
  missing(): string[] {
    return BRIEF_SECTIONS.filter((k) => this[k].trim() === '').map((k) => BRIEF_NAMES[k]);
  }

  complete(): boolean {
    return this.missing().length === 0;
  }

  toMarkdown(): string {
    const parts = ['# 需求确认书', '', '> 由「确认需求」这一步生成并冻结。要改需求,直接改这个文件。', '> 想从头再确认一遍:删掉它(或用 --new)再跑。', ''];
    for (const k of BRIEF_SECTIONS) parts.push(`## ${BRIEF_NAMES[k]}`, '', this[k].trim() || '(未填)', '');
    for (const a of this.amendments) parts.push(`## ${a.label}(${a.time})`, a.text.trim(), '');
    return parts.join('\n').trimEnd() + '\n';
  }

  /** The compact form handed to later steps: non-empty sections, then the amendments. */
  promptBlock(): string {
    const blocks = BRIEF_SECTIONS.filter((k) => this[k].trim() !== '').map((k) => `## ${BRIEF_NAMES[k]}\n${this[k].trim()}`);
    if (this.amendments.length > 0) {
      blocks.push(
        [
          '## 后来的补充',
          '(确认书冻结之后人又说的话,按时间先后;和上面冲突时以后说的为准)',
          ...this.amendments.map((a) => `\n### ${a.label}(${a.time})\n${a.text.trim()}`),
        ].join('\n'),
      );
    }
    return blocks.join('\n\n');
  }

  /** null when the file is missing, unreadable or damaged; `(未填)` reads as empty. */
  static load(file: string): Brief | null {
    const abs = path.resolve(file);
    const r = readDocument(abs);
    if (r.status !== 'ok') return null;
    const b = Brief.parse(r.text);
    b.path = abs;
    return b;
  }

  /**
   * Freeze to disk, atomically. Amendments already in the file are carried over (a remark sent
   * while clarification was still running used to be overwritten by the freeze) unless
   * `keepAmendments` is false.
   */
  write(file: string, opts: { keepAmendments?: boolean; now?: Date } = {}): Written {
    // a person's own 需求.md (or an incomplete one) is moved aside first, never overwritten; its
    // remarks (amendment blocks) still carry over
    const w = replaceDocument(
      file,
      (previous) => {
        if (previous !== null && opts.keepAmendments !== false) {
          const older = Brief.parse(previous).amendments;
          const mine = this.amendments.filter((a) => !older.some((o) => sameText(o.text, a.text)));
          this.amendments = [...older, ...mine];
        }
        return this.toMarkdown();
      },
      opts.now,
      { foreign: briefForeign },
    );
    this.path = w.path;
    return w;
  }

  /**
   * Append a remark as `\n## <label>(HH:MM:SS)\n<text>\n`. Returns false (and writes nothing)
   * when the text is empty or is already the body of an amendment. Throws StateCorrupt when the
   * existing file is unreadable or damaged — appending would silently bury what is there.
   */
  static amend(file: string, text: string, opts: { label?: string; now?: Date } = {}): boolean {
    const body = remark(text ?? '');
    if (body === '') return false;
    const abs = path.resolve(file);
    const r = readDocument(abs);
    if (r.status === 'unreadable') throw unreadableError(abs, r.error);
    if (r.status === 'corrupt') {
      throw new StateCorrupt(
        'doc-corrupt',
        `${abs} is damaged (${r.reason}); not appending to it. Move it away (the next clarification ` + 'writes a fresh one) and send the remark again.',
        { path: abs },
      );
    }
    const existing = r.status === 'ok' ? normalizeNewlines(r.text) : '';
    if (Brief.parse(existing).amendments.some((a) => sameText(a.text, body))) return false;
    const label = cleanBody((opts.label ?? DEFAULT_AMEND_LABEL).replace(/[\n()（）]/g, ' ')) || DEFAULT_AMEND_LABEL;
    if (matchHeading(`## ${label}`, BRIEF_HEADINGS)) {
      throw new ConfigError(
        'doc-bad-label',
        `amendment label "${label}" is a heading of the brief itself and would be read as that section; ` + `use a label such as "${DEFAULT_AMEND_LABEL}".`,
        { path: abs },
      );
    }
    const base = existing === '' || existing.endsWith('\n') ? existing : `${existing}\n`;
    writeAtomic(abs, `${base}\n## ${label}(${clock(opts.now)})\n${body}\n`);
    return true;
  }
}
