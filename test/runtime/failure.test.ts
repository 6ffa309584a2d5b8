/**
 * Typed failures: each signal the binary gives (its error kind, the HTTP status, the result subtype,
 * a thrown error, flower's own cuts) maps to one kind, once; the retry loop reads only the kind.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  FAILURE_KINDS,
  failure,
  fatalLine,
  fromApiError,
  fromInterrupt,
  fromResultSubtype,
  fromText,
  fromThrown,
  isModelNotFound,
  type FailureKind,
} from '../../src/runtime/failure.js';
import { ConfigError, FlowerError, InternalError, StateCorrupt, StoreError } from '../../src/errors.js';
import { SqliteStoreError, StoreKeyError, StoreOpenError } from '../../src/store/index.js';
import { PgStoreError } from '../../src/store/postgres/index.js';
import { retryable } from '../../src/runtime/recover.js';
import { DEFAULT_RESILIENCE, NO_RETRY } from '../../src/runtime/resilience.js';
import { emptyOutcome, type AttemptOutcome } from '../../src/runtime/attempt.js';

type Api = Parameters<typeof fromApiError>[0];
const API: Array<[string, Api, FailureKind, boolean]> = [
  ['401 (the binary retries it; we never do)', { error: 'authentication_failed', status: 401, text: 'Invalid API key · Fix external API key' }, 'auth', false],
  ['org not allowed', { error: 'oauth_org_not_allowed', text: 'org not allowed' }, 'auth', false],
  [
    "a refusal is the model's answer, not a configuration (the same prompt is refused again)",
    { error: 'invalid_request', text: "API Error: Opus 5.5's safeguards flagged this message" },
    'model',
    false,
  ],
  ['account on hold', { error: 'account_on_hold', text: 'on hold' }, 'auth', false],
  ['cloud credentials', { error: 'cloud_credential_error', text: 'no creds' }, 'auth', false],
  ['billing', { error: 'billing_error', status: 400, text: 'Your credit balance is too low' }, 'quota', false],
  ['429 rate limit', { error: 'rate_limit', status: 429, text: 'API Error: Request rejected (429) · mock 429 rate_limit_error' }, 'quota', true],
  ['529 overloaded', { error: 'overloaded', status: 529, text: 'API Error: 529 mock 529 overloaded_error.' }, 'overloaded', true],
  ['500 server error', { error: 'server_error', status: 500, text: 'API Error: 500 mock 500 api_error. (127.0.0.1:400)' }, 'overloaded', true],
  [
    'refused connection (server_error + connection_failed)',
    { error: 'server_error', connection: true, text: 'API Error: Connection refused (ECONNREFUSED)' },
    'network',
    true,
  ],
  [
    'a dropped connection, unknown kind, no status',
    { error: 'unknown', status: null, connection: true, text: 'API Error: Connection dropped (ECONNRESET).' },
    'network',
    true,
  ],
  ['model not found', { error: 'model_not_found', status: 404, text: 'model claude-x not found' }, 'config', false],
  ['400 bad request, unknown kind', { error: 'unknown', status: 400, text: 'API Error: 400 messages: bad request from mock' }, 'config', false],
  ['400 prompt too long', { error: 'invalid_request', status: 400, text: 'prompt is too long: 212345 tokens > 200000 maximum' }, 'context-full', false],
  ['413', { error: 'unknown', status: 413, text: 'request too large' }, 'context-full', false],
  ['invalid request, not overflow', { error: 'invalid_request', status: 400, text: 'messages.0: bad role' }, 'config', false],
  ['max output tokens', { error: 'max_output_tokens', text: 'output limit' }, 'budget', false],
  ['503 with only a status', { status: 503, text: 'Service Unavailable' }, 'overloaded', true],
  ['402', { status: 402, text: 'Payment Required' }, 'quota', false],
  ['408', { status: 408, text: 'Request Timeout' }, 'timeout', true],
  [
    'an unknown kind with no status falls back to the text',
    { error: 'unknown', text: 'Request timed out. No data arrived for more than 5 minutes.' },
    'timeout',
    true,
  ],
  ['a port number never reads as a status', { error: 'server_error', status: 500, text: 'check your gateway (127.0.0.1:401)' }, 'overloaded', true],
];
for (const [what, sig, kind, retry] of API) {
  test(`api failure: ${what} → ${kind}${retry ? ' (retryable)' : ''}`, () => {
    const f = fromApiError(sig);
    assert.equal(f.kind, kind);
    assert.equal(f.retryable, retry);
    assert.equal(f.message, sig.text.trim());
    if (typeof sig.status === 'number') assert.equal(f.status, sig.status);
  });
}

const TEXT: Array<[string, FailureKind, boolean]> = [
  ['No conversation found with session ID: 0b8f2c1e-0000-4000-8000-000000000000', 'config', false],
  ['Claude Code native binary not found at /x/claude', 'config', false],
  ['spawn /usr/bin/claude ENOENT', 'config', false],
  ['getaddrinfo ENOTFOUND api.example', 'network', true],
  ['fetch failed', 'network', true],
  ['API Error: 502 Bad Gateway', 'overloaded', true],
  ['Too Many Requests', 'quota', true],
  ['Your credit balance is too low to access the Anthropic API', 'quota', false],
  ['error_max_turns: stopped', 'budget', false],
  ['maximum context length is 200000 tokens', 'context-full', false],
  ['上下文长度超出限制', 'context-full', false],
  ['Claude Code process aborted by user', 'killed', false],
  ['401 Unauthorized: connection refused by auth', 'auth', false],
  ['something odd happened', 'unknown', true],
  ['', 'unknown', true],
];
for (const [text, kind, retry] of TEXT) {
  test(`text fallback (only at the origin): ${JSON.stringify(text.slice(0, 50))} → ${kind}`, () => {
    const f = fromText(text);
    assert.equal(f.kind, kind);
    assert.equal(f.retryable, retry);
  });
}

test('result subtypes that name a limit are budget failures, never retried; others are not limits', () => {
  assert.equal(fromResultSubtype('error_max_turns', '')!.kind, 'budget');
  assert.equal(fromResultSubtype('error_max_budget_usd', 'x')!.retryable, false);
  assert.equal(fromResultSubtype('error_max_structured_output_retries', '')!.kind, 'internal');
  assert.equal(fromResultSubtype('error_during_execution', ''), null);
  assert.equal(fromResultSubtype('success', ''), null);
});

test("flower's own cuts: the watchdog is a retryable timeout, a person's interrupt and a handoff are not retries", () => {
  assert.deepEqual(fromInterrupt('watchdog', 'w'), { kind: 'timeout', retryable: true, message: 'w' });
  assert.deepEqual(fromInterrupt('human', 'h'), { kind: 'interrupted', retryable: false, message: 'h' });
  assert.deepEqual(fromInterrupt('handoff', 'c'), { kind: 'context-full', retryable: false, message: 'c' });
});

test('every kind has a default and round-trips through JSON as a plain object', () => {
  for (const k of FAILURE_KINDS) {
    const f = failure(k, ` ${k} text `);
    assert.equal(f.kind, k);
    assert.equal(typeof f.retryable, 'boolean');
    assert.equal(f.message, `${k} text`);
    assert.deepEqual(JSON.parse(JSON.stringify(f)), f);
  }
  assert.equal(failure('store', 'x').retryable, false);
  assert.equal(failure('quota', 'x', { retryable: false }).retryable, false);
  assert.equal(failure('overloaded', 'x', { status: 529 }).status, 529);
});

const outcome = (o: Partial<AttemptOutcome>): AttemptOutcome => ({ ...emptyOutcome(), ...o });

test('the retry loop decides on the kind, never the text: a fatal kind with a "transient" text stops', () => {
  const v = retryable(
    outcome({ error: 'API Error: 503 overloaded, try again', failure: failure('auth', 'API Error: 503 overloaded, try again') }),
    1,
    DEFAULT_RESILIENCE,
  );
  assert.equal(v.retry, false);
  assert.match(v.why!, /ANTHROPIC_API_KEY/);
  const w = retryable(outcome({ error: 'Invalid API key 401', failure: failure('network', 'Invalid API key 401') }), 1, DEFAULT_RESILIENCE);
  assert.equal(w.retry, true, 'a network failure is waited out whatever its text says');
});

test('the loop bounds attempts, honours retryUnknown, and stops under NO_RETRY', () => {
  const net = outcome({ error: 'x', failure: failure('network', 'x') });
  assert.equal(retryable(net, DEFAULT_RESILIENCE.maxAttempts, DEFAULT_RESILIENCE).retry, false);
  assert.match(retryable(net, DEFAULT_RESILIENCE.maxAttempts, DEFAULT_RESILIENCE).why!, /gave up after 6 attempts/);
  assert.equal(retryable(net, 1, NO_RETRY).retry, false);
  assert.equal(retryable(net, 1, NO_RETRY).why, undefined, 'one attempt allowed: nothing was given up on');
  const odd = outcome({ error: 'odd', failure: failure('unknown', 'odd') });
  assert.equal(retryable(odd, 1, DEFAULT_RESILIENCE).retry, true);
  assert.equal(retryable(odd, 1, { ...DEFAULT_RESILIENCE, retryUnknown: false }).retry, false);
});

test('a resume the binary cannot find is fatal at once and points at flower log', () => {
  const f = fromText('No conversation found with session ID: abc');
  const v = retryable(outcome({ error: f.message, failure: f }), 1, DEFAULT_RESILIENCE);
  assert.equal(v.retry, false);
  assert.match(fatalLine(f), /flower log/);
});

test('a model the endpoint does not serve: typed config 404, a line naming the model and `flower setup`', () => {
  const f = fromApiError({ error: 'model_not_found', status: 404, text: "There's an issue with the selected model (claude-nope)." });
  assert.deepEqual([f.kind, f.status, f.retryable, isModelNotFound(f)], ['config', 404, false, true]);
  const v = retryable(outcome({ error: f.message, failure: f }), 1, DEFAULT_RESILIENCE, 'claude-nope');
  assert.equal(v.retry, false);
  assert.match(v.why!, /does not serve the model 'claude-nope': run `flower setup`/);
  // the binary's words alone (no status) still count; another config failure does not
  assert.equal(isModelNotFound(failure('config', "There's an issue with the selected model (x).")), true);
  assert.equal(isModelNotFound(failure('config', 'ANTHROPIC_BASE_URL: not a URL')), false);
  assert.equal(isModelNotFound(failure('auth', 'model not found', { status: 404 })), false);
  assert.doesNotMatch(fatalLine(failure('config', 'ANTHROPIC_BASE_URL: not a URL')), /flower setup/);
});

const PG = { host: '127.0.0.1', port: 5432, database: 'flower', user: 'flower' };
const THROWN: Array<[string, unknown, FailureKind]> = [
  [
    'a PostgreSQL server gone mid-step (it was "internal" before the store errors were one family)',
    new PgStoreError('unreachable', 'cannot reach PostgreSQL at 127.0.0.1:5432', PG),
    'store',
  ],
  ['a PostgreSQL user without rights on the tables', new PgStoreError('permission', 'user "flower" has no permission', PG), 'store'],
  ['a read-only sessions.db', new SqliteStoreError('store-read-only', 'session store /x/sessions.db is read-only', { path: '/x/sessions.db' }), 'store'],
  ['a sessions.db that is not SQLite', new StoreOpenError('/x/sessions.db', 'not-sqlite', 'not a SQLite database'), 'store'],
  ['a key that cannot be stored', new StoreKeyError('sessionId "a/b" contains \'/\''), 'store'],
  ["the family's base class", new StoreError('store-x', 'x'), 'store'],
  ['a configuration the step cannot run with', new ConfigError('unknown-session', 'no session x'), 'config'],
  ['our own bug', new InternalError('bug', 'oops'), 'internal'],
  ['a damaged file that is not the store', new StateCorrupt('state-corrupt', 'lineage.json is damaged'), 'internal'],
  ['a plain Error', new Error('boom'), 'internal'],
  ['a thrown string', 'boom', 'internal'],
];
for (const [what, e, kind] of THROWN) {
  test(`a thrown error: ${what} is a '${kind}' failure`, () => {
    const f = fromThrown(e);
    assert.equal(f.kind, kind);
    assert.equal(f.message, e instanceof Error ? e.message : String(e));
  });
}

test('every store error is one family: a StoreError and a FlowerError, whatever the backend; a bad sessions.db stays a StateCorrupt', () => {
  const all = [
    new PgStoreError('auth', 'refused', PG),
    new SqliteStoreError('store-locked', 'locked'),
    new StoreOpenError('/x.db', 'cannot-open', 'no'),
    new StoreKeyError('empty'),
  ];
  for (const e of all) {
    assert.ok(StoreError.is(e) && e instanceof StoreError && FlowerError.is(e), e.name);
    assert.equal(ConfigError.is(e), false, e.name);
  }
  assert.deepEqual(
    all.map((e) => e.name),
    ['PgStoreError', 'SqliteStoreError', 'StoreOpenError', 'StoreKeyError'],
  );
  const open = all[2] as StoreOpenError;
  assert.equal(StateCorrupt.is(open), true);
  assert.equal(open.keptAt, '/x.db');
  assert.equal(StateCorrupt.is(all[1]), false, 'only the damaged file is a StateCorrupt');
  assert.equal((all[3] as StoreKeyError).code, 'store-bad-key');
});
