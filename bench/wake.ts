// Bench: how much later than a bare SDK resume does a flower wake reach the model? (issue 11 item 8)
// A run dir with 200 sessions in sessions.db: one real session of TURNS Bash turns (each tool result
// ~2 KB) plus 199 short copies of its beginning under other ids. Two ways to resume the real one, timed from the call
// until the sim receives the first model request:
//   bare          — query({ resume, sessionStore: SqliteSessionStore }), no sandbox, no scrub
//   bare+sandbox  — the same with the floor flower sets, built by runtime/floor.ts as flower builds it
//                   (its sandbox, the binary's permission rules, the CLAUDE_ENV_FILE scrub script, the
//                   private TMPDIR): the baseline that carries the goal
//   flower        — new Runtime(...).run(spec, prompt, { resume }) (store check, cost baseline, views, guards)
// flower / bare+sandbox is flower's own overhead (goal ≤ 1.05x); bare+sandbox / bare is the floor's price.
// Each time is split at the spawn of the `claude` binary: before it is the parent's own work (flower's
// preparation, the SDK loading the session and writing its transcript), after it the binary's start.
// Run: npm run build && node --import tsx bench/wake.ts [runs=7] [turns=400]
import cp from 'node:child_process';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import Database from 'better-sqlite3';
import { AgentSpec, Runtime } from '../src/runtime/index.js';
import { startSim, type SimItem } from '../src/sim/index.js';
import { SqliteSessionStore, ViewedStore, projectKeyFor } from '../src/store/index.js';
import { bareFloor } from './floor.js';
import { argInt, fmtMs, fmtRatio, isMain, median, table, type BenchRow } from './measure.js';

const GOAL = 1.05;
const SESSIONS = 200;

export interface WakeBenchOptions {
  runs?: number;
  turns?: number;
  log?: (line: string) => void;
}

function baseEnv(home: string, url: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: 'sk-test',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    CLAUDE_CODE_MAX_RETRIES: '0',
  };
}
const FLOWER_ENV = { FLOWER_CLI_RETRIES: '0', FLOWER_WATCHDOG: '120', FLOWER_LANG: 'en' };

export async function main(o: WakeBenchOptions = {}): Promise<BenchRow[]> {
  const RUNS = Math.max(3, o.runs ?? 7);
  const TURNS = Math.max(10, o.turns ?? 400);
  const log = o.log ?? console.log;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-bench-wake-'));
  const home = path.join(root, 'home');
  const ws = path.join(root, 'ws');
  const runs = path.join(root, 'runs');
  for (const d of [home, ws]) fs.mkdirSync(d, { recursive: true });
  // the first model request of a resume marks the moment; every answer is a plain text
  let hit: (() => void) | null = null;
  const sim = await startSim({
    port: 0,
    defaultItem: () => {
      hit?.();
      hit = null;
      return { type: 'text', text: 'ok' } as SimItem;
    },
  });
  const env = { ...baseEnv(home, sim.url), ...FLOWER_ENV };
  let costRow: BenchRow | undefined;
  let unpatch = (): void => {};
  const spec = new AgentSpec({ name: 'bench', instructions: '', allowedTools: ['Bash'], permissionMode: 'default' });
  try {
    // 1. one real session: TURNS Bash turns with ~2 KB results each
    const items: SimItem[] = [];
    for (let i = 1; i <= TURNS; i++) items.push({ type: 'tool_use', name: 'Bash', input: { command: 'seq 1 450', description: `turn ${i}` } });
    items.push({ type: 'text', text: 'built' });
    sim.enqueue(items);
    const t0 = Date.now();
    const rt0 = new Runtime({ workspace: ws, runDir: runs, env, onWarning: () => {} });
    const made = await rt0.run(spec, 'Run seq 1 450 again and again.');
    rt0.close();
    if (!made.ok || !made.session_id) throw new Error(`building the session failed: ${made.error}`);
    const sid = made.session_id;
    // 2. 199 copies under other ids: the same store, 200 sessions
    const db = new Database(path.join(runs, 'sessions.db'));
    const pk = projectKeyFor(ws);
    const sk = `${pk}/${sid}`;
    const entries = db.prepare('SELECT count(*) FROM entries WHERE store_key = ?').pluck().get(sk) as number;
    db.transaction(() => {
      for (let i = 1; i < SESSIONS; i++) {
        const other = `${pk}/00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
        // the others are short (their first 20 entries): the point is a store with many sessions, not size
        db.prepare('INSERT INTO entries(store_key, seq, uid, payload) SELECT ?, seq, uid, payload FROM entries WHERE store_key = ? AND seq < 20').run(
          other,
          sk,
        );
        db.prepare('INSERT INTO meta(store_key, mtime, next_seq) SELECT ?, mtime - 1, next_seq FROM meta WHERE store_key = ?').run(other, sk);
      }
    })();
    db.close();
    const size = fs.statSync(path.join(runs, 'sessions.db')).size;
    log(
      `run dir: ${SESSIONS} sessions, the resumed one ${entries} entries, sessions.db ${(size / 1e6).toFixed(1)} MB (built in ${((Date.now() - t0) / 1000).toFixed(0)} s)`,
    );

    // the part of a wake item 8 changed, in-process and CPU-bound (so less at the mercy of the machine's
    // load than the spawn): the cost baseline read through the whole session (the seed, through the
    // resume views) vs one indexed read of its tail
    {
      const inner = new SqliteSessionStore(path.join(runs, 'sessions.db'));
      const viewed = new ViewedStore(inner, ws, { trim: false, ephemeral: true, keepDenials: 1 });
      const full: number[] = [];
      const tail: number[] = [];
      for (let i = 0; i < 9; i++) {
        const a = process.hrtime.bigint();
        const es = (await viewed.load({ projectKey: pk, sessionId: sid })) ?? [];
        void es.findLast((e) => e.type === 'cost-state');
        full.push(Number(process.hrtime.bigint() - a) / 1e6);
        const b = process.hrtime.bigint();
        inner.lastCost(sid, { projectKey: pk });
        tail.push(Number(process.hrtime.bigint() - b) / 1e6);
      }
      inner.close();
      log(`cost baseline: whole session through the views ${median(full).toFixed(1)} ms (seed) vs lastCost ${median(tail).toFixed(2)} ms (now)`);
      costRow = {
        measure: `cost baseline of a ${entries}-entry session`,
        baseline: `${median(full).toFixed(1)} ms full load`,
        flower: `${median(tail).toFixed(2)} ms`,
        ratio: fmtRatio(median(tail) / median(full)),
        goal: '(info)',
        met: null,
        figures: { unit: 'ms', baseline: median(full), flower: median(tail), ratio: median(tail) / median(full) },
      };
    }

    // the moment the binary is spawned: the SDK imports `spawn` from child_process, and a builtin's ESM
    // bindings follow its CommonJS exports after syncBuiltinESMExports (restored in `finally`)
    let spawnedAt: bigint | undefined;
    const realSpawn = cp.spawn;
    (cp as { spawn: unknown }).spawn = (...a: Parameters<typeof cp.spawn>) => {
      spawnedAt ??= process.hrtime.bigint();
      return realSpawn(...a);
    };
    syncBuiltinESMExports();
    unpatch = () => {
      (cp as { spawn: unknown }).spawn = realSpawn;
      syncBuiltinESMExports();
    };
    const reach = async (go: () => Promise<unknown>): Promise<{ at: number; spawn: number }> => {
      const start = process.hrtime.bigint();
      spawnedAt = undefined;
      let at = 0;
      const seen = new Promise<void>((r) => {
        hit = () => {
          at = Number(process.hrtime.bigint() - start) / 1e6;
          r();
        };
      });
      await Promise.all([go(), seen]);
      return { at, spawn: spawnedAt === undefined ? NaN : Number(spawnedAt - start) / 1e6 };
    };
    // the same config dir flower uses in this process (parent and child must agree, docs/sdk-facts.md §0)
    const configDir = () => process.env.CLAUDE_CONFIG_DIR ?? path.join(home, '.claude');
    const bare = (sandboxed: boolean) =>
      reach(async () => {
        // the floor flower builds (runtime/floor.ts), from bench/floor.ts as every bench's bare run: like for like
        const tmp = fs.mkdtempSync(path.join(root, 'tmp-'));
        const { env: cenv, options: floor } = bareFloor(
          { ws, runs, home, tmp, configDir: configDir() },
          baseEnv(home, sim.url),
          sandboxed ? 'sandbox' : 'none',
          'on',
          // flower's step is named after its spec: the same handoff file protected
          { step: spec.name },
        );
        const store = new SqliteSessionStore(path.join(runs, 'sessions.db'));
        try {
          for await (const m of query({
            prompt: 'continue',
            options: {
              cwd: ws,
              env: cenv,
              resume: sid,
              sessionStore: store,
              allowedTools: ['Bash'],
              settingSources: [],
              systemPrompt: { type: 'preset', preset: 'claude_code' },
              ...floor,
            },
          })) {
            void m;
          }
        } finally {
          store.close();
          fs.rmSync(tmp, { recursive: true, force: true });
        }
      });
    const flower = () =>
      reach(async () => {
        const rt = new Runtime({ workspace: ws, runDir: runs, env, onWarning: () => {} });
        try {
          const r = await rt.run(spec, 'continue', { resume: sid });
          if (!r.ok) throw new Error(`flower resume failed: ${r.error}`);
        } finally {
          rt.close();
        }
      });
    const variants = ['bare', 'bare+sandbox', 'flower'] as const;
    type Variant = (typeof variants)[number];
    const go: Record<Variant, () => Promise<{ at: number; spawn: number }>> = { bare: () => bare(false), 'bare+sandbox': () => bare(true), flower };
    const times: Record<Variant, number[]> = { bare: [], 'bare+sandbox': [], flower: [] };
    const spawns: Record<Variant, number[]> = { bare: [], 'bare+sandbox': [], flower: [] };
    // round 0 warms caches and is not counted; the order rotates so no variant always goes first
    for (let r = 0; r <= RUNS; r++) {
      const got = {} as Record<Variant, { at: number; spawn: number }>;
      for (let i = 0; i < variants.length; i++) {
        const v = variants[(i + r) % variants.length]!;
        got[v] = await go[v]();
      }
      if (r > 0) {
        for (const v of variants) {
          times[v].push(got[v].at);
          spawns[v].push(got[v].spawn);
        }
        log(`round ${r}: ${variants.map((v) => `${v} ${fmtMs(got[v].at)} (spawn at ${fmtMs(got[v].spawn)})`).join(', ')}`);
      }
    }
    const m = (v: Variant) => median(times[v]);
    const paired = (v: Variant, base: Variant) => median(times[v].map((t, i) => t / times[base][i]!));
    const ms = (v: Variant) => median(spawns[v]);
    for (const v of variants) {
      log(
        `${`${v} → first model request`.padEnd(36)} median ${fmtMs(m(v))}: ${fmtMs(ms(v))} before the spawn, ${fmtMs(median(times[v].map((t, i) => t - spawns[v][i]!)))} after (runs: ${times[v].map(Math.round).join(', ')})`,
      );
    }
    const own = paired('flower', 'bare+sandbox');
    const floorPrice = paired('bare+sandbox', 'bare');
    log(
      `flower's own overhead: ${fmtRatio(own)} per round (${fmtMs(m('flower') - m('bare+sandbox'))}); the floor's price: ${fmtRatio(floorPrice)} (${fmtMs(m('bare+sandbox') - m('bare'))})`,
    );
    return [
      costRow!,
      {
        measure: `wake of a ${entries}-entry session among ${SESSIONS}, to the first model call`,
        baseline: `${fmtMs(m('bare+sandbox'))} bare+sandbox`,
        flower: fmtMs(m('flower')),
        ratio: fmtRatio(own),
        goal: `≤ ${GOAL}x`,
        met: own <= GOAL,
        figures: { unit: 'ms', baseline: m('bare+sandbox'), flower: m('flower'), ratio: own },
      },
      {
        measure: "wake, the parent's work before the binary is spawned",
        baseline: `${fmtMs(ms('bare+sandbox'))} bare+sandbox`,
        flower: fmtMs(ms('flower')),
        ratio: fmtRatio(ms('flower') / ms('bare+sandbox')),
        goal: '(info)',
        met: null,
        figures: { unit: 'ms', baseline: ms('bare+sandbox'), flower: ms('flower'), ratio: ms('flower') / ms('bare+sandbox') },
      },
      {
        measure: 'wake, the floor itself (bare+sandbox vs bare resume)',
        baseline: `${fmtMs(m('bare'))} bare`,
        flower: fmtMs(m('bare+sandbox')),
        ratio: fmtRatio(floorPrice),
        goal: '(report)',
        met: null,
        figures: { unit: 'ms', baseline: m('bare'), flower: m('bare+sandbox'), ratio: floorPrice },
      },
    ];
  } finally {
    unpatch();
    await sim.close();
    fs.rmSync(root, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const rows = await main({ runs: argInt(0, 7), turns: argInt(1, 400) });
  console.log(`\n${table(rows)}`);
}
