/**
 * A read-only command's refusal: a file it reads is damaged or unreadable, or a path it was given cannot
 * be used (a file where a folder should be, a folder it may not read). One line naming the path on
 * stderr; with --json also `{"error": {"code", "message", "path"}}` on stdout. Nothing is moved or
 * rewritten: `flower status`, `flower log` and `flower ui` report damage, they never repair it.
 */
import { StateCorrupt } from '../state/index.js';
import { CliExit, EXIT, type CliIO } from './io.js';
import { sanitize } from './term.js';

export class ReadRefused extends CliExit {
  constructor(
    exit: number,
    /** stable, kebab-case: `state-corrupt`, `state-unreadable`, `state-future-version`, `not-a-folder`, … */
    readonly reason: string,
    /** the human line, without the `x ` mark */
    readonly line: string,
    readonly path: string,
  ) {
    super(exit, `x ${line}`);
  }
}

const oneLine = (s: string): string => sanitize(s, { keepColour: false }).replace(/[\r\n]+/g, ' ');

/** What to do about it, by kind (the state layer's message names the file and what is wrong). */
function hint(code: string, zh: boolean): string {
  if (code === 'state-corrupt')
    return zh
      ? ' —— 只读命令不动它;下次在这里运行会把它另存为 .corrupt-… 并重新开始'
      : ' — left as it is (read-only); the next run here keeps it aside as .corrupt-… and starts afresh';
  if (code === 'state-unreadable') return zh ? ' —— 检查它的权限,或放在那里的是什么' : ' — check its permissions, or what is in its place';
  return '';
}

/** A damaged file's StateCorrupt as a refusal (exit 1); anything else: null. */
export function refusalOf(e: unknown, zh = false): ReadRefused | null {
  if (e instanceof ReadRefused) return e;
  if (!StateCorrupt.is(e) || !e.path) return null;
  return new ReadRefused(EXIT.failure, e.code, oneLine(`${e.message}${hint(e.code, zh)}`), e.path);
}

/** Say the refusal (stderr, and JSON on stdout with --json); the exit code. */
export function sayRefusal(r: ReadRefused, io: CliIO, json: boolean): number {
  if (json) io.stdout.write(`${JSON.stringify({ error: { code: r.reason, message: r.line, path: r.path } })}\n`);
  io.stderr.write(`${r.message}\n`);
  return r.code;
}

/** Run a read-only command's body: its damage and path refusals are said once, the rest is rethrown. */
export async function refusing(io: CliIO, o: { json: boolean; zh: boolean }, body: () => Promise<number>): Promise<number> {
  try {
    return await body();
  } catch (e) {
    const r = refusalOf(e, o.zh);
    if (!r) throw e;
    return sayRefusal(r, io, o.json);
  }
}
