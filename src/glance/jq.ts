// jq filters, checked against an ALLOWLIST: every builtin a glance may call terminates on finite input
// (`repeat`, `range`, `while`, `until`, `recurse(f)`, `def` recursion, `input`/`inputs` — which read a
// terminal without end — are not on it), and none reads the environment (`env`, `$ENV`, also inside
// `"\(…)"`), the disk (`import`, `include`, module metadata) or writes anywhere (`debug`, `stderr`,
// `halt_error`). Regex builtins take only a literal pattern that regex.ts finds linear.
//
// A small jq tokenizer reads strings as jq does (interpolations are code and are checked), skips
// comments to the end of the line (never further, whatever a jq version does with a trailing `\`), tells
// field access (`.env`) and object keys (`{env: 1}`) from calls, and counts the operators that multiply
// the work (`,`, `..`, `[]`, `+`, `*`, `as`, interpolations): stage after stage they can double it, so a
// filter with more than MAX_AMPLIFIERS of them is refused.
import { Budget } from './budget.js';
import { regexRisk } from './regex.js';

// biome-ignore format: a table, rows grouped by kind
const ALLOWED = new Set([
  'empty', 'error', 'not', 'length', 'utf8bytelength', 'keys', 'keys_unsorted', 'values', 'has', 'in', 'inside', 'contains', 'map', 'map_values',
  'path', 'paths', 'leaf_paths', 'getpath', 'setpath', 'del', 'delpaths', 'to_entries', 'from_entries', 'with_entries', 'select', 'recurse', 'add',
  'any', 'all', 'flatten', 'floor', 'ceil', 'round', 'sqrt', 'fabs', 'abs', 'tostring', 'tonumber', 'type', 'nan', 'isinfinite', 'isnan', 'isnormal',
  'isvalid', 'sort', 'sort_by', 'group_by', 'min', 'max', 'min_by', 'max_by', 'unique', 'unique_by', 'reverse', 'startswith', 'endswith', 'ltrimstr',
  'rtrimstr', 'trim', 'ltrim', 'rtrim', 'explode', 'implode', 'split', 'join', 'ascii_downcase', 'ascii_upcase', 'ascii', 'test', 'match', 'capture',
  'scan', 'splits', 'sub', 'gsub', 'tojson', 'fromjson', 'todate', 'fromdate', 'date', 'now', 'strftime', 'strptime', 'mktime', 'gmtime', 'localtime',
  'todateiso8601', 'fromdateiso8601', 'limit', 'first', 'last', 'nth', 'indices', 'index', 'rindex', 'input_filename', 'arrays', 'objects',
  'iterables', 'booleans', 'numbers', 'normals', 'finites', 'strings', 'nulls', 'scalars', 'transpose', 'tostream', 'fromstream', 'isempty', 'pick',
  'toarray', 'walk', 'null', 'true', 'false',
]);
const KEYWORDS = new Set(['if', 'then', 'elif', 'else', 'end', 'as', 'reduce', 'foreach', 'try', 'catch', 'and', 'or']);
const FORMATS = new Set(['@base64', '@base64d', '@base32', '@base32d', '@csv', '@tsv', '@json', '@text', '@sh', '@uri', '@html']);
/** Builtins whose first argument is a regex (split only with two arguments). */
const REGEX_FIRST = new Set(['test', 'match', 'capture', 'scan', 'splits', 'sub', 'gsub']);

/** Why some names are refused, for the message; any other name off the allowlist is "not known to terminate". */
// biome-ignore format: a table, rows grouped by kind
const WHY: Readonly<Record<string, string>> = {
  env: 'reads the environment, which can hold secrets', $ENV: 'reads the environment, which can hold secrets',
  import: 'loads a module from disk', include: 'loads a module from disk', modulemeta: 'reads module files', get_search_list: 'reads the module search path',
  def: 'defines functions, which can recurse forever', input: 'reads more input (from a terminal it never ends)', inputs: 'reads more input (from a terminal it never ends)',
  repeat: 'never ends', range: 'can generate without end (`range(infinite)`)', infinite: 'is only useful to loops that never end', while: 'can loop forever',
  until: 'can loop forever', recurse_down: 'is deprecated recursion', debug: 'writes to standard error', stderr: 'writes to standard error',
  input_line_number: 'is not needed for a glance', halt: 'stops jq', halt_error: 'writes to standard error and stops jq', label: 'is only needed for loops',
  combinations: 'multiplies its input without bound', $__loc__: 'is not needed for a glance', $__prog_args: 'is internal',
};

/** Operators that can multiply the work, beyond which a filter is refused. */
export const MAX_AMPLIFIERS = 24;

interface Tok {
  readonly t: 'ident' | 'var' | 'field' | 'fmt' | 'str' | 'num' | 'p';
  readonly v: string;
  interp?: boolean;
}
type Frame = { k: 'str'; tok: Tok } | { k: 'interp'; depth: number };

const IDENT = /[A-Za-z0-9_]/;

/** jq's tokens; interpolation code follows its string token, between `(` and `)`. */
function tokenize(src: string, budget: Budget): Tok[] | string {
  const lx: Lexer = { src, toks: [], stack: [] };
  for (let i = 0; i < src.length; ) {
    budget.spend();
    const top = lx.stack[lx.stack.length - 1];
    i = top?.k === 'str' ? stringPart(lx, top, i) : codePart(lx, top, i);
  }
  return lx.stack.length > 0 ? 'an unterminated jq string' : lx.toks;
}

// ---- the tokenizer's pieces: each reads at `i` and returns where the next one starts ----

interface Lexer {
  readonly src: string;
  readonly toks: Tok[];
  /** the strings and interpolations open around `i`: a string's text is data, an interpolation's is code */
  readonly stack: Frame[];
}
type StrFrame = Extract<Frame, { k: 'str' }>;
type InterpFrame = Extract<Frame, { k: 'interp' }>;

/** Inside a string: its end, an interpolation's `\(`, or one (escaped) character of its value. */
function stringPart(lx: Lexer, top: StrFrame, i: number): number {
  const { src } = lx;
  const c = src[i]!;
  if (c === '"') {
    lx.stack.pop();
    return i + 1;
  }
  if (c === '\\' && src[i + 1] === '(') {
    top.tok.interp = true;
    lx.stack.push({ k: 'interp', depth: 0 });
    lx.toks.push({ t: 'p', v: '(' });
    return i + 2;
  }
  (top.tok as { v: string }).v += c === '\\' ? (src[i + 1] ?? '') : c;
  return i + (c === '\\' ? 2 : 1);
}

/** In code (at the top or inside an interpolation, whose `)` at depth 0 closes it): one token. */
function codePart(lx: Lexer, top: InterpFrame | undefined, i: number): number {
  const { src, toks } = lx;
  const c = src[i]!;
  if (c === ' ' || c === '\t' || c === '\n' || c === '\r') return i + 1;
  if (c === '#') {
    let j = i;
    while (j < src.length && src[j] !== '\n') j++;
    return j;
  }
  if (c === '"') {
    const tok: Tok = { t: 'str', v: '' };
    toks.push(tok);
    lx.stack.push({ k: 'str', tok });
    return i + 1;
  }
  if (c === '(' && top) top.depth++;
  if (c === ')' && top) {
    if (top.depth === 0) {
      lx.stack.pop();
      toks.push({ t: 'p', v: ')' });
      return i + 1;
    }
    top.depth--;
  }
  if (/\d/.test(c) || (c === '.' && /\d/.test(src[i + 1] ?? ''))) {
    const j = numberEnd(src, i);
    toks.push({ t: 'num', v: src.slice(i, j) });
    return j;
  }
  if (c === '.' && src[i + 1] === '.') {
    toks.push({ t: 'p', v: '..' });
    return i + 2;
  }
  if (c === '.' && /[A-Za-z_]/.test(src[i + 1] ?? '')) {
    const j = wordEnd(src, i + 1);
    toks.push({ t: 'field', v: src.slice(i, j) });
    return j;
  }
  if (c === '$' || c === '@' || /[A-Za-z_]/.test(c)) {
    const j = wordEnd(src, c === '$' || c === '@' ? i + 1 : i);
    toks.push({ t: c === '$' ? 'var' : c === '@' ? 'fmt' : 'ident', v: src.slice(i, j) });
    return j === i ? i + 1 : j;
  }
  const three = src.slice(i, i + 3);
  const two = src.slice(i, i + 2);
  const op = three === '?//' || three === '//=' ? three : ['//', '|=', '+=', '-=', '*=', '/=', '%=', '==', '!=', '<=', '>='].includes(two) ? two : c;
  toks.push({ t: 'p', v: op });
  return i + op.length;
}

/** The end of a name from `from`; `a::b` (a module path) is one name. */
function wordEnd(src: string, from: number): number {
  let j = from;
  while (j < src.length && (IDENT.test(src[j]!) || (src[j] === ':' && src[j + 1] === ':' && IDENT.test(src[j + 2] ?? '')))) j += src[j] === ':' ? 2 : 1;
  return j;
}

/** The end of a number at `i`, exponent included. */
function numberEnd(src: string, i: number): number {
  let j = i;
  while (j < src.length && /[\d.]/.test(src[j]!)) j++;
  if (/[eE]/.test(src[j] ?? '') && /[+\-\d]/.test(src[j + 1] ?? '')) {
    j += 2;
    while (j < src.length && /\d/.test(src[j]!)) j++;
  }
  return j;
}

/** For each `(`, how many arguments (`;`-separated) it holds; one pass with a stack, so nesting stays linear. */
function argCounts(toks: readonly Tok[]): Int32Array {
  const args = new Int32Array(toks.length).fill(1);
  const open: number[] = [];
  toks.forEach((t, i) => {
    if (t.t !== 'p') return;
    if (t.v === '(' || t.v === '[' || t.v === '{') open.push(i);
    else if (t.v === ')' || t.v === ']' || t.v === '}') open.pop();
    else if (t.v === ';' && open.length > 0) args[open[open.length - 1]!]!++;
  });
  return args;
}

/** Why the call `name` at toks[i] (its `(`, if any, at i + 1) is not a glance, or null. */
function callRisk(toks: readonly Tok[], i: number, argsOf: Int32Array, budget: Budget): string | null {
  const name = toks[i]!.v;
  const open = toks[i + 1]?.t === 'p' && toks[i + 1]!.v === '(' ? i + 1 : -1;
  if (name === 'recurse' && open >= 0) return 'jq `recurse(f)` can recurse without end (`..` is the bounded form)';
  const args = open >= 0 ? argsOf[open]! : 0;
  if (!REGEX_FIRST.has(name) && !(name === 'split' && args === 2)) return null;
  const re = toks[open + 1];
  const after = toks[open + 2];
  if (open < 0 || re?.t !== 'str' || re.interp || after?.t !== 'p' || (after.v !== ';' && after.v !== ')')) {
    return `jq \`${name}\` takes its regex only as a plain string literal here (a computed regex cannot be checked)`;
  }
  budget.spend(re.v.length);
  const risk = regexRisk(re.v, budget);
  return risk ? `jq \`${name}\`: ${risk}` : null;
}

/** Why `filter` is not a safe jq program, or null. */
export function jqProgram(filter: string, budget: Budget = new Budget()): string | null {
  const toks = tokenize(filter, budget);
  if (typeof toks === 'string') return toks;
  const argsOf = argCounts(toks);
  const objects: boolean[] = []; // for each open `{`: whether the next token is a key
  const frames: string[] = [];
  let amplifiers = 0;
  for (let i = 0; i < toks.length; i++) {
    budget.spend();
    const t = toks[i]!;
    const inObj = frames[frames.length - 1] === '{';
    if (t.t === 'p') {
      if (t.v === '{') {
        frames.push('{');
        objects.push(true);
        continue;
      }
      if (t.v === '(' || t.v === '[') frames.push(t.v);
      else if (t.v === ')' || t.v === ']' || t.v === '}') {
        if (frames.pop() === '{') objects.pop();
      }
      if (inObj && t.v === ':') objects[objects.length - 1] = false;
      if (inObj && t.v === ',') objects[objects.length - 1] = true;
      if ([',', '..', '+', '*'].includes(t.v) || (t.v === '[' && toks[i + 1]?.v === ']')) amplifiers++;
      if (t.v === '*' && [toks[i - 1], toks[i + 1]].some((n) => n?.t === 'num' && Number(n.v) > 100000))
        return 'jq `*` with a large number can build a huge string';
      continue;
    }
    // `{a: …}`, `{"a": …}`, `{$x}`, `{if: …}`: a key is a name, not a call (`{$ENV}` still reads the environment)
    const key = inObj && objects[objects.length - 1] === true;
    if (t.t === 'var' && (t.v === '$ENV' || t.v.startsWith('$__'))) return `jq \`${t.v}\` ${WHY[t.v] ?? 'is internal'}`;
    if (t.t === 'fmt' && !FORMATS.has(t.v)) return `jq \`${t.v}\` is not a format a glance may use`;
    if (t.t === 'str' && t.interp) amplifiers++;
    if (t.t === 'num' && Number(t.v) > 1e15) return 'jq number literals that large only feed loops';
    if (t.t !== 'ident' || key) continue;
    if (t.v.includes('::')) return `jq \`${t.v}\` calls a module function`;
    if (t.v === 'as' || t.v === 'reduce' || t.v === 'foreach') amplifiers++;
    if (KEYWORDS.has(t.v)) continue;
    if (!ALLOWED.has(t.v)) return `jq \`${t.v}\` ${WHY[t.v] ?? 'is not a builtin known to terminate on finite input'}`;
    const r = callRisk(toks, i, argsOf, budget);
    if (r) return r;
  }
  if (amplifiers > MAX_AMPLIFIERS)
    return `the jq filter has ${amplifiers} operators that multiply its work (\`,\`, \`..\`, \`[]\`, \`+\`, \`*\`, \`as\`…), more than ${MAX_AMPLIFIERS}`;
  return null;
}
