// biome-ignore-all format: option and path tables, one tool or rule per line; the layout is the table
// git: global options that pick another repository, config or program are refused; subcommands are an
// allowlist, each with its own option table; nothing that talks to the network, runs a pager, an
// external diff, a textconv filter or gpg (`%G?` format placeholders, `--show-signature`) passes.
import type { Word } from './lexer.js';
import { getopt, type OptionTable } from './getopt.js';
import { dispatch, type CustomResult } from './rule.js';

const RUNS = 'runs a configured program';
const OTHER = 'makes git use another repository, config or program';
const GLOBAL: OptionTable = {
  short: 'P',
  long: ['no-pager', 'no-optional-locks', 'literal-pathspecs', 'glob-pathspecs', 'noglob-pathspecs', 'icase-pathspecs', 'no-replace-objects', 'version', 'no-advice'],
  refused: { '-C': OTHER, '-c': OTHER, '--git-dir': OTHER, '--work-tree': OTHER, '--exec-path': OTHER, '--config-env': OTHER, '--namespace': OTHER,
    '--super-prefix': OTHER, '--bare': OTHER, '-p': 'starts a pager', '--paginate': 'starts a pager', '--list-cmds': 'is internal', '--html-path': OTHER, '--man-path': OTHER, '--info-path': OTHER, '--attr-source': OTHER },
};

const REFUSED_REV: Readonly<Record<string, string>> = {
  '--no-index': 'compares arbitrary files and folders (a folder diff reads `.env`)',
  '--output': 'writes a file', '--ext-diff': RUNS, '--textconv': RUNS, '--show-signature': 'runs gpg', '--remerge-diff': 'writes objects',
};
const DIFF_LONG = ['patch', 'no-patch', 'unified=', 'raw', 'patch-with-raw', 'patch-with-stat', 'stat=?', 'stat-width=', 'stat-name-width=', 'stat-count=', 'compact-summary', 'numstat', 'shortstat',
  'dirstat=?', 'summary', 'name-only', 'name-status', 'submodule=?', 'color=?', 'no-color', 'color-moved=?', 'no-color-moved', 'color-words=?', 'word-diff=?', 'word-diff-regex=',
  'no-renames', 'find-renames=?', 'find-copies=?', 'find-copies-harder', 'irreversible-delete', 'diff-filter=', 'pickaxe-all', 'pickaxe-regex', 'relative=?', 'no-relative', 'text',
  'ignore-cr-at-eol', 'ignore-space-at-eol', 'ignore-space-change', 'ignore-all-space', 'ignore-blank-lines', 'ignore-matching-lines=', 'inter-hunk-context=', 'function-context',
  'exit-code', 'quiet', 'no-ext-diff', 'no-textconv', 'ignore-submodules=?', 'src-prefix=', 'dst-prefix=', 'no-prefix', 'default-prefix', 'line-prefix=', 'full-index', 'binary',
  'abbrev=?', 'no-abbrev', 'minimal', 'patience', 'histogram', 'anchored=', 'diff-algorithm=', 'indent-heuristic', 'no-indent-heuristic', 'check', 'ws-error-highlight=',
  'cached', 'staged', 'merge-base', 'cc', 'combined-all-paths', 'diff-merges=', 'no-diff-merges', 'dd', 'ita-invisible-in-index', 'rename-empty', 'no-rename-empty',
  'break-rewrites=?', 'output-indicator-new=', 'output-indicator-old=', 'output-indicator-context='];
const DIFF_SHORT = 'pusazRwbWtmcl:U:M::C::B::S:G:';
const LOG_LONG = [...DIFF_LONG, 'oneline', 'format=', 'pretty=?', 'graph', 'decorate=?', 'no-decorate', 'decorate-refs=', 'decorate-refs-exclude=', 'source', 'all', 'branches=?',
  'tags=?', 'remotes=?', 'glob=', 'exclude=', 'author=', 'committer=', 'since=', 'until=', 'after=', 'before=', 'since-as-filter=', 'grep=', 'all-match', 'invert-grep',
  'regexp-ignore-case', 'basic-regexp', 'extended-regexp', 'fixed-strings', 'perl-regexp', 'max-count=', 'skip=', 'reverse', 'follow', 'no-merges', 'merges', 'first-parent',
  'abbrev-commit', 'no-abbrev-commit', 'date=', 'relative-date', 'topo-order', 'date-order', 'author-date-order', 'left-right', 'cherry-pick', 'cherry-mark', 'cherry', 'boundary',
  'parents', 'children', 'no-walk=?', 'do-walk', 'ancestry-path=?', 'simplify-by-decoration', 'full-history', 'dense', 'sparse', 'simplify-merges', 'show-pulls', 'full-diff',
  'log-size', 'max-parents=', 'min-parents=', 'no-max-parents', 'no-min-parents', 'not', 'root', 'reflog', 'walk-reflogs', 'mailmap', 'use-mailmap', 'no-mailmap', 'no-use-mailmap',
  'encoding=', 'expand-tabs=?', 'no-expand-tabs', 'notes=?', 'no-notes', 'show-notes=?', 'show-linear-break=?', 'count', 'in-commit-order', 'single-worktree', 'show-origin'];
const REV: OptionTable = { short: `${DIFF_SHORT}n:igEFPL:N`, numeric: true, long: LOG_LONG, refused: REFUSED_REV };
const DIFF: OptionTable = { short: DIFF_SHORT, numeric: true, long: DIFF_LONG, refused: REFUSED_REV };

/** A format string that makes git verify signatures (`%G?`, `%(signature)`) runs gpg. */
const gpgFormat = (v: string | undefined): boolean => v !== undefined && /%G|%\(signature/.test(v);

type Sub = { table: OptionTable; check?: (o: { options: { name: string; value?: string }[]; operands: Word[] }) => string | null };

const listOnly = (what: string, listFlags: string[]) => (p: { options: { name: string }[]; operands: Word[] }): string | null =>
  p.operands.length > 0 && !p.options.some((o) => listFlags.includes(o.name)) ? `\`git ${what} NAME\` creates a ${what}; only listing is a glance` : null;

const REFS_FILTER = ['contains=+', 'no-contains=+', 'merged=+', 'no-merged=+', 'points-at=', 'sort=', 'format=', 'color=?', 'no-color', 'column=?', 'no-column', 'ignore-case', 'omit-empty'];

const SUBS: Readonly<Record<string, Sub>> = {
  status: { table: { short: 'sbvzu::', long: ['short', 'branch', 'porcelain=?', 'long', 'verbose', 'untracked-files=?', 'ignored=?', 'ignore-submodules=?', 'column=?', 'no-column', 'ahead-behind', 'no-ahead-behind', 'renames', 'no-renames', 'find-renames=?', 'show-stash', 'null'] } },
  log: { table: REV }, show: { table: REV }, whatchanged: { table: REV }, 'rev-list': { table: REV }, diff: { table: DIFF },
  shortlog: { table: { short: 'snecw::', numeric: true, long: [...LOG_LONG, 'numbered', 'summary', 'email', 'group=', 'committer'], refused: REFUSED_REV } },
  branch: { table: { short: 'arvlqi', long: ['all', 'remotes', 'verbose', 'list', 'show-current', 'quiet', 'abbrev=?', 'no-abbrev', ...REFS_FILTER] }, check: listOnly('branch', ['-l', '--list']) },
  tag: { table: { short: 'lin::', long: ['list', ...REFS_FILTER] }, check: listOnly('tag', ['-l', '--list']) },
  'ls-files': { table: { short: 'cdmoisukftvzx:X:', long: ['cached', 'deleted', 'modified', 'others', 'ignored', 'stage', 'unmerged', 'killed', 'directory', 'no-empty-directory', 'eol', 'exclude=', 'exclude-from=', 'exclude-per-directory=', 'exclude-standard', 'error-unmatch', 'full-name', 'recurse-submodules', 'abbrev=?', 'debug', 'deduplicate', 'format=', 'sparse', 'with-tree=', 'resolve-undo'] } },
  'rev-parse': { table: { short: 'q', long: ['abbrev-ref=?', 'short=?', 'verify', 'quiet', 'show-toplevel', 'show-prefix', 'show-cdup', 'git-dir', 'git-common-dir', 'absolute-git-dir', 'is-inside-work-tree', 'is-inside-git-dir', 'is-bare-repository', 'is-shallow-repository', 'symbolic', 'symbolic-full-name', 'all', 'branches=?', 'tags=?', 'remotes=?', 'glob=', 'exclude=', 'show-superproject-working-tree', 'shared-index-path', 'path-format=', 'git-path=', 'default=', 'since=', 'until=', 'after=', 'before=', 'revs-only', 'no-revs', 'flags', 'no-flags', 'sq', 'not', 'show-object-format=?', 'show-ref-format', 'local-env-vars', 'disambiguate=', 'prefix='] } },
  describe: { table: { long: ['tags', 'all', 'always', 'long', 'exact-match', 'dirty=?', 'broken=?', 'contains', 'first-parent', 'match=', 'exclude=', 'candidates=', 'abbrev='] } },
  blame: { table: { short: 'bltpcsenfwL:M::C::', long: ['porcelain', 'line-porcelain', 'incremental', 'show-name', 'show-number', 'show-email', 'show-stats', 'date=', 'abbrev=?', 'root', 'reverse=', 'first-parent', 'ignore-rev=', 'ignore-revs-file=', 'color-lines', 'color-by-age', 'no-progress', 'contents=', 'encoding=', 'minimal', 'since='] } },
  'ls-tree': { table: { short: 'drtlz', long: ['name-only', 'name-status', 'object-only', 'full-name', 'full-tree', 'abbrev=?', 'format=', 'long'] } },
  'cat-file': { table: { short: 'tspe', long: ['batch-check=?', 'batch=?', 'follow-symlinks', 'allow-unknown-type', 'use-mailmap', 'no-use-mailmap'], refused: { '--textconv': RUNS, '--filters': RUNS, '--batch-command': 'takes commands on stdin' } } },
  // `hash-object FILE` prints the name a file would have; `-w` writes the object, `--stdin-paths` takes the paths from stdin
  'hash-object': { table: { short: 't:', long: ['no-filters', 'literally', 'path=', 'stdin'], refused: { '-w': 'writes an object into the repository', '--stdin-paths': 'takes the paths to read from stdin' } } },
  'merge-base': { table: { short: 'a', long: ['all', 'octopus', 'independent', 'is-ancestor', 'fork-point'] } },
  'show-ref': { table: { short: 'dsq', long: ['head', 'heads', 'tags', 'branches', 'dereference', 'hash=?', 'abbrev=?', 'verify', 'quiet', 'exists'] } },
  'for-each-ref': { table: { long: ['count=', 'shell', 'perl', 'python', 'tcl', 'exclude=', 'include-root-refs', ...REFS_FILTER] } },
  'count-objects': { table: { short: 'vH', long: ['verbose', 'human-readable'] } },
  'check-ignore': { table: { short: 'qvnz', long: ['quiet', 'verbose', 'non-matching', 'no-index'] } },
  'name-rev': { table: { long: ['name-only', 'tags', 'refs=', 'exclude=', 'all', 'always', 'no-undefined'] } },
  cherry: { table: { short: 'v', long: ['abbrev=?'] } },
  var: { table: { short: 'l' } },
  version: { table: { long: ['build-options'] } },
  grep: {
    table: { short: 'ivwnlLchHEFGPoqzIaWpe:f:A:B:C:m:', numeric: true, long: ['cached', 'recurse-submodules', 'max-depth=', 'heading', 'break', 'full-name', 'all-match', 'and', 'or', 'not', 'color=?', 'no-color', 'column', 'show-function', 'function-context', 'threads=', 'exclude-standard', 'name-only', 'files-with-matches', 'files-without-match', 'count', 'line-number', 'ignore-case', 'word-regexp', 'invert-match', 'extended-regexp', 'fixed-strings', 'basic-regexp', 'perl-regexp', 'null', 'text', 'no-textconv', 'only-matching', 'quiet', 'max-count=', 'before-context=', 'after-context=', 'context='],
      refused: { '-O': 'opens a pager program', '--open-files-in-pager': 'opens a pager program', '--textconv': RUNS,
        '--no-index': 'searches untracked files such as `.env`', '--untracked': 'searches untracked files such as `.env`', '--no-exclude-standard': 'searches ignored files such as `.env`' } },
  },
};

const FORMAT_OPTS = ['--format', '--pretty'];

function sub2(name: string, rest: readonly Word[]): string | null {
  const t = rest.map((w) => w.text);
  switch (name) {
    case 'stash':
      if (t[0] === 'list') return judgeSub('log', rest.slice(1), 'stash list');
      if (t[0] === 'show') return judgeSub('diff', rest.slice(1), 'stash show');
      return `\`git stash ${t[0] ?? ''}\` changes the working tree; only \`git stash list\`/\`show\` are glances`;
    case 'worktree': return t[0] === 'list' && t.slice(1).every((a) => ['--porcelain', '-v', '--verbose', '-z'].includes(a)) ? null : '`git worktree` other than `list` changes worktrees';
    case 'submodule': return t[0] === 'status' && t.slice(1).every((a) => ['--recursive', '--cached', '-q', '--quiet'].includes(a) || !a.startsWith('-')) ? null : 'only `git submodule status` is a glance';
    case 'remote':
      if (t.length === 0 || (t.length === 1 && (t[0] === '-v' || t[0] === '--verbose'))) return null;
      if (t[0] === 'get-url' && t.length === 2 && /^[\w.-]+$/.test(t[1]!)) return null;
      if (t[0] === 'show' && t.length === 3 && t[1] === '-n' && /^[\w.-]+$/.test(t[2]!)) return null;
      if (t[0] === 'show' && t.length === 2 && /^[\w.-]+$/.test(t[1]!)) return null;
      return `\`git remote ${t.join(' ')}\` is not a glance (only \`git remote -v\`, \`get-url NAME\`, \`show NAME\`; never a URL)`;
    case 'reflog':
      if (t.length === 0 || t[0] === 'show' || t[0]!.startsWith('-')) return judgeSub('log', t[0] === 'show' ? rest.slice(1) : rest, 'reflog');
      return `\`git reflog ${t[0]}\` rewrites the reflog`;
    case 'config': {
      const readMode = ['--get', '--get-all', '--get-regexp', '--list', '-l'];
      const ok = ['--show-origin', '--show-scope', '--name-only', '--null', '-z', '--bool', '--int', '--path', '--global', '--system', '--local', '--worktree', '--includes', '--no-includes'];
      const newSyntax = t[0] === 'get' || t[0] === 'list';
      let mode = newSyntax;
      const body = newSyntax ? t.slice(1) : t;
      for (const a of body) {
        if (readMode.includes(a)) mode = true;
        else if (a.startsWith('-') && !ok.includes(a) && !/^--(type|default)=/.test(a) && !(newSyntax && ['--all', '--regexp'].includes(a))) return `\`git config ${a}\` is not a read-only form; ${dispatch}`;
      }
      const names = body.filter((a) => !a.startsWith('-'));
      // `git config NAME` (one operand, no mode) reads; `git config NAME VALUE` writes
      if (!mode && names.length !== 1) return `\`git config\` without \`--get\`/\`--list\` can write configuration; ${dispatch}`;
      return names.length > 2 || (!mode && names.length > 1) ? '`git config` with that many operands writes' : null;
    }
    case 'symbolic-ref':
      return t.every((a) => ['-q', '--quiet', '--short', '--no-recurse'].includes(a) || !a.startsWith('-')) && t.filter((a) => !a.startsWith('-')).length <= 1 ? null : '`git symbolic-ref` with a target or `-d` changes a ref';
    default: return `\`git ${name}\` is not a read-only subcommand a glance may use; ${dispatch}`;
  }
}

function judgeSub(name: string, rest: readonly Word[], shown = name): string | null {
  const s = Object.hasOwn(SUBS, name) ? SUBS[name] : undefined;
  if (!s) return sub2(name, rest);
  const p = getopt(s.table, rest);
  if (!p.ok) return `git ${shown}: ${p.reason}`;
  const gpg = p.options.find((o) => (FORMAT_OPTS.includes(o.name) || o.name === '--format') && gpgFormat(o.value));
  if (gpg) return `\`git ${shown} ${gpg.name}=${gpg.value}\` asks for signature checks, which run gpg; ${dispatch}`;
  return s.check ? s.check(p) : null;
}

/**
 * Whether `git SUB REST` reads standard input: `cat-file --batch*` takes object names there, `-f -` and
 * `--contents -` read patterns or a file's text from it, and
 * `shortlog` without a revision summarises a log read from it whenever it is not a terminal (as in a
 * glance: it prints nothing, or waits on an open pipe) — `git shortlog -sn HEAD` reads the repository.
 */
function gitStdin(sub: string, rest: readonly Word[]): boolean {
  if (sub === 'cat-file') return rest.some((w) => w.text.startsWith('--batch'));
  if (sub === 'hash-object') return rest.some((w) => w.text === '--stdin');
  // `git grep -f -` (patterns) and `git blame --contents -` (the file's text) read it too
  const dash = rest.some((w, k) => w.text === '-f-' || w.text === '--contents=-' || (w.text === '-' && ['-f', '--contents'].includes(rest[k - 1]?.text ?? '')));
  if (dash) return true;
  if (sub !== 'shortlog') return false;
  const p = getopt(SUBS.shortlog!.table, rest);
  return p.ok && p.operands.length === 0 && !p.options.some((o) => o.name === '--all' || o.name === '--branches' || o.name === '--tags' || o.name === '--remotes' || o.name === '--glob');
}

/** Why `git ARGS` is not a glance, or (every argument a path to check) whether it reads standard input. */
export function git(args: readonly Word[]): CustomResult {
  let i = 0;
  for (; i < args.length && args[i]!.text.startsWith('-'); i++) {
    const p = getopt(GLOBAL, [args[i]!]);
    if (!p.ok) return `git ${p.reason}`;
    if (args[i]!.text === '--version') return i + 1 === args.length ? null : '`git --version` takes nothing after it';
  }
  const sub = args[i];
  if (sub === undefined) return '`git` without a subcommand';
  const r = judgeSub(sub.text, args.slice(i + 1));
  if (r) return r;
  const stdin = gitStdin(sub.text, args.slice(i + 1));
  return stdin && sub.text === 'shortlog' ? { paths: args, stdin, hint: 'name a revision: `git shortlog -sn HEAD`' } : { paths: args, stdin };
}
