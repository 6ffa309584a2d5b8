// Bench for SqliteSessionStore: append throughput and load() vs reading the same JSONL.
// Run: node --import tsx bench/store.ts [entries=100000] [runs=3]
// Goals (issue 24): append >= 50k entries/s (batches of 100); load <= 0.8x (readFileSync + JSON.parse per line).
// Append's like-for-like baseline is the bare SQL a store with the same schema must run: the same file set
// up by openDatabase (schema, WAL, pragmas), each entry stringified and inserted with the same prepared
// INSERT … ON CONFLICT, one meta upsert and one IMMEDIATE transaction per batch. The same on an in-memory
// database is the machine's ceiling for the schema (no I/O at all), reported on its own line.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import { SqliteSessionStore, storeKeyOf } from '../src/store/index.js';
import { openDatabase } from '../src/store/sqlite-open.js';
import { INSERT_SQL, PUT_META_SQL } from '../src/store/sqlite.js';
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
    const appendCpuRates: number[] = [];
    const eagerRates: number[] = [];
    const rawRates: number[] = [];
    const memRates: number[] = [];
    let dbPath = '';
    for (let r = 0; r < RUNS; r++) {
      rawRates.push(bareAppend(join(dir, `raw${r}.db`), entries));
      memRates.push(bareAppend(':memory:', entries));
      dbPath = join(dir, `run${r}.db`);
      const store = new SqliteSessionStore(dbPath);
      const c0 = process.cpuUsage();
      let t0 = process.hrtime.bigint();
      for (let i = 0; i < N; i += BATCH) await store.append(KEY, entries.slice(i, i + BATCH));
      appendRates.push(N / (ms(t0) / 1000));
      const cpu = process.cpuUsage(c0);
      appendCpuRates.push(N / ((cpu.user + cpu.system) / 1e6));
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
    const rawRate = median(rawRates);
    const memRate = median(memRates);
    // time per entry, flower over bare SQL, each round against its own baseline
    const appendRatio = median(appendRates.map((a, i) => rawRates[i]! / a));
    log(
      `append, batches of ${BATCH}: median ${Math.round(append)} entries/s (runs: ${appendRates.map(Math.round).join(', ')}); per CPU second ${Math.round(median(appendCpuRates))}`,
    );
    log(
      `bare SQL, same schema and pragmas: ${Math.round(rawRate)}/s on disk (runs: ${rawRates.map(Math.round).join(', ')}), ${Math.round(memRate)}/s in memory`,
    );
    log(`append, 1 entry per call (eager): median ${Math.round(eager)} entries/s`);

    const jsonlPath = join(dir, 'transcript.jsonl');
    writeFileSync(jsonlPath, jsonl);
    const store = new SqliteSessionStore(dbPath);
    const raw = new Database(dbPath, { readonly: true });
    try {
      const sk = storeKeyOf(KEY);
      const pluck = raw.prepare<[string], string>('SELECT payload FROM entries WHERE store_key = ? ORDER BY seq').pluck();
      const concat = raw.prepare<[string], string>("SELECT '[' || group_concat(payload, ',' ORDER BY seq) || ']' FROM entries WHERE store_key = ?").pluck();

      // Like for like: both sides turn the same entries into the array a load returns (the SDK keeps and
      // writes every one), and read warm data (round 0 is not counted). An earlier baseline dropped each
      // parsed line at once, which spares the GC the 100k live objects a real load keeps; it is still shown.
      const BASE = 'jsonl: read + split + JSON.parse, kept';
      const SHIPPED = 'store.load() [shipped]';
      const variants: Record<string, () => number> = {
        [BASE]: () => {
          const out: unknown[] = [];
          for (const l of readFileSync(jsonlPath, 'utf8').split('\n')) if (l) out.push(JSON.parse(l));
          return out.length;
        },
        [SHIPPED]: () => store.loadSync(KEY)!.length,
        'info: jsonl, each parsed line dropped': () => {
          let c = 0;
          for (const l of readFileSync(jsonlPath, 'utf8').split('\n'))
            if (l) {
              JSON.parse(l);
              c++;
            }
          return c;
        },
      };
      if (o.alternatives !== false) {
        variants['alt: iterate + JSON.parse per row'] = () => {
          const out: unknown[] = [];
          for (const p of pluck.iterate(sk)) out.push(JSON.parse(p));
          return out.length;
        };
        variants['alt: .all() + JSON.parse per row'] = () => pluck.all(sk).map((p) => JSON.parse(p) as unknown).length;
        variants["alt: .all() + JSON.parse('[' + join + ']')"] = () => (JSON.parse(`[${pluck.all(sk).join(',')}]`) as unknown[]).length;
        variants['alt: SQL group_concat + one JSON.parse'] = () => (JSON.parse(concat.get(sk)!) as unknown[]).length;
      }
      const { times, cpus } = timeRounds(variants, Math.max(RUNS, o.alternatives === false ? 7 : 9), N);
      // each round's own ratio against the baseline of the same round, then their median
      const ratio = (of: Record<string, number[]>, name: string) => median(of[name]!.map((x, i) => x / of[BASE]![i]!));
      for (const name of Object.keys(times))
        log(
          `${name.padEnd(44)} median ${fmtMs(median(times[name]!))}  ratio ${fmtRatio(ratio(times, name))} | CPU ${fmtMs(median(cpus[name]!))}  ratio ${fmtRatio(ratio(cpus, name))}`,
        );
      const base = median(times[BASE]!);
      const loadRatio = ratio(times, SHIPPED);
      const loaded = store.loadSync(KEY)!;
      if (JSON.stringify(loaded) !== JSON.stringify(entries)) throw new Error('load() did not return what was appended');
      const load = median(times[SHIPPED]!);
      return [
        {
          measure: `store append, batches of ${BATCH} (entries/s)`,
          baseline: `${Math.round(rawRate)}/s bare SQL`,
          flower: `${Math.round(append)}/s`,
          ratio: fmtRatio(appendRatio),
          goal: `≥ ${APPEND_GOAL / 1000}k/s`,
          met: append >= APPEND_GOAL,
          figures: { unit: 'per_s', baseline: rawRate, flower: append, ratio: appendRatio },
        },
        { key: 'store.append.ceiling', ...rateOnly(`bare SQL append, in memory (the schema's ceiling here)`, memRate, '(report)') },
        rateOnly('store append, 1 per call (eager)', eager, '(info)'),
        {
          measure: `store load, ${N / 1000}k entries`,
          baseline: `${fmtMs(base)} jsonl`,
          flower: fmtMs(load),
          ratio: fmtRatio(loadRatio),
          goal: `≤ ${LOAD_GOAL}x`,
          met: loadRatio <= LOAD_GOAL,
          figures: { unit: 'ms', baseline: base, flower: load, ratio: loadRatio },
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

/**
 * Times every variant once per round, in an order that rotates so none always follows another's garbage;
 * round 0 warms the page cache and the JIT and is not counted. Wall and CPU ms per variant, per round.
 */
/** A row with a rate and no baseline to divide it by. */
function rateOnly(measure: string, rate: number, goal: string): BenchRow {
  return {
    measure,
    baseline: '—',
    flower: `${Math.round(rate)}/s`,
    ratio: '—',
    goal,
    met: null,
    figures: { unit: 'per_s', baseline: null, flower: rate, ratio: null },
  };
}

/**
 * Entries per second of the bare SQL under a store with the spec's schema (src/store/sqlite-open.ts): the file
 * opened as the store opens it, JSON.stringify + the same INSERT per entry, one meta upsert per batch.
 */
function bareAppend(dbPath: string, entries: SessionStoreEntry[]): number {
  const db = openDatabase(dbPath);
  try {
    const insert = db.prepare<[string, number, string | null, string]>(INSERT_SQL);
    const meta = db.prepare<[string, number, number]>(PUT_META_SQL);
    const sk = storeKeyOf(KEY);
    let seq = 0;
    const batch = db.transaction((from: number) => {
      for (const e of entries.slice(from, from + BATCH)) {
        if (insert.run(sk, seq, typeof e.uuid === 'string' ? e.uuid : null, JSON.stringify(e)).changes === 1) seq++;
      }
      meta.run(sk, Date.now(), seq);
    }).immediate;
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < entries.length; i += BATCH) batch(i);
    return entries.length / (ms(t0) / 1000);
  } finally {
    db.close();
  }
}

function timeRounds(variants: Record<string, () => number>, rounds: number, n: number): { times: Record<string, number[]>; cpus: Record<string, number[]> } {
  const times: Record<string, number[]> = {};
  const cpus: Record<string, number[]> = {};
  const names = Object.keys(variants);
  for (let r = 0; r <= rounds; r++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(k + r) % names.length]!;
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const c = variants[name]!();
      const t = ms(t0);
      const cpu = process.cpuUsage(c0);
      if (c !== n) throw new Error(`${name} returned ${c} entries, expected ${n}`);
      if (r === 0) continue;
      (times[name] ??= []).push(t);
      (cpus[name] ??= []).push((cpu.user + cpu.system) / 1000);
    }
  }
  return { times, cpus };
}

if (isMain(import.meta.url)) {
  const rows = await main({ entries: argInt(0, 100_000), runs: argInt(1, 3) });
  console.log(`\n${table(rows)}`);
}
