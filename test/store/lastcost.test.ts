/** lastCost: the running cost a resumed attempt counts on from, read from the tail without loading the session. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import { SqliteSessionStore } from '../../src/store/index.js';

const root = mkdtempSync(join(tmpdir(), 'flower-lastcost-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = () => new SqliteSessionStore(join(root, `d${n++}`, 'sessions.db'));
const key = (sessionId = 's1', projectKey = '-p') => ({ projectKey, sessionId });
const cost = (totalCostUSD: unknown): SessionStoreEntry => ({ type: 'cost-state', totalCostUSD, modelUsage: {} });
const u = (uuid: string, text = 'x'): SessionStoreEntry => ({ type: 'user', uuid, message: { role: 'user', content: text } });

const CASES: Array<[string, SessionStoreEntry[][], number]> = [
  [
    'the last cost-state wins (the CLI saves a running total)',
    [
      [u('a'), cost(0.006)],
      [u('b'), cost(0.012)],
      [u('c'), cost(0.018)],
    ],
    0.018,
  ],
  ['a cost-state far from the end is still found (a killed last turn saved none)', [[cost(0.5)], Array.from({ length: 300 }, (_, i) => u(`k${i}`))], 0.5],
  ['no cost-state: 0', [[u('a'), u('b')]], 0],
  ['a non-numeric total: 0', [[cost('lots')]], 0],
  ['a user text that looks like a cost-state does not count', [[cost(0.1), u('t', '{"type":"cost-state","totalCostUSD":99}')]], 0.1],
];
for (const [what, batches, want] of CASES) {
  test(`lastCost: ${what}`, async () => {
    const s = fresh();
    for (const b of batches) await s.append(key(), b);
    assert.equal(s.lastCost('s1'), want);
    s.close();
  });
}

test('lastCost: 0 for an unknown session; subagent transcripts never count; the project narrows it', async () => {
  const s = fresh();
  assert.equal(s.lastCost('nope'), 0);
  await s.append(key('s1', '-p'), [cost(0.2)]);
  await s.append({ ...key('s1', '-p'), subpath: 'subagents/agent-a' }, [cost(9)]);
  assert.equal(s.lastCost('s1', { projectKey: '-p' }), 0.2);
  assert.equal(s.lastCost('s1', { projectKey: '-other' }), 0);
  s.close();
});
