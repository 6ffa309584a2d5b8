/**
 * The floor under every session, built once per Runtime: what the `claude` binary is handed in its
 * environment, where its tools may write and what they may read (the path wall, the binary's own
 * permission rules, the sandbox's lists), and the secret values no tool output may show.
 *
 * The threat model is a model that wants out (docs/security.md). Three rules shape this file:
 * - nothing flower reads at start is writable by an agent: the run dir, flower's config folder, every
 *   file of the credential chain even before it exists, the workbench's own records, skills, plugins,
 *   a workflow file, flower's own code — each a protected place, held by the hook, the binary and the sandbox;
 * - the binary gets only what it needs: the process environment minus every secret (by name and by
 *   value) but the credential, and from `.env` files only flower's own settings (config/dotenv); a base
 *   URL from a file an agent could write never meets a credential from elsewhere;
 * - a secret that comes back anyway — a shell rc exporting the key, a `.env` below the workspace —
 *   is unset before every command (CLAUDE_ENV_FILE, sourced after the rc) and replaced in every output.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SandboxSettings, Settings } from '@anthropic-ai/claude-agent-sdk';
import { ConfigError } from '../errors.js';
import { CREDENTIAL_KEYS, configHome, type ResolvedEnv } from '../config/index.js';
import {
  PathWall,
  SHELL_STARTUP_FILES,
  SYSTEM_CREDENTIALS,
  homeCredentialPaths,
  sandboxSettings,
  scrubScript,
  secretFilePaths,
  secretsIn,
  urlPassword,
  type Floor as FloorKind,
  type NetPolicy,
  type Place,
  MIN_SECRET_CHARS,
} from '../guards/index.js';
import { pluginDirsFromEnv } from '../skills/index.js';
import type { RunLayout } from '../state/index.js';
import { binaryPackages } from './binary.js';
import { gitConfigGlobal } from './options.js';
import { chainValues, envFilesUnder, filesHolding, plainValues, startupFilesHolding } from './secret-places.js';

export { envFilesUnder } from './secret-places.js';

export interface FloorInput {
  layout: RunLayout;
  /** the environment as resolved (process env over the `.env` chain) */
  resolved: ResolvedEnv;
  /** the workbench's root when the Runtime has one */
  workbench?: string | undefined;
  /** the commands' private temp folder */
  tmpDir: string;
  /** the binary's private config dir: the scrub script lives there, out of every command's reach */
  configDir: string;
  /** more folders writing roles may write (`sandbox.allowWrite`) */
  allowWrite: readonly string[];
  /** variables the person passes to commands on purpose (`--pass-env NAME`) */
  passEnv: readonly string[];
  /** places opened to reads on purpose (`--allow-read PATH`) / closed on top of the list (`--deny-read PATH`) */
  allowRead: readonly string[];
  denyRead: readonly string[];
  /** more files flower reads at start (the workflow file of `flower run`), and the plugin folders */
  protect: readonly string[];
  warn: (m: string) => void;
}

/** A start-up file that holds a secret is said once per process, however many Runtimes (side questions) it makes. */
const warnedStartup = new Set<string>();

/** flower's own installation: a workspace that holds it must not let a worker change the code the next start runs. */
const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export class Floor {
  readonly wall: PathWall;
  /** variables no command may see (the sandbox unsets them; the scrub script unsets them again after the rc) */
  readonly secretNames: string[];
  /** the credential chain's files (and `.previous` copies, and what links point to) */
  readonly chainFiles: string[];
  /** CLAUDE_ENV_FILE: the scrub script */
  readonly scrubFile: string;
  /** GIT_CONFIG_GLOBAL for the commands: flower's file that includes the person's global git config (none: they have none) */
  readonly gitConfig: string | undefined;
  /** the resolved environment with settings refused from files agents could write removed */
  readonly env: Record<string, string>;
  private readonly known: string[];
  private readonly input: FloorInput;

  constructor(i: FloorInput) {
    this.input = i;
    const r = i.resolved;
    const home = r.env.HOME || os.homedir();
    this.chainFiles = [...new Set(secretFilePaths(r.lookedIn).flatMap((f) => [f, realOr(f)]))];
    const writable = [i.layout.workspace, ...(i.workbench ? [i.workbench] : []), i.tmpDir, ...i.allowWrite].map((p) => path.resolve(p));
    const roots = [...new Set(writable.flatMap((w) => [w, realOr(w)]))];
    // could an agent's tool write here, were nothing protected? (inside a writable folder, by any spelling)
    const agentWritable = (f: string): boolean => roots.some((w) => isUnder(path.resolve(f), w) || isUnder(realOr(f), w));
    endpointCheck(r, agentWritable);
    this.env = { ...r.env };
    if (r.from.FLOWER_PLUGINS && agentWritable(r.from.FLOWER_PLUGINS)) {
      delete this.env.FLOWER_PLUGINS;
      i.warn(
        `FLOWER_PLUGINS in ${r.from.FLOWER_PLUGINS} ignored: that file is inside the workspace, and a plugin runs code outside the sandbox — set it in the environment or in ${path.join(configHome(r.env), '.env')}`,
      );
    }
    const pass = i.passEnv;
    const store = r.env.FLOWER_STORE ? urlPassword(r.env.FLOWER_STORE) : undefined;
    this.known = [...CREDENTIAL_KEYS.map((k) => r.env[k] ?? ''), store ?? '', r.env.PGPASSWORD ?? ''].filter((v) => v.length >= MIN_SECRET_CHARS);
    const found = secretsIn(r.env, { pass, known: this.known });
    this.secretNames = [...new Set([...CREDENTIAL_KEYS, ...found.names])].filter((n) => !pass.includes(n)).sort();
    const values = [...found.values, ...chainValues(r.read)];
    const holding = startupFilesHolding(home, values);
    if (holding.length && !warnedStartup.has(holding.join('\0'))) {
      warnedStartup.add(holding.join('\0'));
      i.warn(
        `${holding.join(', ')} ${holding.length === 1 ? 'holds' : 'hold'} a secret, so the agents' commands cannot read ${holding.length === 1 ? 'it' : 'them'} ` +
          `(each command says "Permission denied" for it, and its aliases and functions are not there); keep secrets in ${path.join(configHome(r.env), '.env')} instead`,
      );
    }
    const unreadable = [
      ...this.chainFiles,
      ...homeCredentialPaths(home),
      ...SYSTEM_CREDENTIALS,
      ...i.denyRead.map((p) => path.resolve(p)),
      ...holding,
      ...filesHolding(home, this.known, [i.layout.workspace, i.layout.runDir]),
    ];
    // plugin folders run code outside the sandbox at every start: --plugin ones come in `protect`, these from the env
    const plugins = pluginDirsFromEnv(this.env.FLOWER_PLUGINS).map((d) => path.resolve(i.layout.cwd, d));
    const places = protectedPlaces({ ...i, protect: [...i.protect, ...plugins] }, this.chainFiles, configHome(r.env), home).filter((p) => agentWritable(p.at));
    // the file tools write the workspace and the workbench only: the binary's working directories. (The
    // temp folder and `allowWrite` are the commands'; made working directories, their per-process paths
    // would sit in the conversation's environment block and break the prompt cache on every wake.)
    const fileTools = [i.layout.workspace, ...(i.workbench ? [i.workbench] : [])].map((p) => path.resolve(p));
    this.wall = new PathWall({ writable: fileTools, protected: places, unreadable, allowRead: i.allowRead.map((p) => path.resolve(p)), home });
    this.scrubFile = path.join(i.configDir, `flower-scrub-${process.pid}-${Math.random().toString(36).slice(2, 8)}.sh`);
    this.gitConfig = personGitConfig(r.env, i.configDir);
    const git = this.gitConfig ? `export GIT_CONFIG_GLOBAL=${shellQuote(this.gitConfig)}\n` : '';
    fs.writeFileSync(this.scrubFile, scrubScript(this.secretNames, pass) + git, { mode: 0o600 });
  }

  /**
   * The environment the binary starts with: the process environment minus every secret but the
   * credential (and minus what `--pass-env` does not name), flower's settings from the `.env` files, and
   * the scrub script. The binary needs the credential; its commands never get it (sandbox, scrub script).
   */
  childBase(): Record<string, string> {
    const out: Record<string, string> = {};
    const credential = new Set<string>(CREDENTIAL_KEYS);
    for (const [k, v] of Object.entries(this.env)) {
      if (credential.has(k) || !this.secretNames.includes(k)) out[k] = v;
    }
    out.CLAUDE_ENV_FILE = this.scrubFile;
    if (this.gitConfig) out.GIT_CONFIG_GLOBAL = this.gitConfig;
    return out;
  }

  /**
   * The values no output may show, now: for every thread the known secrets and the secrets of the
   * workspace's `.env` files; for the main thread every value of those files too, secret-looking or not
   * (a coordinator never sees `.env` content — a worker's report quoting `COLOR=…` included).
   */
  secretValues(): { all: string[]; main: string[] } {
    const found = secretsIn(this.env, { pass: this.input.passEnv, known: this.known }).values;
    const files = envFilesUnder(this.input.layout.workspace, this.input.layout.runDir);
    const all = [...new Set([...found, ...chainValues(this.input.resolved.read), ...chainValues(files)])];
    const main = [...new Set([...all, ...plainValues(files)])];
    const longest = (a: string, b: string) => b.length - a.length;
    return { all: all.sort(longest), main: main.sort(longest) };
  }

  /** The binary's own permission rules: the second half of the path wall (`settings` option). */
  settings(): Settings {
    return { permissions: this.wall.permissionSettings() } as Settings;
  }

  /** The sandbox for one session of `floor`, with the step's handoff file protected too. */
  sandbox(o: { floor: FloorKind; net: NetPolicy; nested: boolean; workbench?: string | undefined; handoff?: string | undefined }): SandboxSettings {
    const lists = this.wall.sandboxLists(o.handoff ? [o.handoff] : []);
    return sandboxSettings({
      nestedGlances: o.nested,
      floor: o.floor,
      workspace: this.input.layout.workspace,
      workbench: o.workbench,
      runDir: this.input.layout.runDir,
      tmpDir: this.input.tmpDir,
      net: o.net,
      extraWrite: this.input.allowWrite.map((p) => path.resolve(p)),
      secretVars: this.secretNames,
      secretFiles: this.chainFiles.filter((f) => fs.existsSync(f)),
      denyWrite: lists.denyWrite,
      denyRead: lists.denyRead,
    });
  }

  /** Remove the scrub script and the git config (the Runtime's close). */
  close(): void {
    try {
      fs.rmSync(this.scrubFile, { force: true });
      if (this.gitConfig) fs.rmSync(this.gitConfig, { force: true });
    } catch {
      /* the config dir goes at exit anyway */
    }
  }
}

/**
 * The commands run with the binary's private HOME (runtime/options: privateHomeDir), so git would not find
 * the person's identity. flower writes a file of its own that includes their global config: git reads the
 * person's file as it is, and a `git config --global` writes flower's file, never theirs. The binary's env
 * scrub (under --no-sandbox) drops GIT_CONFIG_GLOBAL from commands, so the scrub script exports it again.
 */
function personGitConfig(env: Readonly<Record<string, string>>, configDir: string): string | undefined {
  const real = gitConfigGlobal(env);
  if (!real) return undefined;
  const file = path.join(configDir, `flower-gitconfig-${process.pid}-${Math.random().toString(36).slice(2, 8)}`);
  fs.writeFileSync(file, `# written by flower: the person's global git config, read where it is\n[include]\n\tpath = ${JSON.stringify(path.resolve(real))}\n`, {
    mode: 0o600,
  });
  return file;
}

const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

/** A base URL from a file an agent could write never receives a credential that came from elsewhere. */
function endpointCheck(r: ResolvedEnv, agentWritable: (f: string) => boolean): void {
  const urlFrom = r.from.ANTHROPIC_BASE_URL;
  if (!urlFrom || !agentWritable(urlFrom)) return;
  for (const k of CREDENTIAL_KEYS) {
    if (!(r.env[k] ?? '').trim() || r.from[k] === urlFrom) continue;
    throw new ConfigError(
      'foreign-endpoint',
      `ANTHROPIC_BASE_URL comes from ${urlFrom}, a file inside the workspace that an agent could have written, and ${k} comes from ` +
        `${r.from[k] ?? 'the environment'}: flower will not send that credential to an endpoint chosen there. Set ANTHROPIC_BASE_URL in ` +
        `the environment or in ${path.join(configHome(r.env), '.env')}, or keep the credential in ${urlFrom} beside it.`,
      { path: urlFrom },
    );
  }
}

/** Every place no tool may write, inside or outside the writable folders (the caller keeps those inside). */
function protectedPlaces(i: FloorInput, chain: readonly string[], config: string, home: string): Place[] {
  const l = i.layout;
  const runDirHoldsWorkspace = !path.relative(l.runDir, l.workspace).startsWith('..');
  const run = runDirHoldsWorkspace
    ? [l.sessionsDb, `${l.sessionsDb}-wal`, `${l.sessionsDb}-shm`, l.manifest, l.lineage, l.runLock, l.asideRunDir, path.join(l.runDir, '.gitignore')]
    : [l.runDir];
  const wb = i.workbench ? l.withWorkbench(i.workbench) : l;
  const records = [wb.index, path.join(wb.root, '.gitignore'), wb.brief, wb.goal, wb.qa, wb.archive];
  const pkg = [
    path.join(PACKAGE_ROOT, 'dist'),
    path.join(PACKAGE_ROOT, 'bin'),
    path.join(PACKAGE_ROOT, 'package.json'),
    path.join(PACKAGE_ROOT, 'node_modules'),
    ...dependencyDirs(),
  ];
  const rc = SHELL_STARTUP_FILES.map((f) => path.join(home, f));
  // the next start may be from the workspace itself (`cd proj && flower`): its ./.env is in the chain then
  const nextChain = [path.join(l.workspace, '.env'), path.join(l.cwd, '.env')];
  return [
    ...[...run, config, ...chain, ...nextChain, ...records, l.projectSkills, ...i.protect.map((p) => path.resolve(p)), ...pkg, ...rc].map((at) => ({ at })),
    { at: wb.notes, prefix: '交接-' },
  ];
}

/** The folders of the packages flower loads at start (hoisted or not): their code runs outside every sandbox. */
function dependencyDirs(): string[] {
  const req = createRequire(path.join(PACKAGE_ROOT, 'package.json'));
  let deps: string[] = [];
  try {
    deps = Object.keys((JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { dependencies?: object }).dependencies ?? {});
  } catch {
    /* no manifest: nothing to add */
  }
  const out: string[] = [];
  // every package that may hold the binary (a musl build too): it runs outside every sandbox
  for (const d of [...deps, ...binaryPackages()]) {
    try {
      out.push(path.dirname(req.resolve(`${d}/package.json`)));
    } catch {
      /* not installed, or no package.json export */
    }
  }
  return out;
}

const isUnder = (p: string, root: string): boolean => p === root || p.startsWith(`${root}/`);

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
