/**
 * A submission the schema did not accept, as a person reads it: one line naming each field and what
 * was wrong with it (`~ brief not accepted: acceptance — expected a list; goal — required`), wrapped
 * at the screen's width between words, never JSON. And a failure's reason clipped to what is left of
 * a line: the whole reason stays in the manifest row and in `flower log`.
 * Pure: typed issues (src/human/rejection.ts) and texts in, lines out.
 */
import type { FieldIssue } from '../../human/index.js';
import type { ScreenTexts } from './texts.js';
import { width, wrapBlock } from './wrap.js';

/** One issue in words: `acceptance — expected a list`. */
export function issueWords(i: FieldIssue, t: ScreenTexts): string {
  const why = i.reason === 'not_allowed' && i.allowed?.length ? t.oneOf(i.allowed) : t.reason[i.reason];
  return `${i.field} — ${why}`;
}

/** The rejection's line(s): `~ ` and the document's short name, then every issue; wrapped at `cols` (0: one line). */
export function refusalLines(kind: keyof ScreenTexts['docShort'], issues: readonly FieldIssue[], t: ScreenTexts, cols: number): string[] {
  const list = issues.length ? issues.map((i) => issueWords(i, t)).join(t.issueSep) : t.reason.invalid;
  return wrapBlock(t.refused(t.docShort[kind], list), cols, '~ ', '  ');
}

const ELLIPSIS = '…';
const CJK = /[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef]/;

/**
 * `text` in at most `cols` columns: whole when it fits, else cut at the last space that leaves room
 * for `…` (a word is never cut in half unless it is the only one).
 */
export function clipWords(text: string, cols: number): string {
  const one = text.replace(/\s+/g, ' ').trim();
  if (cols <= 0 || width(one) <= cols) return one;
  let out = '';
  for (const ch of one) {
    if (width(out + ch) > cols - width(ELLIPSIS)) break;
    out += ch;
  }
  // between two CJK characters, or at a space, no word is cut; inside a latin word, back to its start
  const next = one.slice(out.length, out.length + 1);
  const inWord = next !== ' ' && !CJK.test(next) && !CJK.test(out.slice(-1));
  const space = out.lastIndexOf(' ');
  const cut = inWord && space > 0 ? out.slice(0, space) : out;
  return `${cut.replace(/[\s,;:—-]+$/, '')}${ELLIPSIS}`;
}
