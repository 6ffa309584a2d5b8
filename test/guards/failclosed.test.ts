/**
 * Every decision fails closed: a guard that throws, rejects, answers nothing usable or takes too long
 * denies the call with a reason — it never lets the binary run it anyway (which is what the binary
 * does with a failing callback by default, measured on 2.1.332).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HookCallback, HookJSONOutput } from '@anthropic-ai/claude-agent-sdk';
import { failClosed, failClosedHook } from '../../src/guards/index.js';
import { pre, specific } from './helpers.js';

const run = async (h: HookCallback): Promise<HookJSONOutput> => h(pre('Bash', { command: 'ls' }), 'toolu_1', { signal: new AbortController().signal });

const FAILURES: Array<[string, HookCallback, RegExp]> = [
  [
    'throws',
    () => {
      throw new RangeError('Maximum call stack size exceeded');
    },
    /RangeError: Maximum call stack/,
  ],
  [
    'rejects',
    async () => {
      throw new Error('boom');
    },
    /Error: boom/,
  ],
  ['never answers', () => new Promise<HookJSONOutput>(() => {}), /no decision within/],
  ['answers nothing', (async () => undefined) as unknown as HookCallback, /not an answer/],
];
for (const [what, hook, says] of FAILURES) {
  test(`a guard that ${what} denies, and says why`, async () => {
    const seen: string[] = [];
    const out = specific([await run(failClosedHook(hook, { lang: 'en', budgetMs: 200, onFailure: (w) => seen.push(w) }))]);
    assert.equal(out?.permissionDecision, 'deny');
    assert.match(out?.permissionDecisionReason ?? '', /could not decide on this call/);
    assert.match(out?.permissionDecisionReason ?? '', says);
    assert.equal(seen.length, 1);
  });
}

test('a guard that decides passes its decision through untouched', async () => {
  const allow: HookJSONOutput = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: 'x' } } };
  assert.deepEqual(await run(failClosedHook(async () => allow, { lang: 'en' })), allow);
  assert.deepEqual(await run(failClosedHook(async () => ({}), { lang: 'en' })), {});
});

test('a fail-closed matcher also tells the binary to block on failure, within a timeout', () => {
  const m = failClosed({ matcher: 'Bash', hooks: [async () => ({})] }, { lang: 'en' });
  assert.equal(m.onFailure, 'block');
  assert.ok(m.timeout! > 0);
  assert.equal(m.matcher, 'Bash');
});
