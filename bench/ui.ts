// Bench for `flower ui`: server time to render the landing page (every run, every step, the work step's
// context curve) and a session page (figures, curve, trace: timeline, subagents, changes; the first
// transcript page) over a 100k-entry session, measured through the
// request handler with a fresh source each round (nothing cached). Two cases: a finished run (the db
// is read from memory, no -wal) and a live one (a writer holds the db open in WAL mode).
// Baseline: SqliteSessionStore.loadSync() of the same session (reading it whole, as a resume does).
// Run: node --import tsx bench/ui.ts [entries=100000] [runs=5]
// Goal: the landing page under 2 s of server time (wall clock; the cpu time is shown too, since on a
// loaded box the wall clock mostly measures the wait for a core).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteSessionStore } from '../src/store/index.js';
import { FileSource, handle, type UiApp } from '../src/ui/index.js';
import { argInt, fmtMs, fmtRatio, isMain, median, table, timed, type BenchRow } from './measure.js';
import { KEY, makeTranscript } from './transcript.js';

const GOAL_MS = 2000;

export async function main(o: { entries?: number; runs?: number; log?: (l: string) => void } = {}): Promise<BenchRow[]> {
  const N = o.entries ?? 100_000;
  const RUNS = Math.max(3, o.runs ?? 5);
  const log = o.log ?? console.log;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-bench-ui-'));
  try {
    const runs = path.join(dir, 'runs');
    const db = path.join(runs, 'sessions.db');
    const store = new SqliteSessionStore(db);
    const { entries } = makeTranscript(N);
    for (let i = 0; i < entries.length; i += 5000) store.appendSync(KEY, entries.slice(i, i + 5000));
    const calls = new Set(
      entries
        .filter((e) => e.type === 'assistant' && (e as { message?: { model?: string } }).message?.model !== '<synthetic>')
        .map((e) => (e as unknown as { message: { id: string } }).message.id),
    ).size;
    const row = {
      run: '20260101-000000-abcdef',
      step: '干活',
      session_id: KEY.sessionId,
      ok: true,
      cost_usd: 12.5,
      num_turns: calls,
      text: 'done',
      error: null,
      started_at: '2000-01-01T00:00:00.000Z',
      ended_at: '2100-01-01T00:00:00.000Z',
      attempts: 1,
      errors: [],
      resumed: false,
      retired: [],
      context: 0,
      duration_s: 1,
    };
    fs.writeFileSync(path.join(runs, 'manifest.json'), JSON.stringify([row]));
    fs.writeFileSync(path.join(runs, 'lineage.json'), JSON.stringify({ workspace: dir, woke: 1, steps: { 干活: KEY.sessionId } }));
    const loads: number[] = [];
    for (let r = 0; r < RUNS; r++) loads.push((await timed(() => store.loadSync(KEY))).ms);

    const cpu = async <T>(fn: () => Promise<T>): Promise<{ ms: number; cpu: number; value: T }> => {
      const c0 = process.cpuUsage();
      const r = await timed(fn);
      const c = process.cpuUsage(c0);
      return { ...r, cpu: (c.user + c.system) / 1000 };
    };
    const measure = async (label: string): Promise<{ landing: number; session: number; landingCpu: number; sessionCpu: number }> => {
      const landing: number[] = [];
      const session: number[] = [];
      const landingCpu: number[] = [];
      const sessionCpu: number[] = [];
      const warm: number[] = [];
      for (let r = 0; r < RUNS; r++) {
        const app: UiApp = { source: FileSource.at(runs), token: 't', window: 1_000_000, threshold: 750_000 };
        const l = await cpu(() => handle(app, 'GET', '/?token=t'));
        const circles = (l.value.body.match(/<circle /g) ?? []).length;
        if (l.value.status !== 200 || circles !== calls) throw new Error(`${label}: landing ${l.value.status} with ${circles} points, expected ${calls}`);
        landing.push(l.ms);
        landingCpu.push(l.cpu);
        const s = await cpu(() => handle(app, 'GET', `/session/${KEY.sessionId}?token=t`));
        if (s.value.status !== 200) throw new Error(`${label}: session page ${s.value.status}`);
        // the session page carries the trace: the timeline of every model and tool call (its longest ones)
        if (!s.value.body.includes('<section class="timeline">')) throw new Error(`${label}: session page without its timeline`);
        session.push(s.ms);
        const w = await cpu(() => handle(app, 'GET', '/?token=t'));
        warm.push(w.ms);
        sessionCpu.push(s.cpu);
        (app.source as FileSource).close();
      }
      log(
        `${label}: landing ${landing.map(fmtMs).join(', ')}; session page ${session.map(fmtMs).join(', ')}; landing again (cached reads) ${warm.map(fmtMs).join(', ')}`,
      );
      return { landing: median(landing), session: median(session), landingCpu: median(landingCpu), sessionCpu: median(sessionCpu) };
    };
    // live: the writer keeps the db open (and its -wal file exists)
    const live = await measure('live run (WAL, writer open)');
    store.close();
    const done = await measure('finished run (no -wal)');
    const load = median(loads);
    log(`entries: ${N}; model calls on the curve: ${calls}; SqliteSessionStore.loadSync(): ${fmtMs(load)}`);
    const rowFor = (what: string, t: number, c: number): BenchRow => ({
      measure: `ui ${what} (${N / 1000}k entries)`,
      baseline: `loadSync ${fmtMs(load)}`,
      flower: `${fmtMs(t)} (cpu ${fmtMs(c)})`,
      ratio: fmtRatio(t / load),
      goal: `< ${fmtMs(GOAL_MS)}`,
      met: t < GOAL_MS,
      figures: { unit: 'ms', baseline: load, flower: t, ratio: t / load },
    });
    return [
      rowFor('landing, finished run', done.landing, done.landingCpu),
      rowFor('landing, live run', live.landing, live.landingCpu),
      rowFor('session page with the timeline, finished run', done.session, done.sessionCpu),
      rowFor('session page with the timeline, live run', live.session, live.sessionCpu),
    ];
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  console.log(`\n${table(await main({ entries: argInt(0, 100_000), runs: argInt(1, 5) }))}`);
}
