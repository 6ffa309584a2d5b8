/**
 * Wrapping by display columns (CJK, full-width and ambiguous-width count 2: term.ts `width`) with a hanging indent:
 * the first line carries the speaker's mark (`? `, `  | `, `* `), the rest line up under its text.
 * Nothing is cut: a word longer than the line (a URL, a path) is broken hard, never dropped.
 * Input is plain text (already sanitized, no escapes); colour is applied per line afterwards, so
 * every line on screen is complete on its own.
 */
import { createRequire } from 'node:module';
import { width } from '../term.js';

type WrapAnsi = typeof import('wrap-ansi').default;

// wrap-ansi (and the string-width it brings, ~25 ms: src/cli/term.ts) loads at the first line that is
// wrapped, not with the CLI: a pipe (0 columns) and a line that fits never need it. Synchronous, so by
// require(esm) (Node >= 20.19, >= 22.12); an older Node loads it here, up front.
const requireEsm = createRequire(import.meta.url);
let wrapAnsi: WrapAnsi | undefined = process.features.require_module ? undefined : (await import('wrap-ansi')).default;
const wrapper = (): WrapAnsi => (wrapAnsi ??= (requireEsm('wrap-ansi') as { default: WrapAnsi }).default);

export { width };

// a line should not begin with closing punctuation (kinsoku): it moves up to the line before
const CLOSING = /^[，。、；：！？）】」』》〉”’,.;:!?)\]}]/u;

// a line that is one word (a path, a URL) with `hard: false`: it may be wider than the line, whole
const oneWord = (line: string): boolean => !/\s/.test(line.trim());

/**
 * wrap-ansi breaks at word boundaries but measures ambiguous-width characters as one column, flower's
 * measure (term.ts `width`) as two: where a line comes out wider by flower's measure, the paragraph is
 * wrapped again a little narrower, until every line fits (or is a single word kept whole).
 */
function fitted(text: string, cols: number, hard: boolean): string[] {
  let at = Math.max(1, cols);
  for (;;) {
    const out = wrapper()(text, at, { hard, trim: true, wordWrap: true }).split('\n');
    const over = Math.max(0, ...out.filter((l) => hard || !oneWord(l)).map((l) => width(l) - cols));
    if (over === 0 || at === 1) return out;
    at = Math.max(1, at - over);
  }
}

function wrapOne(text: string, cols: number, hard: boolean): string[] {
  if (text === '') return [''];
  const out = fitted(text, cols, hard);
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

/**
 * A command's own line (status, log, the demo) at `cols` columns (0: as it is): broken only between
 * words, continuation lines indented `hang` columns past the line's own indent; a word wider than the
 * line (a long path) stays whole on a line of its own.
 */
export function hangingLines(line: string, cols: number, hang = 2): string[] {
  if (cols <= 0 || width(line) <= cols) return [line];
  const lead = /^\s*/.exec(line)![0];
  return wrapBlock(line.slice(lead.length), cols, lead, lead + ' '.repeat(hang), { hard: false });
}

/** Notes on stderr (`-v`'s configuration): one `. ` line each, wrapped at `cols` under a hanging indent. */
export function noteLines(lines: readonly string[], cols: number): string {
  return `${lines.flatMap((l) => hangingLines(`. ${l}`, cols, 2)).join('\n')}\n`;
}
