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
  const s = program;
  const n = s.length;
  let prev = '';
  let inPrint = false;
  let depth = 0;
  let braces = 0;
  info.onlyBegin = true;
  /** a token outside any `{…}` that is not `BEGIN`: a pattern, `END`, a bare block — the program reads input */
  const topLevel = (what: string): void => {
    if (braces === 0 && what !== 'BEGIN') info.onlyBegin = false;
  };
  for (let i = 0; i < n; ) {
    budget.spend();
    const c = s[i]!;
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '\\' && s[i + 1] === '\n') {
      i += 2;
      continue;
    }
    if (c === '#') {
      while (i < n && s[i] !== '\n') i++;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      for (; j < n && s[j] !== '"'; j++) {
        if (s[j] === '\\') j++;
        else if (s[j] === '\n') return 'an unterminated awk string';
      }
      if (j >= n) return 'an unterminated awk string';
      topLevel('str');
      i = j + 1;
      prev = 'str';
      continue;
    }
    if (c === '/' && REGEX_AFTER.has(prev)) {
      let j = i + 1;
      let bracket = false;
      for (; j < n; j++) {
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
      if (j >= n) return 'an unterminated awk regex';
      topLevel('regex');
      i = j + 1;
      prev = 'regex';
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      let j = i;
      while (j < n && /\w/.test(s[j]!)) j++;
      const name = s.slice(i, j);
      if (Object.hasOwn(FORBIDDEN_NAMES, name)) return `awk \`${name}\` ${FORBIDDEN_NAMES[name]}`;
      if (name === 'for') {
        FOR_IN.lastIndex = j;
        if (!FOR_IN.test(s)) return 'awk C-style `for` loops can run forever; only `for (key in array)` is a glance';
      }
      topLevel(name);
      if (name === 'print' || name === 'printf') {
        inPrint = true;
        depth = 0;
      }
      i = j;
      prev = name === 'print' || name === 'printf' || name === 'return' || name === 'in' || name === 'BEGIN' ? name : 'name';
      continue;
    }
    if (c === '@') return 'awk `@include`/`@load`/indirect calls load or run code';
    if (c === '|') {
      if (s[i + 1] === '|') {
        i += 2;
        prev = '||';
        continue;
      }
      return 'an awk pipe `|` runs a command';
    }
    if (c === '>' && inPrint && depth === 0) return 'awk `print >`/`>>` writes a file';
    if (c === '<' && inPrint && depth === 0 && s[i + 1] !== '=') return 'awk `<` in a print statement is ambiguous';
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (c === '{') {
      if (braces === 0 && prev !== 'BEGIN') info.onlyBegin = false;
      braces++;
    } else if (c === '}') braces--;
    else if (!/[\s;]/.test(c)) topLevel(c);
    if (c === ';' || c === '\n' || c === '{' || c === '}') inPrint = false;
    // multi-character operators, so `prev` knows what came last
    const two = s.slice(i, i + 2);
    const op = ['&&', '!~', '==', '!=', '<=', '>=', '+=', '-=', '*=', '/=', '++', '--'].includes(two) ? two : c;
    i += op.length;
    prev = /[\d.]/.test(c) ? 'num' : op === ')' || op === ']' || op === '$' || op === '++' || op === '--' ? 'value' : op;
  }
  return null;
}
