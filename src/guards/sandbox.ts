/**
 * The floor under every role: the SDK's OS sandbox (bubblewrap on Linux) around each Bash command.
 * The allowlists and the glance classifier are the first line and give the model a useful denial; the
 * sandbox holds when they are walked around.
 *
 * Measured on binary 2.1.332 with bubblewrap 0.8.0 (see docs/roles.md, "Sandbox"):
 * - the sandbox is per `claude` process, i.e. per session: a coordinator's glances and its workers'
 *   commands share one policy. A session whose declared workers can write gets the worker floor; the
 *   coordinator's own Bash is then held read-only by the classifier alone.
 * - with the child's TMPDIR set to a private folder, Bash sees `TMPDIR=<private>/claude-<uid>`, the
 *   harness keeps its cwd-tracking file there, and that folder is writable by default; the rest of
 *   /tmp is read-only.
 * - `network.allowedDomains` empty (with `strictAllowlist`) refuses every host; `['*']` lets every host
 *   through the sandbox's proxy; loopback (127.0.0.1) is unreachable in every mode (own net namespace).
 * - `credentials.envVars` deny unsets the variables for the command (`echo $ANTHROPIC_API_KEY` prints
 *   nothing, `/proc/self/environ` has no key).
 * - the Bash tool takes `dangerouslyDisableSandbox: true`: `allowUnsandboxedCommands: false` makes the
 *   binary ignore it (and the allowlist hook denies it outright).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SandboxSettings } from '@anthropic-ai/claude-agent-sdk';

/** What the model's commands may do to the network: everything, nothing, or these hosts (wildcards as `*.example.com`). */
export type NetPolicy = 'on' | 'off' | readonly string[];

/** Read-only: the workspace cannot be written (glances, judges). Workspace: the workspace, the workbench and a private temp folder. */
export type Floor = 'read-only' | 'workspace';

export interface SandboxInput {
  floor: Floor;
  workspace: string;
  /** the workbench root (written by workers; read-only for read-only roles) */
  workbench?: string | undefined;
  /** the run dir (sessions.db, manifest): written by flower itself, never by a tool */
  runDir?: string | undefined;
  /** the child's private TMPDIR */
  tmpDir: string;
  /** more folders a writing role's commands may write */
  extraWrite?: readonly string[];
  /** the network for the `workspace` floor; read-only roles have none */
  net: NetPolicy;
  /** environment variables that must not reach a command */
  secretVars: readonly string[];
  /** files that must not be read by a command (credential files) */
  secretFiles: readonly string[];
  /** more places commands may not write: what flower reads at start, inside the writable folders (guards/paths) */
  denyWrite?: readonly string[];
  /** places commands may not read: credential stores, files that hold a secret (guards/paths) */
  denyRead?: readonly string[];
  /** the main thread's glances are wrapped in a read-only bubblewrap of their own (glanceWrap): allow the nesting */
  nestedGlances?: boolean;
}

/** Parse `--net on|off|DOMAINS` (comma-separated hosts). Throws a plain Error naming the bad value. */
export function parseNet(v: string): NetPolicy {
  const s = v.trim();
  if (s === 'on' || s === 'off') return s;
  const hosts = s
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  const bad = hosts.find((h) => !/^(\*\.)?[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/.test(h) && h !== '*');
  if (!hosts.length || bad !== undefined) {
    throw new Error(`--net takes on, off or a comma-separated list of host names (e.g. registry.npmjs.org,*.github.com), got ${JSON.stringify(v)}`);
  }
  return hosts;
}

const network = (net: NetPolicy): NonNullable<SandboxSettings['network']> =>
  net === 'on'
    ? { allowedDomains: ['*'] }
    : net === 'off'
      ? { allowedDomains: [], strictAllowlist: true }
      : { allowedDomains: [...net], strictAllowlist: true };

const within = (p: string, root: string): boolean => {
  const rel = path.relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
};

/** The SDK `sandbox` option for one session (pure). */
export function sandboxSettings(i: SandboxInput): SandboxSettings {
  const readOnly = i.floor === 'read-only';
  const inside = (p: string | undefined): p is string => p !== undefined;
  // a run dir that holds the workspace cannot be walled off without walling off the work itself
  const runDir = i.runDir !== undefined && !within(i.workspace, i.runDir) ? i.runDir : undefined;
  const denyWrite = [...(readOnly ? [i.workspace, i.workbench, runDir] : [runDir]).filter(inside), ...(i.denyWrite ?? [])];
  const denyRead = [...new Set(i.denyRead ?? [])];
  return {
    enabled: true,
    // a missing bubblewrap must stop the step, never run the commands bare (flower checks first)
    failIfUnavailable: true,
    allowUnsandboxedCommands: false,
    // a nested namespace cannot lift the outer read-only mounts (the kernel locks them); it only lets a
    // glance drop to a read-only view of its own
    ...(i.nestedGlances ? { allowNestedUserNamespaces: true } : {}),
    filesystem: {
      allowWrite: readOnly ? [i.tmpDir] : [...new Set([i.workspace, i.workbench, i.tmpDir, ...(i.extraWrite ?? [])].filter(inside))],
      ...(denyWrite.length ? { denyWrite: [...new Set(denyWrite)] } : {}),
      ...(denyRead.length ? { denyRead } : {}),
    },
    network: readOnly ? network('off') : network(i.net),
    credentials: {
      envVars: [...new Set(i.secretVars)].map((name) => ({ name, mode: 'deny' as const })),
      ...(i.secretFiles.length ? { files: [...new Set(i.secretFiles)].map((p) => ({ path: p, mode: 'deny' as const })) } : {}),
    },
  };
}

/**
 * A coordinator's glance, run read-only inside the session's sandbox. The sandbox is per session and its
 * workers write, so the glance gets a bubblewrap of its own: everything read-only, no network. Measured on
 * 2.1.332: works with `allowNestedUserNamespaces`; without it bwrap says "Creating new namespace failed".
 */
export function glanceWrap(command: string): string {
  const q = `'${command.replace(/'/g, `'\\''`)}'`;
  return `bwrap --ro-bind / / --dev /dev --proc /proc --unshare-net --die-with-parent --chdir "$PWD" -- bash -c ${q}`;
}

/** Is `exe` an executable file on PATH? */
function onPath(exe: string, pathVar: string): boolean {
  for (const dir of pathVar.split(path.delimiter)) {
    if (!dir) continue;
    try {
      fs.accessSync(path.join(dir, exe), fs.constants.X_OK);
      return true;
    } catch {
      /* next */
    }
  }
  return false;
}

/**
 * What the sandbox needs that this machine lacks, as the sentence to print; undefined when it can run.
 * Linux needs bubblewrap and socat; macOS has sandbox-exec built in; other platforms have no sandbox.
 */
export function sandboxMissing(platform: NodeJS.Platform = process.platform, pathVar = process.env.PATH ?? ''): string | undefined {
  if (platform === 'darwin') return undefined;
  if (platform !== 'linux') return `the OS sandbox flower runs tool commands in is not available on ${platform}`;
  const missing = ['bwrap', 'socat'].filter((x) => !onPath(x, pathVar));
  if (!missing.length) return undefined;
  return (
    `the OS sandbox flower runs tool commands in needs ${missing.map((m) => (m === 'bwrap' ? 'bubblewrap (bwrap)' : m)).join(' and ')}, ` +
    `not found on PATH. Install: sudo apt-get install bubblewrap socat (Debian/Ubuntu), sudo dnf install bubblewrap socat (Fedora)`
  );
}

/** The credential files to keep from every tool: each .env flower looks in and its `.previous` copy. */
export function secretFilePaths(lookedIn: readonly string[]): string[] {
  return [...new Set(lookedIn.flatMap((f) => [path.resolve(f), `${path.resolve(f)}.previous`]))];
}
