// The glance classifier: lex the command like bash, then judge every simple command against its verb's
// table. Pure; imports nothing outside src/glance/ (credentials.ts is its list of credential names). See docs/roles.md "Glances" for the rules.
//
// It never throws and never takes long: the command is capped at GLANCE_MAX_CHARS, no RegExp is built
// from it, every scan is linear, and a step budget (budget.ts) bounds what is left. An audit had a
// 31-character glob freeze flower's event loop and a 9,000-character one throw out of `isEphemeral`.
import { lex, madeUpWord, patternFrom, type Word, type SimpleCommand } from './lexer.js';
import { getopt, type ParsedOption } from './getopt.js';
import { Budget, BudgetExceeded, GLANCE_MAX_STEPS } from './budget.js';
import { secretWord } from './secrets.js';
import { wordShape, deviceShape, shapeOf, WORKSPACE, type Cwd } from './paths.js';
import { recursiveSearch } from './recursive.js';
import { dispatch, type Args, type VerbRule } from './rule.js';
import { FILE_VERBS } from './verbs-files.js';
import { SYSTEM_VERBS, PROCESS_VERBS } from './verbs-system.js';
import { git } from './git.js';

/**
 * A glance verdict. `command`, when present, is the command to run INSTEAD of the one judged: the same
 * command with `.env` exclusions inserted into its recursive searches (recursive.ts). Absent: run the
 * command as it is.
 */
export type EphemeralVerdict = { ok: true; command?: string } | { ok: false; reason: string };

/** Longer commands are not glances (a worker can run them): the classifier's time is bounded by this. */
export const GLANCE_MAX_CHARS = 4096;

export { GLANCE_MAX_STEPS };

const VERBS: Readonly<Record<string, VerbRule>> = { ...FILE_VERBS, ...SYSTEM_VERBS, ...PROCESS_VERBS, git: { custom: git } };

const FOREVER = 'runs until it is stopped';
/** Verbs refused by name, with the reason the model reads. */
const NAMED: Readonly<Record<string, string>> = {
  xargs: 'runs a command per input line',
  exec: 'replaces the shell',
  eval: 'runs arbitrary text',
  source: 'runs a script in the shell',
  '.': 'runs a script in the shell',
  tee: 'writes files',
  sudo: 'runs a command as another user',
  env: 'prints the environment (secrets) or runs a command',
  printenv: 'prints the environment, which holds secrets',
  set: 'prints or changes shell state',
  export: 'changes the environment',
  declare: 'evaluates array subscripts',
  builtin: 'runs its argument',
  jobs: 'can run a command (`jobs -x`)',
  kubectl: 'talks to a cluster',
  docker: 'talks to a daemon',
  systemctl: 'talks to the service manager',
  npx: 'can download and run packages',
  time: 'runs its argument',
  watch: 'runs its argument forever',
  less: 'can run commands',
  more: 'can run commands',
  man: 'runs a pager',
  alias: 'changes shell state',
  trap: 'changes shell state',
  // never return, or only when told how often (an audit of every form that blocks)
  ping: 'talks to the network and, without a count, never ends',
  top: FOREVER,
  htop: FOREVER,
  btop: FOREVER,
  yes: 'prints forever',
  sleep: 'only waits',
  vmstat: 'with an interval and no count, never ends',
  iostat: 'with an interval and no count, never ends',
  mpstat: 'with an interval and no count, never ends',
  sar: 'with an interval and no count, never ends',
  dmesg: 'reads the kernel log (and `-w`/`--follow` never ends)',
  journalctl: 'reads the system journal (and `-f` never ends)',
  nc: 'opens network connections',
  netcat: 'opens network connections',
  telnet: 'opens network connections',
  read: 'waits for input',
};

export const EPHEMERAL_VERBS: readonly string[] = Object.freeze(Object.keys(VERBS).sort());

/**
 * A first word made only of `[A-Za-z0-9_.+-]` and ended by a blank, an operator or the end is, as it
 * stands, the verb of the line's first simple command: no quote, escape, expansion, glob, assignment
 * (`=`), redirection (`2>`), group or negation can be in it. The judge refuses such a line whatever
 * follows when that verb is not in VERBS (a lexer refusal later in the line refuses it as well).
 */
const PLAIN_FIRST_WORD = /^[ \t]*([A-Za-z0-9_][A-Za-z0-9_.+-]*)(?=[ \t\r\n;&|]|$)/;

/**
 * False when `command` is certainly not a glance, decided from its first word alone (linear, no
 * lexing); true means "judge it". Exact: whenever this is false, `judgeGlance(command).ok` is false
 * (test/guards/ephemeral-fuzz.test.ts holds the two side by side). Resume-time expiry asks about
 * thousands of worker commands (`npm test`, `python x.py`) that fail here.
 */
export function mayBeGlance(command: string): boolean {
  if (typeof command !== 'string' || command.length > GLANCE_MAX_CHARS) return false;
  const m = PLAIN_FIRST_WORD.exec(command);
  return m === null || Object.hasOwn(VERBS, m[1]!);
}

/** What the judge knows while it walks a line: every folder the shell may be in, and the budget. */
interface Ctx {
  readonly cwds: Cwd[];
  /** standard input comes from a pipe or `< file`, not from the session */
  piped: boolean;
  readonly budget: Budget;
}

type Judged = { reason: string } | { insert?: readonly string[] };

const onEach = (ctx: Ctx, f: (cwd: Cwd) => string | null): string | null => {
  for (const cwd of ctx.cwds) {
    const r = f(cwd);
    if (r) return r;
  }
  return null;
};

/**
 * Why reading the word `w` could block, never end or leak kernel data, or null. Also the pieces a path
 * can hide in: after `=` or `:` (`--file=/dev/zero`) and glued to a short option (`git grep -f/dev/zero`).
 */
const deviceIn = (w: { text: string; glob: boolean; pattern?: string }, ctx: Ctx): string | null => {
  const pat = w.glob ? w.pattern : undefined;
  const pieces: [string, string | undefined][] = [[w.text, pat]];
  const texts = w.text.split(/[:=]/);
  const pats = pat?.split(/[:=]/);
  if (texts.length > 1)
    texts.forEach((t, i) => {
      pieces.push([t, pats?.[i]]);
    });
  if (/^-[^-]/.test(w.text)) pieces.push([w.text.slice(2), pat === undefined ? undefined : patternFrom(w as Word, 2)]);
  return onEach(ctx, (cwd) => {
    for (const [text, pattern] of pieces) {
      const r = deviceShape(shapeOf(text, pattern, cwd, ctx.budget), ctx.budget);
      if (r) return `\`${w.text}\`: ${r}; ${dispatch}`;
    }
    return null;
  });
};

const secretIn = (w: Word, ctx: Ctx): string | null => onEach(ctx, (cwd) => secretWord(w, cwd, ctx.budget));

const optionWord = (o: ParsedOption): Word => madeUpWord(o.value ?? '', o.glob ?? false, o.pattern);

/** The device and secret checks of the words a verb reads. */
function pathChecks(rule: VerbRule, paths: readonly Word[], options: readonly ParsedOption[], ctx: Ctx): string | null {
  const contents = !rule.namesOnly && !rule.textOperands;
  for (const w of paths) {
    const r = (contents ? deviceIn(w, ctx) : null) ?? (contents ? secretIn(w, ctx) : null);
    if (r) return r;
  }
  for (const o of options) {
    if (o.value === undefined || rule.patternOptions?.includes(o.name)) continue;
    // an option's file (`du --exclude-from=/dev/zero`, `date -f /dev/stdin`) is read even by a names-only verb
    const w = optionWord(o);
    const r = deviceIn(w, ctx) ?? (rule.namesOnly ? null : secretIn(w, ctx));
    if (r) return r;
  }
  return null;
}

const STDIN = "reads standard input, which is the session's own here and may never end; pipe something into it or give a file";

/** The verb word and the checks every verb shares (named refusals, option-like globs). */
function verbOf(words: readonly Word[]): { rule: VerbRule; verb: string } | { reason: string } {
  const [verbWord, ...args] = words;
  if (!verbWord) return { reason: 'an empty command' };
  const verb = verbWord.text;
  if (verbWord.glob) return { reason: `the verb \`${verb}\` is a glob` };
  if (Object.hasOwn(NAMED, verb)) return { reason: `\`${verb}\` ${NAMED[verb]}; ${dispatch}` };
  const rule = Object.hasOwn(VERBS, verb) ? VERBS[verb]! : undefined;
  if (!rule) return { reason: `\`${verb}\` is not a read-only verb a glance may use; ${dispatch}` };
  for (const w of args) {
    if (/^\/dev\/(tcp|udp)\//.test(w.text)) return { reason: `\`${w.text}\` opens a network connection; ${dispatch}` };
    // `--include=*.ts` can only expand to `--include=…` (the same option), so a literal `--name=` prefix is safe
    if (w.glob && w.text.startsWith('-') && !/^--[\w-]+=/.test(w.text))
      return { reason: `the option-like glob \`${w.text}\` could expand to any option; ${dispatch}` };
    if (w.globLead && !rule.globSafe)
      return { reason: `the glob \`${w.text}\` could expand to a file named like an option of \`${verb}\`; write \`./${w.text}\` or dispatch a worker` };
  }
  return { rule, verb };
}

function judgeCommand(c: SimpleCommand, ctx: Ctx): Judged {
  const v = verbOf(c.words);
  if ('reason' in v) return v;
  const { rule, verb } = v;
  const args = c.words.slice(1);
  if (rule.custom) {
    const r = rule.custom(args, ctx.budget);
    if (typeof r === 'string') return { reason: r };
    const paths = r === null ? args : r.paths;
    const bad = pathChecks(rule, paths, [], ctx);
    if (bad) return { reason: bad };
    return r?.stdin && !ctx.piped ? { reason: `\`${verb}\` ${STDIN}${r.hint ? ` (${r.hint})` : ''}; ${dispatch}` } : {};
  }
  const p = getopt(rule.table ?? {}, args, ctx.budget);
  if (!p.ok) return { reason: `${verb}: ${p.reason}` };
  const paths = pathOperands(rule, p);
  const bad = pathChecks(rule, rule.textOperands ? [] : paths, p.options, ctx);
  if (bad) return { reason: bad };
  if (rule.stdin?.(p, paths, ctx.budget) && !ctx.piped && !p.options.some((o) => o.name === '--help' || o.name === '--version'))
    return { reason: `\`${verb}\` without a file ${STDIN}; ${dispatch}` };
  let insert: readonly string[] | undefined;
  if (rule.search?.when(p)) {
    const folders = rule.search.folders?.(p, paths) ?? (paths.length > 0 ? paths : [madeUpWord('.')]);
    for (const cwd of ctx.cwds) {
      const s = recursiveSearch(rule.search.kind, p.options, folders, cwd, ctx.budget);
      if (!s.ok) return { reason: s.reason };
      insert = s.insert ?? insert;
    }
  }
  const r = rule.check?.(p, ctx.budget);
  if (r) return { reason: r };
  return insert ? { insert } : {};
}

/** The operands that are paths: all of them, but the pattern or program of grep, awk, sed. */
export function pathOperands(rule: VerbRule, a: Args): Word[] {
  const patternGiven = rule.pattern && a.options.some((o) => rule.pattern!.unlessOptions.includes(o.name));
  return rule.pattern && !patternGiven ? a.operands.slice(1) : [...a.operands];
}

/**
 * The folders the shell may be in after `cd TARGET`, from each folder it may be in now. The set only
 * grows along a line: after `cd a; …`, `cd a || …` or `cd a | …` the old folder is still possible, and
 * more folders mean more checks, never fewer.
 */
function afterCd(cwds: Cwd[], target: Word, budget: Budget): Cwd[] {
  const next = [...cwds];
  for (const cwd of cwds) next.push(wordShape(target, cwd, budget));
  if (next.length <= 8) return next;
  return [...cwds.slice(0, 7), { anchor: 'up', parts: [], climbs: true }];
}

function judgeLine(command: string, budget: Budget): EphemeralVerdict {
  const lexed = lex(command, budget);
  if (!lexed.ok) return { ok: false, reason: lexed.reason.includes(dispatch) ? lexed.reason : `${lexed.reason}; ${dispatch}` };
  const ctx: Ctx = { cwds: [WORKSPACE], piped: false, budget };
  const inserts: { at: number; words: readonly string[] }[] = [];
  let prev: SimpleCommand | undefined;
  for (const c of lexed.commands) {
    ctx.piped = prev?.next === '|' || prev?.next === '|&' || c.redirects.some((r) => r.kind === 'in');
    for (const r of c.redirects) {
      if (r.kind !== 'in') continue;
      const s = deviceIn(r.target, ctx) ?? secretIn(r.target, ctx);
      if (s) return { ok: false, reason: s.includes(dispatch) ? s : `reading it through \`<\`: ${s}` };
    }
    const j = judgeCommand(c, ctx);
    if ('reason' in j) return { ok: false, reason: j.reason };
    if (j.insert) inserts.push({ at: c.words[0]!.end, words: j.insert });
    if (c.words[0]?.text === 'cd' && c.words.length >= 2) ctx.cwds.splice(0, ctx.cwds.length, ...afterCd(ctx.cwds, c.words[c.words.length - 1]!, budget));
    prev = c;
  }
  if (inserts.length === 0) return { ok: true };
  // one pass over the command (inserts are in order): no re-slicing of the whole string per insert
  const pieces: string[] = [];
  let from = 0;
  for (const { at, words } of inserts) {
    pieces.push(command.slice(from, at), ` ${words.join(' ')}`);
    from = at;
  }
  pieces.push(command.slice(from));
  const out = pieces.join('');
  if (out.length > GLANCE_MAX_CHARS)
    return { ok: false, reason: `the command with its \`.env\` exclusions would be longer than ${GLANCE_MAX_CHARS} characters; ${dispatch}` };
  return { ok: true, command: out };
}

/**
 * Why `command` may or may not run as a read-only glance (and so expire on resume); when allowed with
 * `command` set, that rewritten command is what may run. Never throws.
 */
export function judgeGlance(command: string): EphemeralVerdict {
  if (typeof command !== 'string') return { ok: false, reason: `a command must be text; ${dispatch}` };
  if (command.length > GLANCE_MAX_CHARS) {
    return { ok: false, reason: `the command is ${command.length} characters, too long for a glance (at most ${GLANCE_MAX_CHARS}); ${dispatch}` };
  }
  try {
    return judgeLine(command, new Budget());
  } catch (e) {
    if (e instanceof BudgetExceeded)
      return { ok: false, reason: `the command is too complex to check as a glance (more than ${GLANCE_MAX_STEPS} steps); ${dispatch}` };
    return { ok: false, reason: `the classifier could not judge this command (${e instanceof Error ? e.message.slice(0, 200) : 'an error'}); ${dispatch}` };
  }
}
