/**
 * Workflow — steps run in order against one Runtime, continuing their own sessions across processes.
 *
 * `continuous` (default true) changes what "no resumeFrom" means: a step continues the session
 * lineage remembers for its name, if sessions.db still has it. The lineage hook is attached only
 * around the step's OWN agent call — a gate that runs an agent (the judge) must never be recorded,
 * or the judge would take over the work step's lineage and stop being a fresh pair of eyes.
 */
import { ConfigError, errorText } from '../errors.js';
import type { HumanChannel } from '../human/index.js';
import { event, failure, type EventSink, type FlowerEvent, type StepResult } from '../runtime/index.js';
import { limitOf, type WorkflowContext, type WorkflowRuntime } from './context.js';
import { Lineage } from './lineage.js';
import { Step, StepAbort } from './step.js';

export interface WorkflowOptions {
  name?: string;
  /** the context dict threaded through the steps (reused across runs of this Workflow) */
  context?: Record<string, unknown>;
  /** continue each step's session from the last run in this folder (default true) */
  continuous?: boolean;
  /**
   * The human channel this workflow's roles ask through (give the same one to `clarifier(…, { channel })`
   * etc.): `flower run` connects the terminal to it — questions on screen, a digit answers, typed
   * remarks reach the inbox. Without one, nobody can answer a question.
   */
  channel?: HumanChannel;
  /**
   * The workbench (`.flower/`: spill files for big outputs, INDEX.md for new sessions). Default: on
   * when a step's spec wants it (`workbench: true`, e.g. a coordinator); false = off.
   */
  workbench?: boolean;
}

export interface WorkflowRunOptions {
  onEvent?: EventSink;
  onStep?: (name: string, result: StepResult, ctx: WorkflowContext) => void;
  /**
   * Aborted when the person asked to stop after this step (`flower stop --after-step`): the step in
   * progress (and its gate) finishes and is recorded, no further step or round starts, and
   * `ctx._stoppedAfter` names the last step run. The next run continues from there as after any stop.
   */
  stopAfterStep?: AbortSignal;
}

const describe = (v: unknown): string =>
  v === null ? 'null' : typeof v === 'object' ? `an object${v.constructor?.name ? ` (${v.constructor.name})` : ''}` : typeof v;

export class Workflow {
  readonly steps: Step[];
  readonly name: string;
  readonly context: WorkflowContext;
  readonly continuous: boolean;
  readonly channel: HumanChannel | undefined;
  /** whether a Runtime for this workflow should have the workbench on */
  readonly workbench: boolean;

  constructor(steps: Step[], o: WorkflowOptions = {}) {
    if (!Array.isArray(steps) || steps.length === 0) {
      throw new ConfigError(
        'bad-workflow',
        `Workflow needs at least one Step: its first argument must be a non-empty array, e.g. new Workflow([new Step('implement', spec, prompt)]); got ${Array.isArray(steps) ? 'an empty array' : typeof steps}.`,
        { field: 'steps' },
      );
    }
    const seen = new Map<string, number>();
    steps.forEach((s: unknown, i) => {
      if (!(s instanceof Step)) {
        throw new ConfigError('bad-workflow', `Workflow steps[${i}] is not a Step (got ${describe(s)}); build each one with new Step(name, spec, prompt).`, {
          field: `steps[${i}]`,
        });
      }
      const first = seen.get(s.name);
      if (first !== undefined) {
        throw new ConfigError(
          'bad-workflow',
          `steps[${first}] and steps[${i}] are both named '${s.name}': step names are lineage keys and must be unique; rename one (e.g. '${s.name}-2').`,
          { field: `steps[${i}].name`, step: s.name },
        );
      }
      seen.set(s.name, i);
    });
    this.steps = steps;
    this.name = o.name ?? 'workflow';
    this.context = Object.assign(o.context ?? {}, { _sessions: {}, _results: {} }) as WorkflowContext;
    this.continuous = o.continuous ?? true;
    this.channel = o.channel;
    this.workbench = o.workbench ?? steps.some((st) => st.spec.workbench === true);
  }

  async run(rt: WorkflowRuntime, o: WorkflowRunOptions = {}): Promise<WorkflowContext> {
    const ctx = this.context;
    // each run starts from what is on disk, not from a previous run's memory in this process
    ctx._sessions = {};
    ctx._results = {};
    delete ctx._failedAt;
    delete ctx._aborted;
    delete ctx._stoppedAfter;
    ctx._runtime = rt;
    if (o.onEvent) ctx._onEvent = o.onEvent;
    const emit = (kind: 'step' | 'retry' | 'system', text: string, payload: Record<string, unknown>) => o.onEvent?.(event(kind, text, payload));

    let lin: Lineage | undefined;
    if (this.continuous) {
      lin = await Lineage.open(rt.records ?? rt.runDir, rt.workspace, {
        alive: (sid) => rt.hasSession(sid),
        onNotice: (n) =>
          emit(
            'system',
            n.kind === 'foreign' ? `${n.path}: ${n.reason}; kept it as ${n.keptAt} and started fresh here` : `lineage ${n.reason}; started fresh`,
            { lineage: n.kind, keptAt: n.keptAt },
          ),
        ...(rt.layout ? { workbench: rt.layout.root } : {}),
      });
      ctx._lineage = lin;
      ctx._woke = await lin.bump();
      for (const [name, sid] of Object.entries(lin.steps)) ctx._sessions[name] ??= sid;
    }

    const total = this.steps.length;
    for (let i = 0; i < total; i++) {
      const step = this.steps[i]!;
      if (step.when && !(await step.when(ctx))) continue;
      const resume = this.resumeOf(step, ctx);
      const carried = resume !== undefined;
      emit('step', step.name, { index: i + 1, total, resumed: carried, woke: ctx._woke ?? 0 });
      const outcome = await this.attempts(rt, step, ctx, resume, lin, o.onEvent, o.stopAfterStep);
      const { result, passed } = outcome;
      // an ok run whose result was not accepted is a failed step: the screen must not say "done",
      // and the manifest row says ok: false with the reason
      if (!passed && result.ok) await markRejected(rt, result, outcome.why);

      ctx._results[step.name] = result;
      if (result.session_id) {
        ctx._sessions[step.name] = result.session_id;
        await lin?.remember(step.name, result.session_id);
      }
      try {
        o.onStep?.(step.name, result, ctx);
      } catch (e) {
        emit('system', `onStep failed: ${errorText(e)}`, {});
      }
      if (passed) {
        ctx[step.name] = step.reduce ? step.reduce(result, ctx) : result.text;
        if (o.stopAfterStep?.aborted && i < total - 1) return stoppedAfter(ctx, step.name, o.onEvent);
        continue;
      }
      // a limit stops the whole wake whatever the step's onFail says: every later step would stop on it too
      const limit = ctx._limit ?? limitOf(rt, result);
      if (!limit && outcome.stopped) return stoppedAfter(ctx, step.name, o.onEvent);
      if (limit || step.onFail === 'stop') {
        if (limit) ctx._limit = limit;
        ctx._failedAt = step.name;
        return ctx;
      }
      if (step.onFail === 'continue') ctx[step.name] = result.text;
    }
    return ctx;
  }

  /** The session a step continues: the one it names with resumeFrom, else its own from lineage (continuous). */
  private resumeOf(step: Step, ctx: WorkflowContext): string | undefined {
    if (step.resumeFrom === undefined) return this.continuous ? ctx._sessions[step.name] : undefined;
    const resume = ctx._sessions[step.resumeFrom];
    if (resume) return resume;
    throw new ConfigError(
      'dangling-resume-from',
      `step '${step.name}' resumes from '${step.resumeFrom}', which has no session in this run (was it skipped or misnamed?)`,
      { step: step.name },
    );
  }

  private async attempts(
    rt: WorkflowRuntime,
    step: Step,
    ctx: WorkflowContext,
    carried: string | undefined,
    lin: Lineage | undefined,
    onEvent?: EventSink,
    stop?: AbortSignal,
  ): Promise<{ result: StepResult; passed: boolean; why: string; stopped?: boolean }> {
    let resume = carried;
    const reasonOf = (r: StepResult): string => {
      const gateWhy = typeof ctx._rejected === 'string' && ctx._rejected ? ctx._rejected : 'the result did not pass its check';
      return r.ok ? gateWhy : (r.error ?? 'failed');
    };
    let fork = step.fork && resume !== undefined;
    let prompt = await step.render(ctx, resume !== undefined);
    let result: StepResult | undefined;
    for (let attempt = 0; attempt <= step.retries; attempt++) {
      const label = step.label(attempt);
      if (attempt > 0) onEvent?.(event('retry', label, { step: step.name, attempt: attempt + 1 }));
      const prev = rt.onSession;
      // invariant 1 of continuity: the mapping is on disk the moment the id exists
      rt.onSession = async (sid) => {
        ctx._sessions[step.name] = sid;
        await lin?.remember(step.name, sid);
      };
      try {
        result = await rt.run(step.spec, prompt, {
          stepName: label,
          ...(resume ? { resume } : {}),
          ...(fork ? { fork: true } : {}),
          onEvent: (e: FlowerEvent) => onEvent?.(e),
        });
      } finally {
        rt.onSession = prev;
      }
      delete ctx._rejected;
      // a step a limit stopped is neither judged nor tried again in this wake: the next one resumes it
      if (limitOf(rt, result)) return { result, passed: false, why: result.error ?? 'stopped by a limit' };
      const gated = await gateOf(step, result, ctx);
      if (gated.aborted !== undefined) return { result, passed: false, why: gated.aborted };
      if (gated.passed) return { result, passed: true, why: '' };
      if (attempt === step.retries) break;
      if (stop?.aborted) return { result, passed: false, why: reasonOf(result), stopped: true };
      // this attempt's own line (its cost) before the next one starts, and its row: not accepted is not ok
      const why = reasonOf(result);
      if (result.ok) await markRejected(rt, result, why);
      onEvent?.(event('task', label, { kind: 'attempt', step: step.name, result: { ...result, ok: false, error: why } }));
      const reply = step.onReject && result.session_id ? await step.onReject(result, ctx) : '';
      if (reply) {
        prompt = reply;
        resume = result.session_id ?? undefined;
        fork = false;
      } else {
        resume = undefined;
        fork = false;
        prompt = await step.render(ctx, false);
      }
    }
    return { result: result!, passed: false, why: reasonOf(result!) };
  }
}

/** The person asked to stop after this step: said once, and the context says where. */
/** Whether a step's result passes its gate; a StepAbort from the gate stops the workflow with its message. */
async function gateOf(step: Step, result: StepResult, ctx: WorkflowContext): Promise<{ passed: boolean; aborted?: string }> {
  if (!result.ok) return { passed: false };
  try {
    return { passed: step.gate ? await step.gate(result, ctx) : true };
  } catch (e) {
    if (!(e instanceof StepAbort)) throw e;
    ctx._aborted = e.message;
    return { passed: false, aborted: e.message };
  }
}

function stoppedAfter(ctx: WorkflowContext, step: string, onEvent?: EventSink): WorkflowContext {
  ctx._stoppedAfter = step;
  onEvent?.(event('system', `stopped after ${step}, as asked`, { stoppedAfter: step }));
  return ctx;
}

/**
 * A result its gate did not accept is a failed row with a typed failure (`rejected`), awaited before the
 * step goes on: the manifest must never show an accepted-looking row for work nobody accepted.
 */
async function markRejected(rt: WorkflowRuntime, result: StepResult, why: string): Promise<void> {
  const fields = { ok: false, error: why, failure: failure('rejected', why) };
  if (rt.amend) await rt.amend(result, fields);
  else Object.assign(result, fields);
}
