// Bench: the fleet's own cost per task, and how it scales (issue 25 item 6). N trivial tasks of the
// default flow (clarify, goal, work, judge, each one model call on the scripted model) run three ways
// against one sim on 127.0.0.1 and one PostgreSQL, each on a fresh database:
//   loop       — a plain `flower` per task, one after another, each in its own folder, with the same
//                store and the same flags a worker gives its child (`--json REQUEST --timeout 0 --wait`,
//                FLOWER_PROJECT, no bequest): the baseline
//   fleet × 1  — `flower fleet add --file` of the N tasks, then one `flower fleet work --slots 1 --drain`
//   fleet × W  — the same with W worker processes (default 4), each its own HOME and work folder
// A fleet's time runs from the add to the last worker's exit: the queue, a clone per take, a commit and
// push after every step, the worker's start and its drain check are all in it. fleet × 1 / loop is the
// fleet's own cost per task as a ratio; fleet × W / fleet × 1 is the scaling (ideal: 1/W, bounded by the
// machine's cores: every task is CPU work of node and the claude binary). The parts are also timed alone,
// in this process: the queue's send, fetch, first heartbeat and complete per task, and git's clone plus
// as many commit-and-pushes as a take made. Wall time follows the machine's load (other work on a shared
// box changes between the phases), so each phase's CPU time is counted too — this process and every
// child it reaped, with their reaped children (Linux: /proc/self/stat) — a figure the load moves less.
// The server as for bench/pg.ts (FLOWER_BENCH_PG_URL, FLOWER_TEST_PG_URL, else a throwaway cluster);
// without one the bench is skipped.
// Run: npm run build && node --import tsx bench/fleet.ts [tasks=100] [workers=4]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FleetQueue, QUEUE, readFleet, DEFAULT_RETRY, newTaskId, TASK_DATA_VERSION, type TaskData } from '../src/fleet/index.js';
import { commitAndPush, prepare } from '../src/fleet/git.js';
import { startSim, type Sim } from '../src/sim/index.js';
import { cli, project, testEnv } from '../test/helpers/e2e.js';
import { bareOrigin, brief, goal, settled, startWorker, verdict, work, type WorkerProc } from '../test/fleet/helpers.js';
import { argInt, fmtMs, fmtRatio, isMain, ms, table, type BenchRow } from './measure.js';
import { freshDb, withServer } from './pg.js';

/** Goal: the fleet's own work (queue, clone, pushes, the worker) costs at most a quarter of a trivial task. */
const OWN_GOAL = 1.25;
/** Goal: W workers reach at least 80% of the parallelism the machine has (min(W, cores)). */
const SCALE_SHARE = 0.8;
const TASK_TIMEOUT_MS = 300_000;

export interface FleetBenchOptions {
  tasks?: number;
  workers?: number;
  log?: (line: string) => void;
}

const TICK_MS = (() => {
  try {
    return 1000 / Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
  } catch {
    return 10;
  }
})();

/** CPU ms of this process and of the children it reaped (theirs included); null where /proc is not there. */
function cpuMs(): number | null {
  let stat: string;
  try {
    stat = fs.readFileSync('/proc/self/stat', 'utf8');
  } catch {
    return null;
  }
  // after the command's name in parentheses: field 3 (state) on; cutime and cstime are fields 16 and 17
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = process.cpuUsage();
  return (Number(f[13]) + Number(f[14])) * TICK_MS + (own.user + own.system) / 1000;
}

const since = (c0: number | null): number | null => {
  const c1 = cpuMs();
  return c0 === null || c1 === null ? null : c1 - c0;
};

/** A phase's wall and CPU time, ms. */
interface Clock {
  total: number;
  cpu: number | null;
}

/** Fixed width, so no task's marker is the start of another's (the sim routes on it). */
const marker = (i: number): string => `FT-${String(i).padStart(4, '0')}`;
const requestOf = (m: string): string => `${m}: write ${m}.txt`;

/** The scripted turns of N tasks, each routed by its marker (concurrent tasks take their own). */
function script(sim: Sim, n: number): void {
  sim.reset();
  for (let i = 1; i <= n; i++) {
    const m = marker(i);
    sim.enqueue(...brief(m), ...goal(m), work(m), ...verdict(m));
  }
}

function unexpected(sim: Sim, what: string): void {
  const u = sim.unexpected();
  if (u.length) throw new Error(`${what}: ${u.length} model call(s) the script did not expect`);
}

/** The baseline: one plain `flower` per task, one after another. */
async function loop(sim: Sim, url: string, n: number): Promise<Clock> {
  script(sim, n);
  const c0 = cpuMs();
  const t0 = process.hrtime.bigint();
  for (let i = 1; i <= n; i++) {
    const m = marker(i);
    const p = project('bench-fleet-loop');
    const env = testEnv(p, sim.url, { FLOWER_STORE: url, FLOWER_PROJECT: `loop-${m.toLowerCase()}`, FLOWER_NO_BEQUEST: '1' });
    const r = await cli(['--json', requestOf(m), '--timeout', '0', '--wait', '-w', p.ws, '-r', p.runs], { cwd: p.ws, env, timeoutMs: TASK_TIMEOUT_MS });
    fs.rmSync(p.dir, { recursive: true, force: true });
    if (r.code !== 0) throw new Error(`the loop's flower for ${m} exited ${r.code}: ${r.stderr.slice(-1000)}`);
  }
  const total = ms(t0);
  const cpu = since(c0);
  unexpected(sim, 'loop');
  return { total, cpu };
}

/** `total` and `cpu` run from the add to the last worker's exit. */
interface FleetRun extends Clock {
  add: number;
  /** commit-and-pushes per take, from the workers' events */
  pushes: number;
  /** takes each worker ran */
  takes: number[];
}

/** N tasks added at once, then W workers until they drain; every task must end achieved. */
async function fleet(sim: Sim, url: string, n: number, workers: number): Promise<FleetRun> {
  script(sim, n);
  const admin = project('bench-fleet');
  const origin = bareOrigin(admin.dir);
  const file = path.join(admin.dir, 'tasks.jsonl');
  const lines = Array.from({ length: n }, (_, k) => JSON.stringify({ request: requestOf(marker(k + 1)), name: marker(k + 1).toLowerCase() }));
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  const ws: WorkerProc[] = [];
  try {
    const c0 = cpuMs();
    const t0 = process.hrtime.bigint();
    const add = await cli(['fleet', 'add', '--file', file, '--repo', origin], { cwd: admin.dir, env: testEnv(admin, sim.url, { FLOWER_STORE: url }) });
    const addMs = ms(t0);
    if (add.code !== 0) throw new Error(`fleet add exited ${add.code}: ${add.stderr}`);
    for (let k = 0; k < workers; k++)
      ws.push(startWorker(`bench-${k + 1}`, sim.url, { FLOWER_STORE: url }, ['--slots', '1', '--drain', '--poll', '0.5', '--timeout', '0']));
    const ends = await Promise.all(ws.map((w) => settled(w, n * TASK_TIMEOUT_MS)));
    const total = ms(t0);
    const cpu = since(c0);
    for (const e of ends) if (e.code !== 0) throw new Error(`a worker exited ${e.code}: ${e.stderr.slice(-1000)}`);
    const read = await readFleet(url);
    const achieved = read?.tasks.filter((t) => t.state === 'achieved').length ?? 0;
    if (achieved !== n) throw new Error(`${achieved} of ${n} tasks achieved: ${JSON.stringify(read?.tasks.map((t) => [t.name, t.state, t.reason]))}`);
    unexpected(sim, `fleet × ${workers}`);
    const pushes = ws.flatMap((w) => w.events()).filter((e) => e.kind === 'task_push').length / n;
    const takes = ws.map((w) => w.events().filter((e) => e.kind === 'task_start').length);
    return { total, cpu, add: addMs, pushes, takes };
  } finally {
    for (const d of [admin.dir, ...ws.map((w) => w.p.dir)]) fs.rmSync(d, { recursive: true, force: true });
  }
}

/** The queue alone: send N tasks, then for each a fetch, the first heartbeat and the complete; ms per task. */
async function queueCost(url: string, n: number): Promise<number> {
  const q = await FleetQueue.open(url);
  try {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      const data: TaskData = { version: TASK_DATA_VERSION, id: newTaskId(), request: 'r', repo: '/r.git', added_at: new Date().toISOString() };
      await q.send(data, DEFAULT_RETRY);
    }
    for (let i = 0; i < n; i++) {
      const [job] = await q.boss.fetch<TaskData>(QUEUE, { batchSize: 1, includeMetadata: true });
      if (!job) throw new Error('the queue handed out fewer jobs than were sent');
      if (!(await q.renew(job.id, job.startedOn, 60))) throw new Error('the first heartbeat did not land');
      await q.complete(job.id, { outcome: 'achieved', passed: 1, total: 1 });
    }
    return ms(t0) / n;
  } finally {
    await q.close();
  }
}

/** git alone: a clone of the task's repository and `pushes` commit-and-pushes of a changed file; ms per task. */
async function gitCost(n: number, pushes: number): Promise<number> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-bench-fleet-git-'));
  try {
    const origin = bareOrigin(root);
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) {
      const dir = path.join(root, `t${i}`, 'ws');
      const branch = `flower/t-${i}`;
      await prepare(origin, dir, branch);
      for (let k = 0; k < pushes; k++) {
        fs.writeFileSync(path.join(dir, `step-${k}.md`), `step ${k}\n`);
        await commitAndPush(dir, branch, `step ${k}`);
      }
      fs.rmSync(path.dirname(dir), { recursive: true, force: true });
    }
    return ms(t0) / n;
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

interface Figures {
  n: number;
  w: number;
  loop: Clock;
  one: FleetRun;
  many: FleetRun;
  queue: number;
  git: number;
}

async function measure(admin: string, sim: Sim, n: number, w: number, log: (l: string) => void): Promise<Figures> {
  const onDb = async <T>(fn: (url: string) => Promise<T>): Promise<T> => {
    const db = await freshDb(admin);
    try {
      return await fn(db.url);
    } finally {
      await db.drop();
    }
  };
  const cpu = (c: Clock) => (c.cpu === null ? '' : `, cpu ${fmtMs(c.cpu / n)} per task`);
  const load = () => `load ${os.loadavg()[0]!.toFixed(1)}`;
  const lp = await onDb((url) => loop(sim, url, n));
  log(`loop: ${n} tasks in ${fmtMs(lp.total)} (${fmtMs(lp.total / n)} per task${cpu(lp)}; ${load()})`);
  const one = await onDb((url) => fleet(sim, url, n, 1));
  log(
    `fleet × 1: ${fmtMs(one.total)} (${fmtMs(one.total / n)} per task${cpu(one)}; the add ${fmtMs(one.add)}; ${one.pushes.toFixed(1)} pushes per take; ${load()})`,
  );
  const many = await onDb((url) => fleet(sim, url, n, w));
  log(`fleet × ${w}: ${fmtMs(many.total)} (${fmtMs(many.total / n)} per task${cpu(many)}; takes per worker ${many.takes.join(', ')}; ${load()})`);
  const queue = await onDb((url) => queueCost(url, n));
  const git = await gitCost(n, Math.round(one.pushes));
  log(`alone, per task: the queue ${fmtMs(queue)}, git (a clone and ${Math.round(one.pushes)} pushes) ${fmtMs(git)}`);
  return { n, w, loop: lp, one, many, queue, git };
}

function rows(f: Figures): BenchRow[] {
  const loopT = f.loop.total / f.n;
  const oneT = f.one.total / f.n;
  const manyT = f.many.total / f.n;
  const own = oneT / loopT;
  const parts = f.queue + f.git;
  const scale = manyT / oneT;
  const ideal = 1 / Math.min(f.w, os.cpus().length);
  const scaleGoal = ideal / SCALE_SHARE;
  const cpuRow: BenchRow[] =
    f.loop.cpu !== null && f.one.cpu !== null
      ? [
          {
            key: 'fleet.cpu-per-task.1-worker.vs-loop',
            measure: `fleet: ${f.n} tasks on 1 worker vs a plain flower loop (CPU per task)`,
            baseline: fmtMs(f.loop.cpu / f.n),
            flower: fmtMs(f.one.cpu / f.n),
            ratio: fmtRatio(f.one.cpu / f.loop.cpu),
            goal: '(info)',
            met: null,
            figures: { unit: 'ms', baseline: f.loop.cpu / f.n, flower: f.one.cpu / f.n, ratio: f.one.cpu / f.loop.cpu },
          },
        ]
      : [];
  return [
    {
      key: 'fleet.per-task.1-worker.vs-loop',
      measure: `fleet: ${f.n} trivial tasks on 1 worker vs a plain flower loop (per task)`,
      baseline: fmtMs(loopT),
      flower: fmtMs(oneT),
      ratio: fmtRatio(own),
      goal: `≤ ${OWN_GOAL}x`,
      met: own <= OWN_GOAL,
      figures: { unit: 'ms', baseline: loopT, flower: oneT, ratio: own },
    },
    ...cpuRow,
    {
      key: 'fleet.own-parts.vs-loop',
      measure: `fleet: queue + clone + ${Math.round(f.one.pushes)} pushes alone vs a loop task (per task)`,
      baseline: fmtMs(loopT),
      flower: `${fmtMs(parts)} (queue ${fmtMs(f.queue)}, git ${fmtMs(f.git)})`,
      ratio: fmtRatio(parts / loopT),
      goal: '(info)',
      met: null,
      figures: { unit: 'ms', baseline: loopT, flower: parts, ratio: parts / loopT },
    },
    {
      key: `fleet.scaling.${f.w}-vs-1-workers`,
      measure: `fleet: ${f.n} tasks on ${f.w} workers vs 1 (per task; ${os.cpus().length} cores)`,
      baseline: fmtMs(oneT),
      flower: fmtMs(manyT),
      ratio: fmtRatio(scale),
      goal: `≤ ${scaleGoal.toFixed(2)}x`,
      met: scale <= scaleGoal,
      figures: { unit: 'ms', baseline: oneT, flower: manyT, ratio: scale },
    },
    {
      key: `fleet.per-task.${f.w}-workers.vs-loop`,
      measure: `fleet: ${f.n} tasks on ${f.w} workers vs a plain flower loop (per task)`,
      baseline: fmtMs(loopT),
      flower: fmtMs(manyT),
      ratio: fmtRatio(manyT / loopT),
      goal: '(info)',
      met: null,
      figures: { unit: 'ms', baseline: loopT, flower: manyT, ratio: manyT / loopT },
    },
  ];
}

export async function main(o: FleetBenchOptions = {}): Promise<BenchRow[]> {
  const n = Math.max(1, o.tasks ?? 100);
  const w = Math.max(2, o.workers ?? 4);
  const log = o.log ?? console.log;
  const out = await withServer(async (admin) => {
    const sim = await startSim({ port: 0, onUnexpected: 'error' });
    try {
      return rows(await measure(admin, sim, n, w, log));
    } finally {
      await sim.close();
    }
  });
  if (out === null) {
    log('SKIPPED: no PostgreSQL server (set FLOWER_BENCH_PG_URL, or install the postgresql package)');
    return [];
  }
  return out;
}

if (isMain(import.meta.url)) {
  const r = await main({ tasks: argInt(0, 100), workers: argInt(1, 4) });
  console.log(`\n${table(r)}`);
}
