/**
 * Turning an AgentSpec into SDK options and a child environment.
 *
 * The private config dir (docs/sdk-facts.md §0): the SDK parent maps transcript frames to store keys through
 * ITS OWN `CLAUDE_CONFIG_DIR`; if the child writes elsewhere the store silently receives nothing. So
 * one private dir per process is set in `process.env` AND passed to every child — which also keeps
 * the host's ~/.claude out of flower's runs, and leaves no stale local transcript to resume from
 * (docs/sdk-facts.md §4.4 H), because the dir is new for every process and removed at exit.
 */
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type {
  McpServerConfig,
  McpStdioServerConfig,
  Options,
  SandboxSettings,
  SessionStore,
  Settings,
  SpawnedProcess,
  SpawnOptions,
} from '@anthropic-ai/claude-agent-sdk';
import { sessionTools } from '../guards/allowlist.js';
import { bundledBinary } from './binary.js';
import { confineHooks } from '../guards/confine.js';
import { failClosed } from '../guards/failclosed.js';
import { redact } from '../guards/secrets.js';
import type { Lang } from '../config/lang.js';
import type { AgentSpec, Hooks } from './spec.js';
import { pidAlive } from '../state/index.js';

let configDir: string | undefined;

export function privateConfigDir(): string {
  if (configDir && fs.existsSync(configDir)) return configDir;
  // off the wake's path: the folders of dead processes are removed while this one starts its binary
  // (a /tmp of thousands of entries, or a big tree left by a kill -9, took tens of ms before the spawn)
  swept = sweepDeadConfigDirs();
  configDir = fs.mkdtempSync(path.join(os.tmpdir(), `flower-claude-${process.pid}-`));
  process.env.CLAUDE_CONFIG_DIR = configDir;
  process.once('exit', removeConfigDir);
  return configDir;
}

/** Remove this process's private config dir and HOME (also called before dying of a signal: 'exit' won't run). */
export function removeConfigDir(): void {
  removeHomeDir();
  if (!configDir) return;
  try {
    fs.rmSync(configDir, { recursive: true, force: true });
  } catch {
    /* best effort */
  }
}

let homeDir: string | undefined;

/**
 * The binary's private HOME (0700), one per process, removed at exit with the config dir. Measured on
 * 2.1.332 (docs/sdk-facts.md, "What the binary writes into HOME"): whatever CLAUDE_CONFIG_DIR says, the
 * binary writes `~/.claude/{bridge-spawn,child-logs,…}`, `~/.cache/claude-cli-nodejs`, `~/.npm/_logs`,
 * `~/.config/anthropic` and (with its env scrub) empty placeholder dotfiles under `$HOME`: only HOME
 * steers them. So the child gets a HOME flower owns, and the person's real one stays untouched.
 */
export function privateHomeDir(): string {
  if (homeDir && fs.existsSync(homeDir)) return homeDir;
  privateConfigDir(); // sweeps dead processes' folders first, and hooks the exit cleanup
  homeDir = fs.mkdtempSync(path.join(os.tmpdir(), `flower-home-${process.pid}-`));
  fs.chmodSync(homeDir, 0o700);
  process.once('exit', removeHomeDir);
  return homeDir;
}

function removeHomeDir(): void {
  if (!homeDir) return;
  try {
    fs.rmSync(homeDir, { recursive: true, force: true });
  } catch {
    /* best effort */
  }
}

/**
 * The person's git identity for commands that run with the private HOME: their global git config, read
 * where git itself would look (GIT_CONFIG_GLOBAL, ~/.gitconfig, then $XDG_CONFIG_HOME/git/config).
 */
export function gitConfigGlobal(base: Readonly<Record<string, string>>): string | undefined {
  if (base.GIT_CONFIG_GLOBAL) return base.GIT_CONFIG_GLOBAL;
  const home = base.HOME || os.homedir();
  const xdg = base.XDG_CONFIG_HOME || path.join(home, '.config');
  return [path.join(home, '.gitconfig'), path.join(xdg, 'git', 'config')].find((f) => fs.existsSync(f));
}

/** XDG folders the binary writes into (cache, config): in the child they default to the private HOME's. */
const XDG_WRITTEN = ['XDG_CACHE_HOME', 'XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'XDG_STATE_HOME'];

/**
 * A private temp folder (0700) for the children's commands: their TMPDIR. Under the sandbox it is the
 * only place outside the workspace a command may write (the harness keeps its cwd-tracking file in
 * `<it>/claude-<uid>/`), so one command cannot read or plant files in another run's /tmp.
 */
export function privateTmpDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `flower-tmp-${process.pid}-`));
  fs.chmodSync(dir, 0o700);
  tmpDirs.add(dir);
  // once per process: a Runtime opened and closed in a loop (the bench, side questions) must not add a listener each time
  if (!exitHooked) {
    exitHooked = true;
    process.once('exit', () => removeTmpDirs());
  }
  return dir;
}
const tmpDirs = new Set<string>();
let exitHooked = false;

/** Remove one private temp folder (a Runtime's close), or all of this process's (exit). */
export function removeTmpDirs(only?: string): void {
  for (const d of only ? [only] : [...tmpDirs]) {
    try {
      fs.rmSync(d, { recursive: true, force: true });
    } catch {
      /* best effort */
    }
    tmpDirs.delete(d);
  }
}

let swept: Promise<void> = Promise.resolve();

/** The sweep of dead processes' folders that the first privateConfigDir() started (nothing waits for it but tests). */
export function deadDirsSwept(): Promise<void> {
  return swept;
}

/** Dirs left by flower processes that died without cleaning up (kill -9): their pid is gone. Never rejects. */
async function sweepDeadConfigDirs(): Promise<void> {
  let names: string[];
  try {
    names = await fs.promises.readdir(os.tmpdir());
  } catch {
    return;
  }
  const dead = names.filter((n) => {
    const m = /^flower-(?:claude|tmp|home)-(\d+)-/.exec(n);
    const pid = Number(m?.[1]);
    return m !== null && pid !== process.pid && !pidAlive(pid);
  });
  await Promise.all(
    dead.map((n) =>
      fs.promises.rm(path.join(os.tmpdir(), n), { recursive: true, force: true }).catch(() => {
        /* someone else's, or gone */
      }),
    ),
  );
}

let liveRuns = 0;

/** Count a run in this process (several Runtimes may run at once: a side question beside the work). */
export function beginRun(): void {
  liveRuns++;
}

/**
 * End a run, and when it was the last one, drop the local transcripts the children wrote: never the
 * source of truth (the store is), and deleting them under a running child would break its writes.
 */
export function forgetLocalTranscripts(): void {
  liveRuns = Math.max(0, liveRuns - 1);
  if (!configDir || liveRuns > 0) return;
  try {
    fs.rmSync(path.join(configDir, 'projects'), { recursive: true, force: true });
  } catch {
    /* best effort */
  }
}

/** Variables that would make the child behave as if nested in another Claude Code session. */
const DROP_FROM_PARENT = [
  'CLAUDECODE',
  'CLAUDE_CODE_ENTRYPOINT',
  'CLAUDE_CODE_SSE_PORT',
  // the store's URL holds a database password: flower's business, never the agents' (nor their tools')
  'FLOWER_STORE',
  'PGPASSWORD',
];

export interface ChildEnvInput {
  /** what the binary may be handed (runtime/floor: the environment minus secrets but the credential, plus the scrub script) */
  base: Record<string, string>;
  spec: AgentSpec;
  /** CLAUDE_CODE_MAX_RETRIES: flower owns resilience, so the binary's own retry storm is capped */
  maxRetries: number;
  /** extra settings computed by the runtime (compaction, idle timeouts) */
  extra?: Record<string, string>;
  /** the commands' private temp folder (TMPDIR) */
  tmpDir?: string;
  /** no OS sandbox: have the binary scrub secrets from its subprocesses itself */
  scrub?: boolean;
  /** what the floor's scrub removed: a spec's `env` may not put it back (by name, or a value holding a secret) */
  secrets?: { names: readonly string[]; values: readonly string[] };
}

/**
 * A spec's own variables minus those the floor's scrub would have removed: a secret's name (`passEnv`
 * is the one way to hand a secret over, and it takes the name off the list), or a value holding a
 * known secret. `dropped` names them, for a warning.
 */
export function specEnv(env: Record<string, string>, secrets: ChildEnvInput['secrets']): { env: Record<string, string>; dropped: string[] } {
  if (!secrets) return { env: { ...env }, dropped: [] };
  const out: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [k, v] of Object.entries(env)) {
    if (secrets.names.includes(k) || redact(v, secrets.values).hits > 0) dropped.push(k);
    else out[k] = v;
  }
  return { env: out, dropped };
}

export function childEnv({ base, spec, maxRetries, extra = {}, tmpDir, scrub = false, secrets }: ChildEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (!DROP_FROM_PARENT.includes(k)) env[k] = v;
  env.CLAUDE_CONFIG_DIR = privateConfigDir();
  env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC = '1';
  env.CLAUDE_CODE_MAX_RETRIES = String(maxRetries);
  Object.assign(env, extra, specEnv(spec.env, secrets).env);
  // Credentials come from flower's chain only; a spec cannot smuggle different ones in silently.
  for (const k of ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'] as const) {
    if (base[k] !== undefined) env[k] = base[k];
  }
  env.CLAUDE_CONFIG_DIR = privateConfigDir();
  // the scrub script flower wrote, never one a spec names: it runs before every command
  if (base.CLAUDE_ENV_FILE !== undefined) env.CLAUDE_ENV_FILE = base.CLAUDE_ENV_FILE;
  else delete env.CLAUDE_ENV_FILE;
  if (tmpDir) env.TMPDIR = tmpDir;
  // the person's HOME is never the binary's (privateHomeDir); their git identity reaches commands through
  // GIT_CONFIG_GLOBAL, which the floor sets (runtime/floor: personGitConfig) and its scrub script exports again
  for (const k of XDG_WRITTEN) delete env[k];
  env.HOME = privateHomeDir();
  // Without the sandbox, the binary's own scrub: it drops credential-looking variables (ANTHROPIC_API_KEY,
  // *_SECRET*, *PASSWORD*, *_API_KEY, …; GITHUB_TOKEN is kept) from the subprocesses it starts, and forces
  // the permission mode to 'default' (only listed tools are approved — what the allowlists want).
  // Measured on 2.1.332: together with the sandbox it switches the sandbox's FILESYSTEM walls off (a
  // command wrote to /tmp outside every allowed folder), so under the sandbox `credentials.envVars` does it.
  if (scrub) env.CLAUDE_CODE_SUBPROCESS_ENV_SCRUB = '1';
  else delete env.CLAUDE_CODE_SUBPROCESS_ENV_SCRUB;
  return env;
}

export function compactEnv(spec: AgentSpec, handoff: boolean): Record<string, string> {
  const policy = spec.compact ?? (handoff ? { mode: 'no_summary' as const } : undefined);
  if (!policy) return {};
  const env: Record<string, string> = {};
  if (policy.mode === 'no_summary') env.DISABLE_AUTO_COMPACT = '1';
  if (policy.mode === 'off') env.DISABLE_COMPACT = '1';
  if (policy.window) env.CLAUDE_CODE_AUTO_COMPACT_WINDOW = String(policy.window);
  return env;
}

export function mergeHooks(...groups: (Hooks | undefined)[]): Hooks | undefined {
  const out: Hooks = {};
  let any = false;
  for (const g of groups) {
    if (!g) continue;
    for (const [ev, matchers] of Object.entries(g) as [keyof Hooks, NonNullable<Hooks[keyof Hooks]>][]) {
      if (!matchers?.length) continue;
      out[ev] = [...(out[ev] ?? []), ...matchers];
      any = true;
    }
  }
  return any ? out : undefined;
}

export interface BuildInput {
  spec: AgentSpec;
  cwd: string;
  store: SessionStore;
  env: Record<string, string>;
  resume?: string;
  fork?: boolean;
  resumeAt?: string;
  /** the id to give a NEW session, so lineage can be written before the child even starts */
  sessionId?: string;
  hooks?: Hooks;
  abortController: AbortController;
  stderr?: (data: string) => void;
  additionalDirectories?: string[];
  /** run the child in its own process group, out of reach of the terminal's Ctrl-C */
  detached?: boolean;
  /** the OS sandbox for this session's commands (guards/sandbox); absent = none (--no-sandbox) */
  sandbox?: SandboxSettings;
  /** the binary's own permission rules (runtime/floor: the path wall's second half) */
  settings?: Settings;
  /** the language of flower's own refusals */
  lang?: Lang;
  /** variables a stdio MCP server the spec names must not inherit (the sandbox does not cover them) */
  secretVars?: readonly string[];
}

/**
 * A stdio MCP server is started by the binary with the binary's environment, key included — measured on
 * 2.1.332, with or without the sandbox (which covers only Bash). flower's own servers run in-process; a
 * server a spec adds is started through `env -u NAME …` so it never sees the secrets.
 */
export function scrubMcpServer(server: McpServerConfig, secretVars: readonly string[]): McpServerConfig {
  const stdio = (server.type === undefined || server.type === 'stdio') && typeof (server as { command?: unknown }).command === 'string';
  if (!stdio || !secretVars.length) return server;
  const s = server as McpStdioServerConfig;
  const env = s.env ? Object.fromEntries(Object.entries(s.env).filter(([k]) => !secretVars.includes(k))) : undefined;
  return { ...s, command: 'env', args: [...secretVars.flatMap((v) => ['-u', v]), '--', s.command, ...(s.args ?? [])], ...(env ? { env } : {}) };
}

/**
 * Spawn the `claude` child in its own process group. A terminal's Ctrl-C goes to the whole foreground
 * group: without this the child dies with the keypress, the turn ends without a result, and what the
 * person meant as "let me say something" becomes a failed attempt. flower handles Ctrl-C itself
 * (interrupt at a message boundary) and ends its children on exit.
 */
export function detachedSpawn(stderr?: (data: string) => void): (o: SpawnOptions) => SpawnedProcess {
  return (o) => {
    const child = spawn(o.command, o.args, { cwd: o.cwd, env: o.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true, signal: o.signal });
    child.stderr?.setEncoding('utf8').on('data', (d: string) => stderr?.(d));
    return child as unknown as SpawnedProcess;
  };
}

export function newSessionId(): string {
  return crypto.randomUUID();
}

export function buildOptions(i: BuildInput): Options {
  const { spec } = i;
  const o: Options = {
    cwd: i.cwd,
    systemPrompt: spec.instructions ? { type: 'preset', preset: 'claude_code', append: spec.instructions } : { type: 'preset', preset: 'claude_code' },
    settingSources: [],
    // every thread's tools pre-approved (subagents ask the session's rules); the allowlist hook narrows each thread
    allowedTools: sessionTools(spec),
    disallowedTools: [...spec.disallowedTools],
    permissionMode: spec.permissionMode,
    mcpServers: Object.fromEntries(Object.entries(spec.mcpServers).map(([k, v]) => [k, scrubMcpServer(typeof v === 'function' ? v() : v, i.secretVars ?? [])])),
    sessionStore: i.store,
    // eager: a kill -9 mid-turn still leaves the prompt and finished messages in sessions.db
    sessionStoreFlush: 'eager',
    includePartialMessages: true, // the watchdog's heartbeat
    env: i.env,
    abortController: i.abortController,
  };
  if (spec.permissionMode === 'bypassPermissions') o.allowDangerouslySkipPermissions = true;
  if (spec.model) o.model = spec.model;
  if (spec.effort) o.effort = spec.effort;
  if (spec.maxTurns) o.maxTurns = spec.maxTurns;
  if (spec.maxBudgetUsd) o.maxBudgetUsd = spec.maxBudgetUsd;
  if (spec.agents) o.agents = spec.agents;
  // flower's guards first; the spec's own hooks after them, unable to allow or rewrite (guards/confine)
  const hooks = mergeHooks(i.hooks, confineHooks(spec.hooks));
  // every PreToolUse decision fails closed, a caller's own hooks too: the binary runs a call whose hook
  // threw (measured on 2.1.332), so a broken hook would otherwise be a hole in whatever it guards
  if (hooks?.PreToolUse) hooks.PreToolUse = hooks.PreToolUse.map((m) => failClosed(m, { lang: i.lang ?? 'en' }));
  if (hooks) o.hooks = hooks;
  if (i.stderr) o.stderr = i.stderr;
  // found once per process, not by the SDK on every query (runtime/binary)
  const bin = bundledBinary();
  if (bin) o.pathToClaudeCodeExecutable = bin;
  // the servers a spec adds reach the bundled binary over stdin, not on its command line, where other users
  // of the machine can read their env and headers (ps); also what spares the SDK's DeprecationWarning once a
  // binary is named or spawned by flower (SDK 0.3.332, sdk.d.ts: mcpServersDelivery)
  o.mcpServersDelivery = 'initialize';
  if (i.detached) o.spawnClaudeCodeProcess = detachedSpawn(i.stderr);
  if (i.additionalDirectories?.length) o.additionalDirectories = i.additionalDirectories;
  if (i.sandbox) o.sandbox = i.sandbox;
  if (i.settings) o.settings = i.settings;
  if (i.resume) {
    o.resume = i.resume;
    if (i.fork) o.forkSession = true;
    if (i.resumeAt) o.resumeSessionAt = i.resumeAt;
  } else if (i.sessionId) {
    o.sessionId = i.sessionId;
  }
  return o;
}
