/**
 * One fault's shape: what it is given (the plausible turn, a seeded draw, the limits) and what it makes
 * (the item served, and which variant it drew). The catalogue is faults.ts; the faults themselves are
 * spoil-content.ts (what the answer says) and spoil-stream.ts (how the wire carries it).
 */
import type { SimAnswerFields, SimItem, SimTextItem, SimToolUseItem } from '../items.js';
import type { FuzzRole } from './options.js';
import type { Draw } from './rng.js';
import type { Plan, TurnContext } from './turns.js';

export interface FuzzLimits {
  /** No fault waits longer than this in all (slow tokens, one long gap). */
  maxDelayMs: number;
  /** Size range of a huge answer or tool input, in bytes. */
  hugeBytes: readonly [number, number];
}

export const DEFAULT_LIMITS: Readonly<FuzzLimits> = Object.freeze({ maxDelayMs: 30_000, hugeBytes: [1_000_000, 2_000_000] as const });

export interface FaultInput {
  ctx: TurnContext;
  plan: Plan;
  draw: Draw;
  limits: FuzzLimits;
}

export interface Faulted {
  item: SimItem;
  variant: string;
}

export interface FaultSpec {
  /** Default relative weight (docs/sim.md lists them). */
  weight: number;
  describe: string;
  /** Only a stream can carry it (a `stream:false` fallback request is answered plausibly). */
  streamOnly?: boolean;
  /**
   * Drawn once per conversation, not per request: a conversation it falls on keeps it on every later
   * turn it applies to (a model stuck in a loop), at `rate` × its share of the weights.
   */
  conversation?: boolean;
  /** Can it spoil this turn at all (e.g. bad_fields needs a tool call)? */
  applies?: (f: Pick<FaultInput, 'ctx' | 'plan'>) => boolean;
  make: (f: FaultInput) => Faulted;
}

/** The document a role submits, by role (the roles that submit none are absent). */
export const KIND_OF_ROLE: Partial<Record<FuzzRole, 'brief' | 'goal' | 'verdict' | 'handoff'>> = {
  clarify: 'brief',
  goal: 'goal',
  judge: 'verdict',
  handoff: 'handoff',
};

/** The answer item of a plan (text, or tool calls with an optional preamble). */
export function planItem(plan: Plan, extra: SimAnswerFields = {}): SimTextItem | SimToolUseItem {
  if (plan.calls.length === 0) return { type: 'text', text: plan.text ?? '', ...extra };
  return { type: 'tool_use', tools: plan.calls, ...(plan.text !== undefined ? { text: plan.text } : {}), ...extra };
}

/** The plausible turn makes a tool call (the faults that spoil a call's input need one). */
export const hasCall = (f: Pick<FaultInput, 'plan'>): boolean => f.plan.calls.length > 0;
