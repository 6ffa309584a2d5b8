/**
 * The channel's limits, checked once when it is built: how many questions the agents may ask and how
 * long one waits — and the MCP call's own timeout, which must outlive that wait.
 */
import { ConfigError } from '../errors.js';
import type { HumanChannelOptions } from './types.js';

export const DEFAULT_TIMEOUT_S = 1800;

/** setTimeout's ceiling (~24.8 days); a longer wait would fire at once, so it counts as "forever". */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export function checkOptions(o: HumanChannelOptions): { maxAsks: number | null; timeoutS: number | null } {
  let maxAsks: number | null = null;
  if (o.maxAsks !== undefined && o.maxAsks !== null) {
    if (!Number.isInteger(o.maxAsks)) {
      throw new ConfigError('bad-max-asks', `HumanChannel maxAsks must be a whole number (null or negative = unlimited, 0 = none), got ${String(o.maxAsks)}.`);
    }
    maxAsks = o.maxAsks < 0 ? null : o.maxAsks;
  }
  let timeoutS: number | null = DEFAULT_TIMEOUT_S;
  if (o.timeoutS === null) timeoutS = null;
  else if (o.timeoutS !== undefined) {
    if (typeof o.timeoutS !== 'number' || Number.isNaN(o.timeoutS)) {
      throw new ConfigError(
        'bad-timeout',
        `HumanChannel timeoutS must be a number of seconds (null = wait forever, ≤ 0 = nobody is here), got ${String(o.timeoutS)}.`,
      );
    }
    timeoutS = o.timeoutS === Infinity ? null : o.timeoutS;
  }
  return { maxAsks, timeoutS };
}

/** The MCP call must outlive our own wait, or the harness cuts a question the person is typing. */
export function toolTimeoutMs(timeoutS: number | null): number | undefined {
  if (timeoutS === null) return MAX_TIMER_MS;
  if (timeoutS <= 0) return undefined;
  return Math.min(MAX_TIMER_MS, Math.ceil((timeoutS + 60) * 1000));
}
