/**
 * What a Runtime is made from: its options and the store surface it needs (the types), and the
 * preparation of its folders and of the OS sandbox check — the constructor's steps that touch the
 * machine before anything is recorded.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SessionStore } from '@anthropic-ai/claude-agent-sdk';
import { ConfigError, errorText } from '../errors.js';
import { writeFileAtomic, type RunLayout, type RunRecords } from '../state/index.js';
import { maskSecret, type EnvMap, type Lang } from '../config/index.js';
import { sandboxMissing, SPILL_HEAD, SPILL_THRESHOLD, type NetPolicy, type Workbench } from '../guards/index.js';
import type { ExpireKnobs, TrimKnobs } from '../store/index.js';
import type { EventSink } from './events.js';
import type { ResilienceOptions } from './resilience.js';
import type { RunLimits } from './limits.js';
import type { Hooks } from './spec.js';
import { thresholds, type HandoffPolicy } from './window.js';

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
  /**
   * on resume, archive old large tool results to spill files (default off; the CLI's flow turns it on);
   * `{ keepRecent, minChars }` turns it on with its knobs (defaults 20 and 2000)
   */
  trim?: boolean | TrimKnobs;
  /**
   * on resume, mark stale results of read-only glance commands (default on); `{ keepRecent, maxChars }`
   * keeps it on with its knobs (defaults 6 and 2000)
   */
  ephemeral?: boolean | ExpireKnobs;
  /** with a workbench: a tool output string this long or longer goes to a spill file (default 4000; 0 = never) */
  spillThreshold?: number;
  /** the characters of a spilled output the model still sees in place (default 400) */
  spillHead?: number;
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
  /** this wake's spend and time limits (`--budget`, `--deadline`), shared by every Runtime of the wake */
  limits?: RunLimits;
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

/** A number of seconds or retries from the environment: finite and not negative, else unset. */
export const posNum = (v: string | undefined): number | undefined => {
  const n = v === undefined ? NaN : Number(v);
  return Number.isFinite(n) && n >= 0 ? n : undefined;
};

/**
 * flower refuses to start when the sandbox cannot run (unless --no-sandbox); --no-sandbox is said once
 * per process, however many Runtimes (side questions) it makes.
 */
export function checkSandbox(sandboxed: boolean, pathVar: string, warn: (m: string) => void): void {
  if (sandboxed) {
    const missing = sandboxMissing(process.platform, pathVar);
    if (missing) {
      throw new ConfigError(
        'no-sandbox',
        `${missing}. To run without it (commands then run with your own permissions, held only by flower's allowlists), pass --no-sandbox.`,
      );
    }
  } else if (!warnedUnsandboxed) {
    warnedUnsandboxed = true;
    warn("sandbox OFF (--no-sandbox): commands the model runs are held only by flower's allowlists and glance classifier, not by the OS");
  }
}
let warnedUnsandboxed = false;

/** The workspace and the run dir exist and are writable, or the Runtime stops with how to choose another. */
export function prepareDirs(workspace: string, runDir: string): void {
  for (const [what, dir] of [
    ['workspace', workspace],
    ['run dir', runDir],
  ] as const) {
    try {
      // a new run dir is private (sessions.db holds every tool output); an existing folder keeps its mode
      fs.mkdirSync(dir, { recursive: true, ...(what === 'run dir' ? { mode: 0o700 } : {}) });
      fs.accessSync(dir, fs.constants.W_OK);
    } catch (e) {
      throw new ConfigError(
        'unwritable-dir',
        `cannot use ${dir} as the ${what}: ${errorText(e)}. Choose another with ${what === 'run dir' ? '-r/--run-dir' : '-w/--workspace'}.`,
        { path: dir, cause: e },
      );
    }
  }
  ignoreRunDir(runDir, workspace);
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
  try {
    writeFileAtomic(file, '# written by flower: sessions, manifest and lineage hold tool output\n*\n', 0o600);
  } catch {
    /* read-only: the files stay private anyway */
  }
}

export interface Description {
  env: Readonly<Record<string, string>>;
  hand: HandoffPolicy;
  /** the `.env` files read, and the names ignored in them */
  read: readonly string[];
  ignored: ReadonlyArray<{ file: string; names: readonly string[] }>;
  skills: readonly string[];
  /** how the store is named: its file, or the PostgreSQL server and project */
  store: string;
  writable: readonly string[];
  secretNames: readonly string[];
}

/**
 * The effective configuration, one labelled line per setting (so each fits a narrow screen), secrets
 * masked (first 4 characters and the length): what `-v` prints, so "which gateway / key / window is
 * this using?" has an answer.
 */
export function describeRuntime(d: Description): string[] {
  const e = d.env;
  const cred = e.ANTHROPIC_API_KEY ? `ANTHROPIC_API_KEY ${maskSecret(e.ANTHROPIC_API_KEY)}` : `ANTHROPIC_AUTH_TOKEN ${maskSecret(e.ANTHROPIC_AUTH_TOKEN)}`;
  const t = thresholds(d.hand);
  const handoff = d.hand.enabled ? `window ${d.hand.window} (hand off at ${t.at})` : 'off';
  const files = d.read.length ? d.read.join(', ') : 'none';
  return [
    `endpoint ${e.ANTHROPIC_BASE_URL || 'https://api.anthropic.com'}`,
    `model ${e.ANTHROPIC_MODEL || '(default)'}`,
    `credential ${cred}`,
    `handoff ${handoff}`,
    d.store,
    `.env files read: ${files}`,
    ...d.ignored.map((x) => `ignored in ${x.file} (not flower's settings): ${x.names.join(', ')}`),
    `tools write only: ${d.writable.join(', ')}`,
    `commands never see: ${d.secretNames.join(', ')}`,
    ...d.skills,
  ];
}

/**
 * The spill guard's and the views' numbers, checked: a whole number ≥ 0 each (`spillThreshold` 0 turns
 * spilling off), or a ConfigError 'bad-option' naming the option.
 */
export function viewNumbers(o: Pick<RuntimeOptions, 'spillThreshold' | 'spillHead' | 'trim' | 'ephemeral'>): { threshold: number; head: number } {
  const check = (field: string, v: unknown): void => {
    if (v !== undefined && !(typeof v === 'number' && Number.isInteger(v) && v >= 0)) {
      throw new ConfigError('bad-option', `Runtime option ${field} must be a whole number ≥ 0, got ${String(v)}; leave it out for the default.`, { field });
    }
  };
  check('spillThreshold', o.spillThreshold);
  check('spillHead', o.spillHead);
  for (const [name, v] of [
    ['trim', o.trim],
    ['ephemeral', o.ephemeral],
  ] as const) {
    if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) check(`${name}.${k}`, x);
  }
  return { threshold: o.spillThreshold ?? SPILL_THRESHOLD, head: o.spillHead ?? SPILL_HEAD };
}
