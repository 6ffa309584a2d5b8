// Paths a glance must never read: credential files, wherever credentials.ts says they live. Checked on
// every file-like word (operands, option values, `< file`) of a verb that reads contents, including glob
// words, whose pattern is matched (glob.ts, no RegExp) against credential names — `cat .e*` is refused
// as surely as `cat .env`.
//
// - every path component is tried with isCredentialName (`src/.env`, `HEAD:.env`, `-f.env`, `x/id_rsa`);
// - HOME_CREDENTIALS are matched as component sequences anywhere in the path (`~/.config/gh`,
//   `/home/u/.config/gh`, `../../.ssh`): the classifier does not know HOME, and a workspace's own
//   `.aws/credentials` is as secret; a few that are ordinary folders of a project (HOME_ONLY) count only
//   under a home-like prefix (`~`, `/root`, `/home/*`, `/Users/*`, or `..` from an unknown folder);
// - SYSTEM_CREDENTIALS are matched from `/` (and from an unknown folder reached with `..`);
// - a glob component is matched against sample names: one that could spell a dot-named credential
//   (`.e*`, `.?pmrc`) or a `.env` name starting `.env` is refused; one aimed at a credential by the rest
//   of its name (`*.pem`, `id_*`, `*.env`, `cred*`) is refused, while a catch-all (`*`, `*.*`, `*.json`)
//   is not — it matches the harmless control name as well (`ls *` must stay a glance).
import type { Word } from './lexer.js';
import { Budget } from './budget.js';
import { envShapes, globMatch, literalPrefix, type Glob } from './glob.js';
import { shapeOf, componentIs, type Component, type Cwd, type PathShape } from './paths.js';
import { isCredentialName, HOME_CREDENTIALS, SYSTEM_CREDENTIALS, SHELL_STARTUP_FILES, CREDENTIAL_FILE_NAMES, KEY_FILE_EXTENSIONS } from './credentials.js';

/** Home credentials that are also ordinary project folders (`.claude/` holds a project's settings). */
const HOME_ONLY = new Set(['.claude', '.history', ...SHELL_STARTUP_FILES]);

interface Entry {
  readonly parts: readonly string[];
  readonly where: 'anywhere' | 'home' | 'root';
}
const ENTRIES: readonly Entry[] = [
  ...HOME_CREDENTIALS.map((p): Entry => ({ parts: p.split('/'), where: HOME_ONLY.has(p) ? 'home' : 'anywhere' })),
  ...SHELL_STARTUP_FILES.map((p): Entry => ({ parts: [p], where: 'home' })),
  ...SYSTEM_CREDENTIALS.map((p): Entry => ({ parts: p.split('/').filter((x) => x !== ''), where: 'root' })),
];

/** The entries by their first part, for a literal component (a glob component tries them all). */
const BY_FIRST = new Map<string, Entry[]>();
for (const e of ENTRIES) BY_FIRST.set(e.parts[0]!.toLowerCase(), [...(BY_FIRST.get(e.parts[0]!.toLowerCase()) ?? []), e]);

/**
 * Sample credential names a glob is tried against, each with a control: the same name with its
 * credential part (the stem of `credentials.json`, the extension of `x.pem`) made harmless. A glob that
 * matches the sample and the control is a catch-all (`*`, `*.*`, `s*`, `*.json`), not aimed at it. Both
 * start with the glob's own literal prefix, so `cert*` is tried against `certx.pem`; a prefix of three or
 * more letters of a credential's stem (`cred*`, `id_*`) has no control. Dot names have none either: a
 * glob that can spell `.npmrc` is refused.
 */
function samples(lit: string): (readonly [string, string | null])[] {
  const out: (readonly [string, string | null])[] = [];
  for (const n of CREDENTIAL_FILE_NAMES) {
    if (n.startsWith('.')) {
      out.push([n, null]);
      continue;
    }
    const stem = n.indexOf('.') < 0 ? n.length : n.indexOf('.');
    // a glob that spells three or more letters of the stem (`cred*`, `id_*`, `sec*`) aims at it
    out.push([n, lit.length < 3 && n.startsWith(lit) && lit.length < stem ? lit + 'q'.repeat(stem - lit.length) + n.slice(stem) : null]);
  }
  for (const e of KEY_FILE_EXTENSIONS) out.push([`${lit}x.${e}`, `${lit}x.${'q'.repeat(e.length)}`]);
  out.push([`${lit}x_history`, `${lit}x_qqqqqqq`]);
  for (const d of DOT_ENTRIES) out.push([d, null]);
  return out;
}
const DOT_ENTRIES = ENTRIES.filter((e) => e.where === 'anywhere' && e.parts.length === 1 && e.parts[0]!.startsWith('.')).map((e) => e.parts[0]!);

const secret = (w: string, what: string): string => `\`${w}\` names a credential file (${what}); glances never read secrets`;

/** Why glob component `g` could expand to a credential file name, or null. */
export function globAimsAtCredential(g: Glob, budget: Budget): string | null {
  if (g.exotic) return 'a character class the classifier does not model';
  const o = { period: true, fold: true };
  const lit = literalPrefix(g).toLowerCase();
  const env = envShapes(g, o, budget);
  // `.env…` is always there at the workspace root; `….env` only when the glob aims at the ending
  if (env.prefix || (env.suffix && !(globMatch(g, `${lit}x.env`, o, budget) && globMatch(g, `${lit}x.qqq`, o, budget)))) return '`.env` files';
  for (const [sample, control] of samples(lit)) {
    if (globMatch(g, sample, o, budget) && (control === null || !globMatch(g, control, o, budget))) return `\`${sample}\``;
  }
  return null;
}

/**
 * Whether component `c` is the entry's part `name`. Outside `/` a catch-all glob (`src/*`) is not taken
 * to aim at an entry's undotted first name (`_netrc`): it matches the control name as well, as for
 * SAMPLES. Inside a credential folder (`~/.config/*`) any match counts.
 */
function partIs(c: Component, name: string, e: Entry, first: boolean, budget: Budget): boolean {
  if (!componentIs(c, name, budget)) return false;
  return (
    c.glob === null || !first || e.where === 'root' || name.startsWith('.') || !globMatch(c.glob, 'q'.repeat(name.length), { period: true, fold: true }, budget)
  );
}

/** Whether `s` (from parts[at]) starts with the entry, or (for a folder searched recursively) is a prefix of it. */
function entryAt(s: PathShape, at: number, e: Entry, folder: boolean, budget: Budget): boolean {
  for (let j = 0; j < e.parts.length; j++) {
    const c = s.parts[at + j];
    if (c === undefined) return folder && j > 0;
    budget.spend();
    if (!partIs(c, e.parts[j]!, e, j === 0, budget)) return false;
  }
  return true;
}

/** Whether parts[at] follows a home folder: `~/X`, `/root/X`, `/home/U/X`, `/Users/U/X`, or anywhere after `..`. */
function homeLike(s: PathShape, at: number, budget: Budget): boolean {
  if (s.anchor === 'up') return true;
  if (s.anchor === 'home') return at === 0;
  if (s.anchor !== 'root') return false;
  const top = s.parts[0];
  if (top === undefined) return false;
  if (at === 1) return componentIs(top, 'root', budget);
  return at === 2 && (componentIs(top, 'home', budget) || componentIs(top, 'Users', budget));
}

/** Which credential place the path shape `s` names, or null. */
export function credentialPlace(s: PathShape, folder: boolean, budget: Budget): string | null {
  // the entries a glob component could start, once per distinct glob (`*/*/*/…` repeats one)
  const byGlob = new Map<string, Entry[]>();
  const starts = (c: Component): readonly Entry[] => {
    if (c.glob === null) return BY_FIRST.get(c.text.toLowerCase()) ?? [];
    let hit = byGlob.get(c.glob.source);
    if (!hit) byGlob.set(c.glob.source, (hit = ENTRIES.filter((e) => partIs(c, e.parts[0]!, e, true, budget))));
    return hit;
  };
  for (let at = 0; at < s.parts.length; at++) {
    const c = s.parts[at]!;
    for (const e of starts(c)) {
      if (e.where === 'root' && (at !== 0 || (s.anchor !== 'root' && s.anchor !== 'up'))) continue;
      if (e.where === 'home' && !homeLike(s, at, budget)) continue;
      if (entryAt(s, at, e, folder, budget)) return e.where === 'root' ? `/${e.parts.join('/')}` : `~/${e.parts.join('/')}`;
    }
  }
  return null;
}

/** Why one component names a credential file, or null. */
function componentSecret(c: Component, budget: Budget): string | null {
  // `.ENV` is `.env` on a case-insensitive file system (macOS)
  if (c.glob === null) return isCredentialName(c.text) || isCredentialName(c.text.toLowerCase()) ? `\`${c.text}\`` : null;
  return globAimsAtCredential(c.glob, budget);
}

/**
 * Why the word `w` could read a credential file, or null. `folder`: the word is a folder searched
 * recursively, so naming a folder that holds credentials (`.config` of `.config/gh`) is enough.
 */
export function secretWord(w: Word, cwd: Cwd, budget: Budget, folder = false): string | null {
  // `HEAD:.env` (git show), `--file=.env`: every piece a path could hide in
  const pieces = splitPieces(w.text, w.glob ? w.pattern : undefined);
  // a value glued to a short option (`-f.env`, `-L1,5:.env`) is a path too; clusters are short
  if (/^-[^-]/.test(w.text)) {
    for (let k = 2; k < Math.min(w.text.length, 66); k++) {
      budget.spend(w.text.length - k);
      pieces.push(...splitPieces(w.text.slice(k), undefined).slice(0, 1));
    }
  }
  for (const [text, pattern] of pieces) {
    const s = shapeOf(text, pattern, cwd, budget);
    const seen = new Set<string>();
    for (const c of s.parts) {
      // one verdict per distinct component (a glob of 2,000 `*` components asks once)
      const key = c.glob === null ? `l${c.text}` : `g${c.glob.source}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const r = componentSecret(c, budget);
      if (r) return w.glob && c.glob ? `the glob \`${w.text}\` could match a credential file (${r}); glances never read secrets` : secret(w.text, r);
    }
    const place = credentialPlace(s, folder, budget);
    if (place) return `\`${w.text}\` is in a place that holds credentials (\`${place}\`); glances never read secrets`;
  }
  return null;
}

/** `a:b=c` → pieces `a:b=c`, `a`, `b`, `c` (text and, for a glob word, the matching piece of its pattern). */
function splitPieces(text: string, pattern: string | undefined): [string, string | undefined][] {
  // the whole word too: a `:` may sit inside a glob's class (`[[:alpha:]]`), where it splits nothing
  const texts = text.split(/[:=]/);
  if (pattern === undefined) return texts.length === 1 ? [[text, undefined]] : [[text, undefined], ...texts.map((t): [string, undefined] => [t, undefined])];
  const pats = pattern.split(/[:=]/);
  // `:` and `=` are never escaped in a pattern, so the pieces line up
  return texts.length === 1 ? [[text, pattern]] : [[text, pattern], ...texts.map((t, i): [string, string | undefined] => [t, pats[i]])];
}

export { Budget };
