// A shell lexer for glances: pure, no I/O, imports nothing from flower. It models the parts of bash that
// decide what a command line really runs, and refuses every construct whose meaning depends on state it
// cannot see (expansions, substitutions) instead of guessing. A false refusal costs the model one
// delegation; a false acceptance could let it write files, run code or print a secret.

import { Budget } from './budget.js';

/** One word after quote removal. */
export interface Word {
  readonly text: string;
  /** has an unquoted glob character (`*`, `?`, `[…]`): the shell may expand it to several file names */
  readonly glob: boolean;
  /** the glob's first character is itself unquoted glob syntax, so an expansion could start with `-` */
  readonly globLead: boolean;
  /**
   * For a glob word, the pattern bash matches: `text` with each quoted or escaped `*?[]\` written as
   * `\x` (`'*'.e*` is the pattern `\*.e*`), so glob.ts reads exactly what the shell would expand.
   */
  readonly pattern?: string;
  /** the word's raw extent in the command, quotes included: `command.slice(start, end)`; -1 when made up */
  readonly start: number;
  readonly end: number;
}

/** A word the classifier makes up (an implicit `.`, an option's value): it has no place in the command. */
export const madeUpWord = (text: string, glob = false, pattern?: string): Word =>
  pattern === undefined ? { text, glob, globLead: false, start: -1, end: -1 } : { text, glob, globLead: false, pattern, start: -1, end: -1 };

export type Redirect =
  | { kind: 'in'; target: Word }        // `< file`
  | { kind: 'null' }                     // `>/dev/null`, `2>/dev/null`, `&>/dev/null`, `>>/dev/null`
  | { kind: 'dup' };                     // `2>&1`, `>&2`

export interface SimpleCommand {
  readonly words: Word[];
  readonly redirects: Redirect[];
  /** the operator after this command (none after the last) */
  next?: Joiner;
}

/** Operators between simple commands; `&` (background) is refused, so it never appears. */
export type Joiner = '|' | '|&' | '&&' | '||' | ';';

export type Lexed = { ok: true; commands: SimpleCommand[] } | { ok: false; reason: string };

const GLOB = new Set(['*', '?', '[']);
const METACHAR = new Set([' ', '\t', '\r', '\n', ';', '&', '|', '<', '>', '(', ')']);

class Refusal {
  constructor(readonly reason: string) {}
}
const refuse = (reason: string): never => {
  throw new Refusal(reason);
};

/**
 * Unquoted braces: `{a,b}` and `{1..3}` expand; a bare `{}` or `@{u}`-style ref (no comma, no `..`, each
 * `{` right after `@` and closed by the next `}` with only `[\w.-]` between) does not. Written as a scan,
 * not a RegExp with nested quantifiers.
 */
function checkBraces(raw: string): void {
  if (raw === '{}') return;
  const bad = (): never => refuse(`the word \`${raw}\` has an unquoted \`{\`/\`}\` (brace expansion or a group); quote it`);
  if (raw.includes(',') || raw.includes('..')) bad();
  for (let i = 0; i < raw.length; i++) {
    if (raw[i] === '}') bad();
    if (raw[i] !== '{') continue;
    if (raw[i - 1] !== '@') bad();
    let j = i + 1;
    while (j < raw.length && /[\w.-]/.test(raw[j]!)) j++;
    if (raw[j] !== '}') bad();
    i = j;
  }
}

const isMeta = (c: string | undefined): boolean => c === undefined || METACHAR.has(c);

/**
 * Splits `command` into simple commands. Refuses: any unquoted or double-quoted `$` (variables, `${…}`,
 * `$(…)`, `$((…))`, `$'…'`, `$"…"`), backticks, backslash-newline, process substitution, here-docs and
 * here-strings, subshells and groups, `&` backgrounding, and every output redirection except to
 * `/dev/null` or a descriptor duplication.
 */
export function lex(command: string, budget: Budget = new Budget()): Lexed {
  try {
    return { ok: true, commands: lexOrThrow(command, budget) };
  } catch (e) {
    if (e instanceof Refusal) return { ok: false, reason: e.reason };
    throw e;
  }
}

/**
 * closes[i]: whether a `]` follows position i in the same raw word (before whitespace or an operator),
 * computed once from the right so that `[[[[…` stays linear (it used to rescan the rest per `[`).
 */
function bracketCloses(s: string): Uint8Array {
  const closes = new Uint8Array(s.length + 1);
  for (let i = s.length - 1; i >= 0; i--) {
    const c = s[i + 1];
    closes[i] = c === undefined || METACHAR.has(c) ? 0 : c === ']' ? 1 : closes[i + 1]!;
  }
  return closes;
}

function lexOrThrow(s: string, budget: Budget): SimpleCommand[] {
  const closes = bracketCloses(s);
  const commands: SimpleCommand[] = [];
  const joiners: Joiner[] = [];
  let words: Word[] = [];
  let redirects: Redirect[] = [];
  let i = 0;
  const n = s.length;

  const endCommand = (op: Joiner | null): void => {
    if (words.length === 0) {
      if (redirects.length > 0) refuse('a redirection without a command');
      // an empty command is fine only as a trailing `;`/newline or a leading/blank line
      if (op !== null && op !== ';') refuse(`\`${op}\` with no command before it`);
      if (joiners.length > 0 && joiners[joiners.length - 1] !== ';') refuse(`\`${joiners[joiners.length - 1]}\` with no command after it`);
      return;
    }
    commands.push({ words, redirects });
    if (op !== null) {
      joiners.push(op);
      commands[commands.length - 1]!.next = op;
    }
    words = [];
    redirects = [];
  };

  /** Reads one word starting at i (which is not a metachar); returns the word and its raw text. */
  const readWord = (): { word: Word; raw: string } => {
    let text = '';
    let raw = '';
    // the pattern bash matches: quoted glob characters escaped (see Word.pattern)
    let pat = '';
    const quoted = (t: string): void => {
      text += t;
      for (const ch of t) pat += '*?[]\\'.includes(ch) ? `\\${ch}` : ch;
    };
    let glob = false;
    let globLead = false;
    let first = true;
    let brace = false;
    const start = i;
    while (i < n && !METACHAR.has(s[i]!)) {
      budget.spend();
      const c = s[i]!;
      if (c === "'") {
        const j = s.indexOf("'", i + 1);
        if (j < 0) refuse('an unterminated single quote');
        budget.spend(j - i);
        quoted(s.slice(i + 1, j));
        i = j + 1;
      } else if (c === '"') {
        let j = i + 1;
        for (; j < n && s[j] !== '"'; j++) {
          budget.spend();
          const d = s[j]!;
          if (d === '$') refuse('a `$` inside double quotes expands a variable or runs a command; use single quotes');
          if (d === '`') refuse('a backtick runs a command');
          if (d === '\\') {
            const e = s[j + 1];
            if (e === '\n') refuse('a backslash-newline joins lines');
            if (e !== undefined && '"\\$`'.includes(e)) { quoted(e); j++; continue; }
          }
          quoted(d);
        }
        if (j >= n) refuse('an unterminated double quote');
        i = j + 1;
      } else if (c === '\\') {
        const e = s[i + 1];
        if (e === undefined) refuse('a trailing backslash');
        if (e === '\n') refuse('a backslash-newline joins lines');
        quoted(e!);
        i += 2;
      } else if (c === '$') {
        refuse(s[i + 1] === "'" ? "`$'…'` quoting decodes escapes the classifier cannot check" : 'an unquoted `$` expands a variable or runs a command');
      } else if (c === '`') {
        refuse('a backtick runs a command');
      } else {
        if (c === '{' || c === '}') brace = true;
        // `[` is a glob only when a `]` closes it in the same word (a lone `[` is the test builtin)
        if (GLOB.has(c) && (c !== '[' || closes[i] === 1)) {
          glob = true;
          if (first) globLead = true;
        }
        if (c === '~' && first && !(isMeta(s[i + 1]) || s[i + 1] === '/')) refuse('`~user`, `~+` and `~-` expand to directories the classifier cannot see');
        text += c;
        pat += c;
        i++;
      }
      first = false;
    }
    raw = s.slice(start, i);
    if (brace) checkBraces(raw);
    const word: Word = glob ? { text, glob, globLead, pattern: pat, start, end: i } : { text, glob, globLead, start, end: i };
    return { word, raw };
  };

  const redirectTarget = (op: string): Word => {
    while (i < n && (s[i] === ' ' || s[i] === '\t')) i++;
    if (i >= n || METACHAR.has(s[i]!)) refuse(`the redirection \`${op}\` has no file after it`);
    const { word } = readWord();
    if (word.glob) refuse(`the redirection target \`${word.text}\` is a glob`);
    return word;
  };

  const redirection = (fd: string): void => {
    // s[i] is '<' or '>' ('&>' handled by the caller through fd === '&')
    const at = (t: string): boolean => s.startsWith(t, i);
    if (at('<<')) refuse('here-documents and here-strings (`<<`, `<<<`) are not glances');
    if (at('<>')) refuse('`<>` opens a file for writing');
    if (at('<&')) refuse('`<&` duplicates input descriptors');
    if (at('<(') || at('>(')) refuse('process substitution runs a command');
    if (at('<')) {
      if (fd !== '' && fd !== '0') refuse(`\`${fd}<\` opens descriptor ${fd} on a file`);
      i++;
      redirects.push({ kind: 'in', target: redirectTarget('<') });
      return;
    }
    let op = '>';
    i++;
    if (s[i] === '>') { op = '>>'; i++; } else if (s[i] === '|') { op = '>|'; i++; }
    if (fd !== '' && fd !== '1' && fd !== '2' && fd !== '&') refuse(`\`${fd}${op}\` redirects an unusual descriptor`);
    if (op === '>' && s[i] === '&' && fd !== '&') {
      const after = s[i + 2];
      const ends = after === undefined || after === ' ' || after === '\t' || after === '\r' || after === '\n' || ';&|)'.includes(after);
      if (!((s[i + 1] === '1' || s[i + 1] === '2') && ends)) refuse('only `2>&1` and `>&2` style duplications are glances');
      i += 2;
      redirects.push({ kind: 'dup' });
      return;
    }
    const t = redirectTarget(`${fd}${op}`);
    if (t.text !== '/dev/null') refuse(`the redirection \`${fd === '1' ? '' : fd}${op}${t.text}\` writes a file; only \`/dev/null\` is allowed`);
    redirects.push({ kind: 'null' });
  };

  while (i < n) {
    budget.spend();
    const c = s[i]!;
    if (c === ' ' || c === '\t' || c === '\r') { i++; continue; }
    if (c === '\n') { i++; endCommand(';'); continue; }
    if (c === '#' ) { while (i < n && s[i] !== '\n') i++; continue; }
    if (c === ';') {
      if (s[i + 1] === ';' || s[i + 1] === '&') refuse('`;;` belongs to `case`, which is not a glance');
      i++; endCommand(';'); continue;
    }
    if (c === '|') {
      const op: Joiner = s[i + 1] === '|' ? '||' : s[i + 1] === '&' ? '|&' : '|';
      i += op.length; endCommand(op); continue;
    }
    if (c === '&') {
      if (s[i + 1] === '&') { i += 2; endCommand('&&'); continue; }
      if (s[i + 1] === '>') { i++; redirection('&'); continue; }
      refuse('a lone `&` runs a command in the background');
    }
    if (c === '(' || c === ')') refuse('subshells, groups and arithmetic `((…))` are not glances');
    if (c === '<' || c === '>') { redirection(''); continue; }
    // a word; an all-digit word glued to `<`/`>` is the descriptor being redirected (`2>/dev/null`)
    const { word, raw } = readWord();
    if (/^\d+$/.test(raw) && (s[i] === '<' || s[i] === '>')) { redirection(raw); continue; }
    if (words.length === 0) {
      if (/^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(raw)) refuse(`\`${raw}\` assigns a variable; \`VAR=x cmd\` prefixes are not glances`);
      if (raw === '!' ) refuse('`!` negation is not a glance');
    }
    words.push(word);
  }
  endCommand(null);
  if (commands.length === 0) refuse('an empty command');
  return commands;
}

/**
 * The part of a glob word's pattern that spells `w.text.slice(from)` (an option's glued value: the `*.ts`
 * of `--include=*.ts`), or undefined when the word is no glob.
 */
export function patternFrom(w: Word, from: number): string | undefined {
  if (w.pattern === undefined) return undefined;
  let k = 0;
  let i = 0;
  for (; i < w.pattern.length && k < from; i++, k++) if (w.pattern[i] === '\\') i++;
  return w.pattern.slice(i);
}
