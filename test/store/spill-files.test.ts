/**
 * The trimmed results' files (src/store/spill-files.ts): a load names and queues them, the libuv pool
 * writes them off the load's path, and ViewedStore.listSubkeys — which the SDK calls after load() and
 * before it spawns the binary — waits for them. These tests hold each half of that contract.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { query, type SessionKey, type SessionStore, type SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import { ViewedStore, type SqliteSessionStore } from '../../src/store/index.js';
import { SpillFiles } from '../../src/store/spill-files.js';
import { spillFileName } from '../../src/store/views/index.js';

const SID = '5b0e3f5c-1d7e-4c59-9b7a-0c4d3f2a1e10';
const KEY: SessionKey = { projectKey: '-tmp-spill', sessionId: SID };

/** A session with `n` large Bash results (5000+ chars each, all different), chained. */
function transcript(n: number): SessionStoreEntry[] {
  const out: SessionStoreEntry[] = [];
  let parent: string | null = null;
  for (let k = 0; k < n; k++) {
    const id = `toolu_${k}`;
    const a = `a${k}`;
    const u = `u${k}`;
    out.push({
      type: 'assistant',
      uuid: a,
      parentUuid: parent,
      message: { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'make' } }] },
    });
    out.push({
      type: 'user',
      uuid: u,
      parentUuid: a,
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `${k} `.repeat(2500 + k) }] },
    });
    parent = u;
  }
  return out;
}

const tmp = (name: string): string => fs.mkdtempSync(path.join(os.tmpdir(), `flower-spill-${name}-`));
const innerOf = (entries: SessionStoreEntry[]) =>
  ({ load: async () => entries, listSubkeys: async () => [] as string[], close() {} }) as unknown as SqliteSessionStore;
const archivedPaths = (entries: readonly SessionStoreEntry[]): string[] =>
  entries.flatMap((e) => {
    const c = (e.message as { content?: Array<{ content?: unknown }> } | undefined)?.content ?? [];
    return c.flatMap((b) => (typeof b.content === 'string' ? [...b.content.matchAll(/full text at (\S+) —/g)].map((m) => m[1]!) : []));
  });

test('a trimmed result names its file at once; the file is whole, owner-only, once spillsWritten() resolved', async () => {
  const ws = tmp('whole');
  const es = transcript(30);
  const store = new ViewedStore(innerOf(es), ws, { trim: { keepRecent: 5 }, ephemeral: false, keepDenials: 1 });
  const view = (await store.load(KEY))!;
  const paths = archivedPaths(view);
  assert.equal(paths.length, 25);
  await store.spillsWritten();
  for (const [k, rel] of paths.entries()) {
    const file = path.join(ws, rel);
    assert.equal(fs.readFileSync(file, 'utf8'), `${k} `.repeat(2500 + k));
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  }
  assert.deepEqual(
    fs.readdirSync(path.dirname(path.join(ws, paths[0]!))).filter((f) => f.includes('.tmp-')),
    [],
    'no temp file left',
  );
  fs.rmSync(ws, { recursive: true, force: true });
});

test('a later load finds the files present and writes none again', async () => {
  const ws = tmp('again');
  const es = transcript(12);
  const store = new ViewedStore(innerOf(es), ws, { trim: { keepRecent: 2 }, ephemeral: false, keepDenials: 1 });
  const first = archivedPaths((await store.load(KEY))!);
  await store.spillsWritten();
  const inodes = first.map((rel) => fs.statSync(path.join(ws, rel)).ino);
  const second = archivedPaths((await store.load(KEY))!);
  await store.spillsWritten();
  assert.deepEqual(second, first);
  assert.deepEqual(
    second.map((rel) => fs.statSync(path.join(ws, rel)).ino),
    inodes,
    'the same files, not rewritten',
  );
  fs.rmSync(ws, { recursive: true, force: true });
});

test('a spill folder that cannot be made leaves the results whole, as before', async () => {
  const ws = tmp('blocked');
  fs.mkdirSync(path.join(ws, '.flower'));
  fs.writeFileSync(path.join(ws, '.flower', 'spill'), 'a file where the folder should be');
  const store = new ViewedStore(innerOf(transcript(8)), ws, { trim: { keepRecent: 0 }, ephemeral: false, keepDenials: 1 });
  const view = (await store.load(KEY))!;
  assert.deepEqual(archivedPaths(view), []);
  assert.equal(store.lastReport?.trimmed, 0);
  await store.spillsWritten();
  fs.rmSync(ws, { recursive: true, force: true });
});

test('without room for twice what is queued, a file is written before its result is trimmed', () => {
  const ws = tmp('room');
  const dir = path.join(ws, 'spill');
  const files = new SpillFiles(ws, dir, () => 20_000);
  const batch = files.batch();
  const small = 'x'.repeat(2000);
  const big = 'y'.repeat(5000);
  batch.spill(small); // 2 × 3 × 2000 = 12 000 ≤ 20 000: queued
  assert.equal(fs.existsSync(path.join(dir, spillFileName(small))), false);
  batch.spill(big); // would make 42 000: written at once
  assert.equal(fs.readFileSync(path.join(dir, spillFileName(big)), 'utf8'), big);
  fs.rmSync(ws, { recursive: true, force: true });
});

test('a queued file that cannot be written makes spillsWritten() reject, naming it', async () => {
  const ws = tmp('fails');
  const dir = path.join(ws, 'spill');
  const files = new SpillFiles(ws, dir);
  const batch = files.batch();
  batch.spill('z'.repeat(3000));
  fs.rmSync(dir, { recursive: true });
  fs.writeFileSync(dir, 'not a folder any more');
  batch.flush();
  await assert.rejects(files.written(), /resume view: the file of a trimmed result could not be written/);
  await files.written(); // reported once
  fs.rmSync(ws, { recursive: true, force: true });
});

// The guarantee rests on the SDK's order on a resume (sdk.mjs 0.3.332): load(), the transcript written,
// listSubkeys(), then the binary spawned. If a new SDK changed it, this fails before a resumed session
// could Read a file not yet written.
test('the SDK calls listSubkeys after load and spawns the binary only after it answered', async () => {
  const ws = tmp('order');
  const calls: string[] = [];
  const store: SessionStore = {
    append: async () => undefined,
    load: async (key) => {
      calls.push(key.subpath ? 'load subpath' : 'load');
      return transcript(1);
    },
    listSubkeys: async () => {
      calls.push('listSubkeys start');
      await new Promise((r) => setTimeout(r, 50));
      calls.push('listSubkeys end');
      return [];
    },
    listSessions: async () => [],
  };
  const abort = new AbortController();
  const q = query({
    prompt: 'go on',
    options: {
      cwd: ws,
      resume: SID,
      sessionStore: store,
      abortController: abort,
      env: { ...process.env, CLAUDE_CONFIG_DIR: path.join(ws, 'config') },
      spawnClaudeCodeProcess: () => {
        calls.push('spawn');
        return spawn(process.execPath, ['-e', ''], { stdio: ['pipe', 'pipe', 'pipe'] });
      },
    },
  });
  try {
    for await (const _ of q) break;
  } catch {
    /* the stand-in process is not a binary: the query fails after the spawn, which is all this test needs */
  }
  abort.abort();
  assert.deepEqual(calls.slice(0, 4), ['load', 'listSubkeys start', 'listSubkeys end', 'spawn']);
  fs.rmSync(ws, { recursive: true, force: true });
});
