// What a verb's entry in the glance tables says about it.
import type { Word } from './lexer.js';
import type { OptionTable, ParsedOption } from './getopt.js';
import type { Budget } from './budget.js';

export interface Args {
  readonly options: readonly ParsedOption[];
  readonly operands: readonly Word[];
}

/**
 * What a custom verb found: a refusal, null (fine; every argument is a path to check), or the words that
 * are paths and whether the command reads standard input.
 */
export type CustomResult = string | null | { readonly paths: readonly Word[]; readonly stdin: boolean; readonly hint?: string };

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
  /**
   * Whether these arguments make the verb read standard input (no file operand, or `-`). Such a command
   * is a glance only after a pipe or with `< file`: alone it would wait on the session's input.
   */
  readonly stdin?: (a: Args, paths: readonly Word[], budget: Budget) => boolean;
  /** a recursive search (grep -r, rg, diff): when it is one, and which folders it reads (default: the path operands, or `.`) */
  readonly search?: { readonly kind: SearchKind; readonly when: (a: Args) => boolean; readonly folders?: (a: Args, paths: readonly Word[]) => Word[] };
  /** the verb's own rules once options are parsed (positions, programs, values) */
  readonly check?: (a: Args, budget: Budget) => string | null;
  /** a verb whose arguments are not getopt-shaped (find, test, xxd, jq, toolchains): judges the raw words */
  readonly custom?: (args: readonly Word[], budget: Budget) => CustomResult;
}

export const dispatch = 'a worker can run it';

/** What a verb's recursive search needs: which verb's filters apply, and what to insert (glance/recursive). */
export interface SearchKind {
  readonly verb: 'grep' | 'rg' | 'diff';
  readonly insert: readonly string[];
}

/** At most `max` operands; a glob counts as many (its expansion is unknown). */
export const atMost =
  (max: number, what: string) =>
  (a: Args): string | null =>
    a.operands.length > max || (a.operands.length === max && a.operands.some((w) => w.glob)) ? `${what}; ${dispatch}` : null;

/** Exactly these words (e.g. `--version`), nothing else. */
export const only =
  (allowed: readonly string[][], verb: string) =>
  (args: readonly Word[]): string | null => {
    const t = args.map((w) => w.text).join('\u0000');
    return allowed.some((a) => a.join('\u0000') === t)
      ? null
      : `\`${verb}\` is a glance only as \`${allowed.map((a) => [verb, ...a].join(' ')).join('`, `')}\`; ${dispatch}`;
  };

/** Reads its file operands, or standard input when there are none or one is `-` (cat, head, sort, sed…). */
export const filesOrStdin = (_a: Args, paths: readonly Word[]): boolean => paths.length === 0 || paths.some((w) => w.text === '-');

/** Reads standard input only through a `-` operand (file, comm, diff). */
export const dashStdin = (_a: Args, paths: readonly Word[]): boolean => paths.some((w) => w.text === '-');

/** Whether an option that names a file was given `-` (standard input): `grep -f -`, `date -f -`. */
export const optionStdin = (a: Args, ...names: string[]): boolean => a.options.some((o) => names.includes(o.name) && o.value === '-');
