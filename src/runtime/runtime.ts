/**
 * Runtime — runs one agent step on the real SDK and records it.
 *
 * `run()` = options → spawn → stream → measure → (break / classify / wait / resume) → StepResult →
 * manifest row. The session id reaches `onSession` the moment it exists (before spawn for a new
 * session, since we choose its id) — continuity's first invariant: a kill -9 one second later must
 * still find the step→session mapping on disk.
 *
 * Handoff (handoff.ts, window.ts): when the main-thread context reaches the threshold, or the API says
 * the prompt no longer fits, the session hands its work to a brand-new one through a written handoff
 * instead of compacting; `retired` keeps the old ids in order, `session_id` is the successor's.
 */
import path from 'node:path';
import { ConfigError, errorText } from '../errors.js';
import { RunLayout, type RunRecords } from '../state/index.js';
import { configHome, requireCredentials, resolveEnv, type ResolvedEnv } from '../config/index.js';
import { pluginDirsFromEnv } from '../skills/index.js';
import { ViewedStore, openStore, type OpenedStore } from '../store/index.js';
import { Workbench, type NetPolicy } from '../guards/index.js';
import { detectLang, type Lang } from '../config/index.js';
import { checkSandbox, describeRuntime, posNum, prepareDirs, type FlowerStore, type RunOptions, type RuntimeOptions, type SandboxPolicy } from './setup.js';
import { Floor } from './floor.js';
import { SkillKit } from './skills.js';
import { Manifest, newRunId, type StepResult } from './manifest.js';
import { event } from './events.js';
// the life of an attempt, in order: options → spawn → stream → measure → break/handoff → classify → wait → resume
import { assembleAttempt, type AttemptBase, type AttemptInput } from './assemble.js';
import { beginRun, forgetLocalTranscripts, privateConfigDir, privateTmpDir, removeTmpDirs } from './options.js';
import { runAttempt, type AttemptOutcome, type InterruptCause } from './attempt.js';
import { handoffPolicy, modelMismatch, type HandoffPolicy } from './window.js';
import { Generations, type Emit } from './handoff.js';
import { failure, fromThrown } from './failure.js';
import { runAttempts, type LoopHost } from './loop.js';
import { Interrupts } from './interrupts.js';
import { DEFAULT_RESILIENCE, resilienceFromEnv, type ResilienceOptions } from './resilience.js';
import { costSoFar, newResult } from './result.js';
import type { AgentSpec } from './spec.js';

export type { FlowerStore, RunOptions, RuntimeOptions, SandboxPolicy } from './setup.js';

export class Runtime {
  readonly workspace: string;
  readonly runDir: string;
  /** every path this Runtime uses (see src/state/layout.ts) */
  readonly layout: RunLayout;
  /** lineage, manifest rows, the run lock */
  readonly records: RunRecords;
  readonly runId: string;
  readonly projectKey: string;
  readonly manifest: Manifest;
  readonly store: FlowerStore;
  /** what FLOWER_STORE / --store names, opened by src/store/open.ts (the one place that picks a backend) */
  private readonly backend: OpenedStore;
  /** the project: FLOWER_PROJECT, else the absolute workspace path (lineage and manifest are keyed by it in PostgreSQL) */
  readonly project: string;
  /** for the child: the SDK project key of a named project (the same on every host) */
  private readonly projectEnv: Record<string, string>;
  readonly workbench: Workbench | undefined;
  /** set by a Workflow around a step's own agent call (never around a gate's) */
  onSession: ((sessionId: string) => void | Promise<void>) | undefined;
  private readonly resolved: ResolvedEnv;
  private readonly cliRetries: number;
  private readonly watchdogS: number;
  /** mutable: a real overflow lowers the window for the rest of this Runtime (live calibration) */
  private readonly hand: HandoffPolicy;
  private readonly policy: ResilienceOptions | null;
  private mismatchWarned = false;
  private readonly lang: Lang;
  private readonly detachChildren: boolean;
  private readonly warn: (m: string) => void;
  private readonly live = new Set<() => void>();
  /** an asynchronous store's writability check, awaited before the first model call */
  private storeCheck: Promise<void> | undefined;
  /** `<runDir>/sessions.db` when flower opened the store itself */
  private readonly storeFile: string | undefined;
  private inflight: { result: StepResult; index: number } | undefined;
  /** a person asked to stop at the next message boundary (Ctrl+C), with an optional remark */
  /** a person's interrupt, scoped to the step run it was meant for (interrupts.ts) */
  private readonly interrupts = new Interrupts();
  private closed = false;
  private total = 0;
  /** project, personal and plugin skills, discovered once */
  readonly skills: SkillKit;
  /** every step runs inside the OS sandbox (recorded as `sandboxed` on its manifest row) */
  readonly sandboxed: boolean;
  private readonly sandboxPolicy: SandboxPolicy;
  private readonly net: NetPolicy;
  private readonly tmpDir: string;
  /** what the binary is handed, where its tools may write and read, which values no output shows */
  private readonly floor: Floor;

  constructor(o: RuntimeOptions = {}) {
    const env = o.env ?? process.env;
    this.warn = o.onWarning ?? ((m) => process.stderr.write(`! ${m}\n`));
    this.layout =
      o.layout ??
      RunLayout.of({
        ...(o.workspace !== undefined ? { workspace: o.workspace } : {}),
        ...(o.runDir !== undefined ? { runDir: o.runDir } : {}),
        ...(o.workbench instanceof Workbench ? { workbench: o.workbench.root } : {}),
      });
    // `./.env` is the layout's current directory's, the one every other path is resolved against
    this.resolved = resolveEnv(env, this.layout.cwd);
    requireCredentials(this.resolved);
    this.sandboxed = o.sandbox !== false;
    this.sandboxPolicy = o.sandbox === false ? {} : (o.sandbox ?? {});
    this.net = o.net ?? 'on';
    checkSandbox(this.sandboxed, this.resolved.env.PATH ?? process.env.PATH ?? '', this.warn);
    this.workspace = this.layout.workspace;
    this.runDir = this.layout.runDir;
    prepareDirs(this.workspace, this.runDir);
    this.tmpDir = privateTmpDir();
    const wbRoot = o.workbench instanceof Workbench ? o.workbench.root : o.workbench ? this.layout.root : undefined;
    try {
      this.floor = new Floor({
        layout: this.layout,
        resolved: this.resolved,
        workbench: wbRoot,
        tmpDir: this.tmpDir,
        configDir: privateConfigDir(),
        allowWrite: this.sandboxPolicy.allowWrite ?? [],
        passEnv: o.passEnv ?? [],
        allowRead: o.allowRead ?? [],
        denyRead: o.denyRead ?? [],
        protect: [...(o.protect ?? []), ...(o.plugins ?? [])],
        warn: this.warn,
      });
    } catch (e) {
      removeTmpDirs(this.tmpDir);
      throw e;
    }
    this.runId = newRunId();
    // FLOWER_STORE (process env or .env files; the CLI's --store sets it) and FLOWER_PROJECT
    try {
      this.backend = openStore(this.resolved.env, this.layout, { sessions: o.store ? false : 'create', ...(o.records ? { records: o.records } : {}) });
    } catch (e) {
      removeTmpDirs(this.tmpDir);
      this.floor.close();
      throw e;
    }
    this.project = this.backend.choice.project;
    this.projectKey = this.backend.choice.projectKey;
    // the SDK takes CLAUDE_CODE_PROJECT_DIR_NAME from the child's env as the key of a named project
    this.projectEnv = this.backend.choice.named ? { CLAUDE_CODE_PROJECT_DIR_NAME: this.projectKey } : {};
    this.records = this.backend.records;
    this.manifest = new Manifest(this.records, this.runId, this.warn);
    this.storeFile = o.store ? undefined : this.backend.file;
    // sessions: 'create' always opens one: null only for `sessions: false`, when o.store is used instead
    this.store =
      o.store ??
      new ViewedStore(
        this.backend.sessions!,
        this.workspace,
        {
          trim: o.trim ?? false,
          ephemeral: o.ephemeral ?? true,
          keepDenials: o.keepDenials ?? 1,
        },
        this.layout.viewSpill,
      );
    // a store that cannot be written stops the run here, before any model call — not after the work
    // is done and its transcript silently dropped (issue 11: read-only sessions.db, exit 0, nothing stored)
    try {
      const check = this.store.checkWritable?.();
      if (check instanceof Promise) {
        this.storeCheck = check;
        check.catch(() => {
          /* reported by run(), before its first model call */
        });
      }
    } catch (e) {
      this.store.close();
      this.backend.close();
      throw e;
    }
    this.workbench =
      o.workbench instanceof Workbench
        ? o.workbench
        : o.workbench
          ? new Workbench(this.workspace, { root: this.layout.root, ...(o.lang ? { lang: o.lang } : {}) })
          : undefined;
    this.workbench?.ensure();
    this.cliRetries = o.cliRetries ?? posNum(env.FLOWER_CLI_RETRIES) ?? 0;
    this.watchdogS = o.watchdogS ?? posNum(env.FLOWER_WATCHDOG) ?? 300;
    // from the RESOLVED env: a FLOWER_WINDOW that lives only in .env must count
    this.hand = handoffPolicy(this.resolved.env, o.handoff, o.window);
    this.lang = o.lang ?? detectLang(env);
    this.detachChildren = o.detachChildren ?? false;
    this.skills =
      o.skills === false
        ? new SkillKit({ skills: [], plugins: [], warnings: [] }, null)
        : SkillKit.load(
            {
              projectDir: this.layout.projectSkills,
              userDir: path.join(configHome(this.resolved.env), 'skills'),
              pluginDirs: [...(o.plugins ?? []), ...pluginDirsFromEnv(this.floor.env.FLOWER_PLUGINS)],
            },
            privateConfigDir(),
            this.warn,
            this.floor.secretNames,
          );
    const base = resilienceFromEnv(this.resolved.env, DEFAULT_RESILIENCE);
    this.policy = o.resilience === false ? null : { ...base, ...(typeof o.resilience === 'object' ? o.resilience : {}) };
  }

  /**
   * The effective configuration in one line, secrets masked (first 4 characters and the length):
   * what `-v` prints, so "which gateway / key / window is this using?" has an answer.
   */
  describe(): string {
    return describeRuntime({
      env: this.resolved.env,
      hand: this.hand,
      read: this.resolved.read,
      ignored: this.resolved.ignored,
      skills: this.skills.describe(),
      store: `store ${this.backend.where}`,
      writable: this.floor.wall.input.writable,
      secretNames: this.floor.secretNames,
    });
  }

  /**
   * Connect to the store and check its schema (PostgreSQL; nothing to do for the files): an
   * unreachable server, a wrong password, a missing database fail here with one line, before any
   * model call. `run()` calls it too.
   */
  ready(): Promise<void> {
    return this.backend.ready();
  }

  /** Is this session still in sessions.db (for this workspace)? */
  hasSession(sessionId: string): Promise<boolean> {
    return this.store.hasSession(sessionId, this.projectKey);
  }

  /** How the store is named in messages: its file when it has one. */
  private storeName(): string {
    return this.storeFile ?? 'the session store';
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
    const index = this.rowOf.get(result);
    if (index !== undefined) await this.manifest.record(result, index);
  }

  private readonly rowOf = new WeakMap<StepResult, number>();

  /** Total cost of every step this Runtime ran. */
  totalCost(): number {
    return this.total;
  }

  async run(spec: AgentSpec, prompt: string, opts: RunOptions = {}): Promise<StepResult> {
    if (this.closed) throw new ConfigError('runtime-closed', 'this Runtime was closed; create a new one');
    await this.ready();
    const step = opts.stepName ?? spec.name;
    if (this.storeCheck) await this.storeCheck;
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
    // the index is held before the write is awaited: a signal during the write still rescues this row
    this.inflight = { result, index: this.manifest.nextIndex() };
    this.rowOf.set(result, this.inflight.index);
    await this.manifest.record(result, this.inflight.index);
    // continuity's first invariant: a NEW session's id is recorded (awaited) before its process starts
    const announce = async (sid: string): Promise<void> => {
      if (result.session_id === sid) return;
      result.session_id = sid;
      for (const cb of [opts.onSession, this.onSession]) {
        try {
          await cb?.(sid);
        } catch (e) {
          this.warn(`onSession callback failed: ${errorText(e)}`);
        }
      }
    };
    const emit: Emit = (kind, text, payload) => {
      opts.onEvent?.({ ...event(kind, text, { step, ...payload }), step });
    };
    // per step: the watermark, the "near" notice and the degraded streak never carry over (the
    // original handed off at once in step two without the reset)
    const gens = new Generations(
      {
        workspace: this.workspace,
        lang: this.lang,
        env: this.resolved.env,
        policy: this.hand,
        warn: this.warn,
        layout: this.workbench ? this.layout.withWorkbench(this.workbench.root) : this.layout,
        contextOf: (sid) => this.contextOf(sid),
        attempt: (s, p, resume) => this.attempt({ spec: s, prompt: p, step, resume, hooks: opts.hooks }, announce),
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
      const index = this.inflight?.index;
      this.inflight = undefined;
      await this.manifest.record(result, index);
      forgetLocalTranscripts();
    }
    return result;
  }

  /** #23: a gateway served another model than the one named; the window guessed from the name is suspect. */
  private checkModel(spec: AgentSpec, o: AttemptOutcome, emit: Emit): void {
    if (this.mismatchWarned || !o.servedModel) return;
    const want = spec.model ?? this.resolved.env.ANTHROPIC_MODEL;
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
    // a resumed (or forked) session reports its cost since the session began, not since this attempt
    const before = a.resume ? await costSoFar(this.store, this.projectKey, a.resume) : 0;
    const { options, prompt } = assembleAttempt(this.attemptBase(), a);
    const out = await runAttempt(prompt, options, {
      step: a.step,
      humanInterrupt: () => this.interrupts.now !== null,
      watchdogS: this.watchdogS,
      onSession: announce,
      ...(a.onEvent ? { onEvent: a.onEvent } : {}),
      ...(shouldBreak ? { shouldBreak } : {}),
      register: (stop) => {
        this.live.add(stop);
        return () => this.live.delete(stop);
      },
    });
    out.costUsd = Math.max(0, out.costUsd - before);
    return out;
  }

  /** What the attempt loop (loop.ts) may use of this Runtime. */
  private loopHost(step: number): LoopHost {
    return {
      attempt: (a, announce, shouldBreak) => this.attempt(a, announce, shouldBreak),
      checkModel: (spec, o, emit) => this.checkModel(spec, o, emit),
      interruptRequest: () => this.interrupts.for(step),
      takeInterrupt: () => this.interrupts.take(),
      hasSession: (sid) => this.hasSession(sid),
      wait: { policy: this.policy!, env: this.resolved.env, closed: () => this.closed, store: this.backend.server },
      policy: this.policy,
      lang: this.lang,
    };
  }

  /** What every attempt's options are assembled from (assemble.ts). */
  private attemptBase(): AttemptBase {
    return {
      floor: this.floor,
      skills: this.skills,
      store: this.store,
      layout: this.layout,
      workspace: this.workspace,
      workbench: this.workbench,
      tmpDir: this.tmpDir,
      cliRetries: this.cliRetries,
      handoff: this.hand.enabled,
      projectEnv: this.projectEnv,
      sandboxed: this.sandboxed,
      net: this.net,
      detachChildren: this.detachChildren,
      lang: this.lang,
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
   * must reach the manifest before the process dies.
   */
  rescue(reason = 'killed-by-signal'): void {
    const f = this.inflight;
    if (!f) return;
    f.result.ok = false;
    f.result.error = reason;
    f.result.errors.push(reason);
    f.result.failure = failure(reason === 'interrupted-by-human' ? 'interrupted' : 'killed', reason);
    f.result.ended_at = new Date().toISOString();
    // the files backend writes before the promise is first awaited: the row is on disk when this returns
    try {
      this.manifest.record(f.result, f.index).catch(() => {
        /* dying anyway */
      });
    } catch {
      /* dying anyway */
    }
    this.inflight = undefined;
  }

  /** End every child process and close the store. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const stop of this.live) {
      try {
        stop();
      } catch {
        /* already gone */
      }
    }
    this.live.clear();
    try {
      this.store.close();
    } catch {
      /* already closed */
    }
    try {
      this.backend.close();
    } catch {
      /* already closed */
    }
    removeTmpDirs(this.tmpDir);
    this.floor.close();
  }
}
