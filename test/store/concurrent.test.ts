import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { SqliteSessionStore } from '../../src/store/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const root = mkdtempSync(join(tmpdir(), 'flower-store-conc-'));
after(() => rmSync(root, { recursive: true, force: true }));

function worker(dbPath: string, id: string, rounds: number, startAt: number): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(here, 'append-worker.ts'), dbPath, id, String(rounds), String(startAt)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, err });
    });
  });
}

test('two processes appending to one fresh db file lose nothing and never fail with SQLITE_BUSY', { timeout: 90_000 }, async () => {
  const dbPath = join(root, 'runs', 'sessions.db'); // neither the folder nor the file exists yet
  const rounds = 1000;
  const startAt = Date.now() + 2500; // after both have loaded tsx
  const results = await Promise.all([worker(dbPath, '1', rounds, startAt), worker(dbPath, '2', rounds, startAt)]);
  for (const r of results) assert.equal(r.code, 0, `worker failed: ${r.err}`);
  const reports = results.map((r) => JSON.parse(r.out) as { added: number; t0: number; t1: number });
  const added = reports.map((r) => r.added);
  assert.ok(Math.max(reports[0]!.t0, reports[1]!.t0) < Math.min(reports[0]!.t1, reports[1]!.t1),
    `the workers did not overlap: ${JSON.stringify(reports)}`);
  // per round each worker adds its 2 own uuids + the uuid-less one; the shared uuid once in total
  const mainRows = rounds * 2 * 3 + rounds;
  assert.equal(added[0]! + added[1]!, mainRows + 2 * (rounds / 10) + 2 * rounds);

  const store = new SqliteSessionStore(dbPath);
  const key = { projectKey: '-ws', sessionId: 'shared' };
  const entries = (await store.load(key))!;
  assert.equal(entries.length, mainRows);
  const uuids = entries.map((e) => e.uuid).filter((x): x is string => typeof x === 'string');
  assert.equal(new Set(uuids).size, uuids.length, 'no uuid stored twice');
  for (let i = 0; i < rounds; i++) assert.ok(uuids.includes(`both-${i}`), `both-${i} missing`);
  // each worker's own entries keep their order
  for (const w of ['1', '2']) {
    const mine = entries.filter((e) => e.worker === w && e.type === 'user').map((e) => e.uuid);
    assert.deepEqual(mine, Array.from({ length: rounds }, (_, i) => `w${w}-${i}-a`));
  }
  assert.deepEqual((await store.listSubkeys(key)).sort(), ['subagents/agent-1', 'subagents/agent-2']);
  assert.deepEqual((await store.listSessions('-ws')).map((s) => s.sessionId).sort(), ['own-1', 'own-2', 'shared']);
  store.close();

  const raw = new Database(dbPath, { readonly: true });
  const seqs = raw.prepare("SELECT seq FROM entries WHERE store_key = '-ws/shared' ORDER BY seq").pluck().all() as number[];
  assert.deepEqual(seqs, Array.from({ length: mainRows }, (_, i) => i), 'seq is dense: no batch interleaved mid-way');
  assert.equal(raw.prepare("SELECT next_seq FROM meta WHERE store_key = '-ws/shared'").pluck().get(), mainRows);
  raw.close();
});
