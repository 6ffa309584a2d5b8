/**
 * The Runtime's spill and view knobs (issue 22): `spillThreshold` / `spillHead` decide what the model
 * receives for a long tool output (the real binary against the sim), and the views' knobs decide what a
 * resumed session is loaded with. The defaults are the constants they replace.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { SessionKey } from '@anthropic-ai/claude-agent-sdk';
import { ConfigError } from '../../src/errors.js';
import { SPILL_HEAD, SPILL_THRESHOLD } from '../../src/guards/index.js';
import { AgentSpec, Runtime } from '../../src/runtime/index.js';
import { viewNumbers } from '../../src/runtime/setup.js';
import { toolResultsOf } from '../../src/sim/index.js';
import { ViewedStore, type SqliteSessionStore } from '../../src/store/index.js';
import type { Entry } from '../../src/store/views/index.js';
import { project, testEnv } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

/** What the model was sent for the one Bash call, running `head -c 1000 big.txt` under these options. */
async function bashResultSeen(tag: string, o: { spillThreshold?: number; spillHead?: number }): Promise<{ content: string; spill: string[] }> {
  const p = project(tag);
  fs.writeFileSync(path.join(p.ws, 'big.txt'), 'x'.repeat(2000));
  const spec = new AgentSpec({ name: 'reader', allowedTools: ['Bash'] });
  sim.reset();
  sim.enqueue(
    { type: 'tool_use', id: 'toolu_big', name: 'Bash', input: { command: 'head -c 1000 big.txt', description: 'print' } },
    { type: 'text', text: 'ok' },
  );
  const rt = new Runtime({ workspace: p.ws, runDir: p.runs, env: testEnv(p, sim.url), onWarning: () => {}, workbench: true, ...o });
  try {
    const r = await rt.run(spec, 'print it');
    assert.equal(r.ok, true, r.error ?? '');
  } finally {
    rt.close();
  }
  sim.assertConsumed();
  const seen = toolResultsOf(sim.messageRequests().at(-1)!.body).find((x) => x.tool_use_id === 'toolu_big')!;
  const dir = path.join(p.ws, '.flower', 'spill');
  return { content: seen.content, spill: fs.existsSync(dir) ? fs.readdirSync(dir) : [] };
}

test('spillThreshold 500 and spillHead 50: a 1000-char output reaches the model as a pointer and a 50-char head', async () => {
  const { content, spill } = await bashResultSeen('spill-knobs', { spillThreshold: 500, spillHead: 50 });
  const [pointer, head] = content.split('\n');
  assert.match(pointer!, /^\[output spilled: 1000 chars → \S+\.txt/);
  assert.equal(head, 'x'.repeat(50));
  assert.equal(spill.length, 1);
});

test('the default threshold (4000) leaves a 1000-char output whole; spillThreshold 0 never spills', async () => {
  for (const [tag, o] of [
    ['spill-default', {}],
    ['spill-off', { spillThreshold: 0 }],
  ] as const) {
    const { content, spill } = await bashResultSeen(tag, o);
    assert.ok(content.includes('x'.repeat(1000)), `${tag}: the whole output`);
    assert.doesNotMatch(content, /output spilled/);
    assert.deepEqual(spill, []);
  }
});

test('the numbers are checked before anything is made: a ConfigError bad-option naming the option', () => {
  assert.deepEqual(viewNumbers({}), { threshold: SPILL_THRESHOLD, head: SPILL_HEAD });
  for (const [o, field] of [
    [{ spillThreshold: -1 }, 'spillThreshold'],
    [{ spillHead: 1.5 }, 'spillHead'],
    [{ trim: { keepRecent: -2 } }, 'trim.keepRecent'],
    [{ ephemeral: { maxChars: Number.NaN } }, 'ephemeral.maxChars'],
  ] as const) {
    assert.throws(
      () => viewNumbers(o),
      (e: unknown) => ConfigError.is(e) && e.code === 'bad-option' && e.field === field,
    );
  }
});

// ---- the views' knobs: what a resume loads ----

const fixture = (): Entry[] =>
  fs
    .readFileSync(new URL('../fixtures/transcripts/glances.jsonl', import.meta.url), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Entry);
const key = { projectKey: 'p', sessionId: 's' } as SessionKey;
const inner = { load: async () => fixture() } as unknown as SqliteSessionStore;
type Block = { type: string; tool_use_id?: string; content?: unknown };
const resultText = (es: readonly unknown[], id: string): string => {
  for (const e of es as Entry[]) {
    const c = (e.message as { content?: unknown } | undefined)?.content;
    const b = Array.isArray(c) ? (c as Block[]).find((x) => x.type === 'tool_result' && x.tool_use_id === id) : undefined;
    if (b) return typeof b.content === 'string' ? b.content : JSON.stringify(b.content);
  }
  throw new Error(`no result ${id}`);
};

test("ephemeral's keepRecent and maxChars, trim's keepRecent and minChars: what a resumed session is loaded with", async () => {
  const p = project('view-knobs');
  const spillDir = path.join(p.ws, '.flower', 'spill');
  const store = (policy: ConstructorParameters<typeof ViewedStore>[2]) => new ViewedStore(inner, p.ws, policy, spillDir);
  const defaults = await store({ trim: false, ephemeral: true, keepDenials: 1 }).load(key);
  assert.doesNotMatch(resultText(defaults!, 'toolu_big1'), /^\[stale\]/, 'by default a result over 2000 chars is left to trim');
  const wide = await store({ trim: false, ephemeral: { keepRecent: 0, maxChars: 5000 }, keepDenials: 1 }).load(key);
  assert.match(resultText(wide!, 'toolu_big1'), /^\[stale\] result of `cat big\.txt`/);
  const big = await store({ trim: { keepRecent: 0, minChars: 100_000 }, ephemeral: false, keepDenials: 1 }).load(key);
  assert.doesNotMatch(resultText(big!, 'toolu_big1'), /^\[archived/, 'nothing is that large');
  const trimming = store({ trim: { keepRecent: 0 }, ephemeral: false, keepDenials: 1 });
  const small = await trimming.load(key);
  assert.match(resultText(small!, 'toolu_big1'), /^\[archived 4679 chars; full text at \.flower\/spill\//);
  // the files are written off the load's path; the SDK's listSubkeys waits for them before the spawn
  await trimming.spillsWritten();
  assert.equal(fs.readdirSync(spillDir).length >= 1, true);
});
