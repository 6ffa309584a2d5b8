// Glob patterns without RegExp. The classifier used to turn each glob component into a RegExp; `.*****x`
// became `^\..*.*.*.*.*x$`, which backtracks exponentially, and a 9,000-character glob overflowed the
// RegExp stack. Here a component is compiled once into tokens (linear) and matched by the iterative
// two-pointer algorithm (O(pattern · name), no recursion), charging a budget for every step.
//
// Syntax, as bash's pathname expansion reads one component: `*`, `?`, `[...]`/`[!...]`/`[^...]` with
// ranges (a `]` right after `[` or `[!` is literal; a `[` with no closing `]` is literal), and `\x` for
// a literal x (the lexer writes quoted characters that way, see Word.pattern). POSIX classes
// (`[[:alpha:]]`), equivalence classes and collating symbols are not modelled: a pattern using them is
// `exotic`, and callers refuse it rather than guess.
import { Budget } from './budget.js';

export type GlobToken =
  | { readonly k: 'lit'; readonly c: string }
  | { readonly k: 'any' }
  | { readonly k: 'star' }
  | { readonly k: 'class'; readonly negated: boolean; readonly ranges: readonly (readonly [number, number])[] };

export interface Glob {
  /** the pattern it was compiled from */
  readonly source: string;
  readonly tokens: readonly GlobToken[];
  /** tokens other than `*`: a name shorter than this cannot match */
  readonly fixed: number;
  /** uses `[:class:]`, `[=c=]` or `[.c.]`, which are not modelled */
  readonly exotic: boolean;
}

/** Compiles one component (no `/`). Linear: each closing `]` is found through a precomputed table. */
export function compileGlob(p: string, budget: Budget = new Budget()): Glob {
  const n = p.length;
  budget.spend(n + 1);
  // nextClose[i]: the first unescaped `]` at or after i (a `\` escapes the character after it)
  const nextClose = new Int32Array(n + 1).fill(-1);
  const escaped = new Uint8Array(n + 1);
  for (let i = 1; i < n; i++) escaped[i] = p[i - 1] === '\\' && !escaped[i - 1] ? 1 : 0;
  for (let i = n - 1; i >= 0; i--) nextClose[i] = p[i] === ']' && !escaped[i] ? i : nextClose[i + 1]!;
  const tokens: GlobToken[] = [];
  let exotic = false;
  let fixed = 0;
  for (let i = 0; i < n; i++) {
    const c = p[i]!;
    if (c === '\\' && i + 1 < n) {
      tokens.push({ k: 'lit', c: p[++i]! });
      fixed++;
      continue;
    }
    if (c === '*') {
      if (tokens[tokens.length - 1]?.k !== 'star') tokens.push({ k: 'star' });
      continue;
    }
    if (c === '?') {
      tokens.push({ k: 'any' });
      fixed++;
      continue;
    }
    if (c === '[') {
      let q = i + 1;
      const negated = p[q] === '!' || p[q] === '^';
      if (negated) q++;
      const close = q < n ? nextClose[p[q] === ']' ? q + 1 : q]! : -1;
      if (close > 0) {
        const body = parseClass(p, q, close);
        if (body.exotic) exotic = true;
        tokens.push({ k: 'class', negated, ranges: body.ranges });
        fixed++;
        i = close;
        continue;
      }
    }
    tokens.push({ k: 'lit', c });
    fixed++;
  }
  return { source: p, tokens, fixed, exotic };
}

function parseClass(p: string, from: number, close: number): { ranges: [number, number][]; exotic: boolean } {
  const ranges: [number, number][] = [];
  let exotic = false;
  for (let i = from; i < close; i++) {
    let c = p[i]!;
    if (c === '[' && (p[i + 1] === ':' || p[i + 1] === '=' || p[i + 1] === '.')) exotic = true;
    if (c === '\\' && i + 1 < close) c = p[++i]!;
    let hi = c;
    if (p[i + 1] === '-' && i + 2 < close) {
      hi = p[i + 2]!;
      i += 2;
      if (hi === '\\' && i + 1 < close) hi = p[++i]!;
    }
    ranges.push([c.codePointAt(0)!, hi.codePointAt(0)!]);
  }
  return { ranges, exotic };
}

export interface MatchOptions {
  /** bash's pathname rule: a leading `.` of the name must be matched by a literal `.` */
  readonly period?: boolean;
  /** compare without case (ripgrep's `--iglob`, `--glob-case-insensitive`) */
  readonly fold?: boolean;
}

const lower = (c: string): string => c.toLowerCase();

function inClass(t: Extract<GlobToken, { k: 'class' }>, c: string, fold: boolean): boolean {
  const test = (x: string): boolean => {
    const code = x.codePointAt(0)!;
    return t.ranges.some(([lo, hi]) => code >= lo && code <= hi);
  };
  const hit = test(c) || (fold && (test(lower(c)) || test(c.toUpperCase())));
  return hit !== t.negated;
}

/** Whether token `t` (not a star) matches the character `c`. */
export function tokenMatches(t: GlobToken, c: string, fold = false): boolean {
  if (t.k === 'any') return true;
  if (t.k === 'lit') return t.c === c || (fold && lower(t.c) === lower(c));
  if (t.k === 'class') return inClass(t, c, fold);
  return true;
}

/**
 * Whether `g` matches the whole of `name`. Iterative: on a mismatch it resumes after the last `*`,
 * which is correct for globs (a later `*` can absorb anything an earlier one could), so the work is at
 * most pattern × name steps.
 */
export function globMatch(g: Glob, name: string, o: MatchOptions = {}, budget: Budget = new Budget()): boolean {
  const key = `${o.period ? 'p' : ''}${o.fold ? 'f' : ''}\u0000${g.source}\u0000${name}`;
  const known = budget.memo.get(key);
  if (known !== undefined) return known;
  const r = matchTokens(g, name, o, budget);
  budget.memo.set(key, r);
  return r;
}

function matchTokens(g: Glob, name: string, o: MatchOptions, budget: Budget): boolean {
  const t = g.tokens;
  if (g.fixed > name.length) return false;
  if (o.period && name.startsWith('.') && !(t[0]?.k === 'lit' && t[0].c === '.')) return false;
  const fold = o.fold ?? false;
  let p = 0;
  let i = 0;
  let starP = -1;
  let starI = -1;
  while (i < name.length) {
    budget.spend();
    const tok = t[p];
    if (tok?.k === 'star') {
      starP = p++;
      starI = i;
      continue;
    }
    if (tok !== undefined && tokenMatches(tok, name[i]!, fold)) {
      p++;
      i++;
      continue;
    }
    if (starP < 0) return false;
    p = starP + 1;
    i = ++starI;
  }
  while (t[p]?.k === 'star') p++;
  return p === t.length;
}

/**
 * Whether `g` matches some `.env` file name (credentials.ts isEnvFileName: `.env…` or `….env` with a
 * character before it). Exact, by running the tokens through a small automaton for each of the two
 * shapes, so `.env.q*` is seen even though no sample name is `.env.qa`.
 */
export function canMatchEnvName(g: Glob, o: MatchOptions = {}, budget: Budget = new Budget()): boolean {
  const s = envShapes(g, o, budget);
  return s.prefix || s.suffix;
}

/** Which `.env` shapes `g` can match: names starting `.env`, and names ending `.env` after a character. */
export function envShapes(g: Glob, o: MatchOptions = {}, budget: Budget = new Budget()): { prefix: boolean; suffix: boolean } {
  const fold = o.fold ?? false;
  const t = g.tokens;
  // a leading dot needs a literal `.` under bash's rule
  const prefix = (!o.period || (t[0]?.k === 'lit' && t[0].c === '.')) && runShape(t, '.env', 0, fold, budget);
  // read the pattern backwards for the ending
  const suffix = runShape([...t].reverse(), 'vne.', 1, fold, budget);
  return { prefix, suffix };
}

/** The literal characters a glob starts with (`src` of `src*.ts`): every name it matches starts so. */
export function literalPrefix(g: Glob): string {
  let p = '';
  for (const t of g.tokens) {
    if (t.k !== 'lit') break;
    p += t.c;
  }
  return p;
}

/** Can the token sequence match `word` followed by at least `more` (and then any) characters? */
function runShape(t: readonly GlobToken[], word: string, more: number, fold: boolean, budget: Budget): boolean {
  const done = word.length + more; // the accepting sink: word seen and `more` characters after it
  let states = new Set<number>([0]);
  for (const tok of t) {
    budget.spend(states.size + 1);
    const next = new Set<number>();
    for (const k of states) {
      if (tok.k === 'star') {
        for (let j = k; j <= done; j++) next.add(j);
      } else if (k < word.length) {
        if (tokenMatches(tok, word[k]!, fold)) next.add(k + 1);
      } else next.add(Math.min(k + 1, done));
    }
    states = next;
    if (states.size === 0) return false;
  }
  return states.has(done);
}

/** Whether `s` has an unescaped glob character (`*`, `?`, `[`) in pattern syntax. */
export function hasGlobSyntax(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '*' || c === '?' || c === '[') return true;
  }
  return false;
}
