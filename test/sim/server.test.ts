import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimError, startSim, type Sim, type SimItem } from '../../src/sim/index.js';
import { until } from '../helpers/e2e.js';
import { exchange, messagesBody, parseSse } from './helpers.js';

const sims: Sim[] = [];
after(async () => {
  await Promise.all(sims.map((s) => s.close()));
});
async function sim(...args: Parameters<typeof startSim>): Promise<Sim> {
  const s = await startSim(...args);
  sims.push(s);
  return s;
}

test('a streamed text answer is recorded with the item that served it', async () => {
  const s = await sim({ script: [{ type: 'text', text: 'hello there', chunks: 2, label: 'greeting' }] });
  assert.match(s.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  const out = await exchange(s.url, { body: messagesBody({ user: 'hi' }) });
  assert.equal(out.status, 200);
  assert.equal(out.headers?.['content-type'], 'text/event-stream');
  assert.match(String(out.headers?.['request-id']), /^req_/);
  const events = parseSse(out.text);
  assert.equal(events.at(-1)?.event, 'message_stop');
  const text = events.flatMap((e) =>
    (e.data.delta as { type?: string; text?: string } | undefined)?.type === 'text_delta' ? [(e.data.delta as { text: string }).text] : [],
  );
  assert.deepEqual(text, ['hello ', 'there']);
  const [rec] = s.messageRequests();
  assert.equal(rec?.n, 1);
  assert.equal(rec?.url, '/v1/messages?beta=true');
  assert.equal(rec?.source, 'script');
  assert.deepEqual(rec?.served, { type: 'text', text: 'hello there', chunks: 2, label: 'greeting' });
  assert.equal(rec?.body.messages?.[0]?.content, 'hi');
});

test('a stream:false request gets one Message JSON', async () => {
  const s = await sim({ script: [{ type: 'tool_use', name: 'Bash', input: { command: 'ls' }, usage: { input_tokens: 9 } }] });
  const out = await exchange(s.url, { body: messagesBody({ stream: false }) });
  assert.equal(out.status, 200);
  assert.equal(out.headers?.['content-type'], 'application/json');
  const msg = JSON.parse(out.text) as { type: string; content: Array<{ type: string; input?: unknown }>; stop_reason: string; usage: { input_tokens: number } };
  assert.equal(msg.type, 'message');
  assert.deepEqual(
    msg.content.map((b) => [b.type, b.input]),
    [['tool_use', { command: 'ls' }]],
  );
  assert.equal(msg.stop_reason, 'tool_use');
  assert.equal(msg.usage.input_tokens, 9);
});

test('error items answer with their status, an Anthropic error body and their headers', async () => {
  const cases: Array<[SimItem, number, string, string, Record<string, string>]> = [
    [{ type: 'error', status: 529 }, 529, 'overloaded_error', 'flower sim: scripted 529 overloaded_error', {}],
    [
      { type: 'error', status: 429, headers: { 'retry-after': 1 } },
      429,
      'rate_limit_error',
      'flower sim: scripted 429 rate_limit_error',
      { 'retry-after': '1' },
    ],
    [{ type: 'error' }, 500, 'api_error', 'flower sim: scripted 500 api_error', {}],
    [{ type: 'error', status: 500, message: 'boom', headers: { 'X-Should-Retry': 'false' } }, 500, 'api_error', 'boom', { 'x-should-retry': 'false' }],
    [{ type: 'error', status: 401 }, 401, 'authentication_error', 'flower sim: scripted 401 authentication_error', {}],
    [{ type: 'error', status: 418, errorType: 'teapot_error' }, 418, 'teapot_error', 'flower sim: scripted 418 teapot_error', {}],
  ];
  const s = await sim({ script: cases.map(([item]) => item) });
  for (const [, status, type, message, headers] of cases) {
    const out = await exchange(s.url, { body: messagesBody() });
    assert.equal(out.status, status);
    assert.deepEqual(JSON.parse(out.text), { type: 'error', error: { type, message } });
    for (const [k, v] of Object.entries(headers)) assert.equal(out.headers?.[k], v, k);
  }
  s.assertConsumed();
});

test('a raw item is sent verbatim', async () => {
  const s = await sim({
    script: [
      { type: 'raw', status: 202, headers: { 'content-type': 'text/plain', 'x-a': 1 }, body: 'not sse' },
      { type: 'raw', body: { a: 1 } },
    ],
  });
  const a = await exchange(s.url, { body: messagesBody() });
  assert.deepEqual([a.status, a.headers?.['content-type'], a.headers?.['x-a'], a.text], [202, 'text/plain', '1', 'not sse']);
  const b = await exchange(s.url, { body: messagesBody() });
  assert.deepEqual([b.status, b.headers?.['content-type'], b.text], [200, 'application/json', '{"a":1}']);
});

test('drop, drop_mid, stall and hang fail the connection the way they say', async () => {
  const s = await sim({
    script: [
      { type: 'drop' },
      { type: 'drop_mid', afterEvents: 3 },
      { type: 'drop_mid', afterEvents: 2, stall: true },
      { type: 'hang' },
      { type: 'drop_mid', afterEvents: 3 },
      { type: 'drop_mid', afterEvents: 3, dropNonStreaming: false, text: 'fallback answer' },
    ],
  });
  const drop = await exchange(s.url, { body: messagesBody() });
  assert.equal(drop.status, undefined);
  assert.equal(drop.error, 'ECONNRESET');

  const mid = await exchange(s.url, { body: messagesBody() });
  assert.equal(mid.status, 200);
  assert.equal(mid.ended, false);
  assert.equal(mid.timedOut, false, 'the socket is cut, not left open');
  assert.deepEqual(
    parseSse(mid.text).map((e) => e.event),
    ['message_start', 'content_block_start', 'content_block_delta'],
  );

  const stall = await exchange(s.url, { body: messagesBody(), timeoutMs: 400 });
  assert.equal(stall.status, 200);
  assert.equal(stall.timedOut, true, 'a stall keeps the socket open and silent');
  assert.deepEqual(
    parseSse(stall.text).map((e) => e.event),
    ['message_start', 'content_block_start'],
  );

  const hang = await exchange(s.url, { body: messagesBody(), timeoutMs: 300 });
  assert.deepEqual([hang.status, hang.timedOut], [undefined, true]);

  const fallback = await exchange(s.url, { body: messagesBody({ stream: false }) });
  assert.deepEqual([fallback.status, fallback.error], [undefined, 'ECONNRESET'], 'the stream:false fallback is dropped too');
  const answered = await exchange(s.url, { body: messagesBody({ stream: false }) });
  assert.equal(answered.status, 200);
  assert.equal((JSON.parse(answered.text) as { content: Array<{ text: string }> }).content[0]?.text, 'fallback answer');
});

test('delayMs holds the headers back and chunkDelayMs spaces the events', async () => {
  const s = await sim({
    script: [
      { type: 'text', text: 'abcd', chunks: 4, delayMs: 150 },
      { type: 'text', text: 'ab', chunks: 2, chunkDelayMs: 40 },
    ],
  });
  let t0 = Date.now();
  await exchange(s.url, { body: messagesBody() });
  assert.ok(Date.now() - t0 >= 145, `delay ${Date.now() - t0}`);
  t0 = Date.now();
  const out = await exchange(s.url, { body: messagesBody() });
  const n = parseSse(out.text).length;
  assert.equal(n, 7);
  assert.ok(Date.now() - t0 >= 40 * (n - 1) - 5, `chunk delays ${Date.now() - t0}`);
});

test('holdStart sends nothing, headers included, until the test says so; then the whole answer', async () => {
  let release!: () => void;
  const go = new Promise<void>((resolve) => {
    release = resolve;
  });
  const s = await sim({ script: [{ type: 'text', text: 'held', holdStart: () => go }] });
  let headersAt: number | undefined;
  const req = http.request(`${s.url}/v1/messages`, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } });
  const answer = new Promise<string>((resolve, reject) => {
    req.on('response', (res) => {
      headersAt = Date.now();
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve(text));
    });
    req.on('error', reject);
  });
  req.end(JSON.stringify(messagesBody()));
  // the request has reached the sim (logged as it arrives); a whole other exchange later, still no headers
  await until('the held request logged', () => s.messageRequests().length === 1, 30_000);
  const other = await exchange(s.url, { path: '/v1/messages/count_tokens', body: messagesBody() });
  assert.equal(other.status, 200, 'the sim answers other requests while one is held');
  assert.equal(headersAt, undefined, 'no headers before the hold ends');
  const releasedAt = Date.now();
  release();
  const text = await answer;
  assert.ok(headersAt! >= releasedAt);
  assert.ok(parseSse(text).some((e) => JSON.stringify(e).includes('held')));
});

test('a shutdown item is an outage: connections refused until restart() on the same port', async () => {
  const s = await sim({ script: [{ type: 'text', text: 'before' }, { type: 'shutdown' }, { type: 'text', text: 'after' }] });
  const port = s.port;
  assert.equal((await exchange(s.url, { body: messagesBody() })).status, 200);
  const down = await exchange(s.url, { body: messagesBody() });
  assert.deepEqual([down.status, down.error], [undefined, 'ECONNRESET']);
  assert.equal(s.listening, false);
  assert.equal((await exchange(s.url, { body: messagesBody() })).error, 'ECONNREFUSED');
  await s.restart();
  assert.equal(s.port, port);
  const back = await exchange(s.url, { body: messagesBody() });
  assert.equal(back.status, 200);
  assert.ok(back.text.includes('"after"'));
  assert.equal(s.messageRequests().length, 3, 'refused connections are never recorded');
});

test('close() drops open connections, resolves `closed`, and restart() listens again', async () => {
  const s = await sim({ script: [{ type: 'hang' }] });
  const hanging = exchange(s.url, { body: messagesBody(), timeoutMs: 2000 });
  while (s.messageRequests().length === 0) await new Promise((r) => setTimeout(r, 10));
  let closedSeen = false;
  void s.closed.then(() => (closedSeen = true));
  await s.close();
  const h = await hanging;
  assert.deepEqual([h.timedOut, h.error], [false, 'ECONNRESET']);
  await Promise.resolve();
  assert.equal(closedSeen, true);
  assert.equal((await exchange(s.url, { body: messagesBody() })).error, 'ECONNREFUSED');
  await s.restart();
  assert.equal((await exchange(s.url, { body: messagesBody() })).status, 200);
});

test('restart() names the port when another process took it', async () => {
  const s = await sim();
  const port = s.port;
  await s.close();
  const squatter = createServer();
  await new Promise<void>((r) => squatter.listen(port, '127.0.0.1', r));
  try {
    await assert.rejects(
      s.restart(),
      (e: unknown) => e instanceof SimError && e.code === 'sim-port-in-use' && e.port === port && e.message.includes(String(port)),
    );
  } finally {
    await new Promise((r) => squatter.close(r));
  }
});

test('with onUnexpected "error" an unmatched call gets a loud 500 that the harness will not retry', async () => {
  const s = await sim({ onUnexpected: 'error', script: [{ type: 'text', text: 'judge only', match: { systemIncludes: 'JUDGE' } }] });
  const out = await exchange(s.url, { body: messagesBody({ user: 'write the code' }) });
  assert.equal(out.status, 500);
  assert.equal(out.headers?.['x-should-retry'], 'false');
  const err = (JSON.parse(out.text) as { error: { type: string; message: string } }).error;
  assert.equal(err.type, 'api_error');
  assert.match(err.message, /unexpected model call #1: no queued item matches/);
  assert.match(err.message, /#0 text "judge only" \{systemIncludes "JUDGE"\}/);
  assert.match(err.message, /write the code/);
  assert.deepEqual(
    s.unexpected().map((r) => r.n),
    [1],
  );
  assert.throws(
    () => s.assertNoUnexpected(),
    (e: unknown) => e instanceof SimError && e.code === 'sim-unexpected-call' && e.message.includes('#1'),
  );
});

test('by default an unmatched call gets the default item', async () => {
  const s = await sim({ defaultItem: { type: 'text', text: 'fallback' } });
  const out = await exchange(s.url, { body: messagesBody() });
  assert.ok(out.text.includes('"fallback"'));
  assert.equal(s.messageRequests()[0]?.source, 'default');
  assert.deepEqual(s.unexpected(), []);
  s.assertNoUnexpected();
});

test('a script function that throws fails that call loudly instead of guessing', async () => {
  const s = await sim({
    script: [
      {
        type: 'text',
        text: 'x',
        match: () => {
          throw new Error('predicate bug');
        },
      },
    ],
  });
  const out = await exchange(s.url, { body: messagesBody() });
  assert.equal(out.status, 500);
  assert.equal(out.headers?.['x-should-retry'], 'false');
  assert.match(out.text, /a script function threw: predicate bug/);
  assert.equal(s.unexpected().length, 1);
});

test('assertConsumed lists every scripted step that was never used', async () => {
  const s = await sim({
    script: [
      { type: 'text', text: 'first' },
      { type: 'tool_use', name: 'Write', input: {}, times: 2 },
      { type: 'error', sticky: true, match: { lastUserIncludes: 'never' } },
    ],
  });
  await exchange(s.url, { body: messagesBody() });
  await exchange(s.url, { body: messagesBody() });
  assert.throws(
    () => s.assertConsumed(),
    (e: unknown) => {
      assert.ok(e instanceof SimError && e.code === 'sim-unconsumed');
      assert.match(e.message, /2 scripted item\(s\) never consumed after 2 model call\(s\)/);
      assert.match(e.message, /#1 tool_use Write \(served 1 of 2\)/);
      assert.match(e.message, /#2 error 500 \{lastUserIncludes "never"\} \(served 0 of sticky\)/);
      return true;
    },
  );
  await exchange(s.url, { body: messagesBody() });
  await exchange(s.url, { body: messagesBody({ user: 'never again' }) });
  s.assertConsumed();
  assert.equal(s.pending().length, 0);
});

test('count_tokens is estimated, other routes are 404, and only model calls count as messages', async () => {
  const s = await sim();
  const count = await exchange(s.url, { path: '/v1/messages/count_tokens', body: messagesBody() });
  assert.equal(count.status, 200);
  assert.ok((JSON.parse(count.text) as { input_tokens: number }).input_tokens > 10);
  const other = await exchange(s.url, { method: 'GET', path: '/v1/models' });
  assert.equal(other.status, 404);
  assert.match(other.text, /no route for GET \/v1\/models/);
  const control = await exchange(s.url, { method: 'GET', path: '/__sim/requests' });
  assert.equal(control.status, 404, 'control routes are off unless asked for');
  assert.equal(s.requests.length, 3);
  assert.equal(s.messageRequests().length, 0);
});

test('enqueue validates library items and computed items answer from the request', async () => {
  const s = await sim();
  assert.throws(
    () => s.enqueue({ type: 'text', text: 'a', chunk: 2 } as unknown as SimItem),
    (e: unknown) => e instanceof SimError && e.field === 'chunk',
  );
  s.enqueue([(call) => ({ type: 'text', text: `echo: ${call.lastUser}` })], { type: 'text', text: 'second' });
  assert.ok((await exchange(s.url, { body: messagesBody({ user: 'ping 42' }) })).text.includes('echo: ping 42'));
  assert.ok((await exchange(s.url, { body: messagesBody() })).text.includes('"second"'));
  assert.deepEqual(s.messageRequests()[0]?.served, { type: 'text', text: 'echo: ping 42' });
});

test('reset() empties the queue and the log, numbering restarts', async () => {
  const s = await sim({
    script: [
      { type: 'text', text: 'a' },
      { type: 'text', text: 'b' },
    ],
  });
  await exchange(s.url, { body: messagesBody() });
  s.reset();
  assert.deepEqual([s.requests.length, s.pending().length], [0, 0]);
  await exchange(s.url, { body: messagesBody() });
  assert.deepEqual(
    s.requests.map((r) => [r.n, r.source]),
    [[1, 'default']],
  );
});

test('logFile receives one JSON line per request, with the served item', async () => {
  const file = join(mkdtempSync(join(tmpdir(), 'flower-sim-log-')), 'requests.jsonl');
  const s = await sim({ logFile: file, script: [{ type: 'error', status: 529 }] });
  await exchange(s.url, { body: messagesBody() });
  await exchange(s.url, { path: '/v1/messages/count_tokens', body: messagesBody() });
  const lines = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { n: number; served?: { status: number } });
  assert.deepEqual(
    lines.map((l) => [l.n, l.served?.status]),
    [
      [1, 529],
      [2, undefined],
    ],
  );
  await assert.rejects(startSim({ logFile: join(file, 'nope', 'x.jsonl') }), (e: unknown) => e instanceof SimError && e.code === 'sim-log-file');
});
