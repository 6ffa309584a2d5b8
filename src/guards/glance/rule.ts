// What a verb's entry in the glance tables says about it.
import type { Word } from './lexer.js';
import type { OptionTable, ParsedOption } from './getopt.js';

export interface Args {
  readonly options: readonly ParsedOption[];
  readonly operands: readonly Word[];
}

export interface VerbRule {
  /** the options a glance may use; parsed with getopt rules */
  readonly table?: OptionTable;
  /** every option the real tool has only reads, so a glob that expands to `-…` names cannot hurt */
  readonly globSafe?: boolean;
  /** the first operand is a pattern or program, not a path (grep, awk, sed, jq), unless one of these options gave it */
  readonly pattern?: { readonly unlessOptions: readonly string[] };
  /** option values that are patterns or programs, not paths */
  readonly patternOptions?: readonly string[];
  /** reads only names and metadata, never contents (ls, stat, du, find): naming a credential file is harmless */
  readonly namesOnly?: boolean;
  /** every operand is text, not a path (echo, tr, basename) */
  readonly textOperands?: boolean;
  /** whether these options make the verb read whole folder trees (grep -r, rg --hidden, diff -r) */
  readonly recursive?: (a: Args) => boolean;
  /** the verb's own rules once options are parsed (positions, programs, values) */
  readonly check?: (a: Args) => string | null;
  /** a verb whose arguments are not getopt-shaped (find, test, xxd, toolchains): judges the raw words */
  readonly custom?: (args: readonly Word[]) => string | null;
}

export const dispatch = 'a worker can run it';

/** At most `max` operands; a glob counts as many (its expansion is unknown). */
export const atMost = (max: number, what: string) => (a: Args): string | null =>
  a.operands.length > max || (a.operands.length === max && a.operands.some((w) => w.glob))
    ? `${what}; ${dispatch}`
    : null;

/** Exactly these words (e.g. `--version`), nothing else. */
export const only = (allowed: readonly string[][], verb: string) => (args: readonly Word[]): string | null => {
  const t = args.map((w) => w.text).join('\u0000');
  return allowed.some((a) => a.join('\u0000') === t)
    ? null
    : `\`${verb}\` is a glance only as \`${allowed.map((a) => [verb, ...a].join(' ')).join('`, `')}\`; ${dispatch}`;
};
