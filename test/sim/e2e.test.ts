// End to end: the real `claude` binary (through the Agent SDK's query()) against the sim.
// Few and sequential: each run costs ~1 s and ~200 MB.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { query, type SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { simEnv, startSim, toolResultsOf, type Sim } from '../../src/sim/index.js';

interface Run {
  messages: SDKMessage[];
  thrown?: unknown;
}

/** One one-shot query against `sim` in a fresh HOME; aborted if it takes more than 15 s. */
async function run(sim: Sim, prompt: string, extra: { env?: Record<string, string>; allowedTools?: string[]; cwd?: string } = {}): Promise<Run> {
  const base = mkdtempSync(join(tmpdir(), 'flower-sim-e2e-'));
  const home = join(base, 'home');
  const configDir = join(home, '.claude');
  mkdirSync(configDir, { recursive: true });
  // The SDK parent maps transcripts with its own CLAUDE_CONFIG_DIR (docs/sdk-facts.md §0): keep both equal.
  process.env.CLAUDE_CONFIG_DIR = configDir;
  const abortController = new AbortController();
  const timer = setTimeout(() => abortController.abort(), 15_000);
  const out: Run = { messages: [] };
  try {
    const q = query({
      prompt,
      options: {
        cwd: extra.cwd ?? base,
        settingSources: [],
        allowedTools: extra.allowedTools ?? [],
        abortController,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: home,
          CLAUDE_CONFIG_DIR: configDir,
          CLAUDE_CODE_MAX_RETRIES: '0',
          ...simEnv(sim.url),
          ...extra.env,
        },
      },
    });
    for await (const m of q) out.messages.push(m);
  } catch (err) {
    // A one-shot query throws after an error result (docs/sdk-facts.md §3.4); the result is still checked.
    out.thrown = err;
  } finally {
    clearTimeout(timer);
  }
  return out;
}

const resultOf = (r: Run) => {
  const res = r.messages.find((m) => m.type === 'result');
  assert.ok(res && res.type === 'result', `no result message; thrown: ${String(r.thrown)}`);
  return res;
};

test('claude runs a scripted Write, and the next model call carries its tool_result', async () => {
  const sim = await startSim({ onUnexpected: 'error' });
  try {
    const ws = mkdtempSync(join(tmpdir(), 'flower-sim-ws-'));
    const file = join(ws, 'hello.txt');
    sim.enqueue(
      { type: 'tool_use', text: 'Writing the file.', name: 'Write', id: 'toolu_sim_write', input: { file_path: file, content: 'hello from the sim\n' } },
      { type: 'text', text: 'All done.', thinking: 'The file is written.', match: { lastUserIncludes: 'File created successfully' } },
    );
    const r = await run(sim, 'write hello.txt', { allowedTools: ['Write'], cwd: ws });
    const result = resultOf(r);
    assert.equal(result.is_error, false, JSON.stringify(result));
    assert.equal(result.subtype === 'success' && result.result, 'All done.');
    assert.equal(readFileSync(file, 'utf8'), 'hello from the sim\n');
    const calls = sim.messageRequests();
    assert.equal(calls.length, 2);
    assert.deepEqual(toolResultsOf(calls[0]!.body), []);
    const [seen] = toolResultsOf(calls[1]!.body);
    assert.equal(seen?.tool_use_id, 'toolu_sim_write');
    assert.equal(seen?.is_error, false);
    assert.match(seen?.content ?? '', /File created successfully at: .*hello\.txt/);
    sim.assertConsumed();
    sim.assertNoUnexpected();
  } finally {
    await sim.close();
  }
});

test('a scripted 529 is retried by claude and the turn then succeeds', async () => {
  const sim = await startSim({
    onUnexpected: 'error',
    script: [
      { type: 'error', status: 529 },
      { type: 'text', text: 'recovered' },
    ],
  });
  try {
    const r = await run(sim, 'say something', { env: { CLAUDE_CODE_MAX_RETRIES: '1' } });
    const retries = r.messages.filter((m) => m.type === 'system' && m.subtype === 'api_retry');
    assert.equal(retries.length, 1);
    const result = resultOf(r);
    assert.equal(result.is_error, false, JSON.stringify(result));
    assert.equal(result.subtype === 'success' && result.result, 'recovered');
    assert.deepEqual(
      sim.messageRequests().map((c) => c.served?.type),
      ['error', 'text'],
    );
    sim.assertConsumed();
  } finally {
    await sim.close();
  }
});

test('an unexpected model call fails the turn at once instead of being retried', async () => {
  const sim = await startSim({ onUnexpected: 'error', script: [{ type: 'text', text: 'not for you', match: { firstUserIncludes: 'JUDGE' } }] });
  try {
    const t0 = Date.now();
    const r = await run(sim, 'hello worker', { env: { CLAUDE_CODE_MAX_RETRIES: '3' } });
    const result = resultOf(r);
    assert.equal(result.is_error, true);
    assert.match(JSON.stringify(result), /unexpected model call #1/);
    assert.equal(sim.messageRequests().length, 1, 'x-should-retry: false stops the retries');
    assert.ok(Date.now() - t0 < 10_000);
    assert.throws(() => sim.assertNoUnexpected(), /1 unexpected model call/);
    assert.throws(() => sim.assertConsumed(), /not for you/);
  } finally {
    await sim.close();
  }
});
