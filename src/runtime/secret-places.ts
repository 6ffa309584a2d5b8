/**
 * Where secret values hide on this machine, found once per Runtime for the floor (floor.ts): the
 * values in `.env` files of the credential chain and below the workspace, and the files (in HOME, the
 * shell's start-up files) that hold a known secret value. Bounded walks: a huge tree or file is cut
 * short, never read whole. Reads only; the floor decides what to do with what is found.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseDotenv } from '../config/index.js';
import { isEnvFileName, isSecretName, isSecretValue, MIN_SECRET_CHARS, SHELL_STARTUP_FILES, startupFileHoldsSecret, urlPassword } from '../guards/index.js';

const isUnder = (p: string, root: string): boolean => p === root || p.startsWith(`${root}/`);

/** The secret values in `.env` files: values of secret-looking names, and values that are secrets by their shape. */
export function chainValues(files: readonly string[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    let text: string;
    try {
      text = fs.readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    for (const [k, v] of Object.entries(parseDotenv(text))) {
      if (v.length < MIN_SECRET_CHARS || !(isSecretName(k) || isSecretValue(v))) continue;
      out.push(v);
      const pw = urlPassword(v);
      if (pw && pw.length >= MIN_SECRET_CHARS) out.push(pw);
    }
  }
  return out;
}

/**
 * Every other value of `.env` files worth hiding from a coordinator: at least 8 characters and not a bare
 * word, number or boolean (`development`, `3000`, `true` appear in every output; `blue-4411` does not).
 */
export function plainValues(files: readonly string[]): string[] {
  const out: string[] = [];
  for (const f of files) {
    let text: string;
    try {
      text = fs.readFileSync(f, 'utf8');
    } catch {
      continue;
    }
    for (const v of Object.values(parseDotenv(text))) {
      if (v.length >= MIN_SECRET_CHARS && !/^(?:[A-Za-z]+|\d+(?:\.\d+)?|true|false)$/i.test(v)) out.push(v);
    }
  }
  return out;
}

/** Folders a `.env` search never enters: dependencies, VCS data, caches. */
const SKIP_DIRS = new Set(['node_modules', '.git', '.hg', '.svn', 'dist', 'build', 'target', '.venv', 'venv', '__pycache__', '.cache', '.next']);
/** Bounds of the search: it runs before every session, on workspaces of any size. */
const MAX_DIRS = 4000;
const MAX_DEPTH = 8;

/** The `.env` files under `root` (breadth first, bounded; the run dir left out). */
export function envFilesUnder(root: string, runDir?: string): string[] {
  const out: string[] = [];
  let queue: Array<[string, number]> = [[root, 0]];
  let seen = 0;
  while (queue.length && seen < MAX_DIRS) {
    const next: Array<[string, number]> = [];
    for (const [dir, depth] of queue) {
      if (++seen > MAX_DIRS) break;
      let entries: fs.Dirent[];
      try {
        entries = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        continue;
      }
      for (const e of entries) {
        const p = path.join(dir, e.name);
        if (e.isFile() && isEnvFileName(e.name)) out.push(p);
        else if (e.isDirectory() && depth < MAX_DEPTH && !SKIP_DIRS.has(e.name) && p !== runDir) next.push([p, depth + 1]);
      }
    }
    queue = next;
  }
  return out;
}

/** Bounds of the search for files that hold the key: it runs once per Runtime. */
const MAX_FILES = 400;
const MAX_BYTES = 1 << 20;

/**
 * Files in the person's home (and one level into `~/.config/*`) that hold a credential flower knows —
 * the key pasted into `~/notes.txt`, a tool's config that copied it. Each becomes unreadable to every tool.
 */
export function filesHolding(home: string, known: readonly string[], skip: readonly string[]): string[] {
  if (!known.length) return [];
  const candidates: string[] = [];
  const filesIn = (dir: string): string[] => {
    try {
      return fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => path.join(dir, e.name));
    } catch {
      return [];
    }
  };
  candidates.push(...filesIn(home));
  const config = path.join(home, '.config');
  try {
    for (const e of fs.readdirSync(config, { withFileTypes: true }))
      if (e.isDirectory() && e.name !== 'flower') candidates.push(...filesIn(path.join(config, e.name)));
  } catch {
    /* no ~/.config */
  }
  const out: string[] = [];
  for (const f of candidates.slice(0, MAX_FILES)) {
    if (skip.some((d) => isUnder(f, d))) continue;
    try {
      if (fs.statSync(f).size > MAX_BYTES) continue;
      const text = fs.readFileSync(f, 'latin1');
      if (known.some((k) => text.includes(k))) out.push(f);
    } catch {
      /* unreadable to flower: unreadable to the tools as well */
    }
  }
  return out;
}

/**
 * The person's shell start-up files that hold a secret (a known value, or an export of a secret-looking
 * name), and the files they source: the tool shell sources them before each command, and a model can
 * `source ~/.bashrc` itself — so they are kept from every command.
 */
export function startupFilesHolding(home: string, values: readonly string[]): string[] {
  const out = new Set<string>();
  const check = (f: string, depth: number): void => {
    let text: string;
    try {
      text = fs.readFileSync(f, 'utf8');
    } catch {
      return;
    }
    if (startupFileHoldsSecret(text, values)) out.add(f);
    if (depth > 0) return;
    for (const m of text.matchAll(/^\s*(?:source|\.)\s+["']?((?:~|\$HOME|\$\{HOME\})?\/?[^\s"';|&]+)/gm)) {
      const p = m[1]!.replace(/^(~|\$HOME|\$\{HOME\})/, home);
      check(path.resolve(home, p), depth + 1);
    }
  };
  for (const f of SHELL_STARTUP_FILES) check(path.join(home, f), 0);
  return [...out];
}
