/**
 * The fleet's timing and retry settings, from flags over the environment over the defaults. Pure.
 *
 * A dead worker's task is taken over after its lease runs out and the engine's next supervision
 * (expiry) pass: at most lease + supervise + poll seconds. The defaults keep that under two minutes
 * (60 + 30 + 2 = 92 s); tests set them to a few seconds.
 */
import { ConfigError } from '../errors.js';

export interface FleetTiming {
  /** seconds a take of a task is good for without a heartbeat (FLOWER_FLEET_LEASE, default 60) */
  leaseS: number;
  /** seconds between heartbeats that renew the lease (FLOWER_FLEET_HEARTBEAT, default lease / 4) */
  heartbeatS: number;
  /** seconds between the engine's supervision passes, which expire dead leases (FLOWER_FLEET_SUPERVISE, default 30) */
  superviseS: number;
  /** seconds between a free slot's looks at the queue (FLOWER_FLEET_POLL, default 2) */
  pollS: number;
}

export interface FleetRetry {
  /** takes after the first before a task ends failed (FLOWER_FLEET_RETRIES, default 5) */
  retryLimit: number;
  /** seconds before a task handed back or failed is offered again (FLOWER_FLEET_RETRY_DELAY, default 5) */
  retryDelayS: number;
}

export const DEFAULT_TIMING: FleetTiming = { leaseS: 60, heartbeatS: 15, superviseS: 30, pollS: 2 };
export const DEFAULT_RETRY: FleetRetry = { retryLimit: 5, retryDelayS: 5 };

type Env = Record<string, string | undefined>;

function num(env: Env, name: string, flag: number | undefined, min: number, integer = false): number | undefined {
  if (flag !== undefined) return flag;
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const v = Number(raw);
  if (!Number.isFinite(v) || v < min || (integer && !Number.isInteger(v))) {
    throw new ConfigError('bad-fleet-setting', `${name} is "${raw}": use ${integer ? 'a whole number' : 'a number of seconds'} of at least ${min}`);
  }
  return v;
}

/** The timing a worker uses: `--lease` and friends over FLOWER_FLEET_* over the defaults. */
export function fleetTiming(env: Env, flags: Partial<FleetTiming> = {}): FleetTiming {
  const leaseS = num(env, 'FLOWER_FLEET_LEASE', flags.leaseS, 2) ?? DEFAULT_TIMING.leaseS;
  const heartbeatS = num(env, 'FLOWER_FLEET_HEARTBEAT', flags.heartbeatS, 0.2) ?? Math.max(0.5, leaseS / 4);
  if (heartbeatS >= leaseS) {
    throw new ConfigError(
      'bad-fleet-setting',
      `the heartbeat (${heartbeatS} s) must be shorter than the lease (${leaseS} s): a live worker would lose its task`,
    );
  }
  // the engine counts its intervals in whole seconds, at least one
  const superviseS = Math.max(1, Math.round(num(env, 'FLOWER_FLEET_SUPERVISE', flags.superviseS, 1) ?? DEFAULT_TIMING.superviseS));
  const pollS = Math.max(0.5, num(env, 'FLOWER_FLEET_POLL', flags.pollS, 0.5) ?? DEFAULT_TIMING.pollS);
  return { leaseS, heartbeatS, superviseS, pollS };
}

/** The engine's retries for new tasks: FLOWER_FLEET_RETRIES / FLOWER_FLEET_RETRY_DELAY over the defaults. */
export function fleetRetry(env: Env): FleetRetry {
  return {
    retryLimit: num(env, 'FLOWER_FLEET_RETRIES', undefined, 0, true) ?? DEFAULT_RETRY.retryLimit,
    retryDelayS: num(env, 'FLOWER_FLEET_RETRY_DELAY', undefined, 0, true) ?? DEFAULT_RETRY.retryDelayS,
  };
}

/** The longest a dead worker's task waits before another worker may take it, in seconds. */
export function takeoverBound(t: FleetTiming): number {
  return t.leaseS + t.superviseS + t.pollS;
}
