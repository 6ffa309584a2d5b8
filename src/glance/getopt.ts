// A getopt/getopt_long model: the same rules GNU tools and git's parse-options apply, so the option the
// classifier checks is the option the program will see. Pure; no I/O.
//
// - short options cluster (`-ni`, `-S1`): a value-taking letter eats the rest of the word or the next word;
// - long options take `--opt=value` or `--opt value` when they require a value, only `--opt=value` when
//   the value is optional;
// - a long option may be abbreviated to any unique prefix (`--in-pl` is `--in-place`); the classifier
//   resolves the prefix among every name it knows (allowed and refused) and then insists on the full
//   spelling for allowed options, because a prefix that is unique in its table could be exact or
//   ambiguous among the tool's real options, which it does not all list;
// - options and operands may interleave (GNU permutation) until `--`, after which all are operands.
import { patternFrom, type Word } from './lexer.js';
import { Budget } from './budget.js';

/** 0 = flag, 1 = requires a value, '?' = optional value (attached only), 'last' = git's "next word if any". */
export type Arity = 0 | 1 | '?' | 'last';

export interface OptionTable {
  /** getopt-style short letters: `n:` takes a value, `w::` an optional attached one */
  readonly short?: string;
  /** long names: `name`, `name=` (value), `name=?` (optional value), `name=+` (git's next word if any) */
  readonly long?: readonly string[];
  /** `-NUM` (head -20, grep -3, git log -5) */
  readonly numeric?: boolean;
  /** options the tool has that a glance must not use, by spelling (`-f`, `--follow`) → why */
  readonly refused?: Readonly<Record<string, string>>;
}

export interface ParsedOption {
  /** as written in the table: `-n` or `--lines` */
  readonly name: string;
  readonly value?: string;
  /** the value's word has an unquoted glob, so the shell may expand it (`-f .e*` reads `.env`) */
  readonly glob?: boolean;
  /** the glob pattern of the value (Word.pattern), when `glob` */
  readonly pattern?: string;
}

export type Parsed = { ok: true; options: ParsedOption[]; operands: Word[] } | { ok: false; reason: string };

interface Compiled {
  short: Map<string, Arity>;
  long: Map<string, Arity>;
  numeric: boolean;
  refused: Readonly<Record<string, string>>;
  /** every long name known (allowed and refused), for prefix resolution */
  names: string[];
}

const cache = new WeakMap<OptionTable, Compiled>();

function compile(t: OptionTable): Compiled {
  const hit = cache.get(t);
  if (hit) return hit;
  const short = new Map<string, Arity>();
  const spec = t.short ?? '';
  for (let i = 0; i < spec.length; i++) {
    const c = spec[i]!;
    if (spec[i + 1] === ':' && spec[i + 2] === ':') {
      short.set(c, '?');
      i += 2;
    } else if (spec[i + 1] === ':') {
      short.set(c, 1);
      i += 1;
    } else short.set(c, 0);
  }
  const long = new Map<string, Arity>();
  for (const l of t.long ?? []) {
    const m = /^([^=]+)(=\??|=\+)?$/.exec(l)!;
    long.set(m[1]!, m[2] === '=' ? 1 : m[2] === '=?' ? '?' : m[2] === '=+' ? 'last' : 0);
  }
  const refused = t.refused ?? {};
  const names = [
    ...long.keys(),
    ...Object.keys(refused)
      .filter((k) => k.startsWith('--'))
      .map((k) => k.slice(2)),
  ];
  const c: Compiled = { short, long, numeric: t.numeric ?? false, refused, names };
  cache.set(t, c);
  return c;
}

const dispatch = 'a worker can run it';

/** Resolves `--name` (possibly abbreviated) to a full known name, or explains why not. */
export function resolveLong(t: OptionTable, written: string, budget: Budget = new Budget()): { name: string } | { reason: string } {
  const c = compile(t);
  if (c.long.has(written) || Object.hasOwn(c.refused, `--${written}`)) return { name: written };
  budget.spend(c.names.length);
  const matches = [...new Set(c.names.filter((n) => n.startsWith(written)))];
  if (matches.length === 0) return { reason: `\`--${written}\` is not an option a glance may use here; ${dispatch}` };
  if (matches.length > 1) return { reason: `\`--${written}\` is an ambiguous abbreviation (${matches.map((m) => `--${m}`).join(', ')}); ${dispatch}` };
  return { name: matches[0]! };
}

/** Parses `args` against `t`. Unknown, refused or abbreviated options refuse the glance. */
export function getopt(t: OptionTable, args: readonly Word[], budget: Budget = new Budget()): Parsed {
  const c = compile(t);
  const options: ParsedOption[] = [];
  const operands: Word[] = [];
  const refusedWhy = (name: string): string | undefined => (Object.hasOwn(c.refused, name) ? c.refused[name] : undefined);
  /** a value glued into word `w` from text offset `from` */
  const glued = (name: string, w: Word, from: number): ParsedOption =>
    w.glob ? { name, value: w.text.slice(from), glob: true, pattern: patternFrom(w, from)! } : { name, value: w.text.slice(from), glob: false };
  const next = (name: string, v: Word): ParsedOption => glued(name, v, 0);
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const a = w.text;
    budget.spend();
    if (a === '--') {
      for (let k = i + 1; k < args.length; k++) operands.push(args[k]!);
      break;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const written = eq < 0 ? a.slice(2) : a.slice(2, eq);
      const r = resolveLong(t, written, budget);
      if ('reason' in r) return { ok: false, reason: r.reason };
      const why = refusedWhy(`--${r.name}`);
      if (why !== undefined) return { ok: false, reason: `\`${a}\` is \`--${r.name}\`, which ${why}; ${dispatch}` };
      if (r.name !== written) return { ok: false, reason: `\`--${written}\` abbreviates \`--${r.name}\`; write the option in full` };
      const arity = c.long.get(r.name)!;
      if (eq >= 0) {
        if (arity === 0) return { ok: false, reason: `\`--${r.name}\` takes no value` };
        options.push(glued(`--${r.name}`, w, eq + 1));
      } else if (arity === 1 || (arity === 'last' && i + 1 < args.length)) {
        if (i + 1 >= args.length) return { ok: false, reason: `\`--${r.name}\` needs a value` };
        options.push(next(`--${r.name}`, args[++i]!));
      } else options.push({ name: `--${r.name}` });
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      if (c.numeric && /^-\d+$/.test(a)) {
        options.push({ name: '-NUM', value: a.slice(1) });
        continue;
      }
      for (let k = 1; k < a.length; k++) {
        budget.spend();
        const ch = a[k]!;
        const why = refusedWhy(`-${ch}`);
        if (why !== undefined) return { ok: false, reason: `\`-${ch}\`${a.length > 2 ? ` (in \`${a}\`)` : ''} ${why}; ${dispatch}` };
        const arity = c.short.get(ch);
        if (arity === undefined)
          return { ok: false, reason: `\`-${ch}\`${a.length > 2 ? ` (in \`${a}\`)` : ''} is not an option a glance may use here; ${dispatch}` };
        if (arity === 0) {
          options.push({ name: `-${ch}` });
          continue;
        }
        if (k + 1 < a.length) options.push(glued(`-${ch}`, w, k + 1));
        else if (arity === 1 || (arity === 'last' && i + 1 < args.length)) {
          if (i + 1 >= args.length) return { ok: false, reason: `\`-${ch}\` needs a value` };
          options.push(next(`-${ch}`, args[++i]!));
        } else options.push({ name: `-${ch}` });
        break;
      }
      continue;
    }
    operands.push(w);
  }
  return { ok: true, options, operands };
}

/** Whether any parsed option has one of `names`. */
export const has = (p: { options: readonly ParsedOption[] }, ...names: string[]): boolean => p.options.some((o) => names.includes(o.name));
