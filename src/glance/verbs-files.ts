// biome-ignore-all format: option and path tables, one tool or rule per line; the layout is the table
// Tables for file and text tools (GNU coreutils, grep, ripgrep and friends). Option letters are the
// tools' own; anything not listed refuses. Options that write, run or never return are listed under
// `refused` so an abbreviation of them is recognised and named.
import { has } from './getopt.js';
import { type VerbRule, type Args, atMost, filesOrStdin, dashStdin, optionStdin } from './rule.js';
import { GREP_EXCLUDES, RG_EXCLUDES } from './recursive.js';
import { madeUpWord, type Word } from './lexer.js';

const ls: VerbRule = {
  globSafe: true,
  namesOnly: true,
  table: {
    short: 'aAbBcCdDfFgGhHiklLmnNopqQrRsStuUvxXZ1I:T:w:',
    long: ['all', 'almost-all', 'author', 'escape', 'block-size=', 'ignore-backups', 'color=?', 'colour=?', 'directory', 'dired',
      'classify=?', 'file-type', 'format=', 'full-time', 'group-directories-first', 'no-group', 'human-readable', 'si',
      'dereference-command-line', 'dereference-command-line-symlink-to-dir', 'hide=', 'hyperlink=?', 'indicator-style=', 'inode',
      'ignore=', 'kibibytes', 'dereference', 'numeric-uid-gid', 'literal', 'hide-control-chars', 'show-control-chars', 'quote-name',
      'quoting-style=', 'reverse', 'recursive', 'size', 'sort=', 'time=', 'time-style=', 'tabsize=', 'width=', 'context', 'zero', 'help', 'version'],
  },
};

const cat: VerbRule = { stdin: filesOrStdin, globSafe: true, table: { short: 'AbeEnstTuv', long: ['show-all', 'number-nonblank', 'show-ends', 'number', 'squeeze-blank', 'show-tabs', 'show-nonprinting', 'help', 'version'] } };

const head: VerbRule = { stdin: filesOrStdin, globSafe: true, table: { short: 'c:n:qvz', numeric: true, long: ['bytes=', 'lines=', 'quiet', 'silent', 'verbose', 'zero-terminated', 'help', 'version'] } };

const NEVER_RETURNS = 'follows the file forever and never returns';
const tail: VerbRule = {
  stdin: filesOrStdin,
  table: {
    short: 'c:n:qvz', numeric: true,
    long: ['bytes=', 'lines=', 'quiet', 'silent', 'verbose', 'zero-terminated', 'help', 'version'],
    refused: { '-f': NEVER_RETURNS, '-F': NEVER_RETURNS, '--follow': NEVER_RETURNS, '--retry': 'waits for files to appear', '-s': 'only matters with --follow', '--sleep-interval': 'only matters with --follow', '--pid': 'only matters with --follow', '--max-unchanged-stats': 'only matters with --follow' },
  },
};

const wc: VerbRule = { stdin: filesOrStdin, globSafe: true, table: { short: 'clmwL', long: ['bytes', 'chars', 'lines', 'words', 'max-line-length', 'total=', 'help', 'version'], refused: { '--files0-from': 'reads its file list from a file the classifier cannot see' } } };

const stat: VerbRule = { globSafe: true, namesOnly: true, table: { short: 'Lfc:t', long: ['dereference', 'file-system', 'format=', 'printf=', 'terse', 'cached=', 'help', 'version'] } };

const file: VerbRule = {
  stdin: dashStdin,
  table: { short: 'bhiLkNnrs0E', long: ['brief', 'mime', 'mime-type', 'mime-encoding', 'dereference', 'no-dereference', 'keep-going', 'no-pad', 'print0', 'extension', 'raw', 'special-files', 'help', 'version'],
    refused: { '-C': 'compiles a magic file (writes it)', '--compile': 'compiles a magic file (writes it)', '-m': 'loads another magic file', '--magic-file': 'loads another magic file', '-f': 'reads names from a file', '--files-from': 'reads names from a file',
      '-z': 'runs decompressors', '-Z': 'runs decompressors', '--uncompress': 'runs decompressors', '-S': 'turns off its sandbox', '--no-sandbox': 'turns off its sandbox' } },
};

const du: VerbRule = {
  globSafe: true,
  namesOnly: true,
  table: { short: '0abcDhHklLmsSxd:t:B:X:', long: ['null', 'all', 'apparent-size', 'block-size=', 'bytes', 'total', 'dereference-args', 'max-depth=', 'human-readable', 'inodes', 'si', 'summarize', 'threshold=', 'time=?', 'time-style=', 'exclude=', 'exclude-from=', 'one-file-system', 'count-links', 'separate-dirs', 'dereference', 'no-dereference', 'help', 'version'],
    refused: { '--files0-from': 'reads its file list from a file the classifier cannot see' } },
};

const df: VerbRule = { globSafe: true, table: { short: 'ahHiklPTvx:B:t:', long: ['all', 'block-size=', 'human-readable', 'si', 'inodes', 'local', 'output=?', 'portability', 'print-type', 'type=', 'exclude-type=', 'total', 'no-sync', 'sync', 'help', 'version'] } };

const tree: VerbRule = {
  namesOnly: true,
  table: { short: 'adfilxpsughDFqNQrtvcUCAS1JXnL:P:I:H:T:', long: ['noreport', 'dirsfirst', 'filesfirst', 'charset=', 'gitignore', 'du', 'si', 'prune', 'matchdirs', 'ignore-case', 'filelimit=', 'timefmt=', 'sort=', 'nolinks', 'inodes', 'device', 'info', 'metafirst', 'help', 'version'],
    refused: { '-o': 'writes its output to a file', '-R': 'writes 00Tree.html files', '--fromfile': 'reads a listing from a file', '--infofile': 'reads an info file', '--gitfile': 'reads an ignore file' } },
};

const grepRecursive = (a: Args): boolean =>
  has(a, '-r', '-R', '--recursive', '--dereference-recursive') || a.options.some((o) => (o.name === '-d' || o.name === '--directories') && o.value === 'recurse');

const GREP_LONG = ['extended-regexp', 'fixed-strings', 'basic-regexp', 'perl-regexp', 'regexp=', 'file=', 'ignore-case', 'no-ignore-case', 'word-regexp', 'line-regexp',
  'null-data', 'no-messages', 'invert-match', 'version', 'help', 'max-count=', 'byte-offset', 'line-number', 'no-line-number', 'line-buffered', 'with-filename',
  'no-filename', 'label=', 'only-matching', 'quiet', 'silent', 'binary-files=', 'text', 'directories=', 'devices=', 'recursive', 'dereference-recursive',
  'include=', 'exclude=', 'exclude-from=', 'exclude-dir=', 'files-without-match', 'files-with-matches', 'count', 'initial-tab', 'null', 'before-context=',
  'after-context=', 'context=', 'color=?', 'colour=?', 'binary'];
const grep: VerbRule = {
  globSafe: true,
  pattern: { unlessOptions: ['-e', '--regexp', '-f', '--file'] },
  patternOptions: ['-e', '--regexp', '--include', '--exclude', '--exclude-dir'],
  table: { short: 'abcEFGhHiIlLnoPqrRsTuUvVwxyzZA:B:C:d:D:e:f:m:', numeric: true, long: GREP_LONG },
  // without a file grep reads standard input, unless it is recursive (then it searches `.`)
  stdin: (a, paths) => (!grepRecursive(a) && paths.length === 0) || paths.some((w) => w.text === '-') || optionStdin(a, '-f', '--file'),
  search: { kind: { verb: 'grep', insert: GREP_EXCLUDES }, when: grepRecursive },
};

const rgRun = 'runs another program on each file';
const rg: VerbRule = {
  pattern: { unlessOptions: ['-e', '--regexp', '-f', '--file', '--files', '--type-list'] },
  patternOptions: ['-e', '--regexp', '-r', '--replace', '-g', '--glob', '--iglob', '--type-add'],
  // every rg search is recursive, and even without --hidden/-u it reads `prod.env`; `--files` and
  // `--type-list` print names only. Without a path rg searches `.` (its standard input is no pipe here).
  search: { kind: { verb: 'rg', insert: RG_EXCLUDES }, when: (a) => !has(a, '--files', '--type-list') },
  stdin: (a, paths) => paths.some((w) => w.text === '-') || optionStdin(a, '-f', '--file'),
  table: {
    short: 'abcFHhiIlLnNoOpPqsSuUvVwxy0.e:f:g:t:T:A:B:C:m:M:j:r:E:d:',
    long: ['regexp=', 'file=', 'glob=', 'iglob=', 'type=', 'type-not=', 'type-list', 'hidden', 'no-hidden', 'no-ignore', 'no-ignore-vcs', 'no-ignore-dot',
      'no-ignore-parent', 'no-ignore-global', 'no-ignore-files', 'ignore-file=', 'files', 'files-with-matches', 'files-without-match', 'count', 'count-matches',
      'json', 'no-heading', 'heading', 'color=', 'colors=', 'line-number', 'no-line-number', 'column', 'no-column', 'vimgrep', 'max-depth=', 'follow',
      'sort=', 'sortr=', 'context=', 'before-context=', 'after-context=', 'max-count=', 'max-columns=', 'max-columns-preview', 'max-filesize=', 'fixed-strings',
      'ignore-case', 'smart-case', 'case-sensitive', 'word-regexp', 'line-regexp', 'invert-match', 'multiline', 'multiline-dotall', 'pcre2', 'engine=', 'trim',
      'stats', 'passthru', 'no-filename', 'with-filename', 'binary', 'text', 'quiet', 'null', 'null-data', 'no-messages', 'glob-case-insensitive',
      'one-file-system', 'only-matching', 'replace=', 'threads=', 'crlf', 'encoding=', 'no-unicode', 'byte-offset', 'context-separator=', 'field-match-separator=',
      'path-separator=', 'unrestricted', 'no-config', 'debug', 'help', 'version', 'pretty', 'block-buffered', 'line-buffered', 'no-require-git', 'ignore-case',
      'type-add=', 'type-clear='],
    refused: { '--pre': rgRun, '--pre-glob': rgRun, '-z': 'runs decompression programs', '--search-zip': 'runs decompression programs' },
  },
};

const SORT_WRITES = 'writes a file';
const sort: VerbRule = { stdin: filesOrStdin,
  table: {
    short: 'bdfgiMhnRrVcCsuzmk:t:S:',
    long: ['ignore-leading-blanks', 'dictionary-order', 'ignore-case', 'general-numeric-sort', 'ignore-nonprinting', 'month-sort', 'human-numeric-sort',
      'numeric-sort', 'random-sort', 'reverse', 'version-sort', 'check=?', 'merge', 'key=', 'field-separator=', 'stable', 'unique', 'zero-terminated',
      'buffer-size=', 'parallel=', 'sort=', 'debug', 'help', 'version'],
    refused: { '-o': SORT_WRITES, '--output': SORT_WRITES, '-T': 'chooses where temporary files are written', '--temporary-directory': 'chooses where temporary files are written',
      '--compress-program': 'runs a program to compress temporary files', '--files0-from': 'reads its file list from a file', '--random-source': 'reads another file' },
  },
};

const uniq: VerbRule = { stdin: filesOrStdin,
  table: { short: 'cdDiuzf:s:w:', numeric: true, long: ['count', 'repeated', 'all-repeated=?', 'ignore-case', 'unique', 'zero-terminated', 'skip-fields=', 'skip-chars=', 'check-chars=', 'group=?', 'help', 'version'] },
  check: atMost(1, '`uniq IN OUT` writes OUT: a glance takes at most one file'),
};

const cut: VerbRule = { stdin: filesOrStdin, globSafe: true, table: { short: 'b:c:d:f:nsz', long: ['bytes=', 'characters=', 'delimiter=', 'fields=', 'complement', 'only-delimited', 'output-delimiter=', 'zero-terminated', 'help', 'version'] } };
const tr: VerbRule = { textOperands: true, stdin: () => true, table: { short: 'cCdst', long: ['complement', 'delete', 'squeeze-repeats', 'truncate-set1', 'help', 'version'] } };
const nl: VerbRule = { stdin: filesOrStdin, globSafe: true, table: { short: 'pb:d:f:h:i:l:n:s:v:w:', long: ['body-numbering=', 'section-delimiter=', 'footer-numbering=', 'header-numbering=', 'line-increment=', 'join-blank-lines=', 'number-format=', 'no-renumber', 'number-separator=', 'starting-line-number=', 'number-width=', 'help', 'version'] } };
const column: VerbRule = { stdin: filesOrStdin, table: { short: 'tnxJLreRs:o:c:N:l:H:O:W:E:d', long: ['table', 'separator=', 'output-separator=', 'output-width=', 'fillrows', 'json', 'table-columns=', 'table-name=', 'table-hide=', 'table-right=', 'table-wrap=', 'table-noheadings', 'table-order=', 'table-truncate=', 'keep-empty-lines', 'help', 'version'] } };
const comm: VerbRule = { stdin: dashStdin, globSafe: true, table: { short: '123z', long: ['check-order', 'nocheck-order', 'output-delimiter=', 'total', 'zero-terminated', 'help', 'version'] } };
const rev: VerbRule = { stdin: filesOrStdin, globSafe: true, table: { short: '0', long: ['zero', 'help', 'version'] } };

/** `diff DIR1 DIR2` compares the files two folders share even without -r (`./.env` with `../x/.env`). */
const folderLike = (w: Word): boolean => {
  const last = w.text.split('/').filter((c) => c !== '').pop() ?? '/';
  return w.text.endsWith('/') || last === '.' || last === '..' || last === '~' || last.indexOf('.', 1) < 0;
};
const diffFiles = (a: Args): Word[] => a.options.filter((o) => (o.name === '--from-file' || o.name === '--to-file') && o.value !== undefined).map((o) => madeUpWord(o.value!, o.glob ?? false, o.pattern));
const diffFolders = (a: Args, paths: readonly Word[]): Word[] => {
  const all = [...paths, ...diffFiles(a)];
  return has(a, '-r', '--recursive') ? all : all.filter(folderLike);
};
const diff: VerbRule = {
  globSafe: true,
  patternOptions: ['-x', '--exclude', '-I', '--ignore-matching-lines', '-F', '--show-function-line', '--label'],
  stdin: dashStdin,
  search: { kind: { verb: 'diff', insert: GREP_EXCLUDES }, when: (a) => diffFolders(a, a.operands).length > 0, folders: diffFolders },
  table: {
    short: 'abBcdeEfiNnpqrsStTuvwyZyC:D:F:I:L:S:U:W:x:X:', numeric: true,
    long: ['brief', 'report-identical-files', 'unified=?', 'context=?', 'normal', 'ed', 'rcs', 'side-by-side', 'width=', 'left-column', 'suppress-common-lines',
      'show-c-function', 'show-function-line=', 'label=', 'expand-tabs', 'initial-tab', 'tabsize=', 'suppress-blank-empty', 'ignore-case', 'ignore-tab-expansion',
      'ignore-trailing-space', 'ignore-space-change', 'ignore-all-space', 'ignore-blank-lines', 'ignore-matching-lines=', 'text', 'strip-trailing-cr', 'recursive',
      'new-file', 'unidirectional-new-file', 'exclude=', 'exclude-from=', 'starting-file=', 'from-file=', 'to-file=', 'ignore-file-name-case',
      'no-ignore-file-name-case', 'minimal', 'horizon-lines=', 'speed-large-files', 'color=?', 'palette=', 'no-dereference', 'line-format=', 'old-line-format=',
      'new-line-format=', 'unchanged-line-format=', 'old-group-format=', 'new-group-format=', 'changed-group-format=', 'unchanged-group-format=', 'help', 'version'],
  },
};
const cmp: VerbRule = { stdin: (_a, paths) => paths.length < 2 || paths.some((w) => w.text === '-'), globSafe: true, table: { short: 'blsi:n:', long: ['print-bytes', 'ignore-initial=', 'verbose', 'bytes=', 'quiet', 'silent', 'help', 'version'] } };
const od: VerbRule = { stdin: filesOrStdin, globSafe: true, table: { short: 'abcdDefFhHiIlLoOsvxXA:j:N:S:t:w::', long: ['address-radix=', 'endian=', 'skip-bytes=', 'read-bytes=', 'strings=?', 'format=', 'output-duplicates', 'width=?', 'traditional', 'help', 'version'] } };
const hexdump: VerbRule = { stdin: filesOrStdin, table: { short: 'bcCdoxvLe:n:s:', long: ['one-byte-octal', 'one-byte-char', 'canonical', 'two-bytes-decimal', 'two-bytes-octal', 'two-bytes-hex', 'format=', 'length=', 'skip=', 'no-squeezing', 'color=?', 'help', 'version'] } };

const SUM: VerbRule = { stdin: filesOrStdin, globSafe: true, table: { short: 'bctwz', long: ['binary', 'check', 'tag', 'text', 'zero', 'ignore-missing', 'quiet', 'status', 'strict', 'warn', 'help', 'version'] } };
const cksum: VerbRule = { stdin: filesOrStdin, globSafe: true, table: { short: 'a:l:cwz', long: ['algorithm=', 'length=', 'base64', 'raw', 'tag', 'untagged', 'check', 'ignore-missing', 'quiet', 'status', 'strict', 'warn', 'zero', 'debug', 'help', 'version'] } };

const basename: VerbRule = { textOperands: true, table: { short: 'as:z', long: ['multiple', 'suffix=', 'zero', 'help', 'version'] } };
const dirname: VerbRule = { textOperands: true, table: { short: 'z', long: ['zero', 'help', 'version'] } };
const realpath: VerbRule = { namesOnly: true, table: { short: 'eEmLPqsz', long: ['canonicalize-existing', 'canonicalize-missing', 'logical', 'physical', 'quiet', 'relative-to=', 'relative-base=', 'strip', 'no-symlinks', 'zero', 'help', 'version'] } };
const readlink: VerbRule = { namesOnly: true, table: { short: 'efmnqsvz', long: ['canonicalize', 'canonicalize-existing', 'canonicalize-missing', 'no-newline', 'quiet', 'silent', 'verbose', 'zero', 'help', 'version'] } };

export const FILE_VERBS: Readonly<Record<string, VerbRule>> = {
  ls, cat, head, tail, wc, stat, file, du, df, tree, grep, egrep: grep, fgrep: grep, rg, sort, uniq, cut, tr, nl, column, comm, rev, diff, cmp, od, hexdump,
  sha256sum: SUM, sha1sum: SUM, sha224sum: SUM, sha384sum: SUM, sha512sum: SUM, md5sum: SUM, b2sum: SUM, cksum, basename, dirname, realpath, readlink,
};
