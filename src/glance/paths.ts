// Where a path word points, as far as the text tells: split into components (each a literal or a glob),
// `.` and `..` folded lexically, and anchored at `/`, at `~`, at the folder the line is in, or at an
// unknown folder (`..` above it: the classifier does not know the cwd, so `../../../../dev/zero` may be
// `/dev/zero`). The device rule lives here too. Pure; linear in the word.
import type { Budget } from './budget.js';
import { compileGlob, globMatch, hasGlobSyntax, type Glob } from './glob.js';
import type { Word } from './lexer.js';

export interface Component {
  readonly text: string;
  /** the compiled glob when the shell may expand this component */
  readonly glob: Glob | null;
}

/** `root`: `/…`; `home`: `~/…`; `here`: the line's folder (the workspace or a subfolder); `up`: unknown, maybe `/`. */
export type Anchor = 'root' | 'home' | 'here' | 'up';

export interface PathShape {
  readonly anchor: Anchor;
  readonly parts: readonly Component[];
  /** a literal `..` was written (even when it folds away, as in `src/..`) */
  readonly climbs: boolean;
}

/** The folder later words are relative to: the workspace at first, then whatever `cd` made it. */
export type Cwd = PathShape;
export const WORKSPACE: Cwd = Object.freeze({ anchor: 'here', parts: [], climbs: false });

const unescapeGlob = (p: string): string => {
  let out = '';
  for (let i = 0; i < p.length; i++) out += p[i] === '\\' && i + 1 < p.length ? p[++i]! : p[i]!;
  return out;
};

/** The components of a path text (or of a glob pattern, when `pattern` is given). */
export function components(text: string, pattern: string | undefined, budget: Budget): Component[] {
  budget.spend(text.length + 1);
  if (pattern === undefined) return text.split('/').map((t) => ({ text: t, glob: null }));
  const out: Component[] = [];
  let cur = '';
  const flush = (): void => {
    out.push(hasGlobSyntax(cur) ? { text: unescapeGlob(cur), glob: compileGlob(cur, budget) } : { text: unescapeGlob(cur), glob: null });
    cur = '';
  };
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && pattern[i + 1] === '/') {
      flush();
      i++;
      continue;
    }
    if (c === '\\' && i + 1 < pattern.length) {
      cur += c + pattern[++i]!;
      continue;
    }
    if (c === '/') {
      flush();
      continue;
    }
    cur += c;
  }
  flush();
  return out;
}

/** The shape of `text` (a path, or the pattern of a glob word) seen from `cwd`. */
export function shapeOf(text: string, pattern: string | undefined, cwd: Cwd, budget: Budget): PathShape {
  const comps = components(text, pattern, budget);
  let anchor: Anchor = 'here';
  let parts: Component[] = [];
  let climbs = false;
  if (text.startsWith('/')) anchor = 'root';
  else if (comps[0]?.text === '~' && comps[0].glob === null) {
    anchor = 'home';
    comps.shift();
  } else {
    anchor = cwd.anchor;
    parts = [...cwd.parts];
    climbs = cwd.climbs;
  }
  for (const c of comps) {
    if (c.glob === null && (c.text === '' || c.text === '.')) continue;
    if (c.glob === null && c.text === '..') {
      climbs = true;
      if (parts.length > 0) parts.pop();
      else if (anchor !== 'root') anchor = 'up';
      continue;
    }
    parts.push(c);
  }
  return { anchor, parts, climbs };
}

export const wordShape = (w: Word, cwd: Cwd, budget: Budget): PathShape => shapeOf(w.text, w.glob ? w.pattern : undefined, cwd, budget);

/**
 * Whether component `c` is, or as a glob could be, the name `name` (bash rules: `*` skips a leading dot).
 * Without regard to case: macOS file systems are case-insensitive, so `/DEV/zero` and `.ENV` are them.
 */
export function componentIs(c: Component, name: string, budget: Budget): boolean {
  if (c.glob === null) return c.text === name || c.text.toLowerCase() === name.toLowerCase();
  return c.glob.exotic || globMatch(c.glob, name, { period: true, fold: true }, budget);
}

/** `/proc` files that hold plain information about the machine, never a process's memory or secrets. */
export const PROC_INFO: readonly string[] = Object.freeze(['cpuinfo', 'meminfo', 'loadavg', 'version', 'uptime', 'filesystems', 'swaps', 'mounts']);

/**
 * Why reading the path `s` could block, never end or leak kernel or process data, or null. `/dev/*`
 * (`/dev/zero`, `/dev/urandom`, `/dev/stdin`, `/dev/tcp/…`) except `/dev/null`, `/proc/*` except the
 * information files of PROC_INFO, and `/sys/*` — also through a glob that could expand into them
 * (`/d?v/zero`, `/proc/*\/environ`) and through `..` from a folder the classifier cannot place.
 */
export function deviceShape(s: PathShape, budget: Budget): string | null {
  if (s.anchor !== 'root' && s.anchor !== 'up') return null;
  const [top, second, ...rest] = s.parts;
  if (top === undefined) return null;
  const is = (c: Component, name: string): boolean => componentIs(c, name, budget);
  const literal = (c: Component | undefined): c is Component => c !== undefined && c.glob === null;
  const where = s.anchor === 'up' ? ' (through `..`, which may climb to `/`)' : '';
  if (is(top, 'dev')) {
    if (literal(top) && literal(second) && second.text === 'null' && rest.length === 0) return null;
    return `it names a device under \`/dev\`${where}: reads of devices can block, never end or open a connection`;
  }
  if (is(top, 'proc')) {
    if (literal(top) && literal(second) && PROC_INFO.includes(second.text) && rest.length === 0) return null;
    return `it names a kernel or process file under \`/proc\`${where} (only ${PROC_INFO.map((p) => `\`/proc/${p}\``).join(', ')} are glances)`;
  }
  if (is(top, 'sys')) return `it names a kernel file under \`/sys\`${where}`;
  return null;
}
