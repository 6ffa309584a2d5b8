/**
 * Workbench — the shared desk of a long run: `scripts/` (reusable tools), `artifacts/` (long outputs),
 * `notes/` (one decision per file), `spill/` (tool outputs too long for the context) and `INDEX.md`.
 *
 * The index reaches the model in the FIRST user message of a NEW session only (`prime`). Issue #22: in the
 * system prompt it changed the cached prefix on every refresh (the same request cost 3.7×); repeating it
 * on resume duplicated it. Subagents never see it, so the coordinator relays the location in its briefs.
 *
 * One object must serve the guards, the prompt and the Runtime: two default locations that disagree fail
 * silently (surface-config §6).
 */
import fs from 'node:fs';
import path from 'node:path';
import { detectLang, type Lang } from '../config/lang.js';
import { ConfigError, errorText } from '../errors.js';
import { isWithin } from './common.js';
import { NAMES, WORKBENCH_FOLDERS, workbenchPaths, writeFileAtomic as writeAtomic, type WorkbenchFolder } from '../state/index.js';

/** Atomic write (temp + rename), shared with every other file flower writes. */
export { writeAtomic };

export interface WorkbenchOptions {
  /** folder name under the workspace (default `.flower`) */
  dirname?: string;
  /** an explicit root instead of `<workspace>/<dirname>` (e.g. `<run_dir>/workbench`, or outside a repo with --isolate) */
  root?: string;
  /** entries listed per folder (default 40); the newest are kept */
  maxIndexEntries?: number;
  lang?: Lang;
}

/** The index folders, in the order the index lists them (names owned by the state layer). spill/ is not listed: its pointers say where. */
export { WORKBENCH_FOLDERS, type WorkbenchFolder };

/** `.flower/.gitignore`: everything, itself included (so `git status` lists nothing under .flower/). */
export const GITIGNORE = '# written by flower: the workbench holds tool output (spill/) and private notes; un-ignore what you want versioned\n*\n';

/** A reply longer than this belongs in artifacts/ (the second rule). */
export const ARTIFACT_CHARS = 2000;
/** How many leading lines may hold a `desc:` line. */
export const DESC_LINES = 8;

const DESC = /^\s*(?:#+|\/\/+|--+|;+|%+)\s*desc\s*[:：]\s*(.+?)\s*$/i;
const HEADING = /^\s*#{1,6}\s+(.+?)\s*#*\s*$/;
/** bounds on the walk: the index is advice, never worth a long stall on a huge tree */
const MAX_WALK = 5000;
const MAX_DEPTH = 4;

export const WORKBENCH_RULES = {
  zh: [
    `可复用的脚本放进 scripts/,开头 ${DESC_LINES} 行内写一行 \`# desc: 它做什么\`;下次先看这里再写新的。`,
    `超过 ${ARTIFACT_CHARS} 字的产出(报告、日志、长列表)写进 artifacts/,回复里只给路径和结论。`,
    'notes/ 里一个文件只记一个决定(做了什么选择、为什么)。',
  ],
  en: [
    `Reusable scripts go in scripts/, with a \`# desc: what it does\` line in their first ${DESC_LINES} lines; look there before writing a new one.`,
    `Anything longer than ${ARTIFACT_CHARS} characters (reports, logs, long lists) goes in artifacts/; the reply gives only its path and the conclusion.`,
    'notes/ holds one decision per file (what was chosen and why).',
  ],
} as const;

const TEXT = {
  zh: { title: '工作台索引', root: '位置', empty: '(空)', more: (n: number, dir: string) => `……另有 ${n} 个,见 ${dir}`, rules: '规则' },
  en: { title: 'Workbench index', root: 'root', empty: '(empty)', more: (n: number, dir: string) => `… ${n} more in ${dir}`, rules: 'Rules' },
} as const;

export interface IndexEntry {
  /** path relative to the workbench root, `/`-separated */
  rel: string;
  bytes: number;
  mtimeMs: number;
  desc?: string;
}

/** The `desc:` line of a file's first lines (any of `#`, `//`, `--` comments), else a markdown heading. */
export function describe(head: string, isMarkdown: boolean): string | undefined {
  const lines = head.split(/\r?\n/).slice(0, DESC_LINES);
  for (const l of lines) {
    const m = DESC.exec(l);
    if (m) return m[1]!.slice(0, 160);
  }
  if (!isMarkdown) return undefined;
  for (const l of lines) {
    const m = HEADING.exec(l);
    if (m) return m[1]!.slice(0, 160);
  }
  return undefined;
}

function readHead(file: string, bytes = 4096): string {
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const n = fs.readSync(fd, buf, 0, bytes, 0);
    return buf.subarray(0, n).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
}

const size = (b: number): string => (b < 1024 ? `${b} B` : b < 1024 * 1024 ? `${(b / 1024).toFixed(1)} KB` : `${(b / 1024 / 1024).toFixed(1)} MB`);

/** The workbench: its folders (paths from the state layer's workbenchPaths), its index and its rules. */
export class Workbench {
  readonly workspace: string;
  readonly root: string;
  readonly scripts: string;
  readonly artifacts: string;
  readonly notes: string;
  readonly spill: string;
  readonly index: string;
  readonly maxIndexEntries: number;
  readonly lang: Lang;

  constructor(workspace: string, o: WorkbenchOptions = {}) {
    const dirname = o.dirname ?? NAMES.workbenchDir;
    if (!dirname || dirname.includes('/') || dirname.includes('\\') || dirname === '.' || dirname === '..') {
      throw new ConfigError('bad-workbench', `workbench dirname must be one folder name, got ${JSON.stringify(dirname)}.`);
    }
    const max = o.maxIndexEntries ?? 40;
    if (!Number.isInteger(max) || max < 1) throw new ConfigError('bad-workbench', `maxIndexEntries must be a positive integer, got ${String(max)}.`);
    this.workspace = path.resolve(workspace);
    const p = workbenchPaths(o.root ?? path.join(this.workspace, dirname));
    this.root = p.root;
    this.scripts = p.scripts;
    this.artifacts = p.artifacts;
    this.notes = p.notes;
    this.spill = p.spill;
    this.index = p.index;
    this.maxIndexEntries = max;
    this.lang = o.lang ?? detectLang();
  }

  /** Outside the workspace: the Runtime must pass it as an additional directory. */
  get external(): boolean {
    return !isWithin(this.root, this.workspace);
  }

  /** Does `p` (absolute, or relative to `cwd`) lie inside the workbench? */
  contains(p: string, cwd = this.workspace): boolean {
    return isWithin(path.resolve(cwd, p), this.root);
  }

  /**
   * Create the folders (0700: they hold tool output) and `.gitignore` (`*`): a worker's `git add -A`
   * must not commit spill files or notes. A person who wants notes versioned edits that file; it is
   * never overwritten.
   */
  ensure(): this {
    for (const d of [this.root, this.scripts, this.artifacts, this.notes, this.spill]) {
      try {
        fs.mkdirSync(d, { recursive: true, mode: 0o700 });
      } catch (e) {
        throw new ConfigError('unwritable-dir', `cannot create the workbench folder ${d}: ${errorText(e)}`, { path: d, cause: e });
      }
    }
    try {
      fs.chmodSync(this.root, 0o700);
    } catch {
      /* not ours to change (shared mount): the files stay 0600 */
    }
    const ignore = path.join(this.root, '.gitignore');
    if (!fs.existsSync(ignore)) {
      try {
        writeAtomic(ignore, GITIGNORE);
      } catch (e) {
        throw new ConfigError('unwritable-dir', `cannot write ${ignore}: ${errorText(e)}`, { path: ignore, cause: e });
      }
    }
    return this;
  }

  /** The files of one folder, newest first (bounded walk; dot-files and temp files skipped). */
  entries(folder: WorkbenchFolder): IndexEntry[] {
    const base = path.join(this.root, folder);
    const out: IndexEntry[] = [];
    let seen = 0;
    const walk = (dir: string, depth: number): void => {
      let names: fs.Dirent[];
      try {
        names = fs.readdirSync(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const d of names) {
        if (++seen > MAX_WALK) return;
        if (d.name.startsWith('.') || d.name.endsWith('.tmp')) continue;
        const full = path.join(dir, d.name);
        if (d.isDirectory()) {
          if (depth < MAX_DEPTH) walk(full, depth + 1);
          continue;
        }
        if (!d.isFile()) continue;
        try {
          const st = fs.statSync(full);
          const e: IndexEntry = { rel: path.relative(this.root, full).split(path.sep).join('/'), bytes: st.size, mtimeMs: st.mtimeMs };
          const desc = describe(readHead(full), /\.(md|markdown|txt)$/i.test(d.name));
          if (desc) e.desc = desc;
          out.push(e);
        } catch {
          /* vanished between readdir and stat: not worth indexing */
        }
      }
    };
    walk(base, 0);
    return out.sort((a, b) => b.mtimeMs - a.mtimeMs || a.rel.localeCompare(b.rel));
  }

  /** The INDEX.md text (no timestamps, so an unchanged desk gives byte-identical text). */
  render(): string {
    const t = TEXT[this.lang];
    const lines = [`# ${t.title}`, '', `${t.root}: ${this.root}`];
    for (const folder of WORKBENCH_FOLDERS) {
      const all = this.entries(folder);
      lines.push('', `## ${folder}/ (${all.length})`);
      if (all.length === 0) lines.push(t.empty);
      for (const e of all.slice(0, this.maxIndexEntries)) {
        lines.push(`- ${e.rel} (${size(e.bytes)})${e.desc ? ` — ${e.desc}` : ''}`);
      }
      if (all.length > this.maxIndexEntries) lines.push(t.more(all.length - this.maxIndexEntries, `${folder}/`));
    }
    lines.push('', `## ${t.rules}`, ...WORKBENCH_RULES[this.lang].map((r, i) => `${i + 1}. ${r}`));
    return `${lines.join('\n')}\n`;
  }

  /** Rebuild INDEX.md (atomically; untouched when nothing changed). Returns its text. */
  refresh(): string {
    this.ensure();
    const text = this.render();
    let old: string | undefined;
    try {
      old = fs.readFileSync(this.index, 'utf8');
    } catch {
      /* first refresh */
    }
    if (old !== text) writeAtomic(this.index, text, 0o600);
    return text;
  }

  /** The index as a block for the first user message of a new session (never the system prompt: #22). */
  promptBlock(): string {
    return `<workbench>\n${this.refresh().trimEnd()}\n</workbench>`;
  }

  /**
   * The prompt to send: with the index block in front for a new session, unchanged on resume (the first
   * message of the resumed session already carries it).
   */
  prime(prompt: string, o: { resume?: string | undefined } = {}): string {
    return o.resume ? prompt : `${this.promptBlock()}\n\n${prompt}`;
  }
}
