/**
 * What a Runtime works with, prepared once and frozen: the resolved environment, the floor (sandbox,
 * env scrub, path wall, secrets), the folders, the opened store, the workbench, the skills and the
 * policies. Every touch of the machine a Runtime makes before its first step is named here, in order;
 * the Runtime itself only carries state that changes while steps run (the manifest row in flight,
 * live children, the handoff window's live calibration).
 *
 * A preparation that fails part-way undoes what it made (the private temp folder, the floor's
 * proxy, the opened store) before it throws: 1,000 failed constructions leave nothing behind
 * (test/runtime/close.test.ts).
 */
import path from 'node:path';
import { configHome, detectLang, requireCredentials, resolveEnv, type EnvMap, type Lang, type ResolvedEnv } from '../config/index.js';
import { Workbench, type NetPolicy } from '../guards/index.js';
import { pluginDirsFromEnv } from '../skills/index.js';
import { RunLayout } from '../state/index.js';
import { openStore, ViewedStore, type OpenedStore } from '../store/index.js';
import { Floor } from './floor.js';
import { RunLimits } from './limits.js';
import { privateConfigDir, privateTmpDir, removeTmpDirs } from './options.js';
import { DEFAULT_RESILIENCE, NO_RETRY, resilienceFromEnv, type ResilienceOptions } from './resilience.js';
import { checkSandbox, posNum, prepareDirs, viewNumbers, type FlowerStore, type RuntimeOptions, type SandboxPolicy } from './setup.js';
import { SkillKit } from './skills.js';
import { handoffPolicy, type HandoffPolicy } from './window.js';

export interface RuntimeContext {
  /** every path this Runtime uses (src/state/layout.ts) */
  readonly layout: RunLayout;
  /** the environment after the .env chain, and which files and names it came from */
  readonly resolved: ResolvedEnv;
  readonly warn: (m: string) => void;
  /** every step runs inside the OS sandbox (recorded as `sandboxed` on its manifest row) */
  readonly sandboxed: boolean;
  readonly sandboxPolicy: SandboxPolicy;
  readonly net: NetPolicy;
  /** the private temp folder handed to the binary (removed on close) */
  readonly tmpDir: string;
  /** what the binary is handed, where its tools may write and read, which values no output shows */
  readonly floor: Floor;
  /** what FLOWER_STORE / --store names, opened by src/store/open.ts (the one place that picks a backend) */
  readonly backend: OpenedStore;
  /** the sessions: the opened store behind resume views, or the caller's own store */
  readonly store: FlowerStore;
  /** `<runDir>/sessions.db` when flower opened the store itself (named in messages) */
  readonly storeFile: string | undefined;
  /** an asynchronous store's writability check, awaited before the first model call */
  readonly storeCheck: Promise<void> | undefined;
  /** for the child: the SDK project key of a named project (the same on every host) */
  readonly projectEnv: Readonly<Record<string, string>>;
  readonly workbench: Workbench | undefined;
  /** project, personal and plugin skills, discovered once */
  readonly skills: SkillKit;
  readonly cliRetries: number;
  readonly watchdogS: number;
  /** the handoff policy at start (a Runtime calibrates its own copy after a real overflow) */
  readonly handoff: Readonly<HandoffPolicy>;
  /** flower's retry policy; `resilience: false` is NO_RETRY (one attempt), never null */
  readonly resilience: Readonly<ResilienceOptions>;
  readonly lang: Lang;
  readonly detachChildren: boolean;
  /** this wake's budget and deadline (none: unlimited) */
  readonly limits: RunLimits;
  /** the spill guard's numbers (with a workbench): `spillThreshold` (0 = off) and `spillHead` */
  readonly spill: Readonly<{ threshold: number; head: number }>;
}

/** Prepare everything a Runtime needs, or undo what was made and throw. */
export function prepareRuntime(o: RuntimeOptions = {}): RuntimeContext {
  const undo: Array<() => void> = [];
  // the numbers first: a bad one makes nothing on disk
  const spill = Object.freeze(viewNumbers(o));
  try {
    const base = environment(o);
    const machine = prepareMachine(o, base, undo);
    const stores = openStores(o, base, undo);
    return Object.freeze({ ...base, ...machine, ...stores, ...tools(o, base, machine.floor), ...policies(o, base), spill });
  } catch (e) {
    for (const u of undo.reverse()) {
      try {
        u();
      } catch {
        /* the first failure is the one to report */
      }
    }
    throw e;
  }
}

/** Release what prepareRuntime made: the stores, the temp folder, the floor. */
export function releaseRuntime(c: RuntimeContext): void {
  for (const close of [() => c.store.close(), () => c.backend.close(), () => removeTmpDirs(c.tmpDir), () => c.floor.close()]) {
    try {
      close();
    } catch {
      /* already closed */
    }
  }
}

// ---- the steps, in order ----

interface Base {
  readonly layout: RunLayout;
  readonly resolved: ResolvedEnv;
  readonly env: EnvMap;
  readonly warn: (m: string) => void;
  readonly sandboxed: boolean;
  readonly sandboxPolicy: SandboxPolicy;
  readonly net: NetPolicy;
}

/** The layout and the environment; the credentials must be there (no I/O beyond reading the .env chain). */
function environment(o: RuntimeOptions): Base {
  const env = o.env ?? process.env;
  const layout =
    o.layout ??
    RunLayout.of({
      ...(o.workspace !== undefined ? { workspace: o.workspace } : {}),
      ...(o.runDir !== undefined ? { runDir: o.runDir } : {}),
      ...(o.workbench instanceof Workbench ? { workbench: o.workbench.root } : {}),
    });
  // `./.env` is the layout's current directory's, the one every other path is resolved against
  const resolved = resolveEnv(env, layout.cwd);
  requireCredentials(resolved);
  return {
    layout,
    resolved,
    env,
    warn: o.onWarning ?? ((m) => process.stderr.write(`! ${m}\n`)),
    sandboxed: o.sandbox !== false,
    sandboxPolicy: o.sandbox === false ? {} : (o.sandbox ?? {}),
    net: o.net ?? 'on',
  };
}

/** The sandbox can run, the folders exist and are writable, the private temp folder and the floor. */
function prepareMachine(o: RuntimeOptions, b: Base, undo: Array<() => void>): { tmpDir: string; floor: Floor } {
  checkSandbox(b.sandboxed, b.resolved.env.PATH ?? process.env.PATH ?? '', b.warn);
  prepareDirs(b.layout.workspace, b.layout.runDir);
  const tmpDir = privateTmpDir();
  undo.push(() => removeTmpDirs(tmpDir));
  const floor = new Floor({
    layout: b.layout,
    resolved: b.resolved,
    workbench: o.workbench instanceof Workbench ? o.workbench.root : o.workbench ? b.layout.root : undefined,
    tmpDir,
    configDir: privateConfigDir(),
    allowWrite: b.sandboxPolicy.allowWrite ?? [],
    passEnv: o.passEnv ?? [],
    allowRead: o.allowRead ?? [],
    denyRead: o.denyRead ?? [],
    protect: [...(o.protect ?? []), ...(o.plugins ?? [])],
    warn: b.warn,
  });
  undo.push(() => floor.close());
  return { tmpDir, floor };
}

type Stores = Pick<RuntimeContext, 'backend' | 'store' | 'storeFile' | 'storeCheck' | 'projectEnv'>;

/** FLOWER_STORE (process env or .env files; the CLI's --store sets it) and FLOWER_PROJECT, opened and checked. */
function openStores(o: RuntimeOptions, b: Base, undo: Array<() => void>): Stores {
  const backend = openStore(b.resolved.env, b.layout, { sessions: o.store ? false : 'create', ...(o.records ? { records: o.records } : {}) });
  undo.push(() => backend.close());
  // sessions: 'create' always opens one: null only for `sessions: false`, when o.store is used instead
  const store =
    o.store ??
    new ViewedStore(
      backend.sessions!,
      b.layout.workspace,
      { trim: o.trim ?? false, ephemeral: o.ephemeral ?? true, keepDenials: o.keepDenials ?? 1 },
      b.layout.viewSpill,
    );
  undo.push(() => store.close());
  return {
    backend,
    store,
    storeFile: o.store ? undefined : backend.file,
    storeCheck: writabilityCheck(store),
    // the SDK takes CLAUDE_CODE_PROJECT_DIR_NAME from the child's env as the key of a named project
    projectEnv: backend.choice.named ? { CLAUDE_CODE_PROJECT_DIR_NAME: backend.choice.projectKey } : {},
  };
}

/**
 * A store that cannot be written stops the run before any model call — not after the work is done
 * and its transcript silently dropped (issue 11: read-only sessions.db, exit 0, nothing stored). A
 * synchronous store throws here; an asynchronous one's check is awaited by the first run().
 */
function writabilityCheck(store: FlowerStore): Promise<void> | undefined {
  const check = store.checkWritable?.();
  if (!(check instanceof Promise)) return undefined;
  check.catch(() => {
    /* reported by run(), before its first model call */
  });
  return check;
}

/** The workbench (made on disk) and the skills (discovered once). */
function tools(o: RuntimeOptions, b: Base, floor: Floor): { workbench: Workbench | undefined; skills: SkillKit } {
  const workbench =
    o.workbench instanceof Workbench
      ? o.workbench
      : o.workbench
        ? new Workbench(b.layout.workspace, { root: b.layout.root, ...(o.lang ? { lang: o.lang } : {}) })
        : undefined;
  workbench?.ensure();
  const skills =
    o.skills === false
      ? new SkillKit({ skills: [], plugins: [], warnings: [] }, null)
      : SkillKit.load(
          {
            projectDir: b.layout.projectSkills,
            userDir: path.join(configHome(b.resolved.env), 'skills'),
            pluginDirs: [...(o.plugins ?? []), ...pluginDirsFromEnv(floor.env.FLOWER_PLUGINS)],
          },
          privateConfigDir(),
          b.warn,
          floor.secretNames,
        );
  return { workbench, skills };
}

type Policies = Pick<RuntimeContext, 'cliRetries' | 'watchdogS' | 'handoff' | 'resilience' | 'lang' | 'detachChildren' | 'limits'>;

/** The numbers and policies, from the options over the environment (pure). */
function policies(o: RuntimeOptions, b: Base): Policies {
  const fromEnv = resilienceFromEnv(b.resolved.env, DEFAULT_RESILIENCE);
  return {
    cliRetries: o.cliRetries ?? posNum(b.env.FLOWER_CLI_RETRIES) ?? 0,
    watchdogS: o.watchdogS ?? posNum(b.env.FLOWER_WATCHDOG) ?? 300,
    // from the RESOLVED env: a FLOWER_WINDOW that lives only in .env must count
    handoff: Object.freeze(handoffPolicy(b.resolved.env, o.handoff, o.window)),
    resilience: Object.freeze(o.resilience === false ? NO_RETRY : { ...fromEnv, ...(typeof o.resilience === 'object' ? o.resilience : {}) }),
    lang: o.lang ?? detectLang(b.env),
    detachChildren: o.detachChildren ?? false,
    limits: o.limits ?? new RunLimits(),
  };
}
