// `npm run bench`: the start, store, views, ui, once, floor, pg, guards, wake and fleet benches in sequence, then one summary table, also
// saved as JSON (bench/report.ts; `--json <file>`, else test-artifacts/bench-<time>.json) for bench/compare.ts.
// Every ratio is flower against a baseline measured in this same run; nothing here is a test, and a
// goal not met is reported, never thrown. Expect ~30 minutes on 2 cores (the guards ~12 of them, the fleet ~2).
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { main as fleetBench } from './fleet.js';
import { main as floorBench } from './floor.js';
import { main as guardsBench } from './guards.js';
import { main as onceBench } from './once.js';
import { main as pgBench } from './pg.js';
import { machine, reportOf, reportPath, writeReport } from './report.js';
import { main as startBench } from './start.js';
import { main as storeBench } from './store.js';
import { main as uiBench } from './ui.js';
import { main as viewsBench } from './views.js';
import { main as wakeBench } from './wake.js';
import { table, type BenchRow } from './measure.js';

const load = () =>
  os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(', ');
const t0 = Date.now();
const loadStart = os.loadavg();
const out = reportPath(process.argv.slice(2), path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'));
console.log(`node ${process.version}, ${os.cpus().length} cpus (${os.cpus()[0]?.model ?? '?'}), load average ${load()}`);

const rows: BenchRow[] = [];
const benches: Array<[string, () => Promise<BenchRow[]>]> = [
  ['start: flower --version, --help, status as whole processes vs node -e 0; what each command (and once) loads', () => startBench({ runs: 11 })],
  ['store: append throughput, load() vs JSONL read+parse (100k entries)', () => storeBench({ entries: 100_000, runs: 3, alternatives: false })],
  ['views: ViewedStore.load() with every view on vs plain load (100k entries)', () => viewsBench({ entries: 100_000, runs: 7 })],
  ['ui: landing and session page over a 100k-entry session, vs loadSync', () => uiBench({ entries: 100_000, runs: 5 })],
  ['once: 20-call scripted session, flower vs bare SDK query() with the same floor (sandbox on both sides)', () => onceBench({ runs: 11 })],
  ["floor: the floor's price per command, one part at a time (40 quick commands, bare SDK query())", () => floorBench({ runs: 3, commands: 40 })],
  ['pg: PostgreSQL store vs SQLite, append and load (20k entries; skipped without a server)', () => pgBench({ entries: 20_000, runs: 3 })],
  ['guards: 120-turn scripted session with the workbench, flower vs bare SDK query() (sandbox on and off)', () => guardsBench({ runs: 5 })],
  ['wake: resume a long session among 200 to its first model call, flower vs bare SDK resume', () => wakeBench({ runs: 9, turns: 300 })],
  // CI-size: 8 tasks (bench/fleet.ts takes the count; docs/fleet.md has a 20-task run)
  ['fleet: 8 trivial tasks, a plain flower loop vs the fleet on 1 and 4 workers (skipped without a server)', () => fleetBench({ tasks: 8, workers: 4 })],
];
for (const [title, run] of benches) {
  const started = Date.now();
  console.log(`\n== ${title}`);
  rows.push(...(await run()));
  console.log(`(${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

console.log(`\n${table(rows)}`);
writeReport(out, reportOf(rows, machine(loadStart)));
console.log(`\nsaved as ${out} (compare two runs: npm run bench:compare -- before.json after.json)`);
console.log(`\ntotal ${((Date.now() - t0) / 1000).toFixed(0)} s; load average at the end ${load()} (1, 5, 15 min)`);
