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
  | { kind: 'in'; target: Word } // `< file`
  | { kind: 'null' } // `>/dev/null`, `2>/dev/null`, `&>/dev/null`, `>>/dev/null`
  | { kind: 'dup' }; // `2>&1`, `>&2`

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
    return { ok: true, commands: new Lexer(command, budget).run() };
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

/** The text of the word being read, in the two spellings a glob word needs (see Word.pattern). */
class WordText {
  text = '';
  // the pattern bash matches: quoted glob characters escaped
  pat = '';
  glob = false;
  globLead = false;
  brace = false;

  /** Characters whose quoting bash removed: literal in the pattern too. */
  quoted(t: string): void {
    this.text += t;
    for (const ch of t) this.pat += '*?[]\\'.includes(ch) ? `\\${ch}` : ch;
  }

  unquoted(c: string): void {
    this.text += c;
    this.pat += c;
  }

  word(start: number, end: number): Word {
    const { text, glob, globLead } = this;
    return glob ? { text, glob, globLead, pattern: this.pat, start, end } : { text, glob, globLead, start, end };
  }
}

/**
 * The lexer's state while it walks a command line once, left to right: `i` is the next character to read,
 * and each method below reads one construct (an operator, a redirection, a word, a quote inside a word),
 * advances `i` past it, and refuses by throwing a Refusal. Every character walked charges `budget`.
 */
class Lexer {
  private readonly n: number;
  private readonly closes: Uint8Array;
  private readonly commands: SimpleCommand[] = [];
  private readonly joiners: Joiner[] = [];
  private words: Word[] = [];
  private redirects: Redirect[] = [];
  private i = 0;

  constructor(
    private readonly s: string,
    private readonly budget: Budget,
  ) {
    this.n = s.length;
    this.closes = bracketCloses(s);
  }

  run(): SimpleCommand[] {
    while (this.i < this.n) {
      this.budget.spend();
      if (!this.operator(this.s[this.i]!)) this.wordOrDescriptor();
    }
    this.endCommand(null);
    if (this.commands.length === 0) refuse('an empty command');
    return this.commands;
  }

  /** Reads the blank, comment, operator or redirection at i; false when a word starts there instead. */
  private operator(c: string): boolean {
    const { s } = this;
    if (c === ' ' || c === '\t' || c === '\r') {
      this.i++;
      return true;
    }
    if (c === '\n') {
      this.i++;
      this.endCommand(';');
      return true;
    }
    if (c === '#') {
      while (this.i < this.n && s[this.i] !== '\n') this.i++;
      return true;
    }
    if (c === ';') {
      if (s[this.i + 1] === ';' || s[this.i + 1] === '&') refuse('`;;` belongs to `case`, which is not a glance');
      this.i++;
      this.endCommand(';');
      return true;
    }
    if (c === '|') {
      const op: Joiner = s[this.i + 1] === '|' ? '||' : s[this.i + 1] === '&' ? '|&' : '|';
      this.i += op.length;
      this.endCommand(op);
      return true;
    }
    if (c === '&') {
      if (s[this.i + 1] === '&') {
        this.i += 2;
        this.endCommand('&&');
        return true;
      }
      if (s[this.i + 1] === '>') {
        this.i++;
        this.redirection('&');
        return true;
      }
      refuse('a lone `&` runs a command in the background');
    }
    if (c === '(' || c === ')') refuse('subshells, groups and arithmetic `((…))` are not glances');
    if (c === '<' || c === '>') {
      this.redirection('');
      return true;
    }
    return false;
  }

  /** A word; an all-digit word glued to `<`/`>` is the descriptor being redirected (`2>/dev/null`). */
  private wordOrDescriptor(): void {
    const { word, raw } = this.readWord();
    const { s, i } = this;
    if (/^\d+$/.test(raw) && (s[i] === '<' || s[i] === '>')) {
      this.redirection(raw);
      return;
    }
    if (this.words.length === 0) {
      if (/^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.test(raw)) refuse(`\`${raw}\` assigns a variable; \`VAR=x cmd\` prefixes are not glances`);
      if (raw === '!') refuse('`!` negation is not a glance');
    }
    this.words.push(word);
  }

  private endCommand(op: Joiner | null): void {
    const { words, redirects, joiners, commands } = this;
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
    this.words = [];
    this.redirects = [];
  }

  /** Reads one word starting at i (which is not a metachar); returns the word and its raw text. */
  private readWord(): { word: Word; raw: string } {
    const w = new WordText();
    const start = this.i;
    let first = true;
    while (this.i < this.n && !METACHAR.has(this.s[this.i]!)) {
      this.budget.spend();
      const c = this.s[this.i]!;
      if (c === "'") this.singleQuoted(w);
      else if (c === '"') this.doubleQuoted(w);
      else if (c === '\\') this.escaped(w);
      else if (c === '$')
        refuse(
          this.s[this.i + 1] === "'" ? "`$'…'` quoting decodes escapes the classifier cannot check" : 'an unquoted `$` expands a variable or runs a command',
        );
      else if (c === '`') refuse('a backtick runs a command');
      else this.unquoted(w, c, first);
      first = false;
    }
    const raw = this.s.slice(start, this.i);
    if (w.brace) checkBraces(raw);
    return { word: w.word(start, this.i), raw };
  }

  private singleQuoted(w: WordText): void {
    const { s, i } = this;
    const j = s.indexOf("'", i + 1);
    if (j < 0) refuse('an unterminated single quote');
    this.budget.spend(j - i);
    w.quoted(s.slice(i + 1, j));
    this.i = j + 1;
  }

  private doubleQuoted(w: WordText): void {
    const { s, n } = this;
    let j = this.i + 1;
    for (; j < n && s[j] !== '"'; j++) {
      this.budget.spend();
      const d = s[j]!;
      if (d === '$') refuse('a `$` inside double quotes expands a variable or runs a command; use single quotes');
      if (d === '`') refuse('a backtick runs a command');
      if (d === '\\') {
        const e = s[j + 1];
        if (e === '\n') refuse('a backslash-newline joins lines');
        if (e !== undefined && '"\\$`'.includes(e)) {
          w.quoted(e);
          j++;
          continue;
        }
      }
      w.quoted(d);
    }
    if (j >= n) refuse('an unterminated double quote');
    this.i = j + 1;
  }

  private escaped(w: WordText): void {
    const e = this.s[this.i + 1];
    if (e === undefined) refuse('a trailing backslash');
    if (e === '\n') refuse('a backslash-newline joins lines');
    w.quoted(e!);
    this.i += 2;
  }

  private unquoted(w: WordText, c: string, first: boolean): void {
    const { s, i } = this;
    if (c === '{' || c === '}') w.brace = true;
    // `[` is a glob only when a `]` closes it in the same word (a lone `[` is the test builtin)
    if (GLOB.has(c) && (c !== '[' || this.closes[i] === 1)) {
      w.glob = true;
      if (first) w.globLead = true;
    }
    if (c === '~' && first && !(isMeta(s[i + 1]) || s[i + 1] === '/')) refuse('`~user`, `~+` and `~-` expand to directories the classifier cannot see');
    w.unquoted(c);
    this.i++;
  }

  /** A redirection at s[i], which is '<' or '>' ('&>' handled by the caller through fd === '&'). */
  private redirection(fd: string): void {
    const at = (t: string): boolean => this.s.startsWith(t, this.i);
    if (at('<<')) refuse('here-documents and here-strings (`<<`, `<<<`) are not glances');
    if (at('<>')) refuse('`<>` opens a file for writing');
    if (at('<&')) refuse('`<&` duplicates input descriptors');
    if (at('<(') || at('>(')) refuse('process substitution runs a command');
    if (at('<')) this.input(fd);
    else this.output(fd);
  }

  private input(fd: string): void {
    if (fd !== '' && fd !== '0') refuse(`\`${fd}<\` opens descriptor ${fd} on a file`);
    this.i++;
    this.redirects.push({ kind: 'in', target: this.redirectTarget('<') });
  }

  private output(fd: string): void {
    const { s } = this;
    let op = '>';
    this.i++;
    if (s[this.i] === '>') {
      op = '>>';
      this.i++;
    } else if (s[this.i] === '|') {
      op = '>|';
      this.i++;
    }
    if (fd !== '' && fd !== '1' && fd !== '2' && fd !== '&') refuse(`\`${fd}${op}\` redirects an unusual descriptor`);
    if (op === '>' && s[this.i] === '&' && fd !== '&') {
      this.duplication();
      return;
    }
    const t = this.redirectTarget(`${fd}${op}`);
    if (t.text !== '/dev/null') refuse(`the redirection \`${fd === '1' ? '' : fd}${op}${t.text}\` writes a file; only \`/dev/null\` is allowed`);
    this.redirects.push({ kind: 'null' });
  }

  /** `>&1`, `>&2` at the `&` after `>`; nothing else. */
  private duplication(): void {
    const { s, i } = this;
    const after = s[i + 2];
    const ends = after === undefined || after === ' ' || after === '\t' || after === '\r' || after === '\n' || ';&|)'.includes(after);
    if (!((s[i + 1] === '1' || s[i + 1] === '2') && ends)) refuse('only `2>&1` and `>&2` style duplications are glances');
    this.i += 2;
    this.redirects.push({ kind: 'dup' });
  }

  private redirectTarget(op: string): Word {
    const { s, n } = this;
    while (this.i < n && (s[this.i] === ' ' || s[this.i] === '\t')) this.i++;
    if (this.i >= n || METACHAR.has(s[this.i]!)) refuse(`the redirection \`${op}\` has no file after it`);
    const { word } = this.readWord();
    if (word.glob) refuse(`the redirection target \`${word.text}\` is a glob`);
    return word;
  }
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
