/**
 * Errors raised by the scripted model server: a `FlowerError` whose `code` is one of the kebab-case
 * names below (stable: tests and callers match on them).
 */

import { FlowerError } from '../errors.js';
export type SimErrorCode =
  /** A scenario file or an enqueued item is malformed (wrong type, unknown or bad field). */
  | 'sim-scenario-invalid'
  /** The scenario file could not be read or is not JSON. */
  | 'sim-scenario-read'
  /** `assertConsumed()`: scripted items were never served. */
  | 'sim-unconsumed'
  /** `assertNoUnexpected()`: the model was called when no scripted item matched. */
  | 'sim-unexpected-call'
  /** `restart()` or `startSim()` could not listen because the port is taken. */
  | 'sim-port-in-use'
  /** Listening failed for another reason (permission, bad port). */
  | 'sim-listen-failed'
  /** The request log file cannot be written. */
  | 'sim-log-file';

export interface SimErrorDetails {
  /** Index of the offending item in the scenario's `items` (or in the enqueued batch). */
  index?: number | undefined;
  /** Field path inside the item, e.g. `match.not.lastUserIncludes`. */
  field?: string | undefined;
  /** File involved (scenario or log file). */
  file?: string;
  port?: number;
  cause?: unknown;
}

export class SimError extends FlowerError {
  override readonly code: SimErrorCode;
  readonly index?: number;
  readonly field?: string;
  readonly file?: string;
  readonly port?: number;

  constructor(code: SimErrorCode, message: string, details: SimErrorDetails = {}) {
    super(code, message, details.cause === undefined ? {} : { cause: details.cause });
    this.code = code;
    if (details.index !== undefined) this.index = details.index;
    if (details.field !== undefined) this.field = details.field;
    if (details.file !== undefined) this.file = details.file;
    if (details.port !== undefined) this.port = details.port;
  }
}
