// A per-decision work budget. An audit found a 31-character glob (`cat .*****…x`) that sent a RegExp into
// exponential backtracking and froze flower's event loop, and a 9,000-character one that threw. Every loop
// of the classifier that walks input text now charges this counter; past its limit the glance is refused
// (a worker can still run the command), so no input can make a decision slow, whatever it is.

/** Thrown by `Budget.spend` past the limit; `judgeGlance` turns it into a refusal. */
export class BudgetExceeded extends Error {
  constructor() {
    super('the command is too complex to check as a glance');
  }
}

/**
 * Steps one decision may take. Everyday commands take a few hundred to a few thousand; the adversarial
 * table in test/guards/ephemeral-adversarial.test.ts stays far below 250 ms at this limit.
 */
export const GLANCE_MAX_STEPS = 2_000_000;

export class Budget {
  private used = 0;
  /** results of glob matches already made in this decision (a glob of many `*` components asks the same question per component) */
  readonly memo = new Map<string, boolean>();
  constructor(readonly limit: number = GLANCE_MAX_STEPS) {}

  /** Charges `n` steps; throws BudgetExceeded past the limit. */
  spend(n = 1): void {
    this.used += n;
    if (this.used > this.limit) throw new BudgetExceeded();
  }

  get steps(): number {
    return this.used;
  }
}
