// awk programs, checked by content with a small awk tokenizer: strings and regex literals are skipped as
// awk reads them (so `x = /"/; system("…")` cannot hide a call behind a quote), then the program may not
// run commands (`system`, `|`, `|&`), read or write other files (`getline`, `print > f`, `>>`, `close`),
// read the environment (`ENVIRON`, `PROCINFO`) or load code (`@include`, `@load`). Nor may it loop
// without end: `while`, `do`, C-style `for (;;)` and user functions (which can recurse) are refused; the
// loop over an array's keys, `for (k in a)`, always ends.
import { Budget } from './budget.js';

const FORBIDDEN_NAMES: Readonly<Record<string, string>> = {
  system: 'runs a command',
  getline: "reads another file or a command's output",
  close: 'closes (and so runs) pipes and files',
  fflush: 'flushes pipes and files',
  ENVIRON: 'reads the environment, which can hold secrets',
  PROCINFO: 'reads process information',
  ARGV: 'can switch to reading other files (`ARGV[1]=".env"`)',
  ARGC: 'can switch to reading other files',
  while: 'can loop forever',
  do: 'can loop forever',
  function: 'defines functions, which can recurse forever',
  func: 'defines functions, which can recurse forever',
};

/** `for (key in array)`, the one loop a glance may use; matched in place (sticky), never on a slice. */
const FOR_IN = /\s*\(\s*[A-Za-z_]\w*\s+in\s+[A-Za-z_]\w*\s*\)/y;

/** What awkProgram learned besides its verdict. */
export interface AwkInfo {
  /** the program has only `BEGIN` blocks, so it reads no input */
  onlyBegin: boolean;
}

/** Tokens after which a `/` starts a regex rather than a division. */
const REGEX_AFTER = new Set([
  '',
  '(',
  ',',
  '{',
  '}',
  ';',
  '\n',
  '~',
  '!~',
  '!',
  '&&',
  '||',
  '=',
  '==',
  '!=',
  '<',
  '<=',
  '>',
  '>=',
  '+=',
  '-=',
  '*=',
  '/=',
  '?',
  ':',
  'print',
  'printf',
  'return',
  'in',
  '+',
  '-',
  '*',
  '%',
  '^',
]);

/** Why `program` is not a read-only awk program, or null. */
export function awkProgram(program: string, budget: Budget = new Budget(), info: AwkInfo = { onlyBegin: true }): string | null {
  const scan: Scan = { s: program, prev: '', inPrint: false, depth: 0, braces: 0, info };
  info.onlyBegin = true;
  for (let i = 0; i < program.length; ) {
    budget.spend();
    const next = token(scan, i);
    if (typeof next === 'string') return next;
    i = next;
  }
  return null;
}

// ---- the tokenizer ----

/** What the scan carries from token to token. */
interface Scan {
  readonly s: string;
  /** the last token's kind: decides whether a `/` starts a regex */
  prev: string;
  /** inside a print statement, where `>` and `<` at depth 0 are redirections */
  inPrint: boolean;
  /** parentheses open in this print statement (a `>` inside them is a comparison) */
  depth: number;
  /** `{` open: 0 is the top level, where patterns and `BEGIN`/`END` stand */
  braces: number;
  readonly info: AwkInfo;
}

/** The index after one token, or why the program is refused. */
type Next = number | string;

const TWO_CHAR_OPS = ['&&', '!~', '==', '!=', '<=', '>=', '+=', '-=', '*=', '/=', '++', '--'];

/** Words kept as themselves in `prev` (every other name is just 'name'). */
const KEPT_WORDS = new Set(['print', 'printf', 'return', 'in', 'BEGIN']);

/** The token at `i`: blanks and comments skipped, literals skipped whole, words and operators checked. */
function token(scan: Scan, i: number): Next {
  const s = scan.s;
  const c = s[i]!;
  if (c === ' ' || c === '\t' || c === '\r') return i + 1;
  if (c === '\\' && s[i + 1] === '\n') return i + 2;
  if (c === '#') {
    let j = i;
    while (j < s.length && s[j] !== '\n') j++;
    return j;
  }
  if (c === '"') return literal(scan, 'str', stringEnd(s, i));
  if (c === '/' && REGEX_AFTER.has(scan.prev)) return literal(scan, 'regex', regexEnd(s, i));
  if (/[A-Za-z_]/.test(c)) return word(scan, i);
  return punctuation(scan, i);
}

/** A string or regex literal ending at `end` (or refused): what it holds is never read as code. */
function literal(scan: Scan, kind: 'str' | 'regex', end: Next): Next {
  if (typeof end === 'string') return end;
  topLevel(scan, kind);
  scan.prev = kind;
  return end;
}

/** The index after the string opened at `i` (escapes skipped; awk strings do not span lines). */
function stringEnd(s: string, i: number): Next {
  let j = i + 1;
  for (; j < s.length && s[j] !== '"'; j++) {
    if (s[j] === '\\') j++;
    else if (s[j] === '\n') return 'an unterminated awk string';
  }
  if (j >= s.length) return 'an unterminated awk string';
  return j + 1;
}

/** The index after the regex opened at `i`: a `/` inside a bracket expression does not close it. */
function regexEnd(s: string, i: number): Next {
  let j = i + 1;
  let bracket = false;
  for (; j < s.length; j++) {
    const d = s[j]!;
    if (d === '\\') {
      j++;
      continue;
    }
    if (d === '\n') return 'an unterminated awk regex';
    if (d === '[') bracket = true;
    else if (d === ']') bracket = false;
    else if (d === '/' && !bracket) break;
  }
  if (j >= s.length) return 'an unterminated awk regex';
  return j + 1;
}

/** A name: refused when it runs, reads, writes or loops without end; `for` only as `for (k in a)`. */
function word(scan: Scan, i: number): Next {
  const s = scan.s;
  let j = i;
  while (j < s.length && /\w/.test(s[j]!)) j++;
  const name = s.slice(i, j);
  if (Object.hasOwn(FORBIDDEN_NAMES, name)) return `awk \`${name}\` ${FORBIDDEN_NAMES[name]}`;
  if (name === 'for') {
    FOR_IN.lastIndex = j;
    if (!FOR_IN.test(s)) return 'awk C-style `for` loops can run forever; only `for (key in array)` is a glance';
  }
  topLevel(scan, name);
  if (name === 'print' || name === 'printf') {
    scan.inPrint = true;
    scan.depth = 0;
  }
  scan.prev = KEPT_WORDS.has(name) ? name : 'name';
  return j;
}

/** An operator or punctuation: pipes, `@` and print redirections refused; nesting tracked. */
function punctuation(scan: Scan, i: number): Next {
  const s = scan.s;
  const c = s[i]!;
  if (c === '@') return 'awk `@include`/`@load`/indirect calls load or run code';
  if (c === '|') {
    if (s[i + 1] !== '|') return 'an awk pipe `|` runs a command';
    scan.prev = '||';
    return i + 2;
  }
  if (c === '>' && scan.inPrint && scan.depth === 0) return 'awk `print >`/`>>` writes a file';
  if (c === '<' && scan.inPrint && scan.depth === 0 && s[i + 1] !== '=') return 'awk `<` in a print statement is ambiguous';
  if (c === '(') scan.depth++;
  if (c === ')') scan.depth--;
  if (c === '{') {
    if (scan.braces === 0 && scan.prev !== 'BEGIN') scan.info.onlyBegin = false;
    scan.braces++;
  } else if (c === '}') scan.braces--;
  else if (!/[\s;]/.test(c)) topLevel(scan, c);
  if (c === ';' || c === '\n' || c === '{' || c === '}') scan.inPrint = false;
  // multi-character operators, so `prev` knows what came last
  const two = s.slice(i, i + 2);
  const op = TWO_CHAR_OPS.includes(two) ? two : c;
  scan.prev = /[\d.]/.test(c) ? 'num' : op === ')' || op === ']' || op === '$' || op === '++' || op === '--' ? 'value' : op;
  return i + op.length;
}

/** A token outside any `{…}` that is not `BEGIN`: a pattern, `END`, a bare block — the program reads input. */
function topLevel(scan: Scan, what: string): void {
  if (scan.braces === 0 && what !== 'BEGIN') scan.info.onlyBegin = false;
}
