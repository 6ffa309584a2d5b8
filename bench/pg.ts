// Bench: PostgresSessionStore against SqliteSessionStore on the same transcript — append throughput
// (batches of 100, and one entry per call as in eager flush) and load() of the whole session.
// The server: FLOWER_BENCH_PG_URL, else FLOWER_TEST_PG_URL, else a throwaway cluster started here
// (scripts/pg-cluster.mjs; needs PostgreSQL's server binaries). Numbers are ratios PostgreSQL/SQLite
// measured in this same run, on loopback; a network hop adds its round-trip to every statement.
// Run: node --import tsx bench/pg.ts [entries=20000] [runs=3]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import crypto from 'node:crypto';
import pg from 'pg';
import type { SessionStore } from '@anthropic-ai/claude-agent-sdk';
import { SqliteSessionStore } from '../src/store/index.js';
import { PostgresSessionStore } from '../src/store/postgres/index.js';
// @ts-expect-error plain ESM script without types
import { startCluster, stopCluster } from '../scripts/pg-cluster.mjs';
import { argInt, fmtMs, fmtRatio, isMain, median, ms, table, type BenchRow } from './measure.js';
import { KEY, SID, makeTranscript } from './transcript.js';

const BATCH = 100;
/** Goals, as ratios to SQLite on loopback: a server round-trip per statement costs, a whole-session load should not. */
const APPEND_GOAL = 10;
const LOAD_GOAL = 3;

export interface PgBenchOptions {
  entries?: number;
  runs?: number;
  log?: (line: string) => void;
}

/** `fn` with a server's admin URL (see the head of this file); null when there is none. Also used by bench/fleet.ts. */
export async function withServer<T>(fn: (url: string) => Promise<T>): Promise<T | null> {
  const given = process.env.FLOWER_BENCH_PG_URL || process.env.FLOWER_TEST_PG_URL;
  if (given) return fn(given);
  const c = (await startCluster()) as { url: string; dir: string } | null;
  if (!c) return null;
  try {
    return await fn(c.url);
  } finally {
    stopCluster(c.dir);
  }
}

/** A new database on the server `admin` names, and how to drop it. */
export async function freshDb(admin: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `flower_bench_${crypto.randomBytes(4).toString('hex')}`;
  const c = new pg.Client({ connectionString: admin });
  await c.connect();
  await c.query(`CREATE DATABASE ${name}`);
  await c.end();
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
    },
  };
}

export async function main(o: PgBenchOptions = {}): Promise<BenchRow[]> {
  const N = o.entries ?? 20_000;
  const RUNS = Math.max(3, o.runs ?? 3);
  const log = o.log ?? console.log;
  const { entries } = makeTranscript(N);
  const eagerN = Math.min(N, 2000);
  const out = await withServer(async (admin) => {
    const dir = mkdtempSync(join(tmpdir(), 'flower-bench-pg-'));
    const rates: Record<'sqlite' | 'pg', { batch: number[]; eager: number[]; load: number[] }> = {
      sqlite: { batch: [], eager: [], load: [] },
      pg: { batch: [], eager: [], load: [] },
    };
    try {
      for (let r = 0; r < RUNS; r++) {
        for (const kind of ['sqlite', 'pg'] as const) {
          const db = kind === 'pg' ? await freshDb(admin) : null;
          const store: SessionStore & { close(): void } = db ? await new PostgresSessionStore(db.url).open() : new SqliteSessionStore(join(dir, `r${r}.db`));
          try {
            let t0 = process.hrtime.bigint();
            for (let i = 0; i < N; i += BATCH) await store.append(KEY, entries.slice(i, i + BATCH));
            rates[kind].batch.push(N / (ms(t0) / 1000));
            const eagerKey = { ...KEY, sessionId: `${SID.slice(0, -1)}e` };
            t0 = process.hrtime.bigint();
            for (let i = 0; i < eagerN; i++) await store.append(eagerKey, [entries[i]!]);
            rates[kind].eager.push(eagerN / (ms(t0) / 1000));
            await store.load(KEY); // warm
            t0 = process.hrtime.bigint();
            const got = await store.load(KEY);
            rates[kind].load.push(ms(t0));
            if (got?.length !== N) throw new Error(`${kind} load returned ${got?.length} entries, expected ${N}`);
          } finally {
            store.close();
            await db?.drop();
          }
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const m = (k: 'sqlite' | 'pg', f: 'batch' | 'eager' | 'load') => median(rates[k][f]);
    log(`entries ${N}, ${RUNS} runs; append batches of ${BATCH}: SQLite ${Math.round(m('sqlite', 'batch'))}/s, PostgreSQL ${Math.round(m('pg', 'batch'))}/s`);
    log(`append 1 per call (${eagerN}): SQLite ${Math.round(m('sqlite', 'eager'))}/s, PostgreSQL ${Math.round(m('pg', 'eager'))}/s`);
    log(`load ${N}: SQLite ${fmtMs(m('sqlite', 'load'))}, PostgreSQL ${fmtMs(m('pg', 'load'))}`);
    const batchRatio = m('sqlite', 'batch') / m('pg', 'batch');
    const eagerRatio = m('sqlite', 'eager') / m('pg', 'eager');
    const loadRatio = m('pg', 'load') / m('sqlite', 'load');
    return [
      {
        measure: `pg append, batches of ${BATCH} (time vs SQLite)`,
        baseline: `${Math.round(m('sqlite', 'batch'))}/s`,
        flower: `${Math.round(m('pg', 'batch'))}/s`,
        ratio: fmtRatio(batchRatio),
        goal: `≤ ${APPEND_GOAL}x`,
        met: batchRatio <= APPEND_GOAL,
        figures: { unit: 'per_s', baseline: m('sqlite', 'batch'), flower: m('pg', 'batch'), ratio: batchRatio },
      },
      {
        measure: 'pg append, 1 per call (time vs SQLite)',
        baseline: `${Math.round(m('sqlite', 'eager'))}/s`,
        flower: `${Math.round(m('pg', 'eager'))}/s`,
        ratio: fmtRatio(eagerRatio),
        goal: '(info)',
        met: null,
        figures: { unit: 'per_s', baseline: m('sqlite', 'eager'), flower: m('pg', 'eager'), ratio: eagerRatio },
      },
      {
        measure: `pg load, ${N / 1000}k entries (time vs SQLite)`,
        baseline: fmtMs(m('sqlite', 'load')),
        flower: fmtMs(m('pg', 'load')),
        ratio: fmtRatio(loadRatio),
        goal: `≤ ${LOAD_GOAL}x`,
        met: loadRatio <= LOAD_GOAL,
        figures: { unit: 'ms', baseline: m('sqlite', 'load'), flower: m('pg', 'load'), ratio: loadRatio },
      },
    ] satisfies BenchRow[];
  });
  if (out === null) {
    log('SKIPPED: no PostgreSQL server (set FLOWER_BENCH_PG_URL, or install the postgresql package)');
    return [];
  }
  return out;
}

if (isMain(import.meta.url)) {
  const rows = await main({ entries: argInt(0, 20_000), runs: argInt(1, 3) });
  console.log(`\n${table(rows)}`);
}
