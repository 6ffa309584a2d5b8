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
import fs from 'node:fs';
import path from 'node:path';
import type { SessionStore } from '@anthropic-ai/claude-agent-sdk';
import { ConfigError, errorText } from '../errors.js';
import { RunLayout, writeFileAtomic, type RunRecords } from '../state/index.js';
import { configHome, requireCredentials, resolveEnv, type EnvMap, type ResolvedEnv } from '../config/index.js';
import { pluginDirsFromEnv } from '../skills/index.js';
import { failure, fromThrown } from './failure.js';
import { ViewedStore, openStore, type OpenedStore, type StoreServer } from '../store/index.js';
import { guardHooks, Workbench, sandboxMissing, type GuardedSpec, type NetPolicy } from '../guards/index.js';
import { Floor } from './floor.js';
import { detectLang, maskSecret, type Lang } from '../config/index.js';
import { runAttempt, type AttemptOutcome, type InterruptCause } from './attempt.js';
import { event, type EventSink } from './events.js';
import { Generations, type Emit } from './handoff.js';
import { DEFAULT_RESILIENCE, RESUME_PROMPT, backoff, resilienceFromEnv, type ResilienceOptions } from './resilience.js';
import { INTERRUPT_NOTE, retryable, sleep, waitOnline } from './recover.js';
import { Manifest, newRunId, type StepResult } from './manifest.js';
import { beginRun, buildOptions, childEnv, compactEnv, forgetLocalTranscripts, mergeHooks, newSessionId, privateConfigDir, privateTmpDir, removeTmpDirs } from './options.js';
import { SkillKit } from './skills.js';
import type { AgentSpec, Hooks } from './spec.js';
import { handoffPolicy, modelMismatch, thresholds, type HandoffPolicy } from './window.js';

/** The store surface the runtime needs beyond the SDK's SessionStore. */
export interface FlowerStore extends SessionStore {
  /** async so a database-backed store (PostgreSQL) can implement it */
  hasSession(sessionId: string, projectKey?: string): Promise<boolean>;
  lastContext(sessionId: string, opts?: { projectKey?: string }): Promise<number>;
  /** throw a StoreError (file + reason) when an append would fail: checked before any model call */
  checkWritable?(): void | Promise<void>;
  /** the session's last saved running cost (its last cost-state), without loading it; optional */
  lastCost?(sessionId: string, opts?: { projectKey?: string }): number | Promise<number>;
  close(): void;
}

export interface RuntimeOptions {
  /** the agent's working directory; created if missing (default '.') */
  workspace?: string;
  /** sessions.db, manifest.json, lineage.json — relative to the CURRENT directory, not the workspace (default 'runs') */
  runDir?: string;
  /** every path, built once by the caller (wins over workspace / runDir / a workbench's root) */
  layout?: RunLayout;
  /** where lineage and manifest rows live (default: the files in the run dir) */
  records?: RunRecords;
  /** environment to resolve credentials from (default process.env) */
  env?: EnvMap;
  /**
   * the binary's own retries (CLAUDE_CODE_MAX_RETRIES). Default 0: every failure comes back to flower's
   * loop, which probes, waits, resumes and records each attempt (env FLOWER_CLI_RETRIES)
   */
  cliRetries?: number;
  /** seconds without model output before the watchdog interrupts the turn (default 300, env FLOWER_WATCHDOG) */
  watchdogS?: number;
  /**
   * Handoff when the main-thread context nears the window (default on): true = the defaults, false = off
   * (the child then compacts natively), an object overrides policy fields. While on, the child's
   * auto-compact is off unless a spec sets a compact policy.
   */
  handoff?: boolean | Partial<HandoffPolicy>;
  /** the context window in tokens (`--window`): wins over FLOWER_WINDOW, the calibration file and the model name */
  window?: number;
  /** warnings meant for the person (corrupt files kept aside, …); default: stderr */
  onWarning?: (message: string) => void;
  /** a store to use instead of `<runDir>/sessions.db` (used as is: no resume views) */
  store?: FlowerStore;
  /**
   * The workbench (`.flower/`: scripts, artifacts, notes, spill, INDEX.md). `true` = `<workspace>/.flower`;
   * pass one Workbench object to share it with the workflow (two locations fail silently). Default off.
   * With a workbench: big tool outputs spill to files, and new sessions of specs with `workbench: true`
   * get the index in their first message.
   */
  workbench?: boolean | Workbench;
  /** on resume, archive old large tool results to spill files (default off; the CLI's flow turns it on) */
  trim?: boolean;
  /** on resume, mark stale results of read-only glance commands (default on) */
  ephemeral?: boolean;
  /** denied calls kept in a resumed context (default 1) */
  keepDenials?: number;
  /** run agent processes in their own process group, so a terminal's Ctrl-C reaches only flower (the CLI sets it on a TTY) */
  detachChildren?: boolean;
  /** flower's retry policy for infrastructure failures; false turns it off (default: on, FLOWER_* env overrides) */
  resilience?: boolean | Partial<ResilienceOptions>;
  /** terminal language for the fixed prompts flower sends (default from FLOWER_LANG / LANG) */
  lang?: Lang;
  /**
   * Plugin folders to load (`--plugin DIR`), added to FLOWER_PLUGINS. Project skills
   * (`<workspace>/.flower/skills`) and the person's (`~/.config/flower/skills`) are found on their own;
   * `skills: false` turns all of it off.
   */
  plugins?: string[];
  skills?: boolean;
  /**
   * The OS sandbox (bubblewrap on Linux) around every command a model runs — the floor under the
   * allowlists. Default on; flower refuses to start when it cannot run. `false` (`--no-sandbox`) runs
   * with the allowlists and the glance classifier alone, and says so once.
   */
  sandbox?: false | SandboxPolicy;
  /** the network for commands of roles that write (`--net on|off|HOST,…`; default 'on'); read-only roles never have one */
  net?: NetPolicy;
  /** variables that reach commands although they look secret (`--pass-env NAME`): passed on purpose */
  passEnv?: readonly string[];
  /** credential places opened to tools on purpose (`--allow-read PATH`) */
  allowRead?: readonly string[];
  /** more places no tool may read (`--deny-read PATH`), on top of docs/security.md's list */
  denyRead?: readonly string[];
  /** more files flower reads at its next start (a workflow file): no tool may write them */
  protect?: readonly string[];
}

export interface SandboxPolicy {
  /** more folders commands of writing roles may write (absolute, or relative to the current directory) */
  allowWrite?: readonly string[];
}

export interface RunOptions {
  stepName?: string;
  resume?: string;
  /** with `resume`: continue the history under a new session id */
  fork?: boolean;
  /** with `resume`: cut the history after this assistant message uuid */
  resumeAt?: string;
  onEvent?: EventSink;
  onSession?: (sessionId: string) => void | Promise<void>;
  /** extra hooks for this call (guards are added by roles) */
  hooks?: Hooks;
}

const posNum = (v: string | undefined): number | undefined => {
  const n = v === undefined ? NaN : Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
};

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
  private interruptRequest: { remark: string } | null = null;
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
    this.layout = o.layout ?? RunLayout.of({
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
    if (this.sandboxed) {
      const missing = sandboxMissing(process.platform, this.resolved.env.PATH ?? process.env.PATH ?? '');
      if (missing) {
        throw new ConfigError('no-sandbox', `${missing}. To run without it (commands then run with your own permissions, held only by flower's allowlists), pass --no-sandbox.`);
      }
    } else if (!warnedUnsandboxed) {
      warnedUnsandboxed = true;
      this.warn('sandbox OFF (--no-sandbox): commands the model runs are held only by flower\'s allowlists and glance classifier, not by the OS');
    }
    this.workspace = this.layout.workspace;
    this.runDir = this.layout.runDir;
    for (const [what, dir] of [['workspace', this.workspace], ['run dir', this.runDir]] as const) {
      try {
        // a new run dir is private (sessions.db holds every tool output); an existing folder keeps its mode
        fs.mkdirSync(dir, { recursive: true, ...(what === 'run dir' ? { mode: 0o700 } : {}) });
        fs.accessSync(dir, fs.constants.W_OK);
      } catch (e) {
        throw new ConfigError('unwritable-dir', `cannot use ${dir} as the ${what}: ${errorText(e)}. Choose another with ${what === 'run dir' ? '-r/--run-dir' : '-w/--workspace'}.`, { path: dir, cause: e });
      }
    }
    ignoreRunDir(this.runDir, this.workspace);
    this.tmpDir = privateTmpDir();
    const wbRoot = o.workbench instanceof Workbench ? o.workbench.root : o.workbench ? this.layout.root : undefined;
    try {
      this.floor = new Floor({
        layout: this.layout, resolved: this.resolved, workbench: wbRoot, tmpDir: this.tmpDir, configDir: privateConfigDir(),
        allowWrite: this.sandboxPolicy.allowWrite ?? [], passEnv: o.passEnv ?? [], allowRead: o.allowRead ?? [], denyRead: o.denyRead ?? [],
        protect: [...(o.protect ?? []), ...(o.plugins ?? [])], warn: this.warn,
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
    this.store = o.store ?? new ViewedStore(this.backend.sessions!, this.workspace, {
      trim: o.trim ?? false, ephemeral: o.ephemeral ?? true, keepDenials: o.keepDenials ?? 1,
    }, this.layout.viewSpill);
    // a store that cannot be written stops the run here, before any model call — not after the work
    // is done and its transcript silently dropped (issue 11: read-only sessions.db, exit 0, nothing stored)
    try {
      const check = this.store.checkWritable?.();
      if (check instanceof Promise) {
        this.storeCheck = check;
        check.catch(() => { /* reported by run(), before its first model call */ });
      }
    } catch (e) {
      this.store.close();
      this.backend.close();
      throw e;
    }
    this.workbench = o.workbench instanceof Workbench ? o.workbench
      : o.workbench ? new Workbench(this.workspace, { root: this.layout.root, ...(o.lang ? { lang: o.lang } : {}) }) : undefined;
    this.workbench?.ensure();
    this.cliRetries = o.cliRetries ?? posNum(env.FLOWER_CLI_RETRIES) ?? 0;
    this.watchdogS = o.watchdogS ?? posNum(env.FLOWER_WATCHDOG) ?? 300;
    // from the RESOLVED env: a FLOWER_WINDOW that lives only in .env must count
    this.hand = handoffPolicy(this.resolved.env, o.handoff, o.window);
    this.lang = o.lang ?? detectLang(env);
    this.detachChildren = o.detachChildren ?? false;
    this.skills = o.skills === false
      ? new SkillKit({ skills: [], plugins: [], warnings: [] }, null)
      : SkillKit.load({
        projectDir: this.layout.projectSkills,
        userDir: path.join(configHome(this.resolved.env), 'skills'),
        pluginDirs: [...(o.plugins ?? []), ...pluginDirsFromEnv(this.floor.env.FLOWER_PLUGINS)],
      }, privateConfigDir(), this.warn, this.floor.secretNames);
    const base = resilienceFromEnv(this.resolved.env, DEFAULT_RESILIENCE);
    this.policy = o.resilience === false ? null : { ...base, ...(typeof o.resilience === 'object' ? o.resilience : {}) };
  }

  /**
   * The effective configuration in one line, secrets masked (first 4 characters and the length):
   * what `-v` prints, so "which gateway / key / window is this using?" has an answer.
   */
  describe(): string {
    const e = this.resolved.env;
    const cred = e.ANTHROPIC_API_KEY ? `ANTHROPIC_API_KEY ${maskSecret(e.ANTHROPIC_API_KEY)}` : `ANTHROPIC_AUTH_TOKEN ${maskSecret(e.ANTHROPIC_AUTH_TOKEN)}`;
    const t = thresholds(this.hand);
    const handoff = this.hand.enabled ? `window ${this.hand.window} (hand off at ${t.at})` : 'handoff off';
    const files = this.resolved.read.length ? this.resolved.read.join(', ') : 'none';
    const skills = this.skills.describe();
    const store = `store ${this.backend.where}`;
    const ignored = this.resolved.ignored.map((x) => `\n. ignored in ${x.file} (not flower's settings): ${x.names.join(', ')}`).join('');
    const walls = `\n. tools write only: ${this.floor.wall.input.writable.join(', ')}; commands never see: ${this.floor.secretNames.join(', ')}`;
    return `endpoint ${e.ANTHROPIC_BASE_URL || 'https://api.anthropic.com'} · model ${e.ANTHROPIC_MODEL || '(default)'} · ${cred} · ${handoff} · ${store} · .env files read: ${files}`
      + ignored + walls + (skills.length ? skills.map((l) => `\n. ${l}`).join('') : '');
  }

  /**
   * Connect to the store and check its schema (PostgreSQL; nothing to do for the files): an
   * unreachable server, a wrong password, a missing database fail here with one line, before any
   * model call. `run()` calls it too.
   */
  ready(): Promise<void> {
    return this.backend.ready();
  }

  /** The store's server when it has one (PostgreSQL): run() waits for it like for the network. */
  private get postgres(): StoreServer | undefined {
    return this.backend.server;
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
      throw new ConfigError('unknown-session',
        `no session ${JSON.stringify(opts.resume)} in ${this.storeName()} for ${this.workspace} — \`flower log\` lists the sessions of this run dir`,
        { step, sessionId: opts.resume });
    }
    const result: StepResult = {
      step, session_id: null, ok: false, cost_usd: 0, num_turns: 0, text: '', error: null,
      started_at: new Date().toISOString(), ended_at: null, attempts: 0, errors: [], resumed: false, retired: [], context: 0,
      sandboxed: this.sandboxed,
    };
    // the index is held before the write is awaited: a signal during the write still rescues this row
    this.inflight = { result, index: this.manifest.nextIndex() };
    this.rowOf.set(result, this.inflight.index);
    await this.manifest.record(result, this.inflight.index);
    // continuity's first invariant: a NEW session's id is recorded (awaited) before its process starts
    const announce = async (sid: string): Promise<void> => {
      if (result.session_id === sid) return;
      result.session_id = sid;
      for (const cb of [opts.onSession, this.onSession]) {
        try { await cb?.(sid); } catch (e) { this.warn(`onSession callback failed: ${errorText(e)}`); }
      }
    };
    const emit: Emit = (kind, text, payload) => {
      opts.onEvent?.({ ...event(kind, text, { step, ...payload }), step });
    };
    // per step: the watermark, the "near" notice and the degraded streak never carry over (the
    // original handed off at once in step two without the reset)
    const gens = new Generations({
      workspace: this.workspace, lang: this.lang, env: this.resolved.env, policy: this.hand, warn: this.warn,
      layout: this.workbench ? this.layout.withWorkbench(this.workbench.root) : this.layout,
      contextOf: (sid) => this.contextOf(sid),
      attempt: (s, p, resume) => this.attempt(s, p, step, { resume, ...(opts.hooks ? { hooks: opts.hooks } : {}) }, announce),
    }, { spec, step, task: prompt, result, emit });
    beginRun();
    try {
      let resume = opts.resume;
      let fork = opts.fork ?? false;
      let resumeAt = opts.resumeAt;
      let text = prompt;
      let failed = 0;
      let humanTurns = 0;
      // bounded: at most maxAttempts failed attempts (each waits a backoff) plus at most maxGenerations
      // handoffs (neither counts against the other), never an endless loop
      for (;;) {
        const sessionId = resume ? undefined : newSessionId();
        if (sessionId) await announce(sessionId);
        result.attempts = failed + 1;
        const outcome = await this.attempt(spec, text, step, {
          ...opts, resume, fork, resumeAt, sessionId, shouldBreak: (ctx) => gens.due(ctx),
          onSkills: (record) => { if (record.length) result.skills = record; },
        }, announce);
        this.absorb(result, outcome);
        this.checkModel(spec, outcome, emit);
        if (outcome.ok) break;
        if (outcome.interrupted === 'human' && humanTurns++ < MAX_HUMAN_INTERRUPTS) {
          const req = this.interruptRequest ?? { remark: '' };
          this.interruptRequest = null;
          if (!result.session_id) break;
          emit('retry', req.remark ? `${step}: ${req.remark}` : step, { interrupted: true, remark: req.remark });
          // the same session goes on with the person's words; not an attempt, no network wait
          resume = result.session_id;
          fork = false;
          resumeAt = undefined;
          text = req.remark ? `${req.remark}\n\n${INTERRUPT_NOTE[this.lang]}` : RESUME_PROMPT[this.lang];
          result.resumed = true;
          result.error = null;
          continue;
        }
        const route = gens.route(outcome);
        if (route) {
          const h = await gens.handOff(route, outcome);
          if (!h) break;
          // a brand-new session (no resume, no fork) whose first prompt is the handoff; the task is not resent
          resume = undefined;
          fork = false;
          resumeAt = undefined;
          text = h.promptBlock();
          gens.next();
          result.context = 0;
          continue;
        }
        failed++;
        const verdict = retryable(outcome, failed, this.policy);
        if (!verdict.retry) {
          if (verdict.why) result.error = verdict.why;
          break;
        }
        emit('retry', `${step}: ${outcome.error ?? 'failed'}`, { attempt: failed + 1, error: outcome.error, kind: verdict.failure.kind, failure: verdict.failure });
        let online = await waitOnline(this.policy!, this.resolved.env, () => this.closed, (t, p) => emit('retry', t, p));
        if (online.ok && this.postgres) online = await this.storeOnline(emit);
        if (!online.ok) {
          result.error = `${outcome.error ?? 'failed'} | ${online.why}`;
          result.failure = failure('network', result.error);
          break;
        }
        await sleep(backoff(failed, this.policy!) * 1000);
        if (result.session_id && await this.hasSession(result.session_id)) {
          // the same session goes on; the prompt says "you were interrupted", never what broke
          resume = result.session_id;
          fork = false;
          resumeAt = undefined;
          text = RESUME_PROMPT[this.lang];
          result.resumed = true;
        } else if (!resume) {
          // nothing of the session reached sessions.db (it failed before its first entry): resuming
          // would only get "No conversation found"; the prompt is sent again to a new session
          text = prompt;
        }
      }
    } catch (e) {
      result.ok = false;
      result.error = errorText(e);
      result.errors.push(result.error);
      result.failure = failureOfThrown(e);
    } finally {
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
    emit('error', `the endpoint served ${o.servedModel} although ${want} is configured; the context window guessed from the name ` +
      `(${this.hand.window}) may be wrong — set FLOWER_WINDOW or --window to the served model's window`,
    { model_mismatch: true, want, served: o.servedModel });
  }



  private async attempt(
    spec: AgentSpec, prompt: string, step: string,
    o: Omit<RunOptions, 'resume' | 'fork' | 'resumeAt'> & {
      resume?: string | undefined; fork?: boolean; resumeAt?: string | undefined; sessionId?: string | undefined;
      shouldBreak?: (context: number) => InterruptCause | null;
      onSkills?: (record: Array<{ name: string; hash: string }>) => void;
    },
    announce: (sid: string) => Promise<void>,
  ): Promise<AttemptOutcome> {
    // a resumed (or forked) session reports its cost since the session began, not since this attempt
    const before = o.resume ? await this.costSoFar(o.resume) : 0;
    const env = childEnv({ base: this.floor.childBase(), spec, maxRetries: this.cliRetries, extra: { ...compactEnv(spec, this.hand.enabled && spec.handoff), ...this.projectEnv }, tmpDir: this.tmpDir, scrub: !this.sandboxed });
    const wb = this.workbench;
    const skills = this.skills.plan(spec);
    // the walls are hooks, never prompt wording: every role gets its guards, whatever the caller passed
    // the sandbox is per session: a coordinator whose workers write gets their floor, and its own glances a read-only one
    const nested = this.sandboxed && spec.delegateOnly && spec.glance && spec.floor === 'workspace';
    // the allowlist knows the tools the skills plan adds (Skill, a plugin's MCP tools), per thread
    const walled: GuardedSpec = {
      allowedTools: [...spec.allowedTools, ...skills.main.tools], disallowedTools: spec.disallowedTools,
      delegateOnly: spec.delegateOnly, glance: spec.glance,
      ...(spec.agents ? { agents: Object.fromEntries(Object.entries(spec.agents).map(([type, def]) => {
        const extra = skills.agents[type]?.tools ?? [];
        return [type, extra.length && def.tools ? { ...def, tools: [...def.tools, ...extra] } : def];
      })) } : {}),
    };
    const secrets = this.floor.secretValues();
    const hooks = mergeHooks(guardHooks(walled, {
      ...(wb ? { workbench: wb } : {}), lang: this.lang, paths: this.floor.wall, trustedServers: inProcessServers(spec),
      secrets: (main: boolean) => (main ? secrets.main : secrets.all), wrapGlances: nested,
      ...(o.onEvent ? { onHookFailure: (why: string) => o.onEvent!({ ...event('error', `${step}: a guard failed and refused the call (${why})`, { step, guard_failed: true }), step }) } : {}),
    }), this.skills.hooks(skills), o.hooks);
    const sandbox = this.sandboxed ? this.floor.sandbox({
      floor: spec.floor, net: this.net, nested, workbench: wb?.root, handoff: (wb ? this.layout.withWorkbench(wb.root) : this.layout).handoff(step),
    }) : undefined;
    const options = buildOptions({
      spec, cwd: this.workspace, store: this.store, env, abortController: new AbortController(),
      ...(o.resume ? { resume: o.resume } : {}), ...(o.fork ? { fork: true } : {}), ...(o.resumeAt ? { resumeAt: o.resumeAt } : {}),
      ...(o.sessionId ? { sessionId: o.sessionId } : {}), ...(hooks ? { hooks } : {}),
      ...(wb?.external ? { additionalDirectories: [wb.root] } : {}),
      ...(this.detachChildren ? { detached: true } : {}),
      ...(sandbox ? { sandbox } : {}),
      settings: this.floor.settings(),
      secretVars: this.floor.secretNames,
      lang: this.lang,
    });
    this.skills.apply(options, skills);
    o.onSkills?.(skills.record);
    // the index goes into the FIRST user message of a NEW session only (issue #22: in the system
    // prompt it broke the prompt cache; repeated on resume it duplicates)
    if (wb && spec.workbench && !o.resume) {
      safely(() => wb.refresh());
      prompt = wb.prime(prompt);
    }
    const out = await runAttempt(prompt, options, {
      step,
      humanInterrupt: () => this.interruptRequest !== null,
      watchdogS: this.watchdogS,
      onSession: announce,
      ...(o.onEvent ? { onEvent: o.onEvent } : {}),
      ...(o.shouldBreak ? { shouldBreak: o.shouldBreak } : {}),
      register: (stop) => {
        this.live.add(stop);
        return () => this.live.delete(stop);
      },
    });
    out.costUsd = Math.max(0, out.costUsd - before);
    return out;
  }

  /**
   * What the session had cost before this attempt: its last `cost-state` entry. The CLI restores that
   * total on resume and `result.total_cost_usd` keeps counting from it (measured: 0.006, 0.012, 0.018
   * for three equal turns; a fork continues its source's total), so without this baseline every
   * resumed attempt would count the whole session again.
   */
  private async costSoFar(sessionId: string): Promise<number> {
    try {
      // one indexed read of the tail (issue 11: loading the whole session here, then again in the SDK,
      // made a wake reach the model 1.11x later than a bare resume)
      if (this.store.lastCost) return await this.store.lastCost(sessionId, { projectKey: this.projectKey });
      const entries = (await this.store.load({ projectKey: this.projectKey, sessionId })) ?? [];
      for (let i = entries.length - 1; i >= 0; i--) {
        const e = entries[i]!;
        if (e.type === 'cost-state' && typeof e.totalCostUSD === 'number' && Number.isFinite(e.totalCostUSD)) return e.totalCostUSD;
      }
    } catch { /* an unreadable store only costs the baseline */ }
    return 0;
  }

  private absorb(result: StepResult, a: AttemptOutcome): void {
    if (a.sessionId) result.session_id = a.sessionId;
    result.ok = a.ok;
    if (a.failure && !a.ok) result.failure = a.failure;
    else delete result.failure;
    if (a.ok || a.text) result.text = a.text;
    result.error = a.error;
    result.errors.push(...a.errors);
    result.cost_usd += a.costUsd;
    result.num_turns += a.numTurns;
    result.context = a.context || result.context;
  }

  /**
   * Ask the running step to stop cleanly at its next message boundary and continue the SAME session
   * with `remark` (plus a note to adjust and carry on); with no remark, the plain resume prompt.
   * Callable at any time; a second call before the boundary replaces the remark. Never counts as an
   * attempt. In-flight subagent work is lost (the worker's turn is cut with the coordinator's).
   */
  interrupt(remark = ''): void {
    this.interruptRequest = { remark: remark.trim() };
  }

  /** Is an interrupt waiting for the next message boundary? */
  get interrupting(): boolean {
    return this.interruptRequest !== null;
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
    try { this.manifest.record(f.result, f.index).catch(() => { /* dying anyway */ }); } catch { /* dying anyway */ }
    this.inflight = undefined;
  }

  /** The PostgreSQL store went away mid-run: wait for it like for the network (bounded), with one notice each way. */
  private async storeOnline(emit: Emit): Promise<{ ok: boolean; why?: string }> {
    const pg = this.backend.server;
    if (!pg || await pg.waitOnline(0)) return { ok: true };
    // run() waits only while retrying, which needs a policy; the default bounds it all the same
    const wait = (this.policy ?? DEFAULT_RESILIENCE).maxOfflineWait;
    const mins = Math.round(wait / 60);
    emit('retry', `PostgreSQL at ${pg.target} unreachable; waiting up to ${mins} min for it to come back`, { offline: true, store: pg.target });
    if (await pg.waitOnline(wait * 1000)) {
      emit('retry', `PostgreSQL at ${pg.target} is back`, { online: true, store: pg.target });
      return { ok: true };
    }
    return { ok: false, why: `PostgreSQL at ${pg.target} did not come back within ${mins} min` };
  }

  /** End every child process and close the store. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const stop of this.live) {
      try { stop(); } catch { /* already gone */ }
    }
    this.live.clear();
    try { this.store.close(); } catch { /* already closed */ }
    try { this.backend.close(); } catch { /* already closed */ }
    removeTmpDirs(this.tmpDir);
    this.floor.close();
  }
}

/** The MCP servers of a spec that run inside flower (the human channel, the handoff tool): their arguments are not paths. */
function inProcessServers(spec: AgentSpec): string[] {
  return Object.entries(spec.mcpServers).filter(([, v]) => {
    try { return (typeof v === 'function' ? v() : v).type === 'sdk'; } catch { return false; }
  }).map(([k]) => k);
}

/**
 * A run dir inside the workspace gets a `.gitignore` of `*` (never overwritten): sessions.db and the
 * manifest hold tool output, and a worker's `git add -A` must not commit them.
 */
function ignoreRunDir(runDir: string, workspace: string): void {
  const rel = path.relative(workspace, runDir);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) return;
  const file = path.join(runDir, '.gitignore');
  if (fs.existsSync(file)) return;
  try { writeFileAtomic(file, '# written by flower: sessions, manifest and lineage hold tool output\n*\n', 0o600); } catch { /* read-only: the files stay private anyway */ }
}

/** --no-sandbox is said once per process, however many Runtimes (side questions) it makes. */
let warnedUnsandboxed = false;

/** run()'s catch: decided in src/runtime/failure.ts, where the unit tests see it. */
const failureOfThrown = fromThrown;

/** A person can interrupt many times, but a stuck flag must not loop forever. */
const MAX_HUMAN_INTERRUPTS = 100;

function safely(fn: () => void): void {
  try { fn(); } catch { /* the index is a convenience; a failure to refresh it must not stop the step */ }
}
