// Why a PostgreSQL store cannot be used, decided where the driver fails (its error `code`, never the
// message text). Each reason has its own one-line message naming host:port and the database, so a
// person can tell "the server is down" from "the password is wrong" from "create the database".
import { StoreError } from '../../errors.js';

export type PgFailure = 'bad-url' | 'unreachable' | 'auth' | 'no-database' | 'permission' | 'future-version' | 'foreign-schema';

/** Where a store points, for messages: never the password. */
export interface PgTarget {
  host: string;
  port: number;
  database: string;
  user: string;
}

export const targetText = (t: PgTarget): string => `${t.host}:${t.port}/${t.database}`;

/** A failure of the PostgreSQL store (sessions or run records): a StoreError, so a step it stops is a `store` failure. */
export class PgStoreError extends StoreError {
  constructor(
    readonly reason: PgFailure,
    message: string,
    readonly target: PgTarget | undefined,
    options: { cause?: unknown } = {},
  ) {
    super(`pg-${reason}`, message, options.cause === undefined ? {} : { cause: options.cause });
  }

  /** Only an unreachable server may come back by itself; the others need a person. */
  get retryable(): boolean {
    return this.reason === 'unreachable';
  }
}

// node's socket errors that mean "no server answered there (now)".
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE', 'ECONNABORTED']);
// SQLSTATEs: class 08 (connection exception) and the server going away under us.
const GONE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

function codeOf(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : undefined;
}

/** A failure that means the server is not reachable right now (worth waiting for). */
export function isConnectionLoss(e: unknown): boolean {
  if (e instanceof PgStoreError) return e.reason === 'unreachable';
  const code = codeOf(e);
  if (code && (NETWORK_CODES.has(code) || GONE_STATES.has(code) || code.startsWith('08'))) return true;
  // pg raises plain Errors for a socket closed mid-query and for its connect timeout
  const msg = e instanceof Error ? e.message : '';
  return e instanceof Error && !code && /Connection terminated|connection timeout|Client has encountered a connection error|not queryable/i.test(msg);
}

/** Map a driver error to a PgStoreError when it is one of the known cases; other errors pass through. */
export function asPgStoreError(e: unknown, t: PgTarget): unknown {
  if (e instanceof PgStoreError) return e;
  const at = targetText(t);
  const code = codeOf(e);
  const why = e instanceof Error ? e.message : String(e);
  if (isConnectionLoss(e)) {
    return new PgStoreError(
      'unreachable',
      `cannot reach PostgreSQL at ${t.host}:${t.port} (${code ?? why}; connection lost); is the server running and FLOWER_STORE right?`,
      t,
      { cause: e },
    );
  }
  if (code === '28P01' || code === '28000') {
    return new PgStoreError(
      'auth',
      `PostgreSQL at ${t.host}:${t.port} refused user "${t.user}": wrong password or no access (${code}); check the user and password in FLOWER_STORE`,
      t,
      { cause: e },
    );
  }
  if (code === '3D000') {
    return new PgStoreError(
      'no-database',
      `database "${t.database}" does not exist on ${t.host}:${t.port}; create it first (createdb ${t.database}) — flower creates its own tables, not the database`,
      t,
      { cause: e },
    );
  }
  if (code === '42501') {
    return new PgStoreError(
      'permission',
      `user "${t.user}" has no permission for flower's tables in ${at} (${why}); grant it CREATE on the database, or USAGE and table rights on schema flower`,
      t,
      { cause: e },
    );
  }
  return e;
}
