// The read-only allowlist (handoff-context §2.4). One predicate serves two masters: the coordinator's
// glance guard ("may run") and resume-time expiry ("will expire"). Keeping them the same function is the
// invariant: anything allowed as a glance must be safe to forget, because its result goes stale.
// The mechanism (a shell lexer, a getopt model and per-verb tables) lives beside it in src/glance/; the rules are
// documented in docs/roles.md, "Glances".
import { judgeGlance, mayBeGlance, EPHEMERAL_VERBS, GLANCE_MAX_CHARS, type EphemeralVerdict } from './index.js';

export type { EphemeralVerdict };
export { EPHEMERAL_VERBS, GLANCE_MAX_CHARS };

/**
 * Why `command` may or may not run as a read-only glance (and so expire on resume). An allowed verdict
 * may carry `command`: the command to run instead (a recursive search with `.env` files excluded); the
 * caller runs `verdict.command ?? command`. Never throws; decides in linear time.
 */
export function judgeEphemeral(command: string): EphemeralVerdict {
  return judgeGlance(command);
}

/**
 * True when `command` only reads (possibly once rewritten, see judgeEphemeral): every simple command of `a && b | c ; d` is an allowlisted verb with
 * allowlisted options, and nothing expands, substitutes, redirects into a file or backgrounds.
 * @example isEphemeral('git status && ls -la | head') // true
 * @example isEphemeral('sed -i s/a/b/ f')              // false
 */
export function isEphemeral(command: string): boolean {
  // the first-word check spares the lexer most worker commands (resume-time expiry asks about every one)
  return mayBeGlance(command) && judgeGlance(command).ok;
}
