/**
 * Step — one named agent call in a Workflow, with its business-level retry policy.
 * Names are persistent keys: lineage maps the bare name to a session, so renaming a step silently
 * starts it fresh.
 */
import { ConfigError } from '../errors.js';
import type { AgentSpec, StepResult } from '../runtime/index.js';
import type { WorkflowContext } from './context.js';

export type Awaitable<T> = T | Promise<T>;
export type PromptSource = string | ((ctx: WorkflowContext) => Awaitable<string>);

export interface StepOptions {
  /** continue the session of this (earlier) step instead of this step's own */
  resumeFrom?: string;
  /** with a resumed session: continue under a new id */
  fork?: boolean;
  /** business retries after a failed or rejected attempt (total attempts = retries + 1) */
  retries?: number;
  /** decides whether an ok result is accepted; runs once per attempt, never on a failed one; may throw StepAbort */
  gate?: (result: StepResult, ctx: WorkflowContext) => Awaitable<boolean>;
  onFail?: 'stop' | 'skip' | 'continue';
  /** false → the step is skipped (no event, no result) */
  when?: (ctx: WorkflowContext) => Awaitable<boolean>;
  /** after a rejection: the prompt that resumes the same session (empty → rerun from scratch) */
  onReject?: (result: StepResult, ctx: WorkflowContext) => Awaitable<string>;
  /** sent instead of `prompt` when the step continues an existing session */
  resumePrompt?: PromptSource;
  /** what the step leaves in ctx[name] when it passes (default: the result text); synchronous */
  reduce?: (result: StepResult, ctx: WorkflowContext) => unknown;
}

// '#' marks retries and rounds (`X#retry1`, `X#round2`), '·判定' the judge's turn: never in a step's own name
const RESERVED = /#|·判定/;
const RESERVED_ALL = /#|·判定/g;
const ON_FAIL: readonly string[] = ['stop', 'skip', 'continue'];

/** Thrown by a gate to stop the step at once, without spending the remaining retries. */
export class StepAbort extends Error {
  constructor(message = 'step aborted') {
    super(message);
    this.name = 'StepAbort';
  }
}

export class Step {
  readonly name: string;
  readonly spec: AgentSpec;
  readonly prompt: PromptSource;
  readonly resumeFrom?: string;
  readonly fork: boolean;
  readonly retries: number;
  readonly gate?: StepOptions['gate'];
  readonly onFail: 'stop' | 'skip' | 'continue';
  readonly when?: StepOptions['when'];
  readonly onReject?: StepOptions['onReject'];
  readonly resumePrompt?: PromptSource;
  readonly reduce?: StepOptions['reduce'];

  constructor(name: string, spec: AgentSpec, prompt: PromptSource, o: StepOptions = {}) {
    if (typeof name !== 'string' || !name.trim()) {
      throw new ConfigError(
        'bad-step',
        `Step needs a name: its first argument must be a non-empty string (the step's lineage key), e.g. new Step('implement', spec, prompt); got ${JSON.stringify(name)}.`,
        { field: 'name' },
      );
    }
    if (RESERVED.test(name)) {
      throw new ConfigError(
        'bad-step',
        `Step name '${name}' may not contain '#' or '·判定' (they mark retries, rounds and judge turns); rename it, e.g. '${name.replace(RESERVED_ALL, '-')}'.`,
        { field: 'name', step: name },
      );
    }
    if (o.retries !== undefined && !(Number.isInteger(o.retries) && o.retries >= 0)) {
      throw new ConfigError(
        'bad-step',
        `Step '${name}': retries must be a whole number ≥ 0 (total attempts = retries + 1), got ${String(o.retries)}; write e.g. retries: 2, or leave it out for none.`,
        { field: 'retries', step: name },
      );
    }
    if (o.onFail !== undefined && !ON_FAIL.includes(o.onFail)) {
      throw new ConfigError(
        'bad-step',
        `Step '${name}': onFail must be 'stop', 'skip' or 'continue', got ${JSON.stringify(o.onFail)}; leave it out to stop the workflow on a failure.`,
        { field: 'onFail', step: name },
      );
    }
    this.name = name;
    this.spec = spec;
    this.prompt = prompt;
    if (o.resumeFrom !== undefined) this.resumeFrom = o.resumeFrom;
    this.fork = o.fork ?? false;
    this.retries = o.retries ?? 0;
    if (o.gate) this.gate = o.gate;
    this.onFail = o.onFail ?? 'stop';
    if (o.when) this.when = o.when;
    if (o.onReject) this.onReject = o.onReject;
    if (o.resumePrompt !== undefined) this.resumePrompt = o.resumePrompt;
    if (o.reduce) this.reduce = o.reduce;
  }

  /** A copy with some options replaced — keeps every other field (incident: rebuilding a step field by field dropped resumePrompt). */
  with(o: Partial<StepOptions> & { name?: string; spec?: AgentSpec; prompt?: PromptSource }): Step {
    const cur: StepOptions = {
      fork: this.fork,
      retries: this.retries,
      onFail: this.onFail,
      ...(this.resumeFrom !== undefined ? { resumeFrom: this.resumeFrom } : {}),
      ...(this.gate ? { gate: this.gate } : {}),
      ...(this.when ? { when: this.when } : {}),
      ...(this.onReject ? { onReject: this.onReject } : {}),
      ...(this.resumePrompt !== undefined ? { resumePrompt: this.resumePrompt } : {}),
      ...(this.reduce ? { reduce: this.reduce } : {}),
    };
    const { name, spec, prompt, ...rest } = o;
    return new Step(name ?? this.name, spec ?? this.spec, prompt ?? this.prompt, { ...cur, ...rest });
  }

  /** The text to send: `resumePrompt` when continuing a session and one exists, else `prompt`. */
  async render(ctx: WorkflowContext, resuming: boolean): Promise<string> {
    const src = resuming && this.resumePrompt !== undefined ? this.resumePrompt : this.prompt;
    return typeof src === 'function' ? await src(ctx) : src;
  }

  /** `X`, then `X#roundN` (sent back to continue) or `X#retryN` (plain retry). */
  label(attempt: number): string {
    if (attempt === 0) return this.name;
    return this.onReject ? `${this.name}#round${attempt + 1}` : `${this.name}#retry${attempt}`;
  }
}
