/**
 * End-to-end helpers: the real `claude` binary (through flower's CLI or Runtime) against the sim on
 * 127.0.0.1, in a private temp folder with its own HOME / XDG config, so nothing of the host leaks in.
 * Waits are shortened through env (FLOWER_CLI_RETRIES, FLOWER_WATCHDOG) so the suite stays fast.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FlowerStore } from '../../src/runtime/index.js';
import type { SqliteSessionStore } from '../../src/store/index.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = path.join(ROOT, 'bin', 'flower.js');
export const DIST = path.join(ROOT, 'dist', 'index.js');

export interface Project {
  dir: string;
  ws: string;
  runs: string;
  home: string;
}

export function project(tag = 'e2e'): Project {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `flower-${tag}-`));
  const p = { dir, ws: path.join(dir, 'ws'), runs: path.join(dir, 'runs'), home: path.join(dir, 'home') };
  fs.mkdirSync(p.ws, { recursive: true });
  fs.mkdirSync(p.home, { recursive: true });
  return p;
}

export function testEnv(p: Project, url: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: p.home,
    XDG_CONFIG_HOME: path.join(p.home, '.config'),
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'sk-test',
    FLOWER_CLI_RETRIES: '0',
    FLOWER_WATCHDOG: '20',
    FLOWER_LANG: 'en',
    ...extra,
  };
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * `group`: flower leads a process group of its own, so `killGroup` ends it with its claude children at
 * once — a crashed machine or terminal, with no orphan left to send the scripted model a late request.
 */
export function startCli(
  args: string[],
  o: { cwd: string; env: Record<string, string>; script?: string; group?: boolean },
): { child: ChildProcess; done: Promise<CliRun> } {
  // async spawn only: the sim runs in the test's own process, and a spawnSync would starve it
  const child = spawn(process.execPath, [o.script ?? BIN, ...args], { cwd: o.cwd, env: o.env, stdio: ['ignore', 'pipe', 'pipe'], detached: o.group === true });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr!.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const done = new Promise<CliRun>((resolve) => {
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, done };
}

export async function cli(args: string[], o: { cwd: string; env: Record<string, string>; timeoutMs?: number; script?: string }): Promise<CliRun> {
  const { child, done } = startCli(args, o);
  const t = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 60_000);
  try {
    return await done;
  } finally {
    clearTimeout(t);
  }
}

/** Signal a `startCli(…, { group: true })` process and every process of its group. */
export function killGroup(child: ChildProcess, sig: NodeJS.Signals): void {
  process.kill(-child.pid!, sig);
}

export async function until(what: string, cond: () => boolean, timeoutMs = 20_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export function readJson<T = unknown>(file: string): T {
  return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
}

/**
 * The role:text lines of a request's conversation, for asserting what the model saw. Role-`system`
 * notes the binary appends (under the sandbox, its configuration after each resume) are left out.
 */
export function transcriptOf(body: unknown): string[] {
  const msgs = ((body as { messages?: { role: string; content: unknown }[] }).messages ?? []).filter((m) => m.role !== 'system');
  return msgs.map((m) => `${m.role}:${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);
}

/** A store that passes every call to `inner` except the ones a test replaces (a failing append, a closed pool). */
export function storeOver(inner: SqliteSessionStore, own: Partial<FlowerStore>): FlowerStore {
  return {
    append: (k, e) => inner.append(k, e),
    load: (k) => inner.load(k),
    listSessions: (k) => inner.listSessions(k),
    listSubkeys: (k) => inner.listSubkeys(k),
    delete: (k) => inner.delete(k),
    hasSession: (s, k) => inner.hasSession(s, k),
    lastContext: (s, o) => inner.lastContext(s, o),
    close: () => inner.close(),
    ...own,
  };
}
