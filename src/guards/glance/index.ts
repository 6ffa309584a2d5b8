// The glance classifier: lex the command like bash, then judge every simple command against its verb's
// table. Pure; imports nothing from flower. See docs/roles.md "Glances" for the rules.
import { lex, type Word } from './lexer.js';
import { getopt } from './getopt.js';
import { secretPath, recursiveReach, deviceWord, isSubfolder, filtersOutEnv } from './secrets.js';
import { dispatch, type VerbRule } from './rule.js';
import { FILE_VERBS } from './verbs-files.js';
import { SYSTEM_VERBS, PROCESS_VERBS } from './verbs-system.js';
import { git } from './git.js';

export type EphemeralVerdict = { ok: true } | { ok: false; reason: string };

const VERBS: Readonly<Record<string, VerbRule>> = { ...FILE_VERBS, ...SYSTEM_VERBS, ...PROCESS_VERBS, git: { custom: git } };

/** Verbs refused by name, with the reason the model reads. */
const NAMED: Readonly<Record<string, string>> = {
  xargs: 'runs a command per input line', exec: 'replaces the shell', eval: 'runs arbitrary text', source: 'runs a script in the shell',
  '.': 'runs a script in the shell', tee: 'writes files', sudo: 'runs a command as another user', env: 'prints the environment (secrets) or runs a command',
  printenv: 'prints the environment, which holds secrets', set: 'prints or changes shell state', export: 'changes the environment', declare: 'evaluates array subscripts',
  builtin: 'runs its argument', jobs: 'can run a command (`jobs -x`)', kubectl: 'talks to a cluster', docker: 'talks to a daemon',
  systemctl: 'talks to the service manager', npx: 'can download and run packages', time: 'runs its argument', watch: 'runs its argument forever',
  less: 'can run commands', more: 'can run commands', man: 'runs a pager', alias: 'changes shell state', trap: 'changes shell state',
};

export const EPHEMERAL_VERBS: readonly string[] = Object.freeze(Object.keys(VERBS).sort());

/** What earlier commands of the same line told about the folder: after `cd src`, `.` is no longer the workspace root. */
interface LineState { inSubfolder: boolean }

function judgeCommand(words: readonly Word[], line: LineState): string | null {
  const [verbWord, ...args] = words;
  if (!verbWord) return 'an empty command';
  const verb = verbWord.text;
  if (verbWord.glob) return `the verb \`${verb}\` is a glob`;
  if (Object.hasOwn(NAMED, verb)) return `\`${verb}\` ${NAMED[verb]}; ${dispatch}`;
  const rule = Object.hasOwn(VERBS, verb) ? VERBS[verb]! : undefined;
  if (!rule) return `\`${verb}\` is not a read-only verb a glance may use; ${dispatch}`;
  for (const w of args) {
    const dev = deviceWord(w, false);
    if (dev) return `${dev}; ${dispatch}`;
    // `--include=*.ts` can only expand to `--include=…` (the same option), so a literal `--name=` prefix is safe
    if (w.glob && w.text.startsWith('-') && !/^--[\w-]+=/.test(w.text)) return `the option-like glob \`${w.text}\` could expand to any option; ${dispatch}`;
    if (w.globLead && !rule.globSafe) return `the glob \`${w.text}\` could expand to a file named like an option of \`${verb}\`; write \`./${w.text}\` or dispatch a worker`;
  }
  if (rule.custom) {
    const r = rule.custom(args);
    if (r) return r;
    return rule.textOperands || rule.namesOnly ? null : firstSecret(args);
  }
  const p = getopt(rule.table ?? {}, args);
  if (!p.ok) return `${verb}: ${p.reason}`;
  // the secret check: every path-like operand and option value (not patterns, programs or plain text)
  if (!rule.textOperands && !rule.namesOnly) {
    const patternGiven = rule.pattern && p.options.some((o) => rule.pattern!.unlessOptions.includes(o.name));
    const paths = rule.pattern && !patternGiven ? p.operands.slice(1) : p.operands;
    const r = firstSecret(paths);
    if (r) return r;
  }
  for (const o of p.options) {
    if (rule.namesOnly) break;
    if (o.value === undefined || rule.patternOptions?.includes(o.name)) continue;
    const r = secretPath({ text: o.value, glob: o.glob ?? false, globLead: false });
    if (r) return r;
  }
  if (rule.recursive?.(p)) {
    const patternGiven = rule.pattern && p.options.some((o) => rule.pattern!.unlessOptions.includes(o.name));
    const operands = rule.pattern && !patternGiven ? p.operands.slice(1) : p.operands;
    // `diff -r --from-file=DIR` compares DIR too
    const fileOpts = p.options.filter((o) => (o.name === '--from-file' || o.name === '--to-file') && o.value !== undefined).map((o) => ({ text: o.value!, glob: false, globLead: false }));
    const folders = fileOpts.length > 0 && operands.length === 0 ? [...fileOpts, { text: '.', glob: false, globLead: false }] : [...operands, ...fileOpts];
    const r = recursiveReach(verb, folders, line.inSubfolder, filtersOutEnv(p.options));
    if (r) return r;
  }
  return rule.check ? rule.check(p) : null;
}

const firstSecret = (ws: readonly Word[]): string | null => {
  for (const w of ws) {
    const r = secretPath(w);
    if (r) return r;
  }
  return null;
};

/** Why `command` may or may not run as a read-only glance (and so expire on resume). */
export function judgeGlance(command: string): EphemeralVerdict {
  const lexed = lex(command);
  if (!lexed.ok) return { ok: false, reason: lexed.ok === false && lexed.reason.includes(dispatch) ? lexed.reason : `${lexed.reason}; ${dispatch}` };
  const line: LineState = { inSubfolder: false };
  for (const c of lexed.commands) {
    for (const r of c.redirects) {
      if (r.kind === 'in') {
        const s = secretPath(r.target) ?? deviceWord(r.target, true);
        if (s) return { ok: false, reason: s };
      }
    }
    const r = judgeCommand(c.words, line);
    if (r) return { ok: false, reason: r };
    // `.` means the subfolder only while every step since `cd SUB` ran because the one before succeeded:
    // after `||` or `;`, a failed cd leaves the shell at the root
    if (c.words[0]?.text === 'cd') line.inSubfolder = isSubfolder(c.words[c.words.length - 1]!.text);
    if (c.next === '||' || c.next === ';') line.inSubfolder = false;
  }
  return { ok: true };
}
