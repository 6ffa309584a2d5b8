// Bench for the resume views: plain SqliteSessionStore.load() vs ViewedStore.load() with every view on
// (expire, trim with a spill writer into a temp workspace, prune) over the same 100k-entry session.
// Run: node --import tsx bench/views.ts [entries=100000] [runs=7]
// Goal (issue 24): the viewed load costs <= 1.2x the plain load (the view is paid on every resume).
// ViewedStore writes the trimmed results' files off the load's path (src/store/spill-files.ts): each viewed
// load is followed by spillsWritten(), timed apart ("files whole … after load() returned"), so no round's
// writes run into the next round; and a last section times what the SDK does with a resume up to the
// spawn (load, the transcript written for the binary, listSubkeys waiting for the files).
// The machine is shared: every round times all variants back to back, and the ratio reported is the median
// of the rounds' own ratios (viewed / plain of the same round), not a ratio of two medians.
import { createWriteStream, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteSessionStore, ViewedStore, trimReport, views, type ViewPolicy, type ViewReport } from '../src/store/index.js';
import { argInt, fmtMs, fmtRatio, isMain, median, table, timed, type BenchRow } from './measure.js';
import { KEY, makeTranscript } from './transcript.js';

const GOAL = 1.2;
const ALL_ON: ViewPolicy = { trim: true, ephemeral: true, keepDenials: 1 };

export interface ViewsBenchOptions {
  entries?: number;
  runs?: number;
  log?: (line: string) => void;
}

/** A bench that measures nothing is worse than none: every view must have had something to do. */
function checkReport(r: ViewReport | undefined, targets: ReturnType<typeof makeTranscript>['targets']): ViewReport {
  if (!r) throw new Error('ViewedStore.load() left no report');
  const idle = [r.expired === 0 && 'expire', r.trimmed === 0 && 'trim', r.denials === 0 && 'prune (denials)', r.apiErrors === 0 && 'prune (api errors)'].filter(
    Boolean,
  );
  if (idle.length) throw new Error(`views that did nothing: ${idle.join(', ')} (transcript targets: ${JSON.stringify(targets)})`);
  return r;
}

/** The transcript as the SDK writes it for the binary after load() (sdk.mjs 0.3.332: JSON lines in 256 KiB writes, waiting for drain). */
async function writeTranscript(entries: readonly unknown[], file: string): Promise<void> {
  const out = createWriteStream(file, { mode: 0o600 });
  let chunk = '';
  for (const e of entries) {
    chunk += `${JSON.stringify(e)}\n`;
    if (chunk.length >= 262_144) {
      const ok = out.write(chunk);
      chunk = '';
      if (!ok) await once(out, 'drain');
    }
  }
  out.end(chunk);
  await once(out, 'finish');
}

/**
 * What a resume costs up to the binary's spawn, as the SDK runs it: load(), the transcript written, then
 * listSubkeys() (where ViewedStore waits for the spill files). Plain store vs a first resume (no files).
 */
async function toSpawn(sqlite: SqliteSessionStore, dir: string, log: (line: string) => void): Promise<void> {
  const plain: number[] = [];
  const viewed: number[] = [];
  for (let r = 0; r <= 3; r++) {
    for (const v of r % 2 ? (['plain', 'viewed'] as const) : (['viewed', 'plain'] as const)) {
      const ws = join(dir, `ws-spawn-${r}-${v}`);
      const store = v === 'plain' ? sqlite : new ViewedStore(sqlite, ws, ALL_ON);
      const t = await timed(async () => {
        const entries = (await store.load(KEY))!;
        await writeTranscript(entries, join(dir, `transcript-${v}.jsonl`));
        await store.listSubkeys(KEY);
      });
      if (r > 0) (v === 'plain' ? plain : viewed).push(t.ms);
      rmSync(ws, { recursive: true, force: true });
    }
  }
  const ratio = median(viewed.map((x, i) => x / plain[i]!));
  log(
    `${'to the spawn (load + transcript + listSubkeys)'.padEnd(40)} plain ${fmtMs(median(plain))}, first resume viewed ${fmtMs(median(viewed))}: ratio ${fmtRatio(ratio)} (runs: ${plain.map(Math.round).join(', ')} | ${viewed.map(Math.round).join(', ')})`,
  );
}

export async function main(o: ViewsBenchOptions = {}): Promise<BenchRow[]> {
  const N = o.entries ?? 100_000;
  const RUNS = Math.max(5, o.runs ?? 7);
  const log = o.log ?? console.log;
  const { entries, targets } = makeTranscript(N, { views: true });
  log(
    `entries: ${N}; view targets: ${targets.glances} planted glance results (random \`test …\`/\`file …\` commands are read-only too), ${targets.large} results > 2000 chars, ${targets.denials} denials, ${targets.apiErrors} api errors`,
  );

  const dir = mkdtempSync(join(tmpdir(), 'flower-bench-views-'));
  const sqlite = new SqliteSessionStore(join(dir, 'sessions.db'));
  try {
    for (let i = 0; i < N; i += 1000) await sqlite.append(KEY, entries.slice(i, i + 1000));
    const warmWs = join(dir, 'ws-warm');
    const warm = new ViewedStore(sqlite, warmWs, ALL_ON);
    // per variant, per measured round: wall ms and the process' CPU ms
    const times = { plain: [] as number[], cold: [] as number[], warm: [] as number[], compute: [] as number[] };
    const cpus = { plain: [] as number[], cold: [] as number[], warm: [] as number[], compute: [] as number[] };
    // after a viewed load: until spillsWritten() resolved (wall ms), on a first and a later resume
    const waits = { cold: [] as number[], warm: [] as number[] };
    const raw = (await sqlite.load(KEY))!;
    let report: ViewReport | undefined;
    let viewedLength = 0;
    // round 0 warms the page cache and the JIT and is not counted; the order rotates so no variant
    // always runs right after another's garbage
    for (let r = 0; r <= RUNS; r++) {
      const order = (['plain', 'cold', 'warm', 'compute'] as const).map((_, i, a) => a[(i + r) % a.length]!);
      for (const v of order) {
        let t: { ms: number; cpuMs: number };
        if (v === 'plain') {
          const p = await timed(() => sqlite.load(KEY));
          if (p.value?.length !== N) throw new Error(`plain load returned ${p.value?.length} entries, expected ${N}`);
          t = p;
        } else if (v === 'cold') {
          // first resume: a fresh workspace, so every trimmed result is written to its spill file
          const ws = join(dir, `ws-cold-${r}`);
          const store = new ViewedStore(sqlite, ws, ALL_ON);
          const c = await timed(() => store.load(KEY));
          const wait = await timed(() => store.spillsWritten());
          if (r > 0) waits.cold.push(wait.ms);
          report = checkReport(store.lastReport, targets);
          viewedLength = c.value?.length ?? 0;
          const spilled = readdirSync(join(ws, '.flower', 'spill')).length;
          if (spilled !== report.trimmed) throw new Error(`trimmed ${report.trimmed} results but ${spilled} spill files exist`);
          rmSync(ws, { recursive: true, force: true });
          t = c;
        } else if (v === 'compute') {
          // the views alone over entries already in memory, spill a no-op: where the time goes
          const c = await timed(() => views(raw, { expire: {}, trim: { spill: (text) => `spill/${text.length}.txt` }, prune: { keepDenials: 1 } }));
          if (c.value.report.trimmed === 0) throw new Error('views() trimmed nothing');
          t = c;
        } else {
          // a later resume of the same session: the spill files exist already
          t = await timed(() => warm.load(KEY));
          const wait = await timed(() => warm.spillsWritten());
          if (r > 0) waits.warm.push(wait.ms);
          checkReport(warm.lastReport, targets);
        }
        if (r > 0) {
          times[v].push(t.ms);
          cpus[v].push(t.cpuMs);
        }
      }
    }
    const base = median(times.plain);
    const c = median(times.cold);
    const w = median(times.warm);
    // each round's own ratio (same round, back to back), then their median
    const ratio = (xs: number[], of: number[]) => median(xs.map((x, i) => x / of[i]!));
    const cr = ratio(times.cold, times.plain);
    const wr = ratio(times.warm, times.plain);
    const runs = (xs: number[]) => xs.map(Math.round).join(', ');
    const line = (name: string, v: keyof typeof times) =>
      `${name.padEnd(40)} median ${fmtMs(median(times[v]))}` +
      (v === 'plain' ? '' : `  ratio ${fmtRatio(ratio(times[v], times.plain))}`) +
      `  | CPU ${fmtMs(median(cpus[v]))}${v === 'plain' ? '' : `  ratio ${fmtRatio(ratio(cpus[v], cpus.plain))}`}  (runs: ${runs(times[v])})`;
    log(`${trimReport(report!)}; ${N} → ${viewedLength} entries`);
    log(line('plain SqliteSessionStore.load()', 'plain'));
    log(line('ViewedStore.load(), spill files written', 'cold'));
    log(line('ViewedStore.load(), spill files present', 'warm'));
    log(line('views() alone, in memory, no-op spill', 'compute'));
    log(
      `the ${report!.trimmed} spill files, written off the load's path: whole ${fmtMs(median(waits.cold))} after load() returned on a first resume (runs: ${runs(waits.cold)}), ` +
        `checked ${fmtMs(median(waits.warm))} after it on a later one`,
    );
    await toSpawn(sqlite, dir, log);
    return [
      {
        measure: `views load, ${N / 1000}k, first resume`,
        baseline: `${fmtMs(base)} plain`,
        flower: fmtMs(c),
        ratio: fmtRatio(cr),
        goal: `≤ ${GOAL}x`,
        met: cr <= GOAL,
        figures: { unit: 'ms', baseline: base, flower: c, ratio: cr },
      },
      {
        measure: `views load, ${N / 1000}k, later resume`,
        baseline: `${fmtMs(base)} plain`,
        flower: fmtMs(w),
        ratio: fmtRatio(wr),
        goal: `≤ ${GOAL}x`,
        met: wr <= GOAL,
        figures: { unit: 'ms', baseline: base, flower: w, ratio: wr },
      },
    ];
  } finally {
    sqlite.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (isMain(import.meta.url)) {
  const rows = await main({ entries: argInt(0, 100_000), runs: argInt(1, 7) });
  console.log(`\n${table(rows)}`);
}
