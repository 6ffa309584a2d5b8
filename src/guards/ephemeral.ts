// The read-only allowlist (handoff-context §2.4). One predicate serves two masters: the coordinator's
// glance guard ("may run") and resume-time expiry ("will expire"). Keeping them the same function is the
// invariant: anything allowed as a glance must be safe to forget, because its result goes stale.
//
// Decisions (documented because they differ from the Python original):
// - The command is lexed like a shell would, so quoting matters: `grep "a>b" f` and `grep 'x|y' f` are
//   allowed (the `>` and `|` are literal), `echo "$(id)"` is refused (double quotes still substitute),
//   `grep '$(' f` is allowed (single quotes do not). Programs handed to awk/sed are checked by content.
// - Redirections that discard or duplicate descriptors (`2>&1`, `>&2`, `2>/dev/null`, `>/dev/null`,
//   `&>/dev/null`) are allowed; every other `>` and every `<` (including here-docs) is refused.
// - Subcommands are checked, not just verbs: `git branch foo` creates a branch, `git remote add`,
//   `git stash` (push), `uniq in out`, `date -s`, `hostname name`, `env cmd` all mutate or run code.
// - `tail -f` is refused: a glance that never returns blocks the coordinator.
// - `find -newer` is allowed (it only compares times; the original refused it by accident of a regex).
// - Unknown verbs, paths to binaries (`/bin/ls`), `VAR=x cmd` prefixes, subshells and `{ …; }` groups
//   are refused: a false refusal costs one delegation, a false allowance can cost the workspace.

export type EphemeralVerdict = { ok: true } | { ok: false; reason: string };

type Word = string;
type Lexed = { segments: Word[][] } | { reason: string };

/** Splits a command line into pipeline/list segments of unquoted words, or says why it cannot be a glance. */
function lex(command: string): Lexed {
  const segments: Word[][] = [[]];
  const ops: string[] = [];
  let word = '';
  let inWord = false; // distinguishes an empty quoted word ('') from no word
  let wordQuoted = false;
  let redirect: string | null = null; // a `>` waiting for its target word
  const s = command;
  const n = s.length;

  const endWord = (): string | null => {
    if (!inWord) return null;
    const w = word;
    word = '';
    inWord = false;
    wordQuoted = false;
    if (redirect !== null) {
      const op = redirect;
      redirect = null;
      return w === '/dev/null' ? null : `redirection ${op}${w} writes a file`;
    }
    segments[segments.length - 1]!.push(w);
    return null;
  };
  const endSegment = (op: string): string | null => {
    const r = endWord();
    if (r) return r;
    if (redirect !== null) return `redirection ${redirect} has no target`;
    ops.push(op);
    segments.push([]);
    return null;
  };

  for (let i = 0; i < n; i++) {
    const c = s[i]!;
    const next = s[i + 1];
    if (c === ' ' || c === '\t' || c === '\r') {
      const r = endWord();
      if (r) return { reason: r };
      continue;
    }
    if (c === '\n') {
      const r = endSegment(';');
      if (r) return { reason: r };
      continue;
    }
    if (c === '#' && !inWord) {
      while (i < n && s[i] !== '\n') i++;
      i--;
      continue;
    }
    if (c === "'" || (c === '$' && next === "'")) {
      const ansi = c === '$';
      let j = ansi ? i + 2 : i + 1;
      while (j < n && s[j] !== "'") j += ansi && s[j] === '\\' ? 2 : 1;
      if (j >= n) return { reason: 'unterminated quote' };
      word += s.slice(ansi ? i + 2 : i + 1, j);
      inWord = true;
      wordQuoted = true;
      i = j;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      for (; j < n && s[j] !== '"'; j++) {
        const d = s[j]!;
        if (d === '`' || (d === '$' && s[j + 1] === '(')) return { reason: 'command substitution inside double quotes' };
        if (d === '\\' && j + 1 < n) {
          j++;
          word += '"\\$`\n'.includes(s[j]!) ? s[j] : `\\${s[j]}`;
          continue;
        }
        word += d;
      }
      if (j >= n) return { reason: 'unterminated quote' };
      inWord = true;
      wordQuoted = true;
      i = j;
      continue;
    }
    if (c === '\\') {
      if (i + 1 < n && s[i + 1] !== '\n') word += s[i + 1];
      inWord = inWord || s[i + 1] !== '\n';
      i++;
      continue;
    }
    if (c === '`') return { reason: 'command substitution (backtick)' };
    if (c === '$' && next === '(') return { reason: 'command substitution $(…)' };
    if ((c === '<' || c === '>') && next === '(') return { reason: `process substitution ${c}(…)` };
    if (c === '(' || c === ')') return { reason: 'subshells and grouping are not glances' };
    if (c === ';') {
      const r = endSegment(';');
      if (r) return { reason: r };
      continue;
    }
    if (c === '|') {
      const op = next === '|' ? '||' : '|';
      if (next === '|' || next === '&') i++;
      const r = endSegment(op);
      if (r) return { reason: r };
      continue;
    }
    if (c === '&') {
      if (next === '&') {
        i++;
        const r = endSegment('&&');
        if (r) return { reason: r };
        continue;
      }
      if (next === '>') {
        const r = endWord();
        if (r) return { reason: r };
        i += s[i + 2] === '>' ? 2 : 1;
        redirect = '&>';
        continue;
      }
      return { reason: 'a lone & starts a background job' };
    }
    if (c === '<') return { reason: 'input redirection or here-doc (<)' };
    if (c === '>') {
      // an all-digit word right before `>` is the descriptor being redirected (2>…)
      if (inWord && !wordQuoted && /^\d+$/.test(word)) {
        word = '';
        inWord = false;
      } else {
        const r = endWord();
        if (r) return { reason: r };
      }
      if (next === '&') {
        const m = /^(\d+|-)(?=$|[\s;&|)])/.exec(s.slice(i + 2));
        if (m) {
          i += 1 + m[0].length;
          continue; // descriptor duplication writes no file
        }
        i++;
        redirect = '>&';
        continue;
      }
      if (next === '>' || next === '|') i++;
      redirect = '>';
      continue;
    }
    word += c;
    inWord = true;
  }
  const r = endWord();
  if (r) return { reason: r };
  if (redirect !== null) return { reason: `redirection ${redirect} has no target` };
  // empty segments: allowed only as a trailing `;`/newline, never around && || |
  for (let k = 0; k < segments.length; k++) {
    if (segments[k]!.length > 0) continue;
    const before = ops[k - 1] ?? ';';
    const after = ops[k] ?? ';';
    if (before !== ';' || after !== ';') return { reason: `empty command next to ${before === ';' ? after : before}` };
  }
  const nonEmpty = segments.filter((x) => x.length > 0);
  if (nonEmpty.length === 0) return { reason: 'empty command' };
  return { segments: nonEmpty };
}

// ── argument helpers ─────────────────────────────────────────────────────────────────────────

/** Arguments before `--`. */
const optionsPart = (args: readonly string[]): string[] => {
  const k = args.indexOf('--');
  return k < 0 ? [...args] : args.slice(0, k);
};

/**
 * Whether short flag `flag` appears, reading clusters like `-uo` correctly: a flag in `valued` takes the
 * rest of the cluster (or the next argument) as its value, so `sort -to` sets the separator to "o".
 */
function hasShort(args: readonly string[], flag: string, valued: string): boolean {
  const opts = optionsPart(args);
  for (let i = 0; i < opts.length; i++) {
    const a = opts[i]!;
    if (!a.startsWith('-') || a.startsWith('--') || a === '-') continue;
    for (let k = 1; k < a.length; k++) {
      const ch = a[k]!;
      if (ch === flag) return true;
      if (valued.includes(ch)) {
        if (k === a.length - 1) i++;
        break;
      }
    }
  }
  return false;
}

const hasLong = (args: readonly string[], ...names: string[]): boolean =>
  optionsPart(args).some((a) => names.some((nm) => a === nm || a.startsWith(`${nm}=`)));

/** Positional arguments, skipping the values of the given short/long options. */
function positionals(args: readonly string[], valuedShort = '', valuedLong: readonly string[] = []): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return out.concat(args.slice(i + 1));
    if (a.startsWith('--')) {
      if (valuedLong.includes(a)) i++;
      continue;
    }
    if (a.startsWith('-') && a.length > 1) {
      for (let k = 1; k < a.length; k++) {
        if (valuedShort.includes(a[k]!)) {
          if (k === a.length - 1) i++;
          break;
        }
      }
      continue;
    }
    out.push(a);
  }
  return out;
}

type Check = (args: string[]) => string | null;
const ok: Check = () => null;

// ── per-verb checks ──────────────────────────────────────────────────────────────────────────

const GIT_READ = new Set([
  'status', 'diff', 'log', 'show', 'rev-parse', 'describe', 'ls-files', 'blame', 'shortlog', 'cherry',
  'for-each-ref', 'whatchanged', 'cat-file', 'count-objects', 'check-ignore', 'var', 'ls-tree', 'rev-list',
  'merge-base', 'show-ref', 'grep', 'name-rev',
]);
const BRANCH_FLAGS = new Set(['-a', '-r', '-v', '-vv', '--all', '--remotes', '--verbose', '--list', '-l',
  '--show-current', '--color', '--no-color', '--column', '--no-column', '-q', '--quiet', '--abbrev', '--no-abbrev']);
const BRANCH_VALUED = new Set(['--contains', '--no-contains', '--merged', '--no-merged', '--points-at', '--sort', '--format']);

function git(args: string[]): string | null {
  let i = 0;
  for (; i < args.length && args[i]!.startsWith('-'); i++) {
    const a = args[i]!;
    if (a === '-C') i++;
    else if (a === '-c' || a.startsWith('--config-env') || a.startsWith('--exec-path')) return `git ${a} changes which programs git runs (aliases, pagers, hooks)`;
    else if (!['--no-pager', '-P', '--no-optional-locks', '--bare', '--literal-pathspecs'].includes(a)
      && !a.startsWith('--git-dir=') && !a.startsWith('--work-tree=')) return `unknown git option ${a}`;
  }
  const sub = args[i];
  const rest = args.slice(i + 1);
  if (sub === undefined) return 'git without a subcommand';
  const risky = rest.find((a) => /^--(force|hard|prune)\b/.test(a) || /^--output(=|$)/.test(a));
  if (risky) return `git ${sub} ${risky} changes or writes state`;
  if (GIT_READ.has(sub)) {
    if (sub === 'grep' && (hasShort(rest, 'O', 'efABC') || hasLong(rest, '--open-files-in-pager'))) return 'git grep -O runs a pager';
    return null;
  }
  switch (sub) {
    case 'branch': {
      let listing = false;
      for (let k = 0; k < rest.length; k++) {
        const a = rest[k]!;
        if (a === '--list' || a === '-l') listing = true;
        if (BRANCH_FLAGS.has(a) || [...BRANCH_VALUED].some((v) => a.startsWith(`${v}=`))) continue;
        if (BRANCH_VALUED.has(a)) { k++; continue; }
        if (a.startsWith('-')) return `git branch ${a} changes branches`;
        if (!listing) return `git branch ${a} creates a branch`;
      }
      return null;
    }
    case 'stash': return rest[0] === 'list' || rest[0] === 'show' ? null : 'git stash without list/show changes the working tree';
    case 'worktree': return rest[0] === 'list' ? null : `git worktree ${rest[0] ?? ''} changes worktrees`;
    case 'remote': {
      const p = positionals(rest);
      return p.length === 0 || p[0] === 'show' || p[0] === 'get-url' ? null : `git remote ${p[0]} changes remotes`;
    }
    case 'reflog': {
      const p = positionals(rest);
      return p[0] === 'expire' || p[0] === 'delete' ? `git reflog ${p[0]} rewrites the reflog` : null;
    }
    case 'symbolic-ref':
      return hasShort(rest, 'd', 'm') || hasLong(rest, '--delete') || positionals(rest, 'm').length > 1 ? 'git symbolic-ref would change a ref' : null;
    case 'hash-object': return hasShort(rest, 'w', 't') ? 'git hash-object -w writes an object' : null;
    case 'config': {
      const p = positionals(rest);
      const reads = hasLong(rest, '--get', '--get-all', '--get-regexp', '--get-urlmatch', '--list') || hasShort(rest, 'l', 'f') || p[0] === 'get' || p[0] === 'list';
      const writes = hasLong(rest, '--unset', '--unset-all', '--add', '--replace-all', '--edit', '--rename-section', '--remove-section') || hasShort(rest, 'e', 'f');
      return reads && !writes ? null : 'git config without --get/--list can write configuration';
    }
    default: return `git ${sub} is not a read-only subcommand`;
  }
}

function sedProgram(script: string): string | null {
  let i = 0;
  const n = script.length;
  const spaces = (): void => { while (i < n && (script[i] === ' ' || script[i] === '\t')) i++; };
  const delimited = (d: string): boolean => {
    while (i < n && script[i] !== d) {
      if (script[i] === '\n') return false;
      i += script[i] === '\\' ? 2 : 1;
    }
    if (i >= n) return false;
    i++;
    return true;
  };
  const address = (): boolean | null => {
    const c = script[i];
    if (c !== undefined && /\d/.test(c)) { while (i < n && /[\d~]/.test(script[i]!)) i++; return true; }
    if (c === '$') { i++; return true; }
    if (c === '/' || c === '\\') {
      const d = c === '/' ? '/' : script[i + 1];
      i += c === '/' ? 1 : 2;
      if (d === undefined || !delimited(d)) return null;
      while (i < n && /[IM]/.test(script[i]!)) i++;
      return true;
    }
    return false;
  };
  for (let guard = 0; guard <= n; guard++) {
    while (i < n && /[\s;}]/.test(script[i]!)) i++;
    if (i >= n) return null;
    const a = address();
    if (a === null) return 'unterminated sed address';
    if (a) {
      spaces();
      if (script[i] === ',') {
        i++;
        spaces();
        if (script[i] === '+' || script[i] === '~') { i++; while (i < n && /\d/.test(script[i]!)) i++; }
        else if (address() !== true) return 'bad sed address range';
      }
    }
    spaces();
    while (script[i] === '!') { i++; spaces(); }
    const c = script[i++];
    if (c === undefined) return null;
    if (c === '{') continue;
    if (c === 's' || c === 'y') {
      const d = script[i++];
      if (d === undefined || d === '\n' || d === '\\') return `bad sed ${c} command`;
      if (!delimited(d) || !delimited(d)) return `unterminated sed ${c} command`;
      if (c === 's') {
        while (i < n && /[gpiImMe0-9w]/.test(script[i]!)) {
          if (script[i] === 'w') return 'sed s///w writes a file';
          if (script[i] === 'e') return 'sed s///e executes the pattern space';
          i++;
        }
      }
      continue;
    }
    if (c === 'w' || c === 'W') return 'sed w writes a file';
    if (c === 'e') return 'sed e executes a command';
    if (':btT'.includes(c)) { while (i < n && !/[;\n]/.test(script[i]!)) i++; continue; }
    if ('aicrR'.includes(c)) { while (i < n && script[i] !== '\n') i++; continue; }
    if ('qQlL'.includes(c)) { spaces(); while (i < n && /\d/.test(script[i]!)) i++; continue; }
    if ('pPdDnNgGhHxzF='.includes(c)) continue;
    return `unknown sed command '${c}'`;
  }
  return 'sed program too complex';
}

function sed(args: string[]): string | null {
  if (hasShort(args, 'i', 'efl') || hasLong(args, '--in-place')) return 'sed -i edits files in place';
  if (hasShort(args, 'f', 'el') || hasLong(args, '--file')) return 'sed -f reads a program that cannot be checked';
  const scripts: string[] = [];
  const opts = optionsPart(args);
  for (let i = 0; i < opts.length; i++) {
    const a = opts[i]!;
    if (a === '-e' || a === '--expression') scripts.push(opts[++i] ?? '');
    else if (a.startsWith('--expression=')) scripts.push(a.slice('--expression='.length));
    else if (/^-[nErsuz]*e./.test(a)) scripts.push(a.slice(a.indexOf('e') + 1));
  }
  if (scripts.length === 0) {
    const p = positionals(args, 'el', ['--line-length']);
    if (p[0] === undefined) return 'sed without a program';
    scripts.push(p[0]);
  }
  for (const sc of scripts) {
    const r = sedProgram(sc);
    if (r) return r;
  }
  return null;
}

function awk(args: string[]): string | null {
  if (hasShort(args, 'f', 'Fv') || hasLong(args, '--file')) return 'awk -f reads a program that cannot be checked';
  if (hasShort(args, 'i', 'Fv') || hasShort(args, 'l', 'Fv') || hasShort(args, 'E', 'Fv') || hasLong(args, '--include', '--load', '--exec')) {
    return 'awk -i/-l/-E loads code (e.g. -i inplace edits files)';
  }
  const programs = positionals(args, 'Fv').slice(0, 1);
  if (programs.length === 0) return 'awk without a program';
  // strip string literals first: `print ">"` is text, `print > "f"` is a redirection
  const code = programs[0]!.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  if (/\bsystem\s*\(/.test(code)) return 'awk system() runs a command';
  if (/\|\s*getline|\|&/.test(code)) return 'awk pipes to or from a command';
  if (/\bprintf?\b[^;{}\n]*[>|]/.test(code)) return 'awk print > / print | writes a file or runs a command';
  if (/\bENVIRON\b/.test(code)) return 'awk ENVIRON can leak secrets';
  return null;
}

const FIND_ACTIONS = new Set(['-delete', '-exec', '-execdir', '-ok', '-okdir', '-fprint', '-fprint0', '-fprintf', '-fls']);

const subcommand = (allowed: readonly string[], what: string): Check => (args) => {
  const p = positionals(args);
  return p[0] !== undefined && allowed.includes(p[0]) ? null : `${what} ${p[0] ?? ''} is not read-only`.replace(/ +/g, ' ');
};

const VERBS: Record<string, Check> = {
  git,
  // files and system
  ls: ok, ll: ok, dir: ok, pwd: ok, df: ok, du: ok, free: ok, uptime: ok, whoami: ok, id: ok, printenv: ok,
  date: (a) => hasShort(a, 's', 'dfrI') || hasLong(a, '--set')
    || positionals(a, 'dfr', ['--date', '--file', '--reference']).some((p) => !p.startsWith('+')) ? 'date can set the clock' : null,
  hostname: (a) => positionals(a).length > 0 || hasShort(a, 'F', '') || hasShort(a, 'b', '') || hasLong(a, '--file', '--boot') ? 'hostname with a name sets it' : null,
  env: (a) => hasShort(a, 'S', 'uC') || hasLong(a, '--split-string') || positionals(a, 'uC', ['--unset', '--chdir']).some((p) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(p))
    ? 'env with a command runs it' : null,
  // processes
  ps: ok, top: ok, htop: ok, jobs: ok, lsof: ok, netstat: ok, pgrep: ok,
  ss: (a) => hasShort(a, 'K', 'AfFN') || hasLong(a, '--kill') ? 'ss -K kills sockets' : null,
  systemctl: subcommand(['status', 'is-active', 'is-enabled', 'is-failed', 'list-units', 'show'], 'systemctl'),
  docker: (a) => (a[0] !== undefined && ['ps', 'images', 'stats'].includes(a[0]) ? null : `docker ${a[0] ?? ''} is not read-only`),
  kubectl: (a) => positionals(a, 'n', ['--namespace', '--context', '--kubeconfig'])[0] === 'get' ? null : 'only kubectl get is read-only',
  // file reading
  cat: ok, head: ok, wc: ok, stat: ok, echo: ok,
  tail: (a) => hasShort(a, 'f', 'ncs') || hasShort(a, 'F', 'ncs') || hasLong(a, '--follow') ? 'tail -f never returns' : null,
  file: (a) => hasShort(a, 'C', 'fmeFP') ? 'file -C writes a compiled magic file' : null,
  find: (a) => { const bad = a.find((x) => FIND_ACTIONS.has(x)); return bad ? `find ${bad} changes files or runs commands` : null; },
  tree: (a) => hasShort(a, 'o', 'LPIHT') ? 'tree -o writes a file' : null,
  // environment probes
  command: (a) => (a[0] === '-v' || a[0] === '-V' ? null : 'command without -v runs its argument'),
  type: ok, which: ok, whereis: ok, uname: ok, arch: ok, locale: ok, nproc: ok, getconf: ok, sw_vers: ok,
  // filters
  grep: ok, egrep: ok, fgrep: ok, cut: ok, tr: ok, column: ok, jq: ok, nl: ok, rev: ok, comm: ok, diff: ok,
  rg: (a) => hasLong(a, '--pre') ? 'rg --pre runs a command per file' : null,
  sort: (a) => hasShort(a, 'o', 'ktST') || hasLong(a, '--output', '--compress-program') ? 'sort -o writes a file' : null,
  uniq: (a) => positionals(a, 'fsw', ['--skip-fields', '--skip-chars', '--check-chars']).length > 1 ? 'uniq IN OUT writes OUT' : null,
  awk,
  sed,
  // additions: pure reads the original lacked (HT001-style probes use them)
  test: ok, '[': ok, true: ok, false: ok, basename: ok, dirname: ok, realpath: ok, readlink: ok,
};

const NAMED_REFUSALS: Record<string, string> = {
  xargs: 'xargs runs a command per input line',
  exec: 'exec replaces the shell or opens descriptors',
  eval: 'eval runs arbitrary text',
  source: 'source runs a script in the shell',
  '.': '. runs a script in the shell',
  tee: 'tee writes files',
  sudo: 'sudo runs a command as another user',
  cd: 'cd changes the shell state the next call inherits',
};

/** Every verb a glance may start with. */
export const EPHEMERAL_VERBS: readonly string[] = Object.freeze(Object.keys(VERBS).sort());

/** Why `command` may or may not run as a read-only glance (and so expire on resume). */
export function judgeEphemeral(command: string): EphemeralVerdict {
  const lexed = lex(command);
  if ('reason' in lexed) return { ok: false, reason: lexed.reason };
  for (const [verb, ...args] of lexed.segments) {
    if (verb === undefined) continue;
    if (NAMED_REFUSALS[verb]) return { ok: false, reason: NAMED_REFUSALS[verb]! };
    const check = Object.hasOwn(VERBS, verb) ? VERBS[verb] : undefined;
    if (!check) return { ok: false, reason: `\`${verb}\` is not a read-only verb` };
    const r = check(args);
    if (r) return { ok: false, reason: r };
  }
  return { ok: true };
}

/**
 * True when `command` only reads: every segment of `a && b | c ; d` starts with an allowlisted verb and
 * nothing substitutes, redirects into a file, backgrounds or edits in place.
 * @example isEphemeral('git status && ls -la | head') // true
 * @example isEphemeral('sed -i s/a/b/ f')              // false
 */
export function isEphemeral(command: string): boolean {
  return judgeEphemeral(command).ok;
}
