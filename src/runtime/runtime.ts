/**
 * Runtime — runs one agent step on the real SDK and records it.
 *
 * `run()` = options → spawn → stream → measure → (break / classify / wait / resume) → StepResult →
 * manifest row. The session id reaches `onSession` and the step's row the moment it exists (before
 * spawn for a new session, since we choose its id, and for a resumed one) — continuity's first
 * invariant: a kill -9 one second later must still find the step→session mapping on disk (rows.ts).
 *
 * Handoff (handoff.ts, window.ts): when the main-thread context reaches the threshold, or the API says
 * the prompt no longer fits, the session hands its work to a brand-new one through a written handoff
 * instead of compacting; `retired` keeps the old ids in order, `session_id` is the successor's.
 */
import { ConfigError, errorText } from '../errors.js';
import type { RunLayout, RunRecords } from '../state/index.js';
import type { Workbench } from '../guards/index.js';
import { describeRuntime, type FlowerStore, type RunOptions, type RuntimeOptions } from './setup.js';
import { prepareRuntime, releaseRuntime, type RuntimeContext } from './context.js';
import type { SkillKit } from './skills.js';
import type { RunLimits } from './limits.js';
import { Manifest, newRunId, type StepResult } from './manifest.js';
import { StepRows } from './rows.js';
import { costedSink, event } from './events.js';
// the life of an attempt, in order: options → spawn → stream → measure → break/handoff → classify → wait → resume
import { assembleAttempt, type AttemptBase, type AttemptInput } from './assemble.js';
import { beginRun, forgetLocalTranscripts } from './options.js';
import { drainAll, emptyOutcome, runAttempt, type AttemptOutcome, type InterruptCause, type LiveAttempt } from './attempt.js';
import { modelMismatch, wantedModel, type HandoffPolicy } from './window.js';
import { Generations, type Emit } from './handoff.js';
import { fromThrown, type StepFailure } from './failure.js';
import { runAttempts, type LoopHost } from './loop.js';
import { Interrupts } from './interrupts.js';
import { costSoFar, newResult } from './result.js';
import type { AgentSpec } from './spec.js';

export type { FlowerStore, RunOptions, RuntimeOptions, SandboxPolicy } from './setup.js';

export class Runtime {
  /** what this Runtime works with, prepared once by context.ts and frozen */
  private readonly ctx: RuntimeContext;
  readonly runId: string;
  readonly manifest: Manifest;
  /** set by a Workflow around a step's own agent call (never around a gate's) */
  onSession: ((sessionId: string) => void | Promise<void>) | undefined;
  /** mutable: a real overflow lowers the window for the rest of this Runtime (live calibration) */
  private readonly hand: HandoffPolicy;
  private mismatchWarned = false;
  private readonly live = new Set<LiveAttempt>();
  /** the steps' rows: begun, told the session id, rescued, ended (rows.ts) */
  private readonly rows: StepRows;
  /** a person's interrupt, scoped to the step run it was meant for (interrupts.ts) */
  private readonly interrupts = new Interrupts();
  private closed = false;
  /** a signal's shutdown under way (`shutdown`) */
  private dying: Promise<void> | undefined;
  private total = 0;
  /** the person's request as typed for this run: recorded on every row this Runtime writes (`flower ui` shows it) */
  request: string | undefined;

  constructor(o: RuntimeOptions = {}) {
    this.ctx = prepareRuntime(o);
    this.runId = newRunId();
    this.manifest = new Manifest(this.ctx.backend.records, this.runId, this.ctx.warn);
    this.rows = new StepRows(this.manifest, this.ctx.warn);
    this.hand = { ...this.ctx.handoff };
  }

  get workspace(): string {
    return this.ctx.layout.workspace;
  }
  get runDir(): string {
    return this.ctx.layout.runDir;
  }
  /** every path this Runtime uses (see src/state/layout.ts) */
  get layout(): RunLayout {
    return this.ctx.layout;
  }
  /** lineage, manifest rows, the run lock */
  get records(): RunRecords {
    return this.ctx.backend.records;
  }
  /** the project: FLOWER_PROJECT, else the absolute workspace path (lineage and manifest are keyed by it in PostgreSQL) */
  get project(): string {
    return this.ctx.backend.choice.project;
  }
  get projectKey(): string {
    return this.ctx.backend.choice.projectKey;
  }
  get store(): FlowerStore {
    return this.ctx.store;
  }
  get workbench(): Workbench | undefined {
    return this.ctx.workbench;
  }
  /** project, personal and plugin skills, discovered once */
  get skills(): SkillKit {
    return this.ctx.skills;
  }
  /** every step runs inside the OS sandbox (recorded as `sandboxed` on its manifest row) */
  get sandboxed(): boolean {
    return this.ctx.sandboxed;
  }
  /** this wake's budget and deadline, shared with the other Runtimes of the wake */
  get limits(): RunLimits {
    return this.ctx.limits;
  }

  /**
   * The effective configuration, secrets masked (first 4 characters and the length): what `-v` prints,
   * so "which gateway / key / window is this using?" has an answer — one labelled line per setting.
   */
  describe(): string {
    return this.describeLines().join('\n. ');
  }

  describeLines(): string[] {
    return describeRuntime({
      env: this.ctx.resolved.env,
      hand: this.hand,
      read: this.ctx.resolved.read,
      ignored: this.ctx.resolved.ignored,
      skills: this.ctx.skills.describe(),
      store: `store ${this.ctx.backend.where}`,
      writable: this.ctx.floor.wall.input.writable,
      secretNames: this.ctx.floor.secretNames,
    });
  }

  /**
   * Connect to the store and check its schema (PostgreSQL; nothing to do for the files): an
   * unreachable server, a wrong password, a missing database fail here with one line, before any
   * model call. `run()` calls it too.
   */
  ready(): Promise<void> {
    return this.ctx.backend.ready();
  }

  /** Is this session still in sessions.db (for this workspace)? */
  hasSession(sessionId: string): Promise<boolean> {
    return this.store.hasSession(sessionId, this.projectKey);
  }

  /** How the store is named in messages: its file when it has one. */
  private storeName(): string {
    return this.ctx.storeFile ?? 'the session store';
  }

  /** Main-thread context size of the session's last turn, 0 when unknown. */
  contextOf(sessionId: string): Promise<number> {
    return this.store.lastContext(sessionId, { projectKey: this.projectKey });
  }

  /** The handoff policy in force (its window drops at once after a real overflow). */
  get handoffPolicy(): Readonly<HandoffPolicy> {
    return { ...this.hand };
  }

  /**
   * Correct a finished run's row after what decides it is known — a judge's verdict, a gate that
   * rejected an ok result (then `ok: false` and why). The returned StepResult changes too.
   */
  async amend(result: StepResult, fields: Partial<Pick<StepResult, 'ok' | 'error' | 'verdict' | 'failure'>>): Promise<void> {
    Object.assign(result, fields);
    // a failed row carries its failure in `errors` too, as every failed attempt does
    if (fields.ok === false && fields.error) result.errors.push(fields.error);
    await this.rows.rewrite(result);
  }

  /** Total cost of every step this Runtime ran. */
  totalCost(): number {
    return this.total;
  }

  async run(spec: AgentSpec, prompt: string, opts: RunOptions = {}): Promise<StepResult> {
    if (this.closed) throw new ConfigError('runtime-closed', 'this Runtime was closed; create a new one');
    if (this.dying) await PARKED;
    await this.ready();
    const step = opts.stepName ?? spec.name;
    if (this.ctx.storeCheck) await this.ctx.storeCheck;
    // a resume the store cannot serve would cost a spawn and end in the binary's "No conversation
    // found" (and its usage text): say so at once, before any model call
    if (opts.resume !== undefined && !(await this.hasSession(opts.resume))) {
      throw new ConfigError(
        'unknown-session',
        `no session ${JSON.stringify(opts.resume)} in ${this.storeName()} for ${this.workspace} — \`flower log\` lists the sessions of this run dir`,
        { step, sessionId: opts.resume },
      );
    }
    const result = newResult(step, this.sandboxed);
    if (this.request) result.request = this.request;
    // a resumed session's id is known before anything starts: the step's first row already names it
    if (opts.resume !== undefined && !opts.fork) result.session_id = opts.resume;
    const row = await this.rows.begin(result);
    const announce = this.rows.announcer(row, () => [opts.onSession, this.onSession]);
    const emit: Emit = (kind, text, payload) => {
      opts.onEvent?.({ ...event(kind, text, { step, ...payload }), step });
    };
    // per step: the watermark, the "near" notice and the degraded streak never carry over (the
    // original handed off at once in step two without the reset)
    const gens = new Generations(
      {
        workspace: this.workspace,
        lang: this.ctx.lang,
        env: this.ctx.resolved.env,
        policy: this.hand,
        warn: this.ctx.warn,
        layout: this.workbench ? this.layout.withWorkbench(this.workbench.root) : this.layout,
        // no workbench, no notes/ on disk: the handoff lives in the successor's prompt and the events
        notes: this.workbench !== undefined,
        contextOf: (sid) => this.contextOf(sid),
        attempt: (s, p, resume) => this.attempt({ spec: s, prompt: p, step, resume, hooks: opts.hooks, limited: false }, announce),
      },
      { spec, step, task: prompt, result, emit },
    );
    beginRun();
    const mine = this.interrupts.begin();
    try {
      await runAttempts(this.loopHost(mine), { spec, task: prompt, step, opts, result, announce, emit, gens });
    } catch (e) {
      result.ok = false;
      result.error = errorText(e);
      result.errors.push(result.error);
      // decided in failure.ts: a store that failed is a `store` failure, a bad configuration `config`
      result.failure = fromThrown(e);
    } finally {
      this.interrupts.end();
      result.ended_at = new Date().toISOString();
      this.total += result.cost_usd;
      await this.rows.end(row);
      forgetLocalTranscripts();
    }
    return result;
  }

  /** #23: a gateway served another model than the one named; the window guessed from the name is suspect. */
  private checkModel(spec: AgentSpec, o: AttemptOutcome, emit: Emit): void {
    if (this.mismatchWarned || !o.servedModel) return;
    const want = wantedModel(spec.model, this.ctx.resolved.env);
    if (!modelMismatch(want, o.servedModel)) return;
    this.mismatchWarned = true;
    emit(
      'error',
      `the endpoint served ${o.servedModel} although ${want} is configured; the context window guessed from the name ` +
        `(${this.hand.window}) may be wrong — set FLOWER_WINDOW or --window to the served model's window`,
      { model_mismatch: true, want, served: o.servedModel },
    );
  }

  private async attempt(
    a: AttemptInput,
    announce: (sid: string) => Promise<void>,
    shouldBreak?: (context: number) => InterruptCause | null,
  ): Promise<AttemptOutcome> {
    if (this.dying) await PARKED;
    const limits = this.ctx.limits;
    const limited = a.limited !== false && !limits.none;
    // a limit already reached starts nothing: the step stops with it, resumable on the next wake
    const blocked = limited ? limits.blocked() : null;
    if (blocked) return stoppedBy(blocked, a.resume);
    // a resumed (or forked) session reports its cost since the session began, not since this attempt
    const before = a.resume ? await costSoFar(this.ctx.store, this.projectKey, a.resume) : 0;
    const { options, prompt } = assembleAttempt(this.attemptBase(), a);
    // the binary stops after the model call that crosses its maxBudgetUsd, counting only this process's spend
    const cap = limited ? limits.attemptCap(options.maxBudgetUsd) : { cap: options.maxBudgetUsd, binding: false };
    if (cap.cap !== undefined) options.maxBudgetUsd = cap.cap;
    const deadlineAt = limited ? limits.settings.deadlineAt : undefined;
    const onEvent = a.onEvent ? costedSink(a.onEvent, this.total + (this.rows.current?.result.cost_usd ?? 0), before) : undefined;
    const out = await runAttempt(prompt, options, {
      step: a.step,
      humanInterrupt: () => this.interrupts.now !== null,
      watchdogS: this.ctx.watchdogS,
      onSession: announce,
      ...(onEvent ? { onEvent } : {}),
      ...(shouldBreak ? { shouldBreak } : {}),
      ...(deadlineAt !== undefined ? { deadlineAt } : {}),
      register: (live) => {
        this.live.add(live);
        return () => this.live.delete(live);
      },
    });
    // ended by a signal's shutdown (drain): nothing after it runs, the process dies of the signal
    if (this.dying) await PARKED;
    out.costUsd = Math.max(0, out.costUsd - before);
    limits.add(out.costUsd);
    // said in the run's words: what was spent of what, and how to go on
    if (out.failure?.kind === 'budget' && cap.binding && /max_budget|budget cap/i.test(out.error ?? '')) named(out, limits.budgetFailure());
    if (out.interrupted === 'deadline') named(out, limits.deadlineFailure());
    return out;
  }

  /** What the attempt loop (loop.ts) may use of this Runtime. */
  private loopHost(step: number): LoopHost {
    return {
      attempt: (a, announce, shouldBreak) => this.attempt(a, announce, shouldBreak),
      checkModel: (spec, o, emit) => this.checkModel(spec, o, emit),
      modelOf: (spec) => wantedModel(spec.model, this.ctx.resolved.env),
      interruptRequest: () => this.interrupts.for(step),
      takeInterrupt: () => this.interrupts.take(),
      hasSession: (sid) => this.hasSession(sid),
      record: (result) => this.rows.rewrite(result),
      wait: { policy: this.ctx.resilience, env: this.ctx.resolved.env, closed: () => this.closed, store: this.ctx.backend.server },
      policy: this.ctx.resilience,
      lang: this.ctx.lang,
    };
  }

  /** What every attempt's options are assembled from (assemble.ts). */
  private attemptBase(): AttemptBase {
    const c = this.ctx;
    return {
      floor: c.floor,
      skills: c.skills,
      store: c.store,
      layout: c.layout,
      workspace: c.layout.workspace,
      workbench: c.workbench,
      tmpDir: c.tmpDir,
      cliRetries: c.cliRetries,
      handoff: this.hand.enabled,
      projectEnv: c.projectEnv,
      sandboxed: c.sandboxed,
      net: c.net,
      spill: c.spill,
      detachChildren: c.detachChildren,
      lang: c.lang,
    };
  }

  /**
   * Ask the running step to stop cleanly at its next message boundary and continue the SAME session
   * with `remark` (plus a note to adjust and carry on); with no remark, the plain resume prompt.
   * Callable at any time; a second call before the boundary replaces the remark. Never counts as an
   * attempt. In-flight subagent work is lost (the worker's turn is cut with the coordinator's).
   */
  interrupt(remark = ''): void {
    this.interrupts.ask(remark);
  }

  /** Is an interrupt waiting for the next message boundary? */
  get interrupting(): boolean {
    return this.interrupts.pending;
  }

  /**
   * Write the in-flight step as failed with `reason` (SIGHUP/SIGTERM): the row, with its session id,
   * must reach the manifest before the process dies (`shutdown` waits for it).
   */
  rescue(reason = 'killed-by-signal'): void {
    this.rows.rescue(reason);
  }

  /**
   * A signal ends the process: the in-flight step is written as `reason` with its session id, no write
   * after it. The children and the store close once, at most `waitMs` later, the row and a session id on
   * its way have landed (closing the pool under them lost the row: PostgreSQL) and the turn in progress
   * has ended with its transcript in the store (LiveAttempt.drain: a wake SIGTERMed with its resumed
   * prompt at the model lost it). Nothing new starts; an ended attempt parks, its caller never exits.
   */
  shutdown(reason = 'killed-by-signal', waitMs = 3000): Promise<void> {
    if (this.dying) return this.dying;
    this.rescue(reason);
    this.manifest.seal();
    this.dying = Promise.all([this.rows.settled(waitMs), drainAll(this.live, waitMs)]).then(() => this.close());
    return this.dying;
  }

  /** End every child process and close the store. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stopChildren();
    releaseRuntime(this.ctx);
  }

  private stopChildren(): void {
    for (const live of this.live) {
      try {
        live.stop();
      } catch {
        /* already gone */
      }
    }
    this.live.clear();
  }
}

/** Where a step or an attempt asked for during a signal's shutdown waits: the process dies of the signal first. */
const PARKED = new Promise<never>(() => {});

/** The outcome of an attempt a limit kept from starting: nothing spent, the session unchanged. */
function stoppedBy(f: StepFailure, resume: string | undefined): AttemptOutcome {
  return { ...emptyOutcome(), sessionId: resume ?? null, error: f.message, failure: f, errors: [f.message] };
}

function named(out: AttemptOutcome, f: StepFailure): void {
  out.failure = f;
  out.error = f.message;
  out.errors.push(f.message);
}
