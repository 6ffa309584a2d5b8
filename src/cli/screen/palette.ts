/**
 * The one palette: who is speaking decides the hue. Colour is on only on a terminal (or with
 * FORCE_COLOR), never with NO_COLOR or FORCE_COLOR=0, never on TERM=dumb — and then `paint` returns
 * the text untouched, so a pipe gets no escape at all. Only SGR codes (the ones `sanitize` lets
 * through as flower's own) are ever produced.
 */
export type Role =
  | 'prose'
  | 'worker'
  | 'tool'
  | 'dispatch'
  | 'thinking'
  | 'question'
  | 'answer'
  | 'error'
  | 'warn'
  | 'note'
  | 'banner'
  | 'ok'
  | 'live'
  | 'hint'
  | 'verdict-ok'
  | 'verdict-no'
  | 'path';

/** [open, close] SGR parameters; close is specific so nested roles stay readable in a log viewer. */
const SGR: Readonly<Record<Role, readonly [string, string]>> = {
  prose: ['', ''],
  worker: ['2', '22'],
  tool: ['34', '39'],
  dispatch: ['35', '39'],
  thinking: ['36', '39'],
  question: ['1;33', '22;39'],
  answer: ['32', '39'],
  error: ['31', '39'],
  warn: ['33', '39'],
  note: ['36', '39'],
  banner: ['1', '22'],
  ok: ['32', '39'],
  live: ['2', '22'],
  hint: ['2', '22'],
  'verdict-ok': ['1;32', '22;39'],
  'verdict-no': ['1;33', '22;39'],
  path: ['4', '24'],
};

type Env = Record<string, string | undefined>;

/** Whether to colour a stream: NO_COLOR (any non-empty value) and FORCE_COLOR=0 win, FORCE_COLOR forces, else a TTY not TERM=dumb. */
export function colourEnabled(env: Env, isTTY: boolean): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return !['0', 'false', 'no'].includes(force.trim().toLowerCase());
  return isTTY && env.TERM !== 'dumb';
}

export class Palette {
  constructor(readonly on: boolean) {}

  paint(role: Role, text: string): string {
    const [open, close] = SGR[role];
    if (!this.on || !open || text === '') return text;
    return `\x1b[${open}m${text}\x1b[${close}m`;
  }
}
