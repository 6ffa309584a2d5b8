/**
 * The option parsers of the command line, each with its error in the terminal's language. A leaf of
 * src/cli/: program.ts and commands.ts use them, and they import neither.
 */
import { InvalidArgumentError } from 'commander';
import type { UsageTexts } from './usage.js';

/** The parsers of the commands' own options (numbers, counts, ports). */
export function parsers(u: UsageTexts) {
  return {
    positiveNumber(v: string): number {
      const n = Number(v);
      if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(u.notPositive(v));
      return n;
    },
    integer(v: string): number {
      const n = Number(v);
      if (!Number.isInteger(n)) throw new InvalidArgumentError(u.notWhole(v));
      return n;
    },
    positiveInteger(v: string): number {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(u.notPositiveWhole(v));
      return n;
    },
    tokenCount(v: string): number {
      if (!/^\d+$/.test(v.trim()) || Number(v) <= 0) throw new InvalidArgumentError(u.notTokens(v));
      return Number(v);
    },
    seconds(v: string): number {
      const n = Number(v);
      if (!Number.isFinite(n)) throw new InvalidArgumentError(u.notSeconds(v));
      return n;
    },
    port(v: string): number {
      const n = Number(v);
      if (!Number.isInteger(n) || n < 0 || n > 65535) throw new InvalidArgumentError(u.notPort(v));
      return n;
    },
  };
}

export type Parsers = ReturnType<typeof parsers>;

/** `--pass-env NAME`: a variable name, nothing else. */
export function envName(v: string): string {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(v)) throw new InvalidArgumentError(`--pass-env takes a variable name (letters, digits, _), got ${JSON.stringify(v)}`);
  return v;
}

/** A repeatable option: every value, in order. */
export function collect(v: string, prev: string[]): string[] {
  return [...prev, v];
}
