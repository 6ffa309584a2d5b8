// Bench for SqliteSessionStore: append throughput and load() vs reading the same JSONL.
// Run: node --import tsx bench/store.ts [entries=100000] [runs=3]
// Goals: append >= 50k entries/s (batches of 100); load <= 1.5x (readFileSync + JSON.parse per line).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { SessionKey, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import { SqliteSessionStore, storeKeyOf } from '../src/store/index.js';

const N = Number(process.argv[2] ?? 100_000);
const RUNS = Math.max(3, Number(process.argv[3] ?? 3));
const BATCH = 100;

// Deterministic PRNG so every run measures the same bytes.
// mulberry32: Math.imul keeps the arithmetic in 32 bits (a float LCG here cycles after ~20k uuids).
let seed = 42;
const rnd = () => {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const words = 'the of build test file error run store load append session query result context token agent'.split(' ');
const text = (n: number) => Array.from({ length: n }, () => words[Math.floor(rnd() * words.length)]).join(' ');
const hex = (n: number) => Array.from({ length: n }, () => Math.floor(rnd() * 16).toString(16)).join('');
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;

const SID = '3de11357-4ff6-4d6a-8913-b31fac588d3c';
const common = (parentUuid: string | null) => ({
  parentUuid, isSidechain: false, userType: 'external', entrypoint: 'sdk-ts', cwd: '/home/me/proj',
  sessionId: SID, version: '2.1.332', gitBranch: 'main', timestamp: new Date(1_780_000_000_000 + Math.floor(rnd() * 1e9)).toISOString(),
});

/** Entries shaped like the real transcript (sdk-facts §4.1–4.2), ~500 B – 2 KB each. */
function makeTranscript(n: number): SessionStoreEntry[] {
  const out: SessionStoreEntry[] = [];
  let parent: string | null = null;
  while (out.length < n) {
    const k = out.length % 10;
    const id = uuid();
    if (k === 0) {
      out.push({ ...common(parent), type: 'user', uuid: id, promptId: uuid(), permissionMode: 'default', promptSource: 'sdk',
        message: { role: 'user', content: [{ type: 'text', text: text(40 + Math.floor(rnd() * 150)) }] } });
    } else if (k === 1 || k === 6) {
      out.push({ ...common(parent), type: 'attachment', uuid: id,
        attachment: { type: 'total_tokens_reminder', tokens: Math.floor(rnd() * 1e5) },
        rendered: [{ content: `<system-reminder>${text(30 + Math.floor(rnd() * 60))}</system-reminder>` }], renderedRole: 'user' });
    } else if (k === 2 || k === 4 || k === 7) {
      const tool = k !== 7;
      out.push({ ...common(parent), type: 'assistant', uuid: id, requestId: `req_${hex(24)}`, apiBlockIndex: 0,
        promptCacheRequested: '5m', madeBy: 'model',
        message: { id: `msg_${hex(24)}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5',
          content: tool
            ? [{ type: 'tool_use', id: `toolu_${hex(24)}`, name: 'Bash', input: { command: text(8), description: text(6) } }]
            : [{ type: 'text', text: text(20 + Math.floor(rnd() * 120)) }],
          stop_reason: tool ? 'tool_use' : 'end_turn', stop_sequence: null,
          usage: { input_tokens: 7, cache_creation_input_tokens: 300, cache_read_input_tokens: 21000, output_tokens: 25, service_tier: 'standard' } } });
    } else if (k === 3 || k === 5) {
      const body = text(40 + Math.floor(rnd() * 180));
      out.push({ ...common(parent), type: 'user', uuid: id, sourceToolAssistantUUID: parent,
        message: { role: 'user', content: [{ tool_use_id: `toolu_${hex(24)}`, type: 'tool_result', content: body }] },
        toolUseResult: { stdout: body, stderr: '', interrupted: false, isImage: false } });
    } else if (k === 8) {
      out.push({ type: 'last-prompt', lastPrompt: text(12), leafUuid: parent });
    } else {
      out.push({ type: 'queue-operation', operation: 'enqueue', timestamp: new Date().toISOString(), sessionId: SID });
    }
    const last = out[out.length - 1]!;
    if (typeof last.uuid === 'string') parent = last.uuid;
  }
  return out;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

const entries = makeTranscript(N);
const uuids = new Set(entries.map((e) => e.uuid).filter((u) => u !== undefined));
if (uuids.size !== entries.filter((e) => e.uuid !== undefined).length) throw new Error('generated transcript has duplicate uuids');
const jsonl = entries.map((e) => JSON.stringify(e)).join('\n') + '\n';
const sizes = entries.map((e) => JSON.stringify(e).length);
console.log(`entries: ${N}, JSONL ${(jsonl.length / 1e6).toFixed(1)} MB, entry size ${Math.min(...sizes)}–${Math.max(...sizes)} B (avg ${Math.round(jsonl.length / N)})`);

const dir = mkdtempSync(join(tmpdir(), 'flower-bench-store-'));
const key: SessionKey = { projectKey: '-home-me-proj', sessionId: SID };
try {
  const appendRates: number[] = [];
  const eagerRates: number[] = [];
  let dbPath = '';
  for (let r = 0; r < RUNS; r++) {
    dbPath = join(dir, `run${r}.db`);
    const store = new SqliteSessionStore(dbPath);
    let t0 = process.hrtime.bigint();
    for (let i = 0; i < N; i += BATCH) await store.append(key, entries.slice(i, i + BATCH));
    appendRates.push(N / (ms(t0) / 1000));
    // eager flush mode: one append per entry (5k entries is enough to see the per-call cost)
    const eagerKey = { ...key, sessionId: `${SID.slice(0, -1)}e` };
    const m = Math.min(N, 5000);
    t0 = process.hrtime.bigint();
    for (let i = 0; i < m; i++) await store.append(eagerKey, [entries[i]!]);
    eagerRates.push(m / (ms(t0) / 1000));
    store.close();
  }
  console.log(`append, batches of ${BATCH}: median ${Math.round(median(appendRates))} entries/s (runs: ${appendRates.map(Math.round).join(', ')})`);
  console.log(`append, 1 entry per call (eager): median ${Math.round(median(eagerRates))} entries/s`);

  const jsonlPath = join(dir, 'transcript.jsonl');
  writeFileSync(jsonlPath, jsonl);
  const store = new SqliteSessionStore(dbPath);
  const raw = new Database(dbPath, { readonly: true });
  const sk = storeKeyOf(key);
  const pluck = raw.prepare<[string], string>('SELECT payload FROM entries WHERE store_key = ? ORDER BY seq').pluck();
  const concat = raw.prepare<[string], string>(
    "SELECT '[' || group_concat(payload, ',' ORDER BY seq) || ']' FROM entries WHERE store_key = ?").pluck();

  const variants: Record<string, () => number> = {
    'jsonl: readFileSync + JSON.parse per line': () => {
      const lines = readFileSync(jsonlPath, 'utf8').split('\n');
      let c = 0;
      for (const l of lines) if (l) { JSON.parse(l); c++; }
      return c;
    },
    'store.load() [shipped]': () => store.loadSync(key)!.length,
    'alt: .all() + JSON.parse per row': () => pluck.all(sk).map((p) => JSON.parse(p) as unknown).length,
    "alt: .all() + JSON.parse('[' + join + ']')": () => (JSON.parse(`[${pluck.all(sk).join(',')}]`) as unknown[]).length,
    'alt: SQL group_concat + one JSON.parse': () => (JSON.parse(concat.get(sk)!) as unknown[]).length,
  };
  const times: Record<string, number[]> = {};
  const rounds = Math.max(RUNS, 9);
  for (let r = 0; r < rounds + 1; r++) {
    for (const [name, fn] of Object.entries(variants)) {
      const t0 = process.hrtime.bigint();
      const c = fn();
      const t = ms(t0);
      if (c !== N) throw new Error(`${name} returned ${c} entries, expected ${N}`);
      if (r > 0) (times[name] ??= []).push(t); // round 0 warms caches and the JIT
    }
  }
  const base = median(times['jsonl: readFileSync + JSON.parse per line']!);
  const baseBest = Math.min(...times['jsonl: readFileSync + JSON.parse per line']!);
  for (const [name, ts] of Object.entries(times)) {
    const best = Math.min(...ts);
    console.log(`${name.padEnd(44)} median ${median(ts).toFixed(0)} ms  ratio ${(median(ts) / base).toFixed(2)}x | best ${best.toFixed(0)} ms  ratio ${(best / baseBest).toFixed(2)}x`);
  }
  const loaded = store.loadSync(key)!;
  if (JSON.stringify(loaded) !== JSON.stringify(entries)) throw new Error('load() did not return what was appended');
  raw.close();
  store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
