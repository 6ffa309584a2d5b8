/**
 * The section parser shared by every document (brief, goal, verdict, handoff).
 *
 * Models answer in loose markdown: `## 目标`, `**目标**:…`, `目标：…`, `1. 目标`, `【目标】`. We accept
 * all of those, but a heading must be *only* the alias: `假设输入为空时报错` is a body line, not the
 * heading 假设 followed by 输入为空 (the original parser ate the first word of such lines and cut
 * sections short). Rule: after the alias comes nothing, or an optional `(annotation)`, then
 * either end of line or `:`/`：` + inline body; the markdown-heading / bold / 【】 forms may
 * carry inline body after their closing marker.
 *
 * Fenced code is removed first: a clarifier once pasted a whole codebase into its reply, and
 * fake headings inside code must not leak out. An unclosed fence drops everything after it,
 * so truncated output fails completeness instead of passing half a document.
 */

export interface AliasSpec {
  readonly text: string;
  /** Accept only as `## X` / `**X**` / `【X】`, never as a bare `X:` line (short, risky words). */
  readonly strict?: boolean;
}

export interface Alias<K extends string> {
  readonly key: K;
  readonly text: string;
  readonly lower: string;
  readonly strict: boolean;
}

/** Aliases of every key, longest first so 未知 never eats 未知与假设. */
export type HeadingTable<K extends string> = readonly Alias<K>[];

export function headingTable<K extends string>(spec: Readonly<Record<K, readonly (string | AliasSpec)[]>>): HeadingTable<K> {
  const out: Alias<K>[] = [];
  for (const key of Object.keys(spec) as K[]) {
    for (const a of spec[key]) {
      const s: AliasSpec = typeof a === 'string' ? { text: a } : a;
      out.push({ key, text: s.text, lower: s.text.toLowerCase(), strict: s.strict === true });
    }
  }
  return Object.freeze(out.sort((a, b) => b.text.length - a.text.length));
}

export type HeadingForm = 'markdown' | 'wrapped' | 'plain';

export interface HeadingMatch<K extends string> {
  key: K;
  /** Text after the heading on the same line (`目标: 做一个 X` → `做一个 X`). */
  inline: string;
  form: HeadingForm;
}

const NUMBERING = /^(?:\d{1,2}(?:\.(?!\d)|[、)）])|[（(]\d{1,2}[)）]|[一二三四五六七八九十]{1,3}[、.．])[ \t]*/;
const ANNOTATION = /^[ \t]*[(（][^()（）\n]{0,40}[)）]/;
const COLON = /^[ \t]*[:：]/;

export function matchHeading<K extends string>(line: string, table: HeadingTable<K>): HeadingMatch<K> | null {
  let s = line.replace(/^[ \t]+/, '');
  let form: HeadingForm = 'plain';
  const md = /^#{1,6}(?!#)[ \t]*/.exec(s);
  if (md) {
    form = 'markdown';
    s = s.slice(md[0].length).replace(/[ \t]+#+[ \t]*$/, '');
  }
  s = s.replace(NUMBERING, '');
  let close: string | null = null;
  const wrap = /^(\*\*|__|【)[ \t]*/.exec(s);
  if (wrap) {
    close = wrap[1] === '【' ? '】' : wrap[1]!;
    s = s.slice(wrap[0].length).replace(NUMBERING, '');
  }
  for (const a of table) {
    if (a.strict && form === 'plain' && close === null) continue;
    if (s.slice(0, a.text.length).toLowerCase() !== a.lower) continue;
    let rest = s.slice(a.text.length).replace(ANNOTATION, '');
    let colon = COLON.exec(rest);
    if (colon) rest = rest.slice(colon[0].length);
    if (close !== null) {
      const trimmed = rest.replace(/^[ \t]+/, '');
      if (!trimmed.startsWith(close)) continue;
      rest = trimmed.slice(close.length);
      if (!colon) {
        colon = COLON.exec(rest);
        if (colon) rest = rest.slice(colon[0].length);
      }
    }
    rest = rest.trim();
    // The word-boundary rule: an alias glued to more text without a colon is prose, not a heading.
    if (rest !== '' && !colon && close === null) continue;
    return { key: a.key, inline: rest, form: close !== null ? 'wrapped' : form };
  }
  return null;
}

// --- fences ------------------------------------------------------------------------------

const FENCE_OPEN = /^[ \t]*(?:>[ \t]?)*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?(`{3,}|~{3,})(.*)$/;
const FENCE_CLOSE = /^[ \t]*(?:>[ \t]?)*(`{3,}|~{3,})[ \t]*$/;

/**
 * For each line, whether it is outside every fenced block. A backtick fence's info string cannot
 * contain a backtick (CommonMark), so "```make``` on one line" is inline code, not a fence.
 * Lines after an unclosed fence are all "inside".
 */
export function outsideFences(lines: readonly string[]): boolean[] {
  const out: boolean[] = [];
  let open: { ch: string; len: number } | null = null;
  for (const line of lines) {
    if (open === null) {
      const m = FENCE_OPEN.exec(line);
      // an opener's info string is one word (```js): "- ```js 代码块输出为 <pre>" is a sentence about
      // code fences, not a fence — a checklist item like that once swallowed the rest of 目标.md
      const info = m ? m[2]!.trim() : '';
      if (m && !(m[1]![0] === '`' && m[2]!.includes('`')) && !/\s/.test(info)) {
        open = { ch: m[1]![0]!, len: m[1]!.length };
        out.push(false);
      } else {
        out.push(true);
      }
    } else {
      const m = FENCE_CLOSE.exec(line);
      if (m && m[1]![0] === open.ch && m[1]!.length >= open.len) open = null;
      out.push(false);
    }
  }
  return out;
}

export function normalizeNewlines(text: string): string {
  return text.replace(/\r\n?/g, '\n');
}

/** Remove fenced blocks (``` and ~~~). An unclosed fence removes everything after it. */
export function stripFences(text: string): string {
  const lines = normalizeNewlines(text).split('\n');
  const keep = outsideFences(lines);
  return lines.filter((_, i) => keep[i]).join('\n');
}

// --- bodies ------------------------------------------------------------------------------

const RULE = /^[ \t]*(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$/;
const PLACEHOLDER = /^[(（][ \t]*(?:未填|空|无|none|empty)[ \t]*[)）]$/i;

/** `(未填)` / `(空)` / `(无)`: what our renderers write for an empty section. Read as empty. */
export function isPlaceholder(text: string): boolean {
  return PLACEHOLDER.test(text.trim());
}

/** Trailing spaces, horizontal rules and outer blank lines removed; 3+ newlines squeezed to 2. */
export function cleanBody(body: string): string {
  const lines = normalizeNewlines(body)
    .split('\n')
    .map((l) => l.replace(/[ \t]+$/, ''))
    .filter((l) => !RULE.test(l));
  return lines
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function bodyOrEmpty(body: string): string {
  const c = cleanBody(body);
  return isPlaceholder(c) ? '' : c;
}

export interface Section<K extends string> {
  key: K;
  body: string;
}

export interface Split<K extends string> {
  /** Text before the first recognised heading (already cleaned). */
  preamble: string;
  /** Every section in order, duplicates included; bodies cleaned, placeholders read as ''. */
  sections: Section<K>[];
}

/**
 * Split text into sections. A heading of the section that is already open and already has
 * content stays a body line: `假设：用户用 macOS` inside 未知与假设 is an assumption, not a new
 * (and then discarded) duplicate section.
 */
export function splitSections<K extends string>(text: string, table: HeadingTable<K>): Split<K> {
  const lines = stripFences(text ?? '').split('\n');
  const pre: string[] = [];
  const open: { key: K; lines: string[] }[] = [];
  let cur: { key: K; lines: string[] } | null = null;
  for (const line of lines) {
    const h = matchHeading(line, table);
    if (h && !(cur && cur.key === h.key && bodyOrEmpty(cur.lines.join('\n')) !== '')) {
      cur = { key: h.key, lines: [h.inline] };
      open.push(cur);
    } else if (cur) {
      cur.lines.push(line);
    } else {
      pre.push(line);
    }
  }
  return {
    preamble: cleanBody(pre.join('\n')),
    sections: open.map((s) => ({ key: s.key, body: bodyOrEmpty(s.lines.join('\n')) })),
  };
}

/** One body per key; when a key appears more than once, the first non-empty body wins. */
export function parseSections<K extends string>(text: string, table: HeadingTable<K>): Partial<Record<K, string>> {
  const out: Partial<Record<K, string>> = {};
  for (const s of splitSections(text, table).sections) {
    if (s.body !== '' && out[s.key] === undefined) out[s.key] = s.body;
  }
  return out;
}

const BULLET = /^[ \t]*(?:[-*+•][ \t]+|\d{1,3}(?:\.(?!\d)|[、)）])[ \t]*|[（(]\d{1,3}[)）][ \t]*)/;
const CHECKBOX = /^\[[ xX✓]\][ \t]+/;

/**
 * One item per line, bullets / numbering / task-list boxes stripped. An indented line that is not
 * itself a bullet continues the previous item; sub-headings and placeholders are not items.
 */
export function bullets(text: string): string[] {
  const items: string[] = [];
  let prevBlank = true;
  for (const raw of normalizeNewlines(text ?? '').split('\n')) {
    if (raw.trim() === '') {
      prevBlank = true;
      continue;
    }
    const isBullet = BULLET.test(raw);
    if (!isBullet && /^[ \t]{2,}\S/.test(raw) && !prevBlank && items.length > 0) {
      items[items.length - 1] += ` ${raw.trim()}`;
      prevBlank = false;
      continue;
    }
    prevBlank = false;
    if (/^[ \t]*#{1,6}[ \t]/.test(raw) || RULE.test(raw)) continue;
    const s = raw.replace(BULLET, '').replace(CHECKBOX, '').trim();
    if (s !== '' && !isPlaceholder(s)) items.push(s);
  }
  return items;
}

/** First `max` characters counted in code points, so a cut never splits a surrogate pair. */
export function headChars(text: string, max: number): string {
  const cps = Array.from(text);
  return cps.length <= max ? text : cps.slice(0, max).join('');
}
