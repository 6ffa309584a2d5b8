/** The CLI's only view of the outside world, so commands run in-process in tests. */
import fs from 'node:fs';

export interface Writable {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface Readable {
  isTTY?: boolean;
}

export interface CliIO {
  stdout: Writable;
  stderr: Writable;
  stdin?: (Readable & NodeJS.ReadableStream) | undefined;
  env: Record<string, string | undefined>;
  /** where relative paths resolve (default process.cwd()) */
  cwd?: string;
}

export const EXIT = { ok: 0, failure: 1, usage: 2, interrupted: 130 } as const;

/** A CLI outcome that is not a crash: print `message`, exit with `code`. */
export class CliExit extends Error {
  constructor(
    readonly code: number,
    message = '',
  ) {
    super(message);
  }
}

/**
 * A request piped in (`echo "…" | flower`, `flower < ask.txt`): all of stdin, trimmed. Read only from a
 * pipe or a file — a socket (what a spawning program leaves open by default) is read only when there is
 * nothing else to do, so an idle stdin never stalls a wake that needs no words.
 */
export async function readPipedRequest(stdin: CliIO['stdin'], o: { needed: boolean }): Promise<string> {
  if (!stdin || stdin.isTTY === true) return '';
  const fd = (stdin as { fd?: unknown }).fd;
  if (typeof fd === 'number') {
    let kind: 'pipe' | 'socket' | 'other' = 'other';
    try {
      const st = fs.fstatSync(fd);
      kind = st.isFIFO() || st.isFile() ? 'pipe' : st.isSocket() ? 'socket' : 'other';
    } catch {
      /* closed */
    }
    if (kind === 'other' || (kind === 'socket' && !o.needed)) return '';
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of stdin as AsyncIterable<Buffer | string>) {
    const b = typeof c === 'string' ? Buffer.from(c) : c;
    size += b.length;
    if (size > 1_000_000) throw new CliExit(EXIT.usage, 'x the request on stdin is over 1 MB; put it in a file and say where it is');
    chunks.push(b);
  }
  return Buffer.concat(chunks).toString('utf8').trim();
}
