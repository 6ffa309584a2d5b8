/**
 * `flower fleet add|work|status|cancel|retry` (src/fleet/ does the work; docs/fleet.md says how it is
 * used). The store is the one every command uses: FLOWER_STORE / --store, and it must be PostgreSQL.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { resolveEnv, storeSetting } from '../config/index.js';
import {
  addTasks,
  cancelTask,
  FleetQueue,
  FleetWorker,
  fleetRetry,
  fleetStatus,
  fleetTiming,
  parseTaskLines,
  retryTask,
  takeoverBound,
  taskDataOf,
  taskRow,
  type FleetTiming,
  type TaskInput,
  type TaskStatus,
} from '../fleet/index.js';
import { CliExit, EXIT, type CliIO } from './io.js';
import type { GlobalOptions } from './globals.js';
import { flowerBin } from './self.js';
import { sanitize } from './term.js';

const one = (v: unknown): string => sanitize(String(v ?? ''), { keepColour: false }).replace(/[\r\n]+/g, ' ');

/** The store's URL; the fleet has no meaning on the files of one folder. */
function storeUrl(io: CliIO): { url: string; env: Record<string, string | undefined> } {
  const env = { ...resolveEnv(io.env, io.cwd ?? process.cwd()).env };
  const s = storeSetting(env);
  if (s.kind !== 'postgres') {
    throw new CliExit(
      EXIT.usage,
      'x the fleet needs a PostgreSQL store: set FLOWER_STORE=postgres://user:password@host:port/db or give --store (docs/fleet.md)',
    );
  }
  return { url: s.url, env };
}

async function withQueue<T>(io: CliIO, fn: (q: FleetQueue, url: string, env: Record<string, string | undefined>) => Promise<T>): Promise<T> {
  const { url, env } = storeUrl(io);
  const q = await FleetQueue.open(url);
  try {
    return await fn(q, url, env);
  } finally {
    await q.close();
  }
}

export interface AddOptions {
  repo?: string;
  branch?: string;
  name?: string;
  budget?: number;
  deadline?: string;
  file?: string;
}

export async function fleetAdd(words: string[], o: AddOptions, _g: GlobalOptions, io: CliIO): Promise<number> {
  const cwd = io.cwd ?? process.cwd();
  const defaults = { repo: o.repo, base: o.branch, name: o.name, budget: o.budget, deadline: o.deadline };
  const inputs: TaskInput[] = [];
  const request = words.join(' ').trim();
  if (request) inputs.push({ ...defaults, request });
  if (o.file) {
    const file = path.resolve(cwd, o.file);
    const text = o.file === '-' ? fs.readFileSync(0, 'utf8') : fs.readFileSync(file, 'utf8');
    inputs.push(...parseTaskLines(text, defaults, o.file));
  }
  if (inputs.length === 0) throw new CliExit(EXIT.usage, 'x say what the task is: flower fleet add "REQUEST" --repo URL|PATH (or --file TASKS)');
  const now = Date.now();
  const data = inputs.map((t) => taskDataOf(t, cwd, now));
  const ids = await withQueue(io, (q, _url, env) => addTasks(q, data, fleetRetry(env)));
  io.stdout.write(`${ids.join('\n')}\n`);
  return EXIT.ok;
}

export interface WorkOptions {
  slots: number;
  drain: boolean;
  workdir?: string;
  lease?: number;
  heartbeat?: number;
  supervise?: number;
  poll?: number;
  timeout?: number;
}

export async function fleetWork(o: WorkOptions, g: GlobalOptions, io: CliIO): Promise<number> {
  const { url, env } = storeUrl(io);
  const flags: Partial<FleetTiming> = {};
  if (o.lease !== undefined) flags.leaseS = o.lease;
  if (o.heartbeat !== undefined) flags.heartbeatS = o.heartbeat;
  if (o.supervise !== undefined) flags.superviseS = o.supervise;
  if (o.poll !== undefined) flags.pollS = o.poll;
  const timing = fleetTiming(env, flags);
  const home = env.HOME ?? os.homedir();
  const workdir = path.resolve(io.cwd ?? process.cwd(), o.workdir ?? env.FLOWER_FLEET_DIR ?? path.join(home, '.cache', 'flower', 'fleet'));
  const host = env.FLOWER_FLEET_HOST || os.hostname();
  const emit = (e: Record<string, unknown>) => {
    const at = new Date().toISOString();
    try {
      if (g.json) io.stdout.write(`${JSON.stringify({ t: at, ...e })}\n`);
      else io.stdout.write(`${at} ${humanLine(e)}\n`);
    } catch {
      /* the reader went away */
    }
  };
  // the child flowers get the environment this worker was given, without the store flag's copy
  const childEnv: Record<string, string | undefined> = { ...io.env };
  const worker = new FleetWorker({
    url,
    slots: o.slots,
    workdir,
    drain: o.drain,
    timing,
    flowerBin: flowerBin(),
    env: childEnv,
    host,
    askTimeoutS: o.timeout ?? 1800,
    emit,
  });
  let terms = 0;
  const onSignal = () => worker.stop(++terms === 1 ? 'after-step' : 'now');
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  try {
    await worker.start();
    if (!g.json) io.stderr.write(`flower fleet: ${o.slots} slot(s) on ${host}, a dead worker's task is taken over within ${takeoverBound(timing)} s\n`);
    return await worker.done;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  }
}

function humanLine(e: Record<string, unknown>): string {
  const rest = Object.entries(e)
    .filter(([k]) => k !== 'kind')
    .map(([k, v]) => `${k}=${one(typeof v === 'object' ? JSON.stringify(v) : v)}`)
    .join(' ');
  return `${one(e.kind)} ${rest}`;
}

export async function fleetStatusCommand(g: GlobalOptions, io: CliIO): Promise<number> {
  const rows = await withQueue(io, (q, url) => fleetStatus(q, url));
  if (g.json) {
    for (const r of rows) io.stdout.write(`${JSON.stringify(r)}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) {
    io.stdout.write('no tasks in the fleet (flower fleet add "REQUEST" --repo URL adds one)\n');
    return EXIT.ok;
  }
  for (const r of rows) io.stdout.write(`${statusLine(r)}\n`);
  return EXIT.ok;
}

function statusLine(s: TaskStatus): string {
  const r = taskRow(s);
  const name = r.name ? ` (${one(r.name)})` : '';
  return `${r.id}${name}  ${one(r.stateText)}  ${r.spend}  wakes ${r.wakes}  ${r.branch}`;
}

export async function fleetCancel(id: string, _g: GlobalOptions, io: CliIO): Promise<number> {
  const r = await withQueue(io, (q) => cancelTask(q, id));
  if (r.result === 'already-ended') {
    io.stderr.write(`x ${r.id} has ended already (flower fleet status shows how)\n`);
    return EXIT.failure;
  }
  io.stdout.write(`+ ${r.id} cancelled\n`);
  return EXIT.ok;
}

export async function fleetRetryCommand(id: string, _g: GlobalOptions, io: CliIO): Promise<number> {
  const r = await withQueue(io, (q, _url, env) => retryTask(q, id, fleetRetry(env)));
  if (r.result === 'not-ended') {
    io.stderr.write(`x ${r.id} is queued or running: nothing to retry\n`);
    return EXIT.failure;
  }
  io.stdout.write(`+ ${r.id} queued again\n`);
  return EXIT.ok;
}
