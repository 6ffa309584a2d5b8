/**
 * The fleet's end-to-end parts: a bare git repository as the origin, worker processes playing hosts
 * (each with its own HOME and work folder), their NDJSON logs, and the scripted model's turns for a task
 * (every document names the task's marker, so concurrent tasks are routed by `firstUserIncludes`).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import type { SimItem } from '../../src/sim/index.js';
import { project, startCli, testEnv, type CliRun, type Project } from '../helpers/e2e.js';

export function git(args: string[], cwd: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0' } }).trim();
}

/** A bare repository with one commit on `main`; returns its path. */
export function bareOrigin(dir: string): string {
  const origin = path.join(dir, 'origin.git');
  git(['init', '--quiet', '--bare', '--initial-branch=main', origin], dir);
  const seed = path.join(dir, 'seed');
  git(['clone', '--quiet', origin, seed], dir);
  fs.writeFileSync(path.join(seed, 'README.md'), '# a project\n');
  git(['add', '-A'], seed);
  git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'first'], seed);
  git(['push', '--quiet', 'origin', 'HEAD:refs/heads/main'], seed);
  return origin;
}

export interface WorkerEvent {
  t: string;
  kind: string;
  task?: string;
  host?: string;
  outcome?: string;
  [k: string]: unknown;
}

export interface WorkerProc {
  name: string;
  p: Project;
  pid: number;
  done: Promise<CliRun>;
  events(): WorkerEvent[];
  kill(sig: NodeJS.Signals): void;
}

export function startWorker(name: string, simUrl: string, extra: Record<string, string>, args: string[]): WorkerProc {
  const p = project(`fleet-${name}`);
  const env = testEnv(p, simUrl, { FLOWER_FLEET_HOST: name, ...extra });
  const { child, done } = startCli(['fleet', 'work', '--json', '--workdir', path.join(p.dir, 'work'), ...args], { cwd: p.dir, env });
  let buf = '';
  const events: WorkerEvent[] = [];
  child.stdout!.on('data', (c: string) => {
    buf += c;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        events.push(JSON.parse(line) as WorkerEvent);
      } catch {
        /* not an event */
      }
    }
  });
  return { name, p, pid: child.pid!, done, events: () => events, kill: (sig) => child.kill(sig) };
}

/** One slot, drain, and timing in seconds short enough for a test (a dead take moves within ~5 s). */
export const FAST = ['--slots', '1', '--drain', '--lease', '3', '--heartbeat', '0.5', '--supervise', '1', '--poll', '0.5'];

/** The worker's end; after `ms` (a safety net) it is killed and the wait fails with its last events. */
export async function settled(w: WorkerProc, ms: number): Promise<CliRun> {
  let timer: NodeJS.Timeout | undefined;
  const safety = new Promise<never>((_r, reject) => {
    timer = setTimeout(() => {
      w.kill('SIGKILL');
      reject(new Error(`worker ${w.name} did not drain in ${ms} ms: ${JSON.stringify(w.events().slice(-20))}`));
    }, ms);
  });
  try {
    return await Promise.race([w.done, safety]);
  } finally {
    clearTimeout(timer);
  }
}

const clarifier = (m: string) => ({ firstUserIncludes: ['submit_brief', m] });
const goalSetter = (m: string) => ({ firstUserIncludes: ['submit_goal', m] });
const judge = (m: string) => ({ firstUserIncludes: ['submit_verdict', m] });
export const coordinator = (m: string) => ({ toolsInclude: 'Agent', firstUserIncludes: m });

export const brief = (m: string): SimItem[] => [
  {
    type: 'tool_use',
    match: clarifier(m),
    name: 'mcp__human__submit_brief',
    input: { goal: `${m}: write ${m}.txt`, acceptance: [`${m}.txt exists`], boundaries: ['nothing else'], unknowns: ['none'] },
  },
  { type: 'text', match: clarifier(m), text: 'done' },
];
export const goal = (m: string, times = 1): SimItem[] => [
  { type: 'tool_use', match: goalSetter(m), name: 'mcp__human__submit_goal', input: { statement: `${m} done`, checks: [{ text: `${m}.txt exists` }] }, times },
  { type: 'text', match: goalSetter(m), text: 'done', times },
];
export const work = (m: string): SimItem => ({ type: 'text', match: coordinator(m), text: `${m} written` });
export const verdict = (m: string): SimItem[] => [
  {
    type: 'tool_use',
    match: judge(m),
    name: 'mcp__human__submit_verdict',
    input: { state: 'achieved', reason: '', checks: [{ item: `${m}.txt exists`, pass: true, evidence: 'read it' }] },
  },
  { type: 'text', match: judge(m), text: 'judged' },
];

/** Each task's runs on the workers as [start, end] intervals (an end missing: the worker's death, `killedAt`). */
export function takesOf(workers: WorkerProc[], killedAt: Map<string, number>): Map<string, Array<{ host: string; start: number; end: number }>> {
  const out = new Map<string, Array<{ host: string; start: number; end: number }>>();
  for (const w of workers) {
    const open = new Map<string, number>();
    for (const e of w.events()) {
      if (!e.task) continue;
      if (e.kind === 'task_start') open.set(e.task, Date.parse(e.t));
      if (e.kind === 'task_end') {
        const start = open.get(e.task);
        open.delete(e.task);
        if (start !== undefined) (out.get(e.task) ?? out.set(e.task, []).get(e.task)!).push({ host: w.name, start, end: Date.parse(e.t) });
      }
    }
    for (const [task, start] of open) (out.get(task) ?? out.set(task, []).get(task)!).push({ host: w.name, start, end: killedAt.get(w.name) ?? Infinity });
  }
  return out;
}
