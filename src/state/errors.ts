/**
 * flower's errors, sorted by who is at fault: the user's configuration (`ConfigError`), the model or
 * its API (`ModelError`), a guard that refused (`GuardDenied`), a damaged file we read (`StateCorrupt`),
 * or our own bug (`InternalError`). Every error has a stable `code`, an actionable message, and the
 * step / session when known. `FlowerError.is()` works across two installed copies of the package.
 */
const MARK = Symbol.for('flower.error');

export interface ErrorContext {
  step?: string;
  sessionId?: string;
  path?: string;
  cause?: unknown;
}

export class FlowerError extends Error {
  readonly code: string;
  readonly step?: string;
  readonly sessionId?: string;
  readonly path?: string;
  readonly [MARK] = true;

  constructor(code: string, message: string, ctx: ErrorContext = {}) {
    super(message, ctx.cause === undefined ? undefined : { cause: ctx.cause });
    this.name = new.target.name;
    this.code = code;
    if (ctx.step !== undefined) this.step = ctx.step;
    if (ctx.sessionId !== undefined) this.sessionId = ctx.sessionId;
    if (ctx.path !== undefined) this.path = ctx.path;
  }

  static is(e: unknown): e is FlowerError {
    return typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[MARK] === true;
  }
}

/** The user's configuration or input is wrong: say which value and how to fix it. */
export class ConfigError extends FlowerError {}
/** The model or its API misbehaved (auth, overload, empty answers, …). */
export class ModelError extends FlowerError {}
/** A guard refused an action. */
export class GuardDenied extends FlowerError {}
/** A file flower reads is damaged; `keptAt` says where the original was kept. */
export class StateCorrupt extends FlowerError {
  readonly keptAt?: string;
  constructor(code: string, message: string, ctx: ErrorContext & { keptAt?: string } = {}) {
    super(code, message, ctx);
    if (ctx.keptAt !== undefined) this.keptAt = ctx.keptAt;
  }
}
/** A bug in flower itself. */
export class InternalError extends FlowerError {}

export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
