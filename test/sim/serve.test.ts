import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimError, listeningLines, serveScenario, simEnv } from '../../src/sim/index.js';
import { exchange, messagesBody } from './helpers.js';

function scenarioFile(content: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), 'flower-sim-serve-')), 'scenario.json');
  writeFileSync(file, JSON.stringify(content));
  return file;
}

test('serveScenario serves the file and the listening lines say how to point claude at it', async () => {
  const file = scenarioFile({ items: [{ type: 'text', text: 'from the file' }], default: { type: 'text', text: 'file default' } });
  const sim = await serveScenario({ file, port: 0 });
  try {
    const lines = listeningLines(sim, file);
    assert.equal(lines[0], `flower sim listening on ${sim.url} (script ${file}, 1 item)`);
    assert.deepEqual(lines.slice(1, 4), [
      `export ANTHROPIC_BASE_URL=${sim.url}`,
      'export ANTHROPIC_API_KEY=sk-sim',
      'export CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1',
    ]);
    assert.match(lines[4]!, /POST .*\/__sim\/enqueue/);
    assert.deepEqual(simEnv(sim.url).ANTHROPIC_BASE_URL, sim.url);
    assert.ok((await exchange(sim.url, { body: messagesBody() })).text.includes('from the file'));
    assert.ok((await exchange(sim.url, { body: messagesBody() })).text.includes('file default'));
  } finally {
    await sim.close();
  }
});

test('serveScenario refuses an invalid file before listening, naming item and field', async () => {
  const file = scenarioFile([
    { type: 'text', text: 'ok' },
    { type: 'drop_mid', afterEvents: 'three' },
  ]);
  await assert.rejects(
    serveScenario({ file }),
    (e: unknown) => e instanceof SimError && e.code === 'sim-scenario-invalid' && e.index === 1 && e.field === 'afterEvents' && e.file === file,
  );
});

test('control endpoints enqueue, list, reset and close a served sim', async () => {
  const sim = await serveScenario({ onUnexpected: 'error' });
  const ctl = (method: string, path: string, body?: unknown) => exchange(sim.url, { method, path, body });

  const bad = await ctl('POST', '/__sim/enqueue', [
    { type: 'text', text: 'a' },
    { type: 'eror', status: 500 },
  ]);
  assert.equal(bad.status, 400);
  assert.match(bad.text, /items\[1\].*did you mean \\"error\\"/);
  assert.deepEqual(sim.pending(), [], 'a rejected batch queues nothing');

  const queued = await ctl('POST', '/__sim/enqueue', [
    { type: 'text', text: 'scripted' },
    { type: 'error', status: 529 },
  ]);
  assert.deepEqual(JSON.parse(queued.text), { queued: 2 });
  assert.ok((await exchange(sim.url, { body: messagesBody() })).text.includes('scripted'));

  const pending = JSON.parse((await ctl('GET', '/__sim/pending')).text) as Array<{ summary: string }>;
  assert.deepEqual(
    pending.map((p) => p.summary),
    ['error 529'],
  );
  const requests = JSON.parse((await ctl('GET', '/__sim/requests')).text) as Array<{ n: number; served: { text: string } }>;
  assert.deepEqual(
    requests.map((r) => [r.n, r.served.text]),
    [[1, 'scripted']],
  );

  assert.equal((await ctl('POST', '/__sim/reset')).status, 200);
  assert.deepEqual([sim.requests.length, sim.pending().length], [0, 0]);
  assert.equal((await ctl('GET', '/__sim/nope')).status, 404);

  assert.equal((await ctl('POST', '/__sim/close')).status, 200);
  await Promise.race([sim.closed, new Promise((_, reject) => setTimeout(() => reject(new Error('closed never resolved')), 2000))]);
  assert.equal(sim.listening, false);
  assert.equal((await exchange(sim.url, { body: messagesBody() })).error, 'ECONNREFUSED');
});
