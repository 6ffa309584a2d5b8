// Bench for SqliteSessionStore: append throughput and load() vs reading the same JSONL.
// Run: node --import tsx bench/store.ts [entries=100000] [runs=3]
// Goals (issue 24): append >= 50k entries/s (batches of 100); load <= 0.8x (readFileSync + JSON.parse per line).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SqliteSessionStore, storeKeyOf } from '../src/store/index.js';
import { argInt, fmtMs, fmtRatio, isMain, median, ms, table, type BenchRow } from './measure.js';
import { KEY, SID, makeTranscript } from './transcript.js';

const BATCH = 100;
const APPEND_GOAL = 50_000;
const LOAD_GOAL = 0.8;

export interface StoreBenchOptions {
  entries?: number;
  runs?: number;
  /** also time the alternative load strategies (what store.load() was chosen against); slow, off in run.ts */
  alternatives?: boolean;
  log?: (line: string) => void;
}

export async function main(o: StoreBenchOptions = {}): Promise<BenchRow[]> {
  const N = o.entries ?? 100_000;
  const RUNS = Math.max(3, o.runs ?? 3);
  const log = o.log ?? console.log;
  const { entries } = makeTranscript(N);
  const jsonl = entries.map((e) => JSON.stringify(e)).join('\n') + '\n';
  const sizes = entries.map((e) => JSON.stringify(e).length);
  log(
    `entries: ${N}, JSONL ${(jsonl.length / 1e6).toFixed(1)} MB, entry size ${Math.min(...sizes)}–${Math.max(...sizes)} B (avg ${Math.round(jsonl.length / N)})`,
  );

  const dir = mkdtempSync(join(tmpdir(), 'flower-bench-store-'));
  try {
    const appendRates: number[] = [];
    const eagerRates: number[] = [];
    let dbPath = '';
    for (let r = 0; r < RUNS; r++) {
      dbPath = join(dir, `run${r}.db`);
      const store = new SqliteSessionStore(dbPath);
      let t0 = process.hrtime.bigint();
      for (let i = 0; i < N; i += BATCH) await store.append(KEY, entries.slice(i, i + BATCH));
      appendRates.push(N / (ms(t0) / 1000));
      // eager flush mode: one append per entry (5k entries is enough to see the per-call cost)
      const eagerKey = { ...KEY, sessionId: `${SID.slice(0, -1)}e` };
      const m = Math.min(N, 5000);
      t0 = process.hrtime.bigint();
      for (let i = 0; i < m; i++) await store.append(eagerKey, [entries[i]!]);
      eagerRates.push(m / (ms(t0) / 1000));
      store.close();
    }
    const append = median(appendRates);
    const eager = median(eagerRates);
    log(`append, batches of ${BATCH}: median ${Math.round(append)} entries/s (runs: ${appendRates.map(Math.round).join(', ')})`);
    log(`append, 1 entry per call (eager): median ${Math.round(eager)} entries/s`);

    const jsonlPath = join(dir, 'transcript.jsonl');
    writeFileSync(jsonlPath, jsonl);
    const store = new SqliteSessionStore(dbPath);
    const raw = new Database(dbPath, { readonly: true });
    try {
      const sk = storeKeyOf(KEY);
      const pluck = raw.prepare<[string], string>('SELECT payload FROM entries WHERE store_key = ? ORDER BY seq').pluck();
      const concat = raw.prepare<[string], string>("SELECT '[' || group_concat(payload, ',' ORDER BY seq) || ']' FROM entries WHERE store_key = ?").pluck();

      const BASE = 'jsonl: readFileSync + JSON.parse per line';
      const SHIPPED = 'store.load() [shipped]';
      const variants: Record<string, () => number> = {
        [BASE]: () => {
          const lines = readFileSync(jsonlPath, 'utf8').split('\n');
          let c = 0;
          for (const l of lines)
            if (l) {
              JSON.parse(l);
              c++;
            }
          return c;
        },
        [SHIPPED]: () => store.loadSync(KEY)!.length,
      };
      if (o.alternatives !== false) {
        variants['alt: .all() + JSON.parse per row'] = () => pluck.all(sk).map((p) => JSON.parse(p) as unknown).length;
        variants["alt: .all() + JSON.parse('[' + join + ']')"] = () => (JSON.parse(`[${pluck.all(sk).join(',')}]`) as unknown[]).length;
        variants['alt: SQL group_concat + one JSON.parse'] = () => (JSON.parse(concat.get(sk)!) as unknown[]).length;
      }
      const times: Record<string, number[]> = {};
      const rounds = Math.max(RUNS, o.alternatives === false ? 7 : 9);
      for (let r = 0; r < rounds + 1; r++) {
        for (const [name, fn] of Object.entries(variants)) {
          const t0 = process.hrtime.bigint();
          const c = fn();
          const t = ms(t0);
          if (c !== N) throw new Error(`${name} returned ${c} entries, expected ${N}`);
          if (r > 0) (times[name] ??= []).push(t); // round 0 warms caches and the JIT
        }
      }
      const base = median(times[BASE]!);
      const baseBest = Math.min(...times[BASE]!);
      for (const [name, ts] of Object.entries(times)) {
        const best = Math.min(...ts);
        log(
          `${name.padEnd(44)} median ${median(ts).toFixed(0)} ms  ratio ${(median(ts) / base).toFixed(2)}x | best ${best.toFixed(0)} ms  ratio ${(best / baseBest).toFixed(2)}x`,
        );
      }
      const loaded = store.loadSync(KEY)!;
      if (JSON.stringify(loaded) !== JSON.stringify(entries)) throw new Error('load() did not return what was appended');
      const load = median(times[SHIPPED]!);
      return [
        {
          measure: `store append, batches of ${BATCH} (entries/s)`,
          baseline: '—',
          flower: `${Math.round(append)}/s`,
          ratio: '—',
          goal: `≥ ${APPEND_GOAL / 1000}k/s`,
          met: append >= APPEND_GOAL,
          figures: { unit: 'per_s', baseline: null, flower: append, ratio: null },
        },
        {
          measure: 'store append, 1 per call (eager)',
          baseline: '—',
          flower: `${Math.round(eager)}/s`,
          ratio: '—',
          goal: '(info)',
          met: null,
          figures: { unit: 'per_s', baseline: null, flower: eager, ratio: null },
        },
        {
          measure: `store load, ${N / 1000}k entries`,
          baseline: `${fmtMs(base)} jsonl`,
          flower: fmtMs(load),
          ratio: fmtRatio(load / base),
          goal: `≤ ${LOAD_GOAL}x`,
          met: load / base <= LOAD_GOAL,
          figures: { unit: 'ms', baseline: base, flower: load, ratio: load / base },
        },
      ];
    } finally {
      raw.close();
      store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const rows = await main({ entries: argInt(0, 100_000), runs: argInt(1, 3) });
  console.log(`\n${table(rows)}`);
}
