/**
 * The input line's editor, pure: keypresses (as node's readline decodes them) in, the text, the
 * cursor and what happened out. It edits by character (a CJK character is one Backspace) and keeps
 * the typed text across redraws — the reason it exists: in the terminal's own line mode, whatever
 * was typed vanished from view the moment flower printed a line, though it was still buffered.
 */
import { width } from './wrap.js';

export interface Key {
  name?: string | undefined;
  ctrl?: boolean | undefined;
  meta?: boolean | undefined;
  sequence?: string | undefined;
}

export type EditResult = 'none' | 'changed' | { submit: string } | 'interrupt' | 'eof';

export class LineEditor {
  private chars: string[] = [];
  private pos = 0;

  get text(): string {
    return this.chars.join('');
  }

  get cursor(): number {
    return this.pos;
  }

  clear(): void {
    this.chars = [];
    this.pos = 0;
  }

  /** Apply one key (a paste may arrive as one multi-character sequence). */
  key(str: string | undefined, k: Key = {}): EditResult {
    const name = k.name ?? '';
    if (k.ctrl) {
      switch (name) {
        case 'c':
          return 'interrupt';
        case 'd':
          return this.chars.length === 0 ? 'eof' : this.del();
        case 'a':
          return this.move(0);
        case 'e':
          return this.move(this.chars.length);
        case 'b':
          return this.move(this.pos - 1);
        case 'f':
          return this.move(this.pos + 1);
        case 'u':
          this.chars.splice(0, this.pos);
          this.pos = 0;
          return 'changed';
        case 'k':
          this.chars.splice(this.pos);
          return 'changed';
        case 'w':
          return this.killWord();
        case 'h':
          return this.back();
        case 'm':
        case 'j':
          return this.submit();
        default:
          return 'none';
      }
    }
    switch (name) {
      case 'return':
      case 'enter':
        return this.submit();
      case 'backspace':
        return this.back();
      case 'delete':
        return this.del();
      case 'left':
        return this.move(this.pos - 1);
      case 'right':
        return this.move(this.pos + 1);
      case 'home':
        return this.move(0);
      case 'end':
        return this.move(this.chars.length);
      case 'up':
      case 'down':
      case 'pageup':
      case 'pagedown':
      case 'escape':
      case 'tab':
        return 'none';
      default:
        break;
    }
    if (k.meta) return 'none';
    const s = str ?? k.sequence ?? '';
    // printable only: control bytes and escape sequences never reach the text
    // eslint-disable-next-line no-control-regex
    const clean = s.replace(/\x1b\[[0-9;?]*[ -/]*[@-~]|[\x00-\x1f\x7f]/g, '');
    if (!clean) return 'none';
    const add = [...clean];
    this.chars.splice(this.pos, 0, ...add);
    this.pos += add.length;
    return 'changed';
  }

  /**
   * The line as drawn in `cols - 1` columns after `prompt`: when the text is longer, the part around
   * the cursor shows, with `<` marking hidden text on the left. `col` is where the cursor goes.
   */
  view(prompt: string, cols: number): { line: string; col: number } {
    const room = Math.max(4, cols - 1 - width(prompt));
    let start = 0;
    const before = () => width(this.chars.slice(start, this.pos).join(''));
    while (before() > room - 2 && start < this.pos) start++;
    let shown = '';
    for (const ch of this.chars.slice(start)) {
      if (width(shown + ch) > room - (start > 0 ? 1 : 0)) break;
      shown += ch;
    }
    const lead = start > 0 ? '<' : '';
    return { line: `${prompt}${lead}${shown}`, col: width(prompt) + width(lead) + before() };
  }

  private submit(): EditResult {
    const text = this.text;
    this.clear();
    return { submit: text };
  }

  private back(): EditResult {
    if (this.pos === 0) return 'none';
    this.chars.splice(this.pos - 1, 1);
    this.pos--;
    return 'changed';
  }

  private del(): EditResult {
    if (this.pos >= this.chars.length) return 'none';
    this.chars.splice(this.pos, 1);
    return 'changed';
  }

  private move(to: number): EditResult {
    const p = Math.max(0, Math.min(this.chars.length, to));
    if (p === this.pos) return 'none';
    this.pos = p;
    return 'changed';
  }

  private killWord(): EditResult {
    let i = this.pos;
    while (i > 0 && this.chars[i - 1] === ' ') i--;
    while (i > 0 && this.chars[i - 1] !== ' ') i--;
    if (i === this.pos) return 'none';
    this.chars.splice(i, this.pos - i);
    this.pos = i;
    return 'changed';
  }
}
