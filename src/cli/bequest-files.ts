/**
 * The files of the hand-over block (src/cli/bequest.ts): where it may be written and how. A CLAUDE.md
 * that is a link is followed only to a markdown file inside the workspace and outside every protected
 * place (a name `protectedName` guards — .git, .claude, … —, the workbench, the run dir): an agent's
 * `ln -s` must not turn flower into the writer of a file the walls keep from it. Writes are atomic
 * (temp + rename) and keep the file's mode; what flower cannot read, decode or pair markers in is left
 * exactly as it is, with one warning line; a failure is a warning, never a throw.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Lang } from '../config/index.js';
import { placeBlock, readDocument, removeBlock, type BlockDamage } from '../docs/index.js';
import { errorText } from '../errors.js';
import { protectedName } from '../guards/index.js';
import { writeFileAtomic, type RunLayout } from '../state/index.js';
import { sanitize } from './term.js';

const DAMAGE: Record<Lang, Record<BlockDamage, string>> = {
  en: {
    'two-begins': 'two lines with flower:begin',
    'two-ends': 'two lines with flower:end',
    'begin-without-end': 'a flower:begin line without a flower:end line',
    'end-without-begin': 'a flower:end line without a flower:begin line',
    'end-before-begin': 'its flower:end line comes before its flower:begin line',
  },
  zh: {
    'two-begins': '有两行 flower:begin',
    'two-ends': '有两行 flower:end',
    'begin-without-end': '有 flower:begin 行却没有 flower:end 行',
    'end-without-begin': '有 flower:end 行却没有 flower:begin 行',
    'end-before-begin': 'flower:end 行在 flower:begin 行前面',
  },
};

const WARN = {
  en: {
    damaged: (f: string, why: string, lines: string) => `! ${f} left as it is: ${why} (line ${lines}); fix or delete those lines by hand`,
    outside: (f: string, to: string) => `! ${f} is a link to ${to}, outside this folder or in a protected place: not followed, left alone`,
    dangling: (f: string) => `! ${f} is a link to nothing: left alone`,
    notFile: (f: string) => `! ${f} is not a regular file: left alone`,
    notText: (f: string, why: string) => `! ${f} is not text flower can edit safely (${why}): left alone`,
    unreadable: (f: string, why: string) => `! could not read ${f} (${why}): left alone`,
    failed: (f: string, why: string) => `! could not write the hand-over block in ${f}: ${why} (the run is not affected)`,
    removeFailed: (f: string, why: string) => `! could not take flower's block out of ${f}: ${why}`,
  },
  zh: {
    damaged: (f: string, why: string, lines: string) => `! ${f} 原样保留:${why}(第 ${lines} 行);请手动修好或删掉这些行`,
    outside: (f: string, to: string) => `! ${f} 是指向 ${to} 的链接,在这个目录之外或在受保护的地方:不跟过去,原样保留`,
    dangling: (f: string) => `! ${f} 是指向不存在文件的链接:原样保留`,
    notFile: (f: string) => `! ${f} 不是普通文件:原样保留`,
    notText: (f: string, why: string) => `! ${f} 不是 flower 能安全修改的文本(${why}):原样保留`,
    unreadable: (f: string, why: string) => `! 读不了 ${f}(${why}):原样保留`,
    failed: (f: string, why: string) => `! 没能在 ${f} 里写交接块:${why}(不影响这次运行)`,
    removeFailed: (f: string, why: string) => `! 没能从 ${f} 里删掉 flower 的那一块:${why}`,
  },
} as const;

type Texts = (typeof WARN)[Lang];

export type Did = 'written' | 'unchanged' | 'removed' | 'deleted' | 'absent' | 'skipped';

/** What happened to one file; `warning` is the line a skipped one gets. */
export interface Outcome {
  file: string;
  did: Did;
  warning?: string;
}

export const one = (s: string): string => sanitize(s, { keepColour: false }).replace(/[\r\n]+/g, ' ');
const inside = (p: string, root: string): boolean => p === root || p.startsWith(`${root}${path.sep}`);
const real = (p: string): string => {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
};

// ---- where a file may be written ----

type Target = { file: string; path: string; linked: boolean } | { file: string; warning: string };

/**
 * Where the block for `file` goes: the file itself, or — when it is a link — the markdown file it
 * points to, if that is inside the workspace and in no protected place (a component `protectedName`
 * names, the workbench, the run dir). Anything else is a warning and no write.
 */
function targetOf(file: string, layout: RunLayout, t: Texts): Target {
  const name = path.basename(file);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { file, path: file, linked: false };
    return { file, warning: t.unreadable(name, one(errorText(e))) };
  }
  if (!st.isSymbolicLink()) return st.isFile() ? { file, path: file, linked: false } : { file, warning: t.notFile(name) };
  let to: string;
  try {
    to = fs.realpathSync(file);
  } catch {
    return { file, warning: t.dangling(name) };
  }
  const ws = real(layout.workspace);
  const rel = path.relative(ws, to);
  const fenced = [real(layout.root), real(layout.runDir)].some((p) => inside(to, p));
  if (!inside(to, ws) || fenced || rel.split(path.sep).some(protectedName) || !/\.md$/i.test(to)) {
    return { file, warning: t.outside(name, one(to.startsWith(os.homedir() + path.sep) ? `~${to.slice(os.homedir().length)}` : to)) };
  }
  if (!fs.statSync(to, { throwIfNoEntry: false })?.isFile()) return { file, warning: t.notFile(name) };
  return { file, path: to, linked: true };
}

type Read = { text: string | null; mode: number | undefined } | { warning: string };

/** The file's text (null: none yet) and mode; what flower cannot read or edit safely is a warning. */
function readTarget(file: string, at: string, t: Texts): Read {
  const name = path.basename(file);
  const doc = readDocument(at);
  if (doc.status === 'unreadable') return { warning: t.unreadable(name, one(doc.error)) };
  if (doc.status === 'corrupt') return { warning: t.notText(name, doc.reason) };
  if (doc.status === 'missing') return { text: null, mode: undefined };
  let mode: number | undefined;
  try {
    mode = fs.statSync(at).mode & 0o7777;
  } catch {
    mode = undefined;
  }
  return { text: doc.text, mode };
}

/** Replace `at` atomically with `text`, keeping the mode the file had (a new file: 0644 under the umask). */
function writeTarget(at: string, text: string, mode: number | undefined): void {
  writeFileAtomic(at, text, mode ?? 0o644);
  if (mode !== undefined) fs.chmodSync(at, mode);
}

const damaged = (file: string, d: { damage: BlockDamage; lines: number[] }, lang: Lang): string =>
  WARN[lang].damaged(path.basename(file), DAMAGE[lang][d.damage], d.lines.join(', '));

/** The block into every file of the layout (a file two names reach is written once). */
export function writeBlocks(layout: RunLayout, block: readonly string[], lang: Lang): Outcome[] {
  const t = WARN[lang];
  const done = new Map<string, Did>();
  return layout.bequest.map((file): Outcome => {
    const at = targetOf(file, layout, t);
    if ('warning' in at) return { file, did: 'skipped', warning: at.warning };
    const key = real(at.path);
    const seen = done.get(key);
    if (seen) return { file, did: seen };
    const r = readTarget(file, at.path, t);
    if ('warning' in r) return { file, did: 'skipped', warning: r.warning };
    const placed = placeBlock(r.text, block);
    if (!placed.ok) return { file, did: 'skipped', warning: damaged(file, placed, lang) };
    try {
      if (placed.changed) writeTarget(at.path, placed.text, r.mode);
    } catch (e) {
      return { file, did: 'skipped', warning: t.failed(path.basename(file), one(errorText(e))) };
    }
    const did: Did = placed.changed ? 'written' : 'unchanged';
    done.set(real(at.path), did);
    return { file, did };
  });
}

/**
 * The block out of every file of the layout. A file that held only the block is deleted — unless a
 * link reaches it (AGENTS.md → CLAUDE.md): then it stays, empty, so the link still points somewhere.
 */
export function removeBlocks(layout: RunLayout, lang: Lang): Outcome[] {
  const t = WARN[lang];
  const targets = layout.bequest.map((file) => targetOf(file, layout, t));
  const linked = new Set(targets.flatMap((x) => ('linked' in x && x.linked ? [real(x.path)] : [])));
  const done = new Map<string, Did>();
  return targets.map((at): Outcome => {
    const file = at.file;
    if ('warning' in at) return { file, did: 'skipped', warning: at.warning };
    const key = real(at.path);
    const seen = done.get(key);
    if (seen) return { file, did: seen };
    const r = readTarget(file, at.path, t);
    if ('warning' in r) return { file, did: 'skipped', warning: r.warning };
    if (r.text === null) return { file, did: 'absent' };
    const out = removeBlock(r.text);
    if (!out.ok) return { file, did: 'skipped', warning: damaged(file, out, lang) };
    if (!out.changed) return { file, did: 'absent' };
    let did: Did = 'removed';
    try {
      if (out.text === null && !at.linked && !linked.has(key)) {
        fs.unlinkSync(at.path);
        did = 'deleted';
      } else writeTarget(at.path, out.text ?? '', r.mode);
    } catch (e) {
      return { file, did: 'skipped', warning: t.removeFailed(path.basename(file), one(errorText(e))) };
    }
    done.set(key, did);
    return { file, did };
  });
}

/** The warning a failed write gets. */
export const writeFailed = (lang: Lang, file: string, why: string): string => WARN[lang].failed(file, why);
