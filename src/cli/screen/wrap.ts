/**
 * Wrapping by display columns (CJK and full-width count 2, via string-width) with a hanging indent:
 * the first line carries the speaker's mark (`? `, `  | `, `* `), the rest line up under its text.
 * Nothing is cut: a word longer than the line (a URL, a path) is broken hard, never dropped.
 * Input is plain text (already sanitized, no escapes); colour is applied per line afterwards, so
 * every line on screen is complete on its own.
 */
import stringWidth from 'string-width';
import wrapAnsi from 'wrap-ansi';

export const width = (s: string): number => stringWidth(s);

// a line should not begin with closing punctuation (kinsoku): it moves up to the line before
const CLOSING = /^[，。、；：！？）】」』》〉”’,.;:!?)\]}]/u;

function wrapOne(text: string, cols: number, hard: boolean): string[] {
  if (text === '') return [''];
  const out = wrapAnsi(text, Math.max(1, cols), { hard, trim: true, wordWrap: true }).split('\n');
  for (let i = 1; i < out.length; i++) {
    const m = CLOSING.exec(out[i]!);
    if (m && out[i - 1] !== '') {
      out[i - 1] += m[0];
      out[i] = out[i]!.slice(m[0].length).trimStart();
    }
  }
  return out.filter((l, i) => l !== '' || i === 0);
}

/**
 * `text` (may hold newlines) wrapped to `cols` columns (0: not wrapped, for pipes and logs): the first line starts with `first`, every
 * other line with `rest` (default: spaces as wide as `first`). Blank lines inside `text` are dropped
 * unless `keepBlank`. `hard: false` never breaks inside a word (a path stays whole and copyable,
 * the terminal soft-wraps it).
 */
export function wrapBlock(text: string, cols: number, first = '', rest?: string, { keepBlank = false, hard = true } = {}): string[] {
  const pad = rest ?? ' '.repeat(width(first));
  const lines: string[] = [];
  const paras = text.replace(/\r\n?/g, '\n').split('\n');
  for (const para of paras) {
    const p = para.trimEnd();
    if (p.trim() === '' && !keepBlank) continue;
    const room = Math.max(10, cols - Math.max(width(first), width(pad)));
    for (const part of cols > 0 ? wrapOne(p, room, hard) : [p.trim()]) lines.push(`${lines.length === 0 ? first : pad}${part}`);
  }
  if (lines.length === 0 && first.trim()) lines.push(first.trimEnd());
  return lines;
}
