/**
 * A signal's shutdown while a resumed turn waits on the model: the prompt the model was sent reaches the
 * store before the store closes. The binary mirrors a turn's prompt only after its request went out
 * (docs/sdk-facts.md §4.3), so a shutdown that closed the store at once lost it, and the next wake
 * resumed without it (test/cli/postgres.e2e.test.ts saw it under load: all three work requests began
 * with the first prompt alone).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { SessionKey, SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import { AgentSpec, Runtime } from '../../src/runtime/index.js';
import { SqliteSessionStore } from '../../src/store/index.js';
import { project, readJson, storeOver, testEnv } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

/** The user texts of `entries`, in order. */
const userTexts = (entries: readonly SessionStoreEntry[]): string[] =>
  entries.flatMap((e) => {
    const m = (e as { type?: string; message?: { content?: unknown } }).message;
    if (e.type !== 'user' || !Array.isArray(m?.content)) return [];
    return (m.content as Array<{ type?: string; text?: string }>).filter((b) => b.type === 'text').map((b) => b.text ?? '');
  });

test('shutdown while the resumed prompt is at the model: the prompt is in the store before it closes, and the row names the session', {
  timeout: 120_000,
}, async () => {
  const p = project('shutdown');
  const inner = new SqliteSessionStore(path.join(p.runs, 'own.db'));
  // what reached the store while it was open; an append after close() is what a dying process loses
  const kept: SessionStoreEntry[] = [];
  let closed = false;
  let late = 0;
  const store = storeOver(inner, {
    append: async (k: SessionKey, e: SessionStoreEntry[]) => {
      if (closed) {
        late += e.length;
        return;
      }
      if (k.subpath === undefined) kept.push(...e);
      await inner.append(k, e);
    },
    close: () => {
      closed = true;
      inner.close();
    },
  });
  const rt = new Runtime({ workspace: p.ws, runDir: p.runs, env: testEnv(p, sim.url), store, onWarning: () => {} });
  sim.reset();
  let dying: Promise<void> = Promise.resolve();
  let signalled!: () => void;
  const atModel = new Promise<void>((r) => (signalled = r));
  sim.enqueue({ type: 'text', text: 'first answer' }, () => {
    // the resumed request is at the model: the signal comes now, before the binary mirrors the prompt
    dying = rt.shutdown('killed-by-signal', 3000);
    signalled();
    return { type: 'hang' };
  });
  const spec = new AgentSpec({ name: 'w' });
  const first = await rt.run(spec, 'first prompt');
  assert.equal(first.ok, true, first.error ?? '');
  kept.length = 0;
  // parked for good once the shutdown began (the process would die of the signal): never awaited
  void rt.run(spec, 'carry on after the wake', { resume: first.session_id! });
  await atModel;
  await dying;
  assert.equal(closed, true, 'the shutdown closed the store');
  const said = userTexts(kept);
  assert.equal(said.filter((t) => t.includes('carry on after the wake')).length, 1, `the prompt reached the store: ${JSON.stringify(said)}`);
  // the turn was ended cleanly, not cut off with the process: the binary's interrupt line (docs/sdk-facts.md §7a) is its last entry
  assert.equal(said.at(-1), '[Request interrupted by user]', JSON.stringify(said));
  assert.equal(late, 0, 'nothing was appended after the store closed');
  const rows = readJson<Array<{ session_id: string; ok: boolean; error: string | null }>>(path.join(p.runs, 'manifest.json'));
  assert.deepEqual(
    rows.map((r) => [r.session_id, r.ok, r.error]),
    [
      [first.session_id, true, null],
      [first.session_id, false, 'killed-by-signal'],
    ],
  );
  assert.equal(sim.messageRequests().length, 2);
});
