/**
 * spillGuard (PostToolUse, subagents too): a tool output too long for the context goes to
 * `<workbench>/spill/<sha256[:16]>.txt`, and the model gets a pointer plus the first 400 characters.
 *
 * How the output is replaced — verified against binary 2.1.332 with a scripted model:
 * `hookSpecificOutput.updatedToolOutput` replaces what the model sees, for the main thread and for
 * subagents alike, BUT only when it keeps the tool's structure: for Bash, an object
 * `{stdout, stderr, …}` with a replaced `stdout` reached the model; a bare string was silently ignored
 * (the model got the original output). `updatedMCPToolOutput` was ignored for built-in tools. Hence: only
 * string fields are replaced, recursively, and everything else is kept as it was.
 *
 * Read-through: an output produced by reading the spill folder is passed unchanged, or reading a spill file
 * back would spill it again, forever (the seed's "spill read loops back on itself": five workarounds and
 * 7–8 wasted turns). Paths are normalised first; the seed missed relative ones.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { HookCallback, HookCallbackMatcher, HookJSONOutput } from '@anthropic-ai/claude-agent-sdk';
import { detectLang, type Lang } from '../config/lang.js';
import { pass, isWithin, matcherFor, stringsIn, toolCall } from './common.js';
import { GUARD_TEXT, textFor } from './messages.js';
import { writeAtomic } from './workbench.js';

export const SPILL_TOOLS: readonly string[] = Object.freeze(['Bash', 'Read', 'Grep', 'Glob', 'WebFetch', 'WebSearch']);
export const SPILL_THRESHOLD = 4000;
export const SPILL_HEAD = 400;

export interface SpillOptions {
  /** a string this long or longer is spilled (default 4000; 0 turns the guard off) */
  threshold?: number;
  /** characters of preview kept in place (default 400) */
  head?: number;
  tools?: readonly string[];
  lang?: Lang;
}

/** What spillGuard needs from a Workbench. */
export interface SpillTarget {
  readonly spill: string;
}

/** `spill/<sha256[:16]>.txt` for this text, written only when absent (content-addressed, so never stale). */
export function spillFile(dir: string, text: string): string {
  const file = path.join(dir, `${crypto.createHash('sha256').update(text).digest('hex').slice(0, 16)}.txt`);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // a tool's output can hold anything (a printed secret, a private file): readable by its owner only
    writeAtomic(file, text, 0o600);
  }
  return file;
}

/** The first `head` characters with newlines as spaces, never ending in half a surrogate pair. */
export function preview(text: string, head: number): string {
  let s = text.slice(0, head);
  const last = s.charCodeAt(s.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) s = s.slice(0, -1);
  return s.replace(/\r\n|\r|\n/g, ' ');
}

export function pointer(text: string, file: string, head: number, lang: Lang): string {
  return `${textFor(GUARD_TEXT.spill, lang)(text.length, file)}\n${preview(text, head)}`;
}

/** Image / document blocks (and arrays holding them) are never touched: they are not text. */
function isMedia(v: unknown): boolean {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const t = (v as { type?: unknown }).type;
  return (
    t === 'image' ||
    t === 'document' ||
    (typeof (v as { source?: unknown }).source === 'object' && (v as { source?: { type?: unknown } }).source?.type === 'base64')
  );
}

/**
 * The tool output with every string of at least `threshold` characters replaced by `replace(s)`, keeping
 * the structure (objects keep their keys, arrays their length). Arrays that hold an image or a document
 * are kept whole. Returns the same value and 0 when nothing was long enough.
 */
export function replaceLongStrings(v: unknown, threshold: number, replace: (s: string) => string, depth = 0): { value: unknown; replaced: number } {
  if (typeof v === 'string') return v.length >= threshold ? { value: replace(v), replaced: 1 } : { value: v, replaced: 0 };
  if (depth > 16 || !v || typeof v !== 'object' || isMedia(v)) return { value: v, replaced: 0 };
  if (Array.isArray(v)) {
    if (v.some(isMedia)) return { value: v, replaced: 0 };
    let n = 0;
    const out = v.map((x) => {
      const r = replaceLongStrings(x, threshold, replace, depth + 1);
      n += r.replaced;
      return r.value;
    });
    return n ? { value: out, replaced: n } : { value: v, replaced: 0 };
  }
  let n = 0;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const r = replaceLongStrings(x, threshold, replace, depth + 1);
    n += r.replaced;
    out[k] = r.value;
  }
  return n ? { value: out, replaced: n } : { value: v, replaced: 0 };
}

/** Would replaceLongStrings replace anything here? The same walk, building nothing and touching no disk. */
export function hasLongString(v: unknown, threshold: number, depth = 0): boolean {
  if (typeof v === 'string') return v.length >= threshold;
  if (depth > 16 || !v || typeof v !== 'object' || isMedia(v)) return false;
  if (Array.isArray(v)) return !v.some(isMedia) && v.some((x) => hasLongString(x, threshold, depth + 1));
  return Object.values(v).some((x) => hasLongString(x, threshold, depth + 1));
}

/**
 * Does this tool input read the spill folder? Any string naming it — absolute, relative to the call's cwd,
 * `./`- or `..`-prefixed, inside a shell command or a glob — counts.
 */
export function readsSpill(toolInput: unknown, cwd: string, spillDir: string): boolean {
  const abs = path.resolve(spillDir);
  let real = abs;
  try {
    real = fs.realpathSync(abs);
  } catch {
    /* not created yet */
  }
  for (const s of stringsIn(toolInput)) {
    if (s.includes(abs) || s.includes(real)) return true;
    for (const raw of s.split(/[\s'"`=;|&<>(),]+/)) {
      if (!raw) continue;
      // a glob or a trailing `/*` still names the folder: cut at the first wildcard
      const tok = raw.split(/[*?[{]/)[0]!;
      if (!tok) continue;
      if (isWithin(path.resolve(cwd, tok), abs)) return true;
    }
  }
  return false;
}

/** The PostToolUse decision as a pure function: undefined = leave the output alone. */
export function spillDecision(
  target: SpillTarget,
  call: { toolInput: unknown; toolResponse: unknown; cwd: string },
  o: { threshold: number; head: number; lang: Lang },
): { updatedToolOutput: unknown; files: string[] } | undefined {
  if (o.threshold <= 0) return undefined;
  // most outputs are short: nothing to spill, so no need to resolve (on disk) what the call read
  if (!hasLongString(call.toolResponse, o.threshold)) return undefined;
  if (readsSpill(call.toolInput, call.cwd, target.spill)) return undefined;
  const files: string[] = [];
  const r = replaceLongStrings(call.toolResponse, o.threshold, (s) => {
    const file = spillFile(target.spill, s);
    files.push(file);
    return pointer(s, file, o.head, o.lang);
  });
  return r.replaced ? { updatedToolOutput: r.value, files } : undefined;
}

export function spillGuard(target: SpillTarget, o: SpillOptions = {}): HookCallbackMatcher {
  const opts = { threshold: o.threshold ?? SPILL_THRESHOLD, head: o.head ?? SPILL_HEAD, lang: o.lang ?? detectLang() };
  const tools = o.tools ?? SPILL_TOOLS;
  const hook: HookCallback = async (input) => {
    const call = toolCall(input);
    if (call?.event !== 'PostToolUse' || !tools.includes(call.toolName)) return pass();
    const d = spillDecision(target, { toolInput: call.toolInput, toolResponse: call.toolResponse, cwd: call.cwd }, opts);
    if (!d) return pass();
    const out: HookJSONOutput = { hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput: d.updatedToolOutput } };
    return out;
  };
  return { matcher: matcherFor(tools), hooks: [hook] };
}
