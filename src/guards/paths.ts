/**
 * The path wall: where a tool may write and what it may read, decided on the RESOLVED path.
 *
 * Why: the Write, Edit and NotebookEdit tools run in the `claude` binary's own process, outside
 * bubblewrap, and flower pre-approves them. An audit on binary 2.1.332 had a worker's Write create
 * `~/.ssh/authorized_keys`, a systemd user unit, a skill under `~/.config/flower/skills/` (loaded into
 * every later run) and a file next to `sessions.db`. So every tool that writes is held twice: by the
 * binary's own rules (`permissionSettings`: blockWritesOutsideWorkingDirectories, excluded places, deny
 * rules) and by flower's hook (`write`), and the commands by the sandbox (`sandboxLists`). Neither alone is
 * the wall.
 *
 * A path is resolved as the kernel would: `..` after each link, every existing ancestor's symlink
 * followed (a dangling one too: a write through it creates its target), a new file judged by its nearest
 * existing parent. Allowlist: a write is refused unless it lands inside a writable folder, and then still
 * refused in a protected place or under a protected name.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isCredentialName, isEnvFileName, SHELL_STARTUP_FILES } from '../glance/credentials.js';

/** What the wall needs of the filesystem (a seam for table tests). */
export interface FsView {
  /** undefined when nothing is there */
  isLink(p: string): boolean | undefined;
  readlink(p: string): string;
  /** how many names a regular file has (undefined: not a regular file, or nothing there) */
  hardLinks?(p: string): number | undefined;
}

export const NODE_FS: FsView = {
  isLink(p) {
    try {
      return fs.lstatSync(p).isSymbolicLink();
    } catch {
      return undefined;
    }
  },
  readlink: (p) => fs.readlinkSync(p),
  hardLinks(p) {
    try {
      const st = fs.statSync(p);
      return st.isFile() ? st.nlink : undefined;
    } catch {
      return undefined;
    }
  },
};

/** The kernel's limit on links followed in one lookup (ELOOP). */
const MAX_LINKS = 40;

/**
 * `p` (relative to `cwd`) as the file it names: links followed component by component, `..` applied
 * after the link it follows. Components past the first missing one are taken as spelled (nothing there
 * can be a link yet). Undefined for a link loop.
 */
export function resolveReal(p: string, cwd: string, view: FsView = NODE_FS): string | undefined {
  let todo = (path.isAbsolute(p) ? p : `${cwd}/${p}`).split('/');
  let cur = '';
  let links = 0;
  let missing = false;
  while (todo.length) {
    const c = todo.shift()!;
    if (c === '' || c === '.') continue;
    if (c === '..') {
      cur = cur.slice(0, Math.max(0, cur.lastIndexOf('/')));
      continue;
    }
    const next = `${cur}/${c}`;
    if (!missing) {
      const link = view.isLink(next);
      if (link === undefined) missing = true;
      else if (link) {
        if (++links > MAX_LINKS) return undefined;
        const target = view.readlink(next);
        if (target.startsWith('/')) cur = '';
        todo = [...target.split('/'), ...todo];
        continue;
      }
    }
    cur = next;
  }
  return cur || '/';
}

/** Is `p` the folder `root` or inside it (both absolute and normalised)? */
export const inside = (p: string, root: string): boolean => p === root || p.startsWith(root === '/' ? '/' : `${root}/`);

/** A place no tool writes: a file or folder, or (with `prefix`) the entries of a folder whose names start so. */
export interface Place {
  readonly at: string;
  readonly prefix?: string;
}

export interface PathWallInput {
  /** folders the writing tools may write: the workspace, the workbench, the private temp folder, `allowWrite` */
  readonly writable: readonly string[];
  /** places inside those that no tool writes: the run dir, flower's config folder, every file flower reads at start */
  readonly protected: readonly Place[];
  /** places no tool reads: credential stores, flower's credential chain, files that hold the key */
  readonly unreadable: readonly string[];
  /** places opened on purpose (`--allow-read`): win over `unreadable` and the credential names */
  readonly allowRead?: readonly string[];
  /** the person's home, for an MCP argument spelled `~/…` */
  readonly home: string;
}

/** Why a path was refused: decided here, rendered for the model by guards/messages. */
export type PathRefusal =
  | { readonly kind: 'outside'; readonly path: string }
  | { readonly kind: 'protected'; readonly path: string; readonly place: string }
  | { readonly kind: 'name'; readonly path: string; readonly name: string }
  | { readonly kind: 'credential'; readonly path: string; readonly place: string }
  | { readonly kind: 'unresolvable'; readonly path: string };

/**
 * Names no tool writes at any depth: git's and the binary's settings, MCP server lists, shell start-up
 * files, `.env` files, and `.npmrc` (npm reads the one in the current folder when the person next types
 * `npx flower` there: `node-options` or `script-shell` would run code before flower starts).
 */
export function protectedName(name: string): boolean {
  return name === '.git' || name === '.claude' || name === '.mcp.json' || name === '.npmrc' || SHELL_STARTUP_FILES.includes(name) || isEnvFileName(name);
}

/**
 * Gitignore-style patterns for the binary's deny rules: the same names as `protectedName`. Under `.claude/`
 * the entries the binary reads or runs are listed one by one rather than `.claude/**`: the binary puts an
 * isolated worker's git worktree in `.claude/worktrees/<name>/`, and the worker writes there.
 */
const CLAUDE_ENTRIES = [
  'settings.json',
  'settings.local.json',
  'agents/**',
  'commands/**',
  'hooks/**',
  'skills/**',
  'workflows/**',
  'routines/**',
  'output-styles/**',
  'rules/**',
  'launch.json',
  'loop.md',
  'scheduled_tasks.json',
  'CLAUDE.md',
  '.cc-writes/**',
];
const PROTECTED_PATTERNS = ['.git', '.git/**', ...CLAUDE_ENTRIES.map((e) => `.claude/${e}`), '.mcp.json', '.npmrc', ...SHELL_STARTUP_FILES, '.env*', '*.env'];

/**
 * The components below a writable folder that the names are judged on: an isolated worker's worktree
 * (`.claude/worktrees/<name>/…`) is a workspace of its own, judged from its root — its `.git` file and
 * `.env` files stay protected, the `.claude/worktrees/<name>` on the way to it does not count.
 */
function judgedNames(parts: readonly string[]): string[] {
  for (let i = parts.length - 3; i >= 0; i--) {
    if (parts[i] === '.claude' && parts[i + 1] === 'worktrees' && parts[i + 2]) return [...parts.slice(0, i), ...parts.slice(i + 3)];
  }
  return [...parts];
}
/** What no file tool reads, by name, at any depth (the binary's Read rules cover Read, Grep and Glob). */
const UNREADABLE_PATTERNS = ['.env*', '*.env'];

interface Resolved {
  readonly spelled: string;
  readonly real: string;
}

export class PathWall {
  private readonly writable: string[];
  private readonly places: { real: string; given: string; prefix?: string }[];
  private readonly unreadable: { real: string; given: string }[];
  private readonly allowRead: string[];
  readonly home: string;

  constructor(
    readonly input: PathWallInput,
    private readonly view: FsView = NODE_FS,
  ) {
    const real = (p: string): string => resolveReal(path.resolve(p), '/', view) ?? path.resolve(p);
    this.writable = [...new Set(input.writable.flatMap((p) => [path.resolve(p), real(p)]))];
    this.places = input.protected.map((p) => ({ given: path.resolve(p.at), real: real(p.at), ...(p.prefix !== undefined ? { prefix: p.prefix } : {}) }));
    this.unreadable = input.unreadable.map((p) => ({ given: path.resolve(p), real: real(p) }));
    this.allowRead = [...new Set((input.allowRead ?? []).flatMap((p) => [path.resolve(p), real(p)]))];
    this.home = input.home;
  }

  private resolve(p: string, cwd: string): Resolved | undefined {
    // `~/…` is the home, as the binary and every shell read it (never a folder named `~` in the cwd)
    const home = p === '~' || p.startsWith('~/') ? this.home + p.slice(1) : p;
    const spelled = path.resolve(cwd, home);
    const real = resolveReal(spelled, '/', this.view);
    return real === undefined ? undefined : { spelled, real };
  }

  /** Why a tool may not write `p`, or null. */
  write(p: string, cwd: string): PathRefusal | null {
    const r = this.resolve(p, cwd);
    if (!r) return { kind: 'unresolvable', path: p };
    const root = this.writable.filter((w) => inside(r.real, w)).sort((a, b) => b.length - a.length)[0];
    if (root === undefined) return { kind: 'outside', path: r.real };
    // a second name of a file elsewhere (a hard link) writes that file: its own path is not where the bytes go
    if ((this.view.hardLinks?.(r.real) ?? 1) > 1) return { kind: 'unresolvable', path: r.real };
    for (const form of [r.real, r.spelled]) {
      const place = this.places.find((pl) => matchesPlace(form, pl.real, pl.prefix) || matchesPlace(form, pl.given, pl.prefix));
      if (place) return { kind: 'protected', path: r.real, place: place.given };
    }
    // names are judged below the writable folder only: a workspace that itself lives under `.claude/` stays usable
    for (const [form, base] of [
      [r.real, root],
      [r.spelled, this.writable.find((w) => inside(r.spelled, w)) ?? root],
    ] as const) {
      const bad = judgedNames(below(form, base)).find(protectedName);
      if (bad !== undefined) return { kind: 'name', path: r.real, name: bad };
    }
    return null;
  }

  /** Why a tool may not read `p` (a file, or the root of a search), or null. */
  read(p: string, cwd: string): PathRefusal | null {
    const r = this.resolve(p, cwd);
    if (!r) return { kind: 'unresolvable', path: p };
    if (this.allowRead.some((a) => inside(r.real, a) || inside(r.spelled, a))) return null;
    for (const form of [r.real, r.spelled]) {
      const place = this.unreadable.find((u) => inside(form, u.real) || inside(form, u.given));
      if (place) return { kind: 'credential', path: r.real, place: place.given };
      // the file's own name: a folder called `credentials/` or a virtualenv `.env/` holds ordinary files
      const name = path.basename(form);
      if (name && isCredentialName(name)) return { kind: 'credential', path: r.real, place: name };
    }
    return null;
  }

  /**
   * The binary's own half of the wall (the `settings` option): file-tool writes outside the working
   * directories refused in every mode, the protected places counted as outside them (every spelling:
   * the binary follows no link in an entry), and deny rules for the protected names under each writable
   * folder and for unreadable places and `.env` files everywhere. Measured on 2.1.332: these refuse
   * Write/Edit/NotebookEdit outside the workspace, through a link, into an excluded folder and to
   * `sub/.env.local`; the Read rules hold Read, Grep and Glob, links included, and a directory-wide Grep
   * skips the files.
   */
  permissionSettings(): { blockWritesOutsideWorkingDirectories: true; workingDirectoriesExclude: string[]; deny: string[] } {
    const rule = (tool: string, abs: string, tail?: string): string => `${tool}(/${abs}${tail ? (abs === '/' ? tail : `/${tail}`) : ''})`;
    const exclude = new Set<string>();
    const deny = new Set<string>();
    for (const pl of this.places) {
      for (const f of new Set([pl.given, pl.real])) {
        if (pl.prefix === undefined) exclude.add(f);
        else deny.add(rule('Edit', f, `${pl.prefix}*`));
      }
    }
    for (const w of this.writable) for (const pat of PROTECTED_PATTERNS) deny.add(rule('Edit', w, `**/${pat}`));
    const opened = (p: string): boolean => this.allowRead.some((a) => inside(p, a) || inside(a, p));
    for (const u of this.unreadable) for (const f of new Set([u.given, u.real])) if (!opened(f)) deny.add(rule('Read', f, '**')).add(rule('Read', f));
    if (!this.allowRead.some((a) => UNREADABLE_PATTERNS.some((pat) => matchesName(path.basename(a), pat)))) {
      for (const pat of UNREADABLE_PATTERNS) deny.add(rule('Read', '/', `**/${pat}`));
    }
    // (no rule for /proc/*/environ: the sandbox expands Read rules into its mounts at start and bwrap fails
    // on a pid that is gone — measured; the hook refuses the name `environ` for Read, Grep and Glob)
    return { blockWritesOutsideWorkingDirectories: true, workingDirectoriesExclude: [...exclude].filter(normalised), deny: [...deny] };
  }

  /**
   * The sandbox's half, for commands: protected places inside a writable folder (outside them
   * everything is read-only already) and unreadable places that exist. A protected file that does not
   * exist yet is still listed: bubblewrap then puts /dev/null in its place, so `( echo … > .env )`
   * cannot create it (measured; the deeper first missing folder of a longer path becomes unwritable).
   */
  sandboxLists(extraFiles: readonly string[] = []): { denyWrite: string[]; denyRead: string[] } {
    const inWritable = (p: string): boolean => this.writable.some((w) => inside(p, w));
    const denyWrite = new Set<string>();
    for (const pl of this.places) if (pl.prefix === undefined && inWritable(pl.real)) denyWrite.add(pl.real);
    for (const f of extraFiles) if (inWritable(path.resolve(f))) denyWrite.add(path.resolve(f));
    const opened = (p: string): boolean => this.allowRead.some((a) => inside(p, a));
    const denyRead = new Set<string>();
    for (const u of this.unreadable) if (!opened(u.real) && this.view.isLink(u.real) !== undefined) denyRead.add(u.real);
    return { denyWrite: [...denyWrite], denyRead: [...denyRead] };
  }
}

/** The components of `p` below `root` (`p` inside `root`). */
function below(p: string, root: string): string[] {
  const rest = root === '/' ? p.slice(1) : p.slice(root.length + 1);
  return rest ? rest.split('/') : [];
}

function matchesPlace(p: string, at: string, prefix: string | undefined): boolean {
  if (prefix === undefined) return inside(p, at);
  if (!inside(p, at) || p === at) return false;
  return below(p, at)[0]!.startsWith(prefix);
}

/** `.env*` / `*.env` against one name (the two shapes the unreadable patterns use). */
function matchesName(name: string, pat: string): boolean {
  if (pat.endsWith('*')) return name.startsWith(pat.slice(0, -1));
  if (pat.startsWith('*')) return name.endsWith(pat.slice(1));
  return name === pat;
}

/** The binary ignores an excluded entry that is not normalised (relative, `..`, a trailing separator). */
const normalised = (p: string): boolean => path.isAbsolute(p) && path.normalize(p) === p && (p === '/' || !p.endsWith('/'));
