// Paths a glance must never read: credential files and process environments. Checked on every file-like
// word (operands, option values, `< file`), including glob words, whose pattern is matched against
// sample secret names — `cat .e*` is refused as surely as `cat .env`.
import type { Word } from './lexer.js';

/** A path component that names a credential file. */
const SECRET_NAME = /^(\.env.*|.+\.env|environ|\.netrc|\.git-credentials|\.credentials\.json|credentials(\.json)?|\.npmrc|\.pypirc|id_(rsa|dsa|ecdsa|ed25519)(_sk)?|\.pgpass|\.Xauthority)$/;
/** Folders whose content is credentials (flower's own config holds the API key). */
const SECRET_DIR = /(^|\/)(\.config\/flower|\.ssh|\.aws|\.gnupg|\.docker|\.kube)(\/|$)/;
/**
 * Names a glob is tried against: the dot-named credential files (a `*` never matches a leading dot, so
 * `ls *` cannot reach them); the undotted ones (`environ`, `credentials`, `id_rsa`) live in folders that
 * are refused as a whole.
 */
const SAMPLES = ['.env', '.env.local', '.env.previous', '.netrc', '.git-credentials', '.credentials.json', '.npmrc', '.pgpass', '.config', '.ssh', '.aws', '.gnupg', '.docker', '.kube'];

/** Turns one glob component into a RegExp (bash rules: `*`/`?` never match a leading dot). */
function componentRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*') re += '.*';
    else if (c === '?') re += '.';
    else if (c === '[') {
      const j = glob.indexOf(']', i + 2);
      if (j < 0) re += '\\[';
      else { re += `[${glob.slice(i + 1, j).replace(/^!/, '^').replace(/\\/g, '\\\\')}]`; i = j; }
    } else re += c.replace(/[.+^${}()|\\/]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Why `w` names a secret, or null. `kind` says what the word is used as (for the message). */
export function secretPath(w: Word): string | null {
  // `HEAD:.env` (git show), `--file=.env`: look at every piece a path could hide in
  const pieces = w.text.split(/[/:=]/);
  // a value glued to a short option (`-f.env`, `-L1,5:.env`) is a path too
  if (/^-[^-]/.test(w.text)) for (let k = 2; k < w.text.length; k++) pieces.push(w.text.slice(k).split(/[/:=]/)[0]!);
  const named = pieces.find((p) => SECRET_NAME.test(p));
  if (named !== undefined) return `\`${w.text}\` names a credential file (\`${named}\`); glances never read secrets`;
  if (SECRET_DIR.test(w.text) || /(^|\/)proc\/[^/]+\/(environ|cmdline|mem)$/.test(w.text)) {
    return `\`${w.text}\` is in a folder that holds credentials; glances never read secrets`;
  }
  if (w.glob) {
    for (const piece of pieces) {
      if (!/[*?[]/.test(piece)) continue;
      let re: RegExp;
      try { re = componentRegExp(piece); } catch { return `the glob \`${w.text}\` cannot be checked`; }
      const hit = SAMPLES.find((s) => re.test(s) && piece[0] === '.');
      if (hit !== undefined) return `the glob \`${w.text}\` could match a credential file (\`${hit}\`); glances never read secrets`;
      // `*.env`, `*env*`, `*.e*` aim at `NAME.env` files; a plain `*` or `*.ts` does not
      if (re.test('a.env') && !re.test('a.zzz-unrelated')) return `the glob \`${w.text}\` could match a credential file (\`*.env\`); glances never read secrets`;
    }
    if (/(^|\/)proc\//.test(w.text) || /\.(config|ssh|aws|claude)/.test(w.text)) return `the glob \`${w.text}\` reaches into a folder that holds secrets`;
  }
  return null;
}

const ENV_FILES = ['.env', '.env.local', '.env.previous'];
/** fnmatch without FNM_PERIOD, as grep's `--include`/`--exclude` and ripgrep's `-g` apply it to base names. */
const fnmatch = (glob: string, name: string): boolean => {
  try { return componentRegExp(glob).test(name); } catch { return true; }
};

/**
 * Whether filter options keep a recursive search away from `.env` files: an exclude that matches every
 * `.env` variant, or only includes (`--include=*.ts`, `-g '*.ts'`, `-t ts`) that match none of them.
 */
export function filtersOutEnv(options: readonly { name: string; value?: string }[]): boolean {
  const val = (o: { value?: string }): string => (o.value ?? '').replace(/^.*\//, '');
  const excludes = options.filter((o) => o.name === '--exclude' || ((o.name === '-g' || o.name === '--glob' || o.name === '--iglob') && o.value?.startsWith('!')));
  if (excludes.some((o) => ENV_FILES.every((f) => fnmatch(val(o).replace(/^!/, ''), f)))) return true;
  const includes = options.filter((o) => o.name === '--include' || ((o.name === '-g' || o.name === '--glob' || o.name === '--iglob') && !o.value?.startsWith('!')));
  const types = options.filter((o) => o.name === '-t' || o.name === '--type');
  if (includes.length + types.length === 0) return false;
  // a ripgrep type names known extensions (`ts`, `rust`); none of them is `.env`
  return includes.every((o) => !ENV_FILES.some((f) => fnmatch(val(o), f))) && types.every((o) => /^[\w+-]+$/.test(o.value ?? '') && !/env/.test(o.value ?? ''));
}

/** A relative folder below the current one (`src`, `packages/a`): not the workspace root, home or `/`. */
export const isSubfolder = (dir: string): boolean =>
  /^(\.\/)?[\w@+][\w.@+-]*(\/[\w@+][\w.@+-]*)*\/?$/.test(dir) && !/(^|\/)\.\.(\/|$)/.test(dir);

/**
 * Why searching the contents of `folders` recursively could print a credential file, or null. A
 * recursive grep over `.` reads `./.env` (the workspace root holds flower's), over `~` or an absolute
 * path it can reach `~/.config/flower/.env`; a relative subfolder (`src`), or `.` right after
 * `cd SUBFOLDER &&`, or an explicit `--exclude='.env*'` is fine.
 */
export function recursiveReach(verb: string, folders: readonly Word[], dotIsSubfolder: boolean, excludesEnv: boolean): string | null {
  if (excludesEnv) return null;
  const list = folders.length === 0 ? [{ text: '.', glob: false, globLead: false }] : folders;
  const top = list.find((w) => !(isSubfolder(w.text) || (dotIsSubfolder && (w.text === '.' || w.text === './'))))?.text;
  return top === undefined
    ? null
    : `a recursive \`${verb}\` over \`${top}\` could read credential files such as \`.env\`; name a subfolder (e.g. \`src\`) or add \`--exclude='.env*'\``;
}

/** Bash opens `/dev/tcp/HOST/PORT` as a network socket; other devices can block or never end. */
export function deviceWord(w: Word, redirect: boolean): string | null {
  if (/^\/dev\/(tcp|udp)\//.test(w.text)) return `\`${w.text}\` opens a network connection`;
  if (redirect && w.text.startsWith('/dev/') && w.text !== '/dev/null') return `reading \`${w.text}\` through \`<\` can block or never end`;
  return null;
}
