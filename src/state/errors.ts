/**
 * flower's errors, sorted by who is at fault: the user's configuration (`ConfigError`), a damaged file
 * we read (`StateCorrupt`), a store that cannot be written (`StoreError`), or our own bug
 * (`InternalError`). Every error has a stable, kebab-case `code`, an actionable message, a `cause` when
 * there was one, and the step / session when known.
 *
 * The model's behaviour and a guard's refusal are not thrown: they end a step as a typed failure
 * (`model`, `guard-denied` in src/runtime/failure.ts) that the manifest row records.
 *
 * Type tests: `X.is(e)` is true for an X or a subclass of X — never for a sibling (`ConfigError.is(new
 * StateCorrupt(…))` is false). They work across two installed copies of the package: each class marks
 * its instances with `Symbol.for('flower.error:<ClassName>')`, for itself and every ancestor.
 */
const BASE = 'flower.error';
const markOf = (name: string): symbol => Symbol.for(`${BASE}:${name}`);
// the seed's mark, kept so an older copy's FlowerError.is still recognises our errors
const LEGACY = Symbol.for(BASE);

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

  constructor(code: string, message: string, ctx: ErrorContext = {}) {
    super(message, ctx.cause === undefined ? undefined : { cause: ctx.cause });
    this.name = new.target.name;
    this.code = code;
    if (ctx.step !== undefined) this.step = ctx.step;
    if (ctx.sessionId !== undefined) this.sessionId = ctx.sessionId;
    if (ctx.path !== undefined) this.path = ctx.path;
    const self = this as unknown as Record<symbol, boolean>;
    self[LEGACY] = true;
    // every class from the concrete one up to FlowerError marks the instance with its own name
    for (let c: unknown = new.target; typeof c === 'function' && c !== Function.prototype; c = Object.getPrototypeOf(c)) {
      self[markOf((c as { name: string }).name)] = true;
      if (c === FlowerError) break;
    }
  }

  /** Is `e` an instance of this class (or a subclass), from any installed copy of flower? */
  static is<T extends abstract new (...args: never[]) => FlowerError>(this: T, e: unknown): e is InstanceType<T> {
    return typeof e === 'object' && e !== null && (e as Record<symbol, unknown>)[markOf(this.name)] === true;
  }
}

/** The user's configuration or input is wrong: say which value and how to fix it; `field` names the option when there is one. */
export class ConfigError extends FlowerError {
  readonly field?: string;
  constructor(code: string, message: string, ctx: ErrorContext & { field?: string } = {}) {
    super(code, message, ctx);
    if (ctx.field !== undefined) this.field = ctx.field;
  }
}
/** A file flower reads is damaged; `keptAt` says where the original was kept. */
export class StateCorrupt extends FlowerError {
  readonly keptAt?: string;
  constructor(code: string, message: string, ctx: ErrorContext & { keptAt?: string } = {}) {
    super(code, message, ctx);
    if (ctx.keptAt !== undefined) this.keptAt = ctx.keptAt;
  }
}
/**
 * The session store or the run records failed (read-only, locked too long, disk full, not SQLite, a
 * PostgreSQL server gone, a key that cannot be stored): the run stops before any model call, or the
 * step fails with a `store` failure — never a silent loss. One family, whatever the backend: each
 * backend's errors subclass it (src/store/sqlite.ts, src/store/keys.ts, src/store/postgres/errors.ts),
 * so `StoreError.is(e)` is the one test the runtime's failure classification needs.
 */
export class StoreError extends FlowerError {
  /**
   * Also mark this instance as a `StateCorrupt` (a file we read is damaged), for the subclasses that are
   * both: a class has one parent, but `StateCorrupt.is(e)` reads marks, not the prototype chain.
   */
  protected markStateCorrupt(): void {
    (this as unknown as Record<symbol, boolean>)[markOf('StateCorrupt')] = true;
  }
}
/** A bug in flower itself: an invariant the code relies on did not hold (a step the loop cannot handle, …). */
export class InternalError extends FlowerError {}

export function errorText(e: unknown): string {
  if (e instanceof Error) return e.message;
  return String(e);
}
