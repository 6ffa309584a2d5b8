// Recursive searches (grep -r, rg, diff) and `.env` files. An audit had `grep -rn KEY sub` print
// `sub/.env`: refusing only the workspace root was not enough, since a `.env` can sit in any folder. So a
// recursive search is now allowed over the workspace and its subfolders only as a REWRITTEN command that
// excludes `.env` files, the exclusions inserted as literal words right after the verb:
//
//   grep '--exclude=.env*' '--exclude=*.env' …     rg -g '!.env*' -g '!*.env' …     diff '--exclude=.env*' '--exclude=*.env' …
//
// Later filters can override earlier ones (grep: the last matching --include/--exclude wins; rg: a later
// glob wins), so every user filter that could let a `.env` name back in is refused, and the inserted
// exclusions always win. grep has one more rule: when no filter matches a file, the FIRST filter decides
// (a leading --include means "only these"). Inserting an --exclude first would flip that and widen
// `--include='*.ts'` to every file; when the user's first filter is an --include, the `.env` files that
// match none of the includes are already skipped and nothing is inserted.
import type { Budget } from './budget.js';
import { compileGlob, globMatch, canMatchEnvName, type Glob } from './glob.js';
import type { ParsedOption } from './getopt.js';
import type { Word } from './lexer.js';
import { wordShape, componentIs, type Cwd } from './paths.js';
import { secretWord } from './secrets.js';
import { dispatch, type SearchKind } from './rule.js';

export const GREP_EXCLUDES = ["'--exclude=.env*'", "'--exclude=*.env'"] as const;
export const RG_EXCLUDES = ['-g', "'!.env*'", '-g', "'!*.env'"] as const;

/** Names a filter must not let back in: `.env` files as they are really named (see filterLetsEnvIn). */
const ENV_SAMPLES = [
  '.env',
  '.env.local',
  '.env.development',
  '.env.production',
  '.env.prod',
  '.env.dev',
  '.env.staging',
  '.env.test',
  '.env.previous',
  '.env.bak',
  '.env.old',
  '.env.backup',
  '.env.save',
  '.env.example',
  '.env.sample',
  '.env~',
  '.envrc',
  'prod.env',
  'x.env',
];

/**
 * Whether a filter glob (fnmatch without FNM_PERIOD: `*` matches a leading dot) could let a `.env` file
 * in: it matches a real `.env` name, or its literal start or end spells one (`.env.q*`, `*secret.env`).
 * `*.ts` passes although `.env.ts` would be a `.env` name by isEnvFileName: a file named like source
 * code that a search was told to include.
 */
export function filterLetsEnvIn(glob: string, fold: boolean, budget: Budget): string | null {
  let end = glob.length;
  while (end > 0 && glob[end - 1] === '/') end--; // not /\/+$/, which backtracks quadratically on `////…x`
  const last = glob.slice(0, end).split('/').pop()!.replace(/\*\*/g, '*');
  if (/[{}]/.test(last)) return 'uses `{…}` alternation, which the classifier does not expand';
  const g: Glob = compileGlob(last, budget);
  if (g.exotic) return 'uses a character class the classifier does not model';
  const hit = ENV_SAMPLES.find((n) => globMatch(g, n, { fold }, budget));
  if (hit !== undefined) return `matches \`${hit}\``;
  const l = fold ? last.toLowerCase() : last;
  if (/^\.env/.test(l) || /\.env$/.test(l)) return 'spells a `.env` name';
  return null;
}

export type SearchVerdict = { ok: false; reason: string } | { ok: true; insert?: readonly string[] };

const refuseFilter = (o: ParsedOption, why: string): SearchVerdict => ({
  ok: false,
  reason: `\`${o.name}${o.value === undefined ? '' : `${o.name.startsWith('--') ? '=' : ' '}${o.value}`}\` ${why}, so it could let \`.env\` files into a recursive search; ${dispatch}`,
});

/** grep: refuse includes that let `.env` in; insert the excludes unless the first filter is an include or they are there. */
function grepFilters(options: readonly ParsedOption[], budget: Budget): SearchVerdict {
  const filters = options.filter((o) => o.name === '--include' || o.name === '--exclude' || o.name === '--exclude-from');
  for (const o of filters) {
    if (o.name !== '--include') continue;
    if (o.glob && /[?[]/.test(o.pattern ?? '')) return refuseFilter(o, 'is an unquoted glob the shell could expand into another filter');
    const why = filterLetsEnvIn(o.value ?? '', false, budget);
    if (why) return refuseFilter(o, why);
  }
  if (filters[0]?.name === '--include') return { ok: true };
  const ex = new Set(filters.filter((o) => o.name === '--exclude').map((o) => o.value));
  return ex.has('.env*') && ex.has('*.env') ? { ok: true } : { ok: true, insert: GREP_EXCLUDES };
}

const RG_GLOBS = ['-g', '--glob', '--iglob'];

/** rg: refuse whitelist globs and types that let `.env` in, `--type-add`; insert the negated globs unless there. */
function rgFilters(options: readonly ParsedOption[], budget: Budget): SearchVerdict {
  const foldAll = options.some((o) => o.name === '--glob-case-insensitive');
  const negated = new Set<string>();
  for (const o of options) {
    const v = o.value ?? '';
    if (o.name === '--type-add') return refuseFilter(o, 'defines a file type the classifier cannot check');
    if ((o.name === '-t' || o.name === '--type') && /env/i.test(v)) return refuseFilter(o, 'names an `env`-like file type');
    if (!RG_GLOBS.includes(o.name)) continue;
    if (o.glob && /[?[]/.test(o.pattern ?? '')) return refuseFilter(o, 'is an unquoted glob the shell could expand into another filter');
    if (v.startsWith('!')) {
      if (o.name !== '--iglob') negated.add(v);
      continue;
    }
    const why = filterLetsEnvIn(v, foldAll || o.name === '--iglob', budget);
    if (why) return refuseFilter(o, why);
  }
  return negated.has('!.env*') && negated.has('!*.env') ? { ok: true } : { ok: true, insert: RG_EXCLUDES };
}

/** diff has only excludes (`-x`, `--exclude`, `-X`): insert ours unless both are there. */
function diffFilters(options: readonly ParsedOption[]): SearchVerdict {
  const ex = new Set(options.filter((o) => o.name === '--exclude' || o.name === '-x').map((o) => o.value));
  return ex.has('.env*') && ex.has('*.env') ? { ok: true } : { ok: true, insert: GREP_EXCLUDES };
}

/**
 * Why a recursive search of `folders` (seen from `cwd`) is not a glance, or what to insert to make it
 * one. Folders must be the workspace or below it: never `..` (even `src/..`), `~`, `/` or an absolute
 * path (a glance cannot tell an absolute path inside the workspace from one outside), nor a folder that
 * holds credentials (`.config` holds `.config/gh`).
 */
export function recursiveSearch(kind: SearchKind, options: readonly ParsedOption[], folders: readonly Word[], cwd: Cwd, budget: Budget): SearchVerdict {
  for (const w of folders) {
    const s = wordShape(w, cwd, budget);
    const where = `a recursive \`${kind.verb}\` over \`${w.text}\``;
    if (s.climbs || s.anchor === 'up') return { ok: false, reason: `${where} climbs out of the workspace with \`..\`; name a folder inside it; ${dispatch}` };
    if (s.anchor !== 'here') {
      return {
        ok: false,
        reason: `${where} reads outside the workspace (home, \`/\` or an absolute path), where credential files live; name a folder of the workspace (e.g. \`src\` or \`.\`); ${dispatch}`,
      };
    }
    if (s.parts.some((c) => c.glob !== null && componentIs(c, '..', budget)))
      return { ok: false, reason: `${where}: the glob could expand to \`..\`; ${dispatch}` };
    // rg searches the files a path names even when they match its globs (measured: `rg -g '!*.env' KEY *` reads `prod.env`)
    if (kind.verb === 'rg' && s.parts.some((c) => c.glob !== null && canMatchEnvName(c.glob, { period: true }, budget))) {
      return {
        ok: false,
        reason: `${where}: rg reads every file a glob names, even a \`.env\` its exclusions would skip; name folders or quote the glob for \`-g\`; ${dispatch}`,
      };
    }
    const r = secretWord(w, cwd, budget, true);
    if (r) return { ok: false, reason: r };
  }
  if (kind.verb === 'grep') return grepFilters(options, budget);
  if (kind.verb === 'rg') return rgFilters(options, budget);
  return diffFilters(options);
}

export type { SearchKind };
