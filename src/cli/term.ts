/**
 * Terminal safety, pure: every line flower prints goes through `sanitize` (only flower's own SGR
 * colours survive; other escapes are removed whole, control bytes dropped, tabs → spaces) and is
 * measured in display columns (East-Asian wide and full-width characters count 2), because a model's
 * output once drew 593-column lines and escape sequences into a terminal that then crashed (issue #7).
 * All glyphs are ASCII.
 */
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

type StringWidth = typeof import('string-width').default;

// string-width takes ~25 ms to load (an Intl.Segmenter, \p{RGI_Emoji} regexes, strip-ansi): a plain ASCII
// line — most of what an English `status` or `log` prints — is measured without it (each character is one
// column), and it loads at the first line that needs it. That load is synchronous, so it needs
// require(esm) (Node >= 20.19, >= 22.12); an older Node loads it here, up front (its top-level await).
const requireEsm = createRequire(import.meta.url);
let stringWidth: StringWidth | undefined = process.features.require_module ? undefined : (await import('string-width')).default;
const measure = (): StringWidth => (stringWidth ??= (requireEsm('string-width') as { default: StringWidth }).default);
// printable ASCII with flower's colours (SGR) at most: one column per character, the colours none
// eslint-disable-next-line no-control-regex
const PLAIN = /^(?:[\x20-\x7e]|\x1b\[[0-9;]*m)*$/;
// eslint-disable-next-line no-control-regex
const SGRS = /\x1b\[[0-9;]*m/g;

// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[@-Z\\-_]/g;
// eslint-disable-next-line no-control-regex
const SGR = /^\x1b\[[0-9;]*m$/;

export function sanitize(text: string, { keepColour = true } = {}): string {
  const withoutEsc = text.replace(ESCAPES, (m) => (keepColour && SGR.test(m) ? m : ''));
  // eslint-disable-next-line no-control-regex
  return withoutEsc
    .replace(/\t/g, '  ')
    .replace(/[\x00-\x08\x0b-\x1a\x1c-\x1f\x7f]/g, '')
    .replace(/\x1b(?!\[[0-9;]*m)/g, '');
}

export function charWidth(cp: number): number {
  if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return 0;
  if (cp >= 0x300 && cp <= 0x36f) return 0; // combining marks
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0x303e) ||
    (cp >= 0x3041 && cp <= 0x33ff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0xa000 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  )
    return 2;
  return 1;
}

/**
 * Display columns of a (sanitized) string (string-width: East-Asian wide, emoji, combining marks); SGR takes no room.
 * The one measure flower lays lines out with. Ambiguous-width characters (— … · “ ”) count 2, as the spec
 * says (continuity-workflow-ui.md §2.3): whether they take one column or two is the terminal's choice
 * (East-Asian terminals and zh locales draw them wide), and a line measured wide never overflows either way.
 */
export function width(text: string): number {
  if (PLAIN.test(text)) return text.includes('\x1b') ? text.replace(SGRS, '').length : text.length;
  return measure()(text, { ambiguousIsNarrow: false });
}

/** Cut to `cols` display columns, ending in `...` (and a colour reset if colours were open). */
export function fit(text: string, cols: number): string {
  if (width(text) <= cols) return text;
  let out = '';
  let w = 0;
  let coloured = false;
  // eslint-disable-next-line no-control-regex
  const parts = text.split(/(\x1b\[[0-9;]*m)/);
  for (const part of parts) {
    if (/^\x1b\[[0-9;]*m$/.test(part)) {
      out += part;
      coloured = true;
      continue;
    }
    for (const ch of part) {
      const cw = width(ch);
      if (w + cw > cols - 3) return out + '...' + (coloured ? '\x1b[0m' : '');
      out += ch;
      w += cw;
    }
  }
  return out;
}

/** Width flower draws at: between 40 and 110 columns. */
export function screenWidth(columns: number | undefined): number {
  return Math.max(40, Math.min(columns ?? 80, 110));
}

/**
 * Where a command's own lines (status, log, the demo) wrap: the terminal's width on a terminal
 * (`COLUMNS` when the stream does not say), 0 — whole lines — in a pipe or a file unless `COLUMNS` is set.
 */
export function wrapWidth(out: { isTTY?: boolean; columns?: number }, env: Record<string, string | undefined>): number {
  const set = Number(env.COLUMNS);
  const columns = Number.isInteger(set) && set > 0 ? set : undefined;
  if (out.isTTY) return screenWidth(out.columns ?? columns);
  return columns ? screenWidth(columns) : 0;
}

/** `== name ======  i/total  <tag>` filling the line. */
export function banner(name: string, index: number, total: number, cols: number, tag = ''): string {
  const head = `== ${name} `;
  const tail = `  ${index}/${total}${tag ? `  ${tag}` : ''}`;
  const fill = Math.max(2, Math.min(cols, 80) - width(head) - width(tail));
  return fit(`${head}${'='.repeat(fill)}${tail}`, cols);
}

export function money(usd: number): string {
  return usd.toFixed(usd >= 1 ? 2 : 4);
}

export function clockDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const ss = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** Token counts as people read them: 812, 12.3K, 1.2M. */
export function tokens(n: number): string {
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}K`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** A path under the home folder as `~/…` (status, report, the wake banner). */
export function tilde(p: string, home = os.homedir()): string {
  return home && (p === home || p.startsWith(home + path.sep)) ? `~${p.slice(home.length)}` : p;
}
