// End to end: the real `claude` binary mirrors its transcript into the store (SQLite, and PostgreSQL:
// one test, every backend), and a resume in a fresh HOME (no local JSONL to fall back on, docs/sdk-facts.md
// §4.4 H) is fed from the store. Few and sequential: each claude run costs ~1 s and ~200 MB.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { listSessions, query, type Options, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { contentText, simEnv, startSim, type Sim } from '../../src/sim/index.js';
import { SqliteSessionStore, projectKeyFor } from '../../src/store/index.js';
import { PostgresSessionStore } from '../../src/store/postgres/index.js';
import { PG_SKIP, dropDatabases, freshDatabase } from '../helpers/pg.js';

const base = mkdtempSync(join(tmpdir(), 'flower-store-e2e-'));
after(async () => {
  rmSync(base, { recursive: true, force: true });
  await dropDatabases();
});

const BACKENDS: Array<{ name: string; skip: false | string; open(): Promise<SqliteSessionStore | PostgresSessionStore> }> = [
  { name: 'sqlite', skip: false, open: async () => new SqliteSessionStore(join(base, 'runs', 'r1', 'sessions.db')) },
  { name: 'postgres', skip: PG_SKIP, open: async () => new PostgresSessionStore(await freshDatabase('sdk')).open() },
];

/** One one-shot query in a fresh HOME; aborted after 30 s. */
async function run(sim: Sim, prompt: string, cwd: string, extra: Partial<Options>): Promise<SDKMessage[]> {
  const home = mkdtempSync(join(base, 'home-'));
  const configDir = join(home, '.claude');
  mkdirSync(configDir, { recursive: true });
  // The SDK parent maps transcript frames to store keys with its own CLAUDE_CONFIG_DIR (docs/sdk-facts.md §0).
  process.env.CLAUDE_CONFIG_DIR = configDir;
  const abortController = new AbortController();
  const timer = setTimeout(() => abortController.abort(), 30_000);
  const out: SDKMessage[] = [];
  try {
    const q = query({
      prompt,
      options: {
        cwd,
        settingSources: [],
        allowedTools: [],
        abortController,
        env: { PATH: process.env.PATH ?? '', HOME: home, CLAUDE_CONFIG_DIR: configDir, CLAUDE_CODE_MAX_RETRIES: '0', ...simEnv(sim.url) },
        ...extra,
      },
    });
    for await (const m of q) out.push(m);
  } finally {
    clearTimeout(timer);
  }
  return out;
}

const sessionIdOf = (ms: SDKMessage[]) => {
  const init = ms.find((m) => m.type === 'system' && m.subtype === 'init');
  assert.ok(init, 'no system/init message');
  return init.session_id;
};
const resultText = (ms: SDKMessage[]) => {
  const r = ms.find((m) => m.type === 'result');
  assert.ok(r && r.type === 'result' && r.subtype === 'success', `no success result: ${JSON.stringify(r)}`);
  return r.result;
};
const texts = (entries: ReadonlyArray<Record<string, unknown>>) =>
  entries.map((e) => contentText((e.message as { content?: unknown } | undefined)?.content ?? ''));

for (const be of BACKENDS)
  test(`claude mirrors a session into the ${be.name} store and resumes from it in a fresh HOME`, { timeout: 120_000, skip: be.skip }, async () => {
    // A symlinked cwd whose name has '.', '_' and ' ': projectKeyFor must land on the SDK's key.
    const real = join(base, be.name, 'my_ws.v1', 'a b');
    mkdirSync(real, { recursive: true });
    const cwd = join(base, be.name, 'ws-link');
    symlinkSync(real, cwd);
    const sim = await startSim({ onUnexpected: 'error' });
    const store = await be.open();
    try {
      sim.enqueue(
        {
          type: 'text',
          text: 'answer one',
          usage: { input_tokens: 11, cache_creation_input_tokens: 1000, cache_read_input_tokens: 20000, output_tokens: 5 },
          match: { lastUserIncludes: 'question one' },
        },
        { type: 'text', text: 'answer two', match: { lastUserIncludes: 'question two' } },
      );
      const first = await run(sim, 'question one', cwd, { sessionStore: store, sessionStoreFlush: 'eager' });
      assert.equal(resultText(first), 'answer one');
      const sid = sessionIdOf(first);
      const projectKey = projectKeyFor(cwd);

      assert.deepEqual(await store.projects(), [projectKey], 'the SDK wrote under the key projectKeyFor computes');
      const stored = (await store.load({ projectKey, sessionId: sid }))!;
      assert.ok(stored, 'no transcript under projectKeyFor(cwd)/sid');
      const said = texts(stored.filter((e) => e.type === 'user' || e.type === 'assistant'));
      assert.ok(said.includes('question one') && said.includes('answer one'), JSON.stringify(said));
      assert.equal(await store.hasSession(sid), true);
      assert.equal(await store.hasSession(sid, projectKey), true);
      assert.equal(await store.lastContext(sid), 21011);
      assert.deepEqual(
        (await store.listSessions(projectKey)).map((s) => s.sessionId),
        [sid],
      );
      // The SDK's own reader understands our summaries.
      const infos = await listSessions({ dir: cwd, sessionStore: store });
      assert.equal(infos.length, 1);
      assert.equal(infos[0]!.sessionId, sid);
      assert.equal(infos[0]!.firstPrompt, 'question one');

      const second = await run(sim, 'question two', cwd, { sessionStore: store, sessionStoreFlush: 'eager', resume: sid });
      assert.equal(resultText(second), 'answer two');
      assert.equal(sessionIdOf(second), sid);
      const calls = sim.messageRequests();
      assert.equal(calls.length, 2);
      const seen = (calls[1]!.body.messages ?? []).map((m) => `${m.role}:${contentText(m.content)}`);
      const firstTurn = seen.findIndex((s) => s.startsWith('user:') && s.includes('question one'));
      assert.ok(firstTurn >= 0, `the resumed request lacks the first prompt: ${JSON.stringify(seen)}`);
      assert.ok(
        seen.slice(firstTurn + 1).some((s) => s === 'assistant:answer one'),
        JSON.stringify(seen),
      );
      assert.ok(seen[seen.length - 1]!.includes('question two'), JSON.stringify(seen));

      const after = texts((await store.load({ projectKey, sessionId: sid }))!);
      assert.ok(after.includes('question two') && after.includes('answer two'), 'the resumed turn is mirrored under the same key');
      assert.equal(after.filter((t) => t === 'answer one').length, 1, 'the replayed history was not stored twice');
      sim.assertNoUnexpected();
    } finally {
      store.close();
      await sim.close();
    }
  });
