// The `sse` item: a stream sent event by event as given — the low-level item the fuzzing model
// builds its wire faults from (input that does not parse, unknown blocks, an error event mid-stream).
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { parseItems, SimError, startSim, summarizeItem, type Sim, type SimSseItem } from '../../src/sim/index.js';
import { exchange, messagesBody } from './helpers.js';

const sims: Sim[] = [];
after(async () => {
  await Promise.all(sims.map((s) => s.close()));
});
async function sim(items: SimSseItem[]): Promise<Sim> {
  const s = await startSim({ script: items });
  sims.push(s);
  return s;
}

const start = { event: 'message_start', data: { type: 'message_start', message: { id: 'msg_1', content: [] } } };

test('events are sent verbatim, string data unparsed, and the response ends', async () => {
  const s = await sim([
    { type: 'sse', events: [start, { event: 'content_block_delta', data: '{"type":"content_block_delta","delta":{"partial_json":"{\\"a\\": 1,}"' }] },
  ]);
  const out = await exchange(s.url, { body: messagesBody() });
  assert.equal(out.status, 200);
  assert.equal(out.headers?.['content-type'], 'text/event-stream');
  assert.equal(out.ended, true);
  assert.equal(
    out.text,
    `event: message_start\ndata: ${JSON.stringify(start.data)}\n\nevent: content_block_delta\ndata: {"type":"content_block_delta","delta":{"partial_json":"{\\"a\\": 1,}"\n\n`,
  );
});

test('end: drop cuts the connection after the last event', async () => {
  const s = await sim([{ type: 'sse', events: [start], end: 'drop' }]);
  const out = await exchange(s.url, { body: messagesBody() });
  assert.equal(out.ended, false);
  assert.equal(out.error, 'ECONNRESET');
  assert.match(out.text, /^event: message_start\n/);
});

test('each event waits its own delayMs, the others chunkDelayMs; the first waits nothing by default', async () => {
  const s = await sim([
    { type: 'sse', chunkDelayMs: 40, events: [start, { event: 'ping', data: { type: 'ping' } }, { event: 'ping', data: { type: 'ping' }, delayMs: 150 }] },
  ]);
  const t0 = Date.now();
  const out = await exchange(s.url, { body: messagesBody(), timeoutMs: 3000 });
  const ms = Date.now() - t0;
  assert.equal(out.ended, true);
  assert.equal(out.text.split('event: ping').length - 1, 2);
  assert.ok(ms >= 180 && ms < 2000, `took ${ms} ms`);
});

test('a stream:false request gets `message`, or is dropped without one', async () => {
  const message = { id: 'msg_x', type: 'message', role: 'assistant', content: [], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } };
  const s = await sim([
    { type: 'sse', events: [start], message },
    { type: 'sse', events: [start] },
  ]);
  const a = await exchange(s.url, { body: messagesBody({ stream: false }) });
  assert.deepEqual(JSON.parse(a.text), message);
  const b = await exchange(s.url, { body: messagesBody({ stream: false }) });
  assert.equal(b.error, 'ECONNRESET');
});

test('sse items are validated like every other item, and summarized', () => {
  const bad: Array<[unknown, RegExp]> = [
    [{ type: 'sse' }, /field "events" is required/],
    [{ type: 'sse', events: [] }, /"events" must be a non-empty array/],
    [{ type: 'sse', events: [{ event: 'x', data: 3 }] }, /"events\[0\]\.data" must be a JSON object or a string/],
    [{ type: 'sse', events: [{ event: 'x', data: {}, delay: 3 }] }, /"events\[0\]\.delay" is not an SSE event field/],
    [{ type: 'sse', events: [{ event: 'x', data: {}, delayMs: -1 }] }, /"events\[0\]\.delayMs" must be an integer ≥ 0/],
    [{ type: 'sse', events: [start], end: 'stall' }, /"end" must be one of "close", "drop"/],
  ];
  for (const [item, message] of bad)
    assert.throws(
      () => parseItems([item]),
      (e: unknown) => e instanceof SimError && message.test(e.message),
      JSON.stringify(item),
    );
  assert.equal(summarizeItem({ type: 'sse', events: [start, start], end: 'drop' }), 'sse 2 events (cut)');
});
