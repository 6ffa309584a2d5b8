/** The CLI's only view of the outside world, so commands run in-process in tests. */
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
  stdin?: Readable & NodeJS.ReadableStream;
  env: Record<string, string | undefined>;
  /** where relative paths resolve (default process.cwd()) */
  cwd?: string;
}

export const EXIT = { ok: 0, failure: 1, usage: 2, interrupted: 130 } as const;

/** A CLI outcome that is not a crash: print `message`, exit with `code`. */
export class CliExit extends Error {
  constructor(readonly code: number, message = '') {
    super(message);
  }
}
