// biome-ignore-all format: option and path tables, one tool or rule per line; the layout is the table
// Tables for program-taking filters (awk, sed, jq), find, the shell's own probes and toolchain versions.
import type { Word } from './lexer.js';
import { getopt, type OptionTable } from './getopt.js';
import { type VerbRule, type Args, type CustomResult, atMost, only, dispatch, filesOrStdin, optionStdin } from './rule.js';
import { sedProgram } from './sed.js';
import { awkProgram } from './awk.js';
import { jqCommand } from './jq-cli.js';

const programOf = (a: Args, opts: readonly string[]): string[] => {
  const given = a.options.filter((o) => opts.includes(o.name)).map((o) => o.value ?? '');
  return given.length > 0 ? given : a.operands.slice(0, 1).map((w) => w.text);
};

const sed: VerbRule = {
  globSafe: false,
  stdin: filesOrStdin,
  pattern: { unlessOptions: ['-e', '--expression'] },
  patternOptions: ['-e', '--expression'],
  table: {
    short: 'nErsuze:l:',
    long: ['quiet', 'silent', 'expression=', 'line-length=', 'posix', 'regexp-extended', 'separate', 'sandbox', 'unbuffered', 'null-data', 'debug', 'help', 'version'],
    refused: { '-i': 'edits files in place', '--in-place': 'edits files in place', '-f': 'reads a program the classifier cannot see', '--file': 'reads a program the classifier cannot see', '--follow-symlinks': 'only matters with --in-place' },
  },
  check: (a, budget) => {
    const programs = programOf(a, ['-e', '--expression']);
    if (programs.length === 0) return 'sed without a program';
    for (const p of programs) {
      const r = sedProgram(p, budget);
      if (r) return `${r}; ${dispatch}`;
    }
    return null;
  },
};

const awkLoads = 'loads or runs code the classifier cannot see';
const awk: VerbRule = {
  pattern: { unlessOptions: [] },
  // awk reads standard input without a file, unless its program is only `BEGIN { … }`
  stdin: (a, paths, budget) => {
    const info = { onlyBegin: false };
    awkProgram(a.operands[0]?.text ?? '', budget, info);
    return (paths.length === 0 && !info.onlyBegin) || paths.some((w) => w.text === '-');
  },
  table: {
    short: 'F:v:', long: ['field-separator=', 'assign=', 'posix', 'traditional', 'characters-as-bytes', 're-interval', 'sandbox', 'help', 'version'],
    refused: { '-f': awkLoads, '--file': awkLoads, '-i': awkLoads, '--include': awkLoads, '-l': awkLoads, '--load': awkLoads, '-E': awkLoads, '--exec': awkLoads,
      '-e': awkLoads, '--source': awkLoads, '-o': 'writes a pretty-printed program to a file', '--pretty-print': 'writes a pretty-printed program to a file',
      '-p': 'writes a profile file', '--profile': 'writes a profile file', '-d': 'writes a variables dump', '--dump-variables': 'writes a variables dump', '-W': 'passes implementation options' },
  },
  check: (a, budget) => {
    const program = a.operands[0];
    if (program === undefined) return 'awk without a program';
    const r = awkProgram(program.text, budget);
    return r ? `${r}; ${dispatch}` : null;
  },
};

/** jq parses its own command line (jq-cli.ts): `--arg NAME VALUE` takes two words, `--args` makes operands values. */
const jq: VerbRule = { custom: (args, budget) => jqCommand(args, budget) };

// find: a path list, then an expression of tests and actions, each with a known number of arguments.
const FIND_TESTS: Readonly<Record<string, number>> = {
  '-name': 1, '-iname': 1, '-path': 1, '-ipath': 1, '-wholename': 1, '-iwholename': 1, '-regex': 1, '-iregex': 1, '-regextype': 1, '-lname': 1, '-ilname': 1,
  '-type': 1, '-xtype': 1, '-size': 1, '-empty': 0, '-newer': 1, '-anewer': 1, '-cnewer': 1, '-mtime': 1, '-atime': 1, '-ctime': 1, '-mmin': 1, '-amin': 1,
  '-cmin': 1, '-used': 1, '-perm': 1, '-user': 1, '-group': 1, '-uid': 1, '-gid': 1, '-nouser': 0, '-nogroup': 0, '-links': 1, '-inum': 1, '-samefile': 1,
  '-readable': 0, '-writable': 0, '-executable': 0, '-maxdepth': 1, '-mindepth': 1, '-depth': 0, '-d': 0, '-mount': 0, '-xdev': 0, '-noleaf': 0,
  '-follow': 0, '-daystart': 0, '-ignore_readdir_race': 0, '-noignore_readdir_race': 0, '-print': 0, '-print0': 0, '-printf': 1, '-ls': 0, '-prune': 0,
  '-quit': 0, '-true': 0, '-false': 0, '-not': 0, '!': 0, '-a': 0, '-and': 0, '-o': 0, '-or': 0, ',': 0, '(': 0, ')': 0, '-fstype': 1, '-context': 1,
  '-warn': 0, '-nowarn': 0,
};
const FIND_ACTS: Readonly<Record<string, string>> = {
  '-exec': 'runs a command', '-execdir': 'runs a command', '-ok': 'runs a command', '-okdir': 'runs a command', '-delete': 'deletes files',
  '-fprint': 'writes a file', '-fprint0': 'writes a file', '-fprintf': 'writes a file', '-fls': 'writes a file', '-files0-from': 'reads its paths from a file',
};
function find(args: readonly Word[]): string | null {
  let i = 0;
  while (i < args.length && /^-[HLP]$/.test(args[i]!.text)) i++;
  if (args[i]?.text === '-D' || args[i]?.text === '-O' || /^-O\d$/.test(args[i]?.text ?? '')) return `find \`${args[i]!.text}\` is a debugging option; ${dispatch}`;
  for (; i < args.length && !args[i]!.text.startsWith('-') && !['(', '!', ')', ','].includes(args[i]!.text); i++) {
    if (args[i]!.globLead) return `the glob \`${args[i]!.text}\` could expand to a find action; ${dispatch}`;
  }
  for (; i < args.length; i++) {
    const t = args[i]!.text;
    if (Object.hasOwn(FIND_ACTS, t)) return `find \`${t}\` ${FIND_ACTS[t]}; ${dispatch}`;
    if (/^-newer[aBcmt][aBcmt]$/.test(t)) { i++; continue; }
    if (!Object.hasOwn(FIND_TESTS, t)) return `find \`${t}\` is not a test a glance may use; ${dispatch}`;
    if (args[i]!.glob) return `the glob \`${t}\` could expand to a find action; ${dispatch}`;
    const n = FIND_TESTS[t]!;
    if (i + n >= args.length) return `find \`${t}\` needs an argument`;
    i += n;
  }
  return null;
}

// test / [: file and string tests only; `-v NAME` evaluates an array subscript (`a[$(…)]`), and the
// arithmetic comparisons are allowed only between plain integers.
const UNARY = new Set(['-e', '-f', '-d', '-s', '-r', '-w', '-x', '-L', '-h', '-n', '-z', '-b', '-c', '-p', '-S', '-g', '-u', '-k', '-O', '-G', '-N', '-a']);
const BINARY = new Set(['=', '==', '!=', '-nt', '-ot', '-ef', '<', '>']);
const ARITH = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
function testExpr(verb: string) {
  return (args: readonly Word[]): string | null => {
    let words = args.map((w) => w.text);
    if (verb === '[') {
      if (words[words.length - 1] !== ']') return '`[` without a closing `]`';
      words = words.slice(0, -1);
    }
    for (let i = 0; i < words.length; i++) {
      const t = words[i]!;
      if (t === '-v' || t === '-R') return `\`${verb} ${t}\` evaluates a variable name (array subscripts run code); ${dispatch}`;
      if (ARITH.has(t)) {
        if (!/^-?\d+$/.test(words[i - 1] ?? '') || !/^-?\d+$/.test(words[i + 1] ?? '')) return `\`${verb} … ${t} …\` is allowed only between plain numbers`;
        i++;
        continue;
      }
      if (UNARY.has(t) || BINARY.has(t) || t === '!' || t === '-o' || t === '(' || t === ')') continue;
      if (t.startsWith('-') && t.length > 1 && !/^-?\d+$/.test(t)) return `\`${verb} ${t}\` is not a test a glance may use`;
    }
    return null;
  };
}

const echo: VerbRule = { textOperands: true, custom: () => null };
const printf: VerbRule = {
  textOperands: true,
  custom: (args) => (args[0]?.text.startsWith('-v') ? `\`printf -v\` assigns a variable (array subscripts run code); ${dispatch}` : null),
};

const date: VerbRule = {
  textOperands: true,
  stdin: (a) => optionStdin(a, '-f', '--file'),
  table: { short: 'uRI::d:f:r:', long: ['date=', 'file=', 'iso-8601=?', 'rfc-3339=', 'rfc-email', 'reference=', 'utc', 'universal', 'debug', 'resolution', 'help', 'version'],
    refused: { '-s': 'sets the clock', '--set': 'sets the clock' } },
  check: (a) => (a.operands.some((w) => !w.text.startsWith('+')) || a.operands.length > 1 ? `\`date ${a.operands.map((w) => w.text).join(' ')}\` sets the clock; only \`+FORMAT\` is a glance` : null),
};

const NOTHING: VerbRule = { table: {}, check: atMost(0, 'takes no operands here') };
const hostname: VerbRule = {
  table: { short: 'sfdiIAa', long: ['short', 'fqdn', 'long', 'domain', 'ip-address', 'all-ip-addresses', 'all-fqdns', 'alias', 'help', 'version'],
    refused: { '-F': 'sets the host name', '--file': 'sets the host name', '-b': 'sets the host name', '--boot': 'sets the host name' } },
  check: atMost(0, '`hostname NAME` sets the host name'),
};

const VERSION = [['--version']];
const toolchain = (verb: string, forms: string[][]): VerbRule => ({ custom: only(forms, verb) });

export const SYSTEM_VERBS: Readonly<Record<string, VerbRule>> = {
  sed, awk, gawk: awk, mawk: awk, jq,
  find: { custom: find, namesOnly: true },
  lsb_release: { table: { short: 'aidrcsh', long: ['all', 'id', 'description', 'release', 'codename', 'short', 'help', 'version'] }, check: atMost(0, '`lsb_release` takes no operands') },
  test: { textOperands: true, custom: testExpr('test') },
  '[': { textOperands: true, custom: testExpr('[') },
  echo, printf, date,
  pwd: { table: { short: 'LP' }, check: atMost(0, '`pwd` takes no operands') },
  whoami: NOTHING,
  id: { table: { short: 'agGnruzZ', long: ['group', 'groups', 'name', 'real', 'user', 'zero', 'context', 'help', 'version'] }, check: atMost(1, '`id` takes one user') },
  groups: { table: {} },
  uname: { table: { short: 'asnrvmpio', long: ['all', 'kernel-name', 'nodename', 'kernel-release', 'kernel-version', 'machine', 'processor', 'hardware-platform', 'operating-system', 'help', 'version'] }, check: atMost(0, '`uname` takes no operands') },
  arch: NOTHING, nproc: { table: { long: ['all', 'ignore=', 'help', 'version'] }, check: atMost(0, '`nproc` takes no operands') },
  uptime: { table: { short: 'ps', long: ['pretty', 'since', 'help', 'version'] }, check: atMost(0, '`uptime` takes no operands') },
  free: { table: { short: 'bkmghltwv', long: ['bytes', 'kilo', 'mega', 'giga', 'tera', 'human', 'si', 'total', 'wide', 'lohi', 'help', 'version'] }, check: atMost(0, '`free` takes no operands') },
  hostname,
  which: { textOperands: true, table: { short: 'as' } },
  type: { textOperands: true, table: { short: 'afptP' } },
  // `command -v NAME` only looks a name up; `command NAME` runs it
  command: { textOperands: true, custom: (args) => (args.length >= 2 && /^-[vV]$/.test(args[0]!.text) && args.slice(1).every((w) => /^[\w.+-]+$/.test(w.text) && !w.text.startsWith('-')) ? null : `\`command\` runs its argument unless it is \`command -v NAME\`; ${dispatch}`) },
  true: { custom: () => null }, false: { custom: () => null },
  cd: { table: { short: 'LP' }, check: (a) => cdTarget(a.operands) },
  node: toolchain('node', [['-v'], ['--version']]),
  npm: { custom: (args) => npm(args) },
  python3: toolchain('python3', [['--version'], ['-V']]),
  python: toolchain('python', [['--version'], ['-V']]),
  pip: toolchain('pip', [['--version'], ['-V']]), pip3: toolchain('pip3', [['--version'], ['-V']]),
  go: toolchain('go', [['version']]),
  cargo: toolchain('cargo', [['--version'], ['-V']]), rustc: toolchain('rustc', [['--version'], ['-V']]),
  java: toolchain('java', [['-version'], ['--version']]), javac: toolchain('javac', [['-version'], ['--version']]),
  tsc: toolchain('tsc', [['--version'], ['-v']]), deno: toolchain('deno', [['--version']]), bun: toolchain('bun', [['--version']]),
  ruby: toolchain('ruby', [['--version'], ['-v']]), gcc: toolchain('gcc', VERSION), 'g++': toolchain('g++', VERSION), clang: toolchain('clang', VERSION),
  make: toolchain('make', VERSION), cmake: toolchain('cmake', VERSION), rustup: toolchain('rustup', VERSION),
};

// npm: versions and the local dependency tree only (`npm view`, `npm outdated` go to the network).
const NPM_LS = { short: 'ag', long: ['all', 'depth=', 'json', 'long', 'parseable', 'omit=', 'include=', 'link', 'global', 'unicode', 'workspaces', 'workspace=', 'package-lock-only'] } as const;
function npm(args: readonly Word[]): string | null {
  const sub = args[0]?.text;
  if (args.length === 1 && (sub === '-v' || sub === '--version')) return null;
  if (sub === 'ls' || sub === 'list') {
    const p = getopt(NPM_LS, args.slice(1));
    return p.ok ? null : p.reason;
  }
  return `\`npm ${sub ?? ''}\` is not a glance (only \`npm -v\` and \`npm ls\`); ${dispatch}`;
}

// ps: BSD-style words (`aux`) may not hold `e`, which prints every process's environment (secrets).
const PS: OptionTable = {
  short: 'AaedfFlHjyLTMwcNrxZo:p:u:U:g:G:C:t:q:O:s:',
  long: ['sort=', 'format=', 'pid=', 'ppid=', 'user=', 'User=', 'group=', 'Group=', 'forest', 'no-headers', 'headers', 'cols=', 'columns=', 'width=', 'lines=', 'rows=', 'sid=', 'tty=', 'deselect', 'quick-pid=', 'help', 'version'],
};
function ps(args: readonly Word[]): string | null {
  const p = getopt(PS, args);
  if (!p.ok) return `ps: ${p.reason}`;
  // what getopt left as operands are BSD-style option words (`aux`)
  const bsd = p.operands.find((w) => /^[a-zA-Z]+$/.test(w.text) && w.text.includes('e'));
  return bsd ? `\`ps ${bsd.text}\`: BSD \`e\` prints each process's environment, which holds secrets; ${dispatch}` : null;
}

export const PROCESS_VERBS: Readonly<Record<string, VerbRule>> = {
  ps: { textOperands: true, custom: ps },
  pgrep: { textOperands: true, table: { short: 'lafxnovcirAwd:g:G:P:s:t:u:U:F:', long: ['list-name', 'list-full', 'full', 'exact', 'newest', 'oldest', 'inverse', 'count', 'ignore-case', 'delimiter=', 'euid=', 'uid=', 'pgroup=', 'group=', 'parent=', 'session=', 'terminal=', 'older=', 'lightweight', 'ns=', 'nslist=', 'help', 'version'] } },
  whereis: { textOperands: true, table: { short: 'bmsulBMSf' } },
  getconf: { textOperands: true, table: { short: 'a', long: ['all'] } },
  locale: { textOperands: true, table: { short: 'amvck', long: ['all-locales', 'charmaps', 'verbose', 'category-name', 'keyword-name', 'help', 'version'] } },
  xxd: { custom: xxd },
  // ss's operands are a filter expression (`state listening`, `dport = :80`), not files; `-E` waits for
  // socket events and never returns (an audit found `ss -E`, `-tE`, `--events` and `--ev` let through)
  ss: { textOperands: true, table: { short: 'hVHnraloeimpTsbZxtuwSd046MO', long: ['numeric', 'resolve', 'all', 'listening', 'options', 'extended', 'memory', 'processes', 'info', 'summary', 'tcp', 'udp', 'unix', 'raw', 'ipv4', 'ipv6', 'no-header', 'oneline', 'help', 'version'],
    refused: { '-K': 'kills sockets', '--kill': 'kills sockets', '-D': 'writes a dump file', '--diag': 'writes a dump file', '-F': 'reads a filter file', '--filter': 'reads a filter file',
      '-E': 'waits for socket events and never returns', '--events': 'waits for socket events and never returns', '-N': 'switches network namespace', '--net': 'switches network namespace' } } },
};

// xxd has single-dash long options matched by prefix (`-ps`, `-len`), so getopt clustering does not apply;
// `xxd IN OUT` writes OUT, so a glance takes at most one file.
const XXD_FLAGS = /^-(a|autoskip|b|bits|C|capitalize|E|EBCDIC|e|h|help|i|include|p|ps|postscript|plain|r|revert|d|u|v|version|R)$/;
const XXD_VALUED = /^-(c|cols|g|groupsize|l|len|o|offset|s|seek|n|name)$/;
function xxd(args: readonly Word[]): CustomResult {
  const files: Word[] = [];
  for (let i = 0; i < args.length; i++) {
    const t = args[i]!.text;
    if (XXD_FLAGS.test(t)) continue;
    if (XXD_VALUED.test(t)) { i++; continue; }
    if (/^-[cglosn][+-]?(0x)?[\da-fA-F]+$/.test(t)) continue;
    if (t.startsWith('-') && t !== '-') return `xxd \`${t}\` is not an option a glance may use; ${dispatch}`;
    if (args[i]!.glob) return `\`xxd ${t}\`: a glob could name a second file, which xxd writes; ${dispatch}`;
    files.push(args[i]!);
  }
  if (files.length > 1) return `\`xxd IN OUT\` writes OUT: a glance takes at most one file; ${dispatch}`;
  return { paths: files, stdin: files.length === 0 || files[0]!.text === '-' };
}

/**
 * `cd` takes one literal folder, never home, `/`, a home root or a dot-folder (`~/.config`): the shell's
 * folder outlives the call, and a later `grep -r KEY flower` from `~/.config` would read flower's key.
 */
function cdTarget(operands: readonly Word[]): string | null {
  if (operands.length !== 1 || operands[0]!.glob) return `\`cd\` takes exactly one literal folder here; ${dispatch}`;
  const t = operands[0]!.text;
  if (/^~/.test(t) || /^\/+$/.test(t) || /^\/(home|Users|root)(\/[^/]+)?\/*$/.test(t) || /(^|\/)\.(?!\.?(\/|$))/.test(t) || t === '-') {
    return `\`cd ${t}\` goes to home, \`/\` or a hidden folder, where later glances could reach credential files; ${dispatch}`;
  }
  return null;
}
