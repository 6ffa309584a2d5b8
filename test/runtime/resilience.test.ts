import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import {
  DEFAULT_RESILIENCE,
  backoff,
  classify,
  shouldRetry,
  isOverflow,
  overflowLimit,
  endpoint,
  reachable,
  RESUME_PROMPT,
  resilienceFromEnv,
  type ErrorClass,
} from '../../src/runtime/resilience.js';

test('the defaults are the documented ones', () => {
  assert.deepEqual(
    { ...DEFAULT_RESILIENCE },
    {
      maxAttempts: 6,
      baseDelay: 4,
      maxDelay: 120,
      probeTimeout: 5,
      probeInterval: 15,
      maxOfflineWait: 3600,
      retryUnknown: true,
    },
  );
});

// ── classify ─────────────────────────────────────────────────────────────────────────────────
const CLASSIFY: Array<[string, string, ErrorClass]> = [
  // texts the real binary 2.1.332 produces (docs/sdk-facts.md §3.1)
  [
    'a 500 from the binary is transient',
    'API Error: 500 mock 500 api_error. This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:32899).',
    'transient',
  ],
  [
    'a 529 overload is transient',
    'API Error: 529 mock 529 overloaded_error. This is a server-side issue, usually temporary — try again in a moment.',
    'transient',
  ],
  ['a 429 rejection is transient', 'API Error: Request rejected (429) · mock 429 rate_limit_error', 'transient'],
  ['a refused connection is transient', 'API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)', 'transient'],
  [
    'a dropped connection is transient',
    'API Error: Connection dropped (ECONNRESET). Check the gateway set in ANTHROPIC_BASE_URL, then try again.',
    'transient',
  ],
  ['a response cut mid-stream is transient', 'API Error: Connection lost mid-response. The response above may be incomplete.', 'transient'],
  [
    'an empty 200 body is transient',
    'API Error: API returned an empty or malformed response (HTTP 200) — check for a proxy or gateway intercepting the request.',
    'transient',
  ],
  [
    'the 5-minute no-data timeout is transient',
    'Request timed out. No data arrived for more than 5 minutes. If a proxy or gateway on your network holds responses until they complete, set CLAUDE_STREAM_IDLE_TIMEOUT_MS above the limit in force (300000 by default, up to 1800000)',
    'transient',
  ],
  [
    'an API_TIMEOUT_MS timeout is transient',
    'Request timed out. If the API is slow to answer, or a proxy or gateway holds responses, set API_TIMEOUT_MS above 5000.',
    'transient',
  ],
  ['an invalid key is fatal', 'Invalid API key · Fix external API key', 'fatal'],
  ['a 400 bad request is fatal', 'API Error: 400 messages: bad request from mock', 'fatal'],
  // the spec's lists
  ['401 that mentions a connection is fatal (fatal is tested first)', 'Error 401: connection rejected: unauthorized', 'fatal'],
  ['401 with ECONNRESET wording is still fatal', '401 Unauthorized (after ECONNRESET retry)', 'fatal'],
  ['403 is fatal', 'HTTP 403 Forbidden', 'fatal'],
  ['404 is fatal', 'API Error: 404 not found', 'fatal'],
  ['invalid_api_key is fatal', 'invalid_api_key', 'fatal'],
  ['authentication_error is fatal', '{"type":"authentication_error"}', 'fatal'],
  ['authentication_failed is fatal', 'error: authentication_failed', 'fatal'],
  ['permission denied is fatal', 'Permission denied for this organization', 'fatal'],
  ['invalid_request_error is fatal', 'invalid_request_error: messages.0.content', 'fatal'],
  ['a low credit balance is fatal', 'Your credit balance is too low', 'fatal'],
  ['quota exceeded is fatal', 'Quota exceeded for this key', 'fatal'],
  ['a budget stop is fatal', 'error_max_budget_usd: budget reached', 'fatal'],
  ['max_turns is fatal', 'error_max_turns: hit max_turns', 'fatal'],
  ['a missing binary is fatal', 'CLINotFoundError: claude not found', 'fatal'],
  ['ENOTFOUND is transient', 'getaddrinfo ENOTFOUND api.anthropic.com', 'transient'],
  ['EAI_AGAIN is transient', 'getaddrinfo EAI_AGAIN api.anthropic.com', 'transient'],
  ['ETIMEDOUT is transient', 'connect ETIMEDOUT 1.2.3.4:443', 'transient'],
  ['EPIPE is transient', 'write EPIPE', 'transient'],
  ['EHOSTUNREACH is transient', 'connect EHOSTUNREACH', 'transient'],
  ['ENETDOWN is transient', 'ENETDOWN', 'transient'],
  ['socket hang up is transient', 'socket hang up', 'transient'],
  ['fetch failed is transient', 'TypeError: fetch failed', 'transient'],
  ['a network error is transient', 'Network error while streaming', 'transient'],
  ['Connection error. is transient', 'Connection error.', 'transient'],
  ["can't reach the API server is transient", "API Error: Can't reach the API server", 'transient'],
  ['502 is transient', 'Bad gateway 502', 'transient'],
  ['503 is transient', 'HTTP 503', 'transient'],
  ['504 is transient', 'gateway timeout (504)', 'transient'],
  ['overloaded is transient', 'overloaded_error', 'transient'],
  ['rate limit is transient', 'rate limit reached', 'transient'],
  ['rate_limit is transient', 'rate_limit_error', 'transient'],
  ['too many requests is transient', 'Too Many Requests', 'transient'],
  ['temporarily unavailable is transient', 'Service temporarily unavailable', 'transient'],
  ['internal server error is transient', 'Internal Server Error', 'transient'],
  ['case does not matter', 'SOCKET HANG UP', 'transient'],
  // boundaries
  ['empty text is unknown', '', 'unknown'],
  ['whitespace is unknown', '   ', 'unknown'],
  ['an unrelated error is unknown', 'something odd happened', 'unknown'],
  ['a port number 400 is not an HTTP 400', 'API Error: 500 server-side issue (127.0.0.1:400)', 'transient'],
  ['a version 4.401 is not an HTTP 401', 'claude 4.401 crashed', 'unknown'],
  ['4000 is not 400', 'took 4000 ms then stopped', 'unknown'],
];

test('the classify table has at least 40 cases', () => assert.ok(CLASSIFY.length >= 40));
for (const [behaviour, text, want] of CLASSIFY) {
  test(`classify: ${behaviour}`, () => assert.equal(classify(text), want, text));
}

test('null and undefined classify as unknown', () => {
  assert.equal(classify(null), 'unknown');
  assert.equal(classify(undefined), 'unknown');
});

test('transient is retried, fatal never, unknown only when retryUnknown', () => {
  assert.equal(shouldRetry('transient'), true);
  assert.equal(shouldRetry('fatal'), false);
  assert.equal(shouldRetry('unknown'), true);
  assert.equal(shouldRetry('unknown', { retryUnknown: false }), false);
});

// ── backoff ──────────────────────────────────────────────────────────────────────────────────
const BACKOFF: Array<[number, number]> = [
  [1, 4],
  [2, 8],
  [3, 16],
  [4, 32],
  [5, 64],
  [6, 120],
  [7, 120],
  [30, 120],
];
for (const [attempt, nominal] of BACKOFF) {
  test(`backoff before retry ${attempt} is ${nominal} s ±25 %`, () => {
    assert.equal(
      backoff(attempt, DEFAULT_RESILIENCE, () => 0.5),
      nominal,
    );
    assert.equal(
      backoff(attempt, DEFAULT_RESILIENCE, () => 0),
      nominal * 0.75,
    );
    assert.equal(
      backoff(attempt, DEFAULT_RESILIENCE, () => 1),
      nominal * 1.25,
    );
  });
}

test('backoff with real randomness stays inside the jitter band', () => {
  for (let i = 0; i < 1000; i++) {
    const d = backoff(3);
    assert.ok(d >= 12 && d <= 20, String(d));
  }
});

test('backoff treats attempt 0 or less as the first', () => {
  assert.equal(
    backoff(0, DEFAULT_RESILIENCE, () => 0.5),
    4,
  );
  assert.equal(
    backoff(-3, { baseDelay: 1, maxDelay: 10 }, () => 0.5),
    1,
  );
});

// ── overflow ─────────────────────────────────────────────────────────────────────────────────
const OVERFLOW: Array<[string, boolean]> = [
  ['prompt is too long: 212345 tokens > 200000 maximum', true],
  ['context length exceeded', true],
  ['context_length_exceeded', true],
  ['context-length-exceeded', true],
  ['contextlengthexceeded', true],
  ["This model's maximum context length is 200000 tokens", true],
  ['input exceeds the context window', true],
  ['request exceeds context limit', true],
  ['too many total text bytes', true],
  ['input length and `max_tokens` exceed context limit', true],
  ['上下文过长，请缩短输入', true],
  ['请求超出模型上下文限制', true],
  ['API Error: 500 server-side issue', false],
  ['', false],
];
for (const [text, want] of OVERFLOW) {
  test(`isOverflow ${want ? 'recognises' : 'ignores'} ${JSON.stringify(text).slice(0, 50)}`, () => assert.equal(isOverflow(text), want));
}

test('isOverflow looks at every text it is given', () => {
  assert.equal(isOverflow(undefined, 'no', 'Prompt is too long'), true);
  assert.equal(isOverflow(), false);
});

test('overflowLimit reads the stated limit', () => {
  assert.deepEqual(overflowLimit('prompt is too long: 212,345 tokens > 200,000 maximum'), { used: 212345, limit: 200000 });
  assert.equal(overflowLimit('prompt is too long'), undefined);
});

// ── endpoint ─────────────────────────────────────────────────────────────────────────────────
const ENDPOINTS: Array<[string, string | undefined, { host: string; port: number; url: string }]> = [
  ['no base URL means the public API on 443', undefined, { host: 'api.anthropic.com', port: 443, url: 'https://api.anthropic.com' }],
  ['an empty base URL is the default', '  ', { host: 'api.anthropic.com', port: 443, url: 'https://api.anthropic.com' }],
  ['https without a port is 443', 'https://gw.example.com', { host: 'gw.example.com', port: 443, url: 'https://gw.example.com' }],
  ['http without a port is 80', 'http://gw.example.com', { host: 'gw.example.com', port: 80, url: 'http://gw.example.com' }],
  ['an explicit port wins', 'http://127.0.0.1:8787', { host: '127.0.0.1', port: 8787, url: 'http://127.0.0.1:8787' }],
  ['a missing scheme means https', 'gw.example.com:8443', { host: 'gw.example.com', port: 8443, url: 'https://gw.example.com:8443' }],
  ['a bare host means https on 443', 'gw.example.com', { host: 'gw.example.com', port: 443, url: 'https://gw.example.com' }],
  ['a path is kept in the url only', 'https://gw.example.com/anthropic/', { host: 'gw.example.com', port: 443, url: 'https://gw.example.com/anthropic' }],
  ['an IPv6 literal loses its brackets', 'http://[::1]:9000', { host: '::1', port: 9000, url: 'http://[::1]:9000' }],
];
for (const [behaviour, base, want] of ENDPOINTS) {
  test(`endpoint: ${behaviour}`, () => assert.deepEqual(endpoint({ ANTHROPIC_BASE_URL: base }), want));
}

test('endpoint explains a base URL that is not a URL', () => {
  assert.throws(() => endpoint({ ANTHROPIC_BASE_URL: 'http://exa mple:99999' }), /ANTHROPIC_BASE_URL is not a URL/);
});

// ── reachable (loopback only) ────────────────────────────────────────────────────────────────
test('a listening loopback port is reachable', async () => {
  const server = createServer((s) => s.destroy());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  try {
    assert.equal(await reachable('127.0.0.1', port, 2), true);
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});

test('a closed loopback port is unreachable, quickly', async () => {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((r) => server.close(() => r()));
  const t0 = Date.now();
  assert.equal(await reachable('127.0.0.1', port, 2), false);
  assert.ok(Date.now() - t0 < 1500);
});

test('a host that does not resolve is unreachable', async () => {
  assert.equal(await reachable('no-such-host.invalid', 443, 2), false);
});

test('the probe is bounded by its timeout even when the port listens', async () => {
  const server = createServer((s) => s.destroy());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  try {
    const t0 = Date.now();
    assert.equal(await reachable('127.0.0.1', port, 0), false);
    assert.ok(Date.now() - t0 < 500);
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});

// ── resume prompt and env ────────────────────────────────────────────────────────────────────
test('the resume prompt says "continue, do not restart" and carries no error detail', () => {
  assert.match(RESUME_PROMPT.en, /interrupted/);
  assert.match(RESUME_PROMPT.en, /do not start over/);
  assert.match(RESUME_PROMPT.zh, /中断/);
  assert.match(RESUME_PROMPT.zh, /不要从头开始/);
  for (const t of [RESUME_PROMPT.en, RESUME_PROMPT.zh]) assert.doesNotMatch(t, /error|API|\d{3}|ECONN|ENOTFOUND/i);
});

test('FLOWER_* variables override the policy, floats allowed', () => {
  const r = resilienceFromEnv({
    FLOWER_MAX_ATTEMPTS: '2',
    FLOWER_BASE_DELAY: '0.05',
    FLOWER_MAX_DELAY: '0.2',
    FLOWER_PROBE_INTERVAL: '0.1',
    FLOWER_PROBE_TIMEOUT: '0.5',
    FLOWER_MAX_OFFLINE_WAIT: '1.5',
  });
  assert.deepEqual(r, { maxAttempts: 2, baseDelay: 0.05, maxDelay: 0.2, probeInterval: 0.1, probeTimeout: 0.5, maxOfflineWait: 1.5, retryUnknown: true });
});

const INVALID: Array<[string, string]> = [
  ['FLOWER_MAX_ATTEMPTS', 'abc'],
  ['FLOWER_MAX_ATTEMPTS', '0'],
  ['FLOWER_MAX_ATTEMPTS', '2.5'],
  ['FLOWER_MAX_ATTEMPTS', '-1'],
  ['FLOWER_BASE_DELAY', '-1'],
  ['FLOWER_BASE_DELAY', 'NaN'],
  ['FLOWER_MAX_DELAY', 'Infinity'],
  ['FLOWER_PROBE_INTERVAL', '0'],
  ['FLOWER_PROBE_TIMEOUT', '-2'],
  ['FLOWER_MAX_OFFLINE_WAIT', ''],
];
for (const [name, value] of INVALID) {
  test(`an invalid ${name}=${JSON.stringify(value)} is ignored`, () => {
    assert.deepEqual(resilienceFromEnv({ [name]: value }), { ...DEFAULT_RESILIENCE });
  });
}

test('resilienceFromEnv starts from the given base and does not change it', () => {
  const base = { ...DEFAULT_RESILIENCE, retryUnknown: false, maxAttempts: 3 };
  const r = resilienceFromEnv({ FLOWER_BASE_DELAY: '1' }, base);
  assert.deepEqual(r, { ...base, baseDelay: 1 });
  assert.equal(base.baseDelay, 4);
});

test("new Resilience() carries the seed's defaults and the operations that use them", async () => {
  const { Resilience } = await import('../../src/runtime/resilience.js');
  const r = new Resilience();
  assert.deepEqual([r.maxAttempts, r.baseDelay, r.maxDelay, r.probeTimeout, r.probeInterval, r.maxOfflineWait, r.retryUnknown], [6, 4, 120, 5, 15, 3600, true]);
  assert.equal(new Resilience({ maxAttempts: 2 }).maxAttempts, 2);
  assert.equal(r.classify('401 Unauthorized: connection refused by auth'), 'fatal');
  assert.equal(Resilience.classify('API Error: 529 overloaded_error'), 'transient');
  assert.equal(
    r.backoff(3, () => 0.5),
    16,
  );
  assert.equal(
    r.backoff(10, () => 1),
    150,
  );
  assert.deepEqual(r.endpoint({ ANTHROPIC_BASE_URL: 'http://gw.local' }).port, 80);
  assert.equal(r.shouldRetry('unknown'), true);
  assert.equal(new Resilience({ retryUnknown: false }).shouldRetry('unknown'), false);
  assert.doesNotMatch(r.resumePrompt('en'), /error|ECONN|HTTP/i);
});
