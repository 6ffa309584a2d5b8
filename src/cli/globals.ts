/**
 * What every command receives from the global flags: the options themselves, and the Runtime options the
 * security flags set. A leaf of src/cli/: the commands import it, and it imports none of them, so the
 * commands never import src/cli/program.ts (which loads them) back.
 */
import type { NetPolicy } from '../guards/sandbox.js';
import type { RunLimits } from '../runtime/limits.js';

export interface GlobalOptions {
  workspace: string;
  runDir: string;
  verbose: boolean;
  /** less on screen: no tool calls, no thinking, no worker activity */
  quiet?: boolean;
  /** set by `flower demo` (no flag): the costs on screen come from the scripted model and say so */
  simulated?: boolean;
  /** NDJSON events on stdout instead of the terminal rendering */
  json?: boolean;
  /** plugin folders (`--plugin DIR`, repeatable) */
  plugins?: string[];
  /** -w / -r given on the command line (not the defaults): `status` and `log` search upward only when not */
  workspaceGiven?: boolean;
  runDirGiven?: boolean;
  /** false with --no-sandbox: commands run outside the OS sandbox (said once, loudly) */
  sandbox?: boolean;
  /** --net on|off|HOSTS: the network for the commands of roles that write */
  net?: NetPolicy;
  /** --pass-env NAME: variables that reach commands on purpose */
  passEnv?: string[];
  /** --allow-read PATH / --deny-read PATH: credential places opened, more places closed */
  allowRead?: string[];
  denyRead?: string[];
  /** --budget / --deadline (or FLOWER_BUDGET / FLOWER_DEADLINE): this wake's limits, one object for every Runtime (throws a usage CliExit on a bad variable) */
  limits?: () => RunLimits;
  /** --notify URL / --notify-cmd CMD: where the person's notifications go (over FLOWER_NOTIFY / FLOWER_NOTIFY_CMD) */
  notify?: string;
  notifyCmd?: string;
  /** false with --no-bequest: no hand-over block in CLAUDE.md / AGENTS.md at the end of a run (also FLOWER_NO_BEQUEST=1; src/cli/bequest.ts) */
  bequest?: boolean;
}

export interface SecurityOptions {
  sandbox?: false;
  net?: NetPolicy;
  passEnv?: string[];
  allowRead?: string[];
  denyRead?: string[];
  limits?: RunLimits;
}

/** The Runtime options the global security flags set (spread into every Runtime the CLI makes). */
export function security(g: GlobalOptions): SecurityOptions {
  return {
    ...(g.sandbox === false ? { sandbox: false as const } : {}),
    ...(g.net !== undefined ? { net: g.net } : {}),
    ...(g.passEnv?.length ? { passEnv: g.passEnv } : {}),
    ...(g.allowRead?.length ? { allowRead: g.allowRead } : {}),
    ...(g.denyRead?.length ? { denyRead: g.denyRead } : {}),
    ...limitsOf(g),
  };
}

function limitsOf(g: GlobalOptions): { limits?: RunLimits } {
  const limits = g.limits?.();
  return limits && !limits.none ? { limits } : {};
}
