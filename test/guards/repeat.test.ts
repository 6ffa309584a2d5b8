/**
 * The same call, again and again (issue 19): a thread that repeats one tool call with the same input is
 * refused from the REPEAT_DENY-th time (the model reads that the result will not change), and the
 * attempt is cut at REPEAT_CUT (runtime/attempt; test/workflow/misbehave.e2e.test.ts on the binary).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HookCallbackMatcher } from '@anthropic-ai/claude-agent-sdk';
import { canonical, REPEAT_CUT, REPEAT_DENY, repeatGuard, Streaks } from '../../src/guards/index.js';
import { pre, specific } from './helpers.js';

type Call = [thread: string, tool: string, input: unknown];
const glob: Call = ['main', 'Glob', { pattern: '*.md' }];

// [behaviour, calls, the streak after each]
const STREAKS: Array<[string, Call[], number[]]> = [
  ['the same call counts up', [glob, glob, glob], [1, 2, 3]],
  ['another input starts again', [glob, glob, ['main', 'Glob', { pattern: '*.ts' }], glob], [1, 2, 1, 1]],
  ['another tool starts again', [glob, ['main', 'Read', { pattern: '*.md' }], glob], [1, 1, 1]],
  [
    'key order does not make a call different',
    [
      ['main', 'Read', { file_path: 'a', limit: 5 }],
      ['main', 'Read', { limit: 5, file_path: 'a' }],
    ],
    [1, 2],
  ],
  ['each thread has its own streak', [glob, ['agent-1', 'Glob', { pattern: '*.md' }], glob, ['agent-1', 'Glob', { pattern: '*.md' }]], [1, 1, 2, 2]],
  [
    'polling the same task is never counted, and breaks a streak',
    [glob, ['main', 'TaskOutput', { task_id: 'b1' }], ['main', 'TaskOutput', { task_id: 'b1' }], glob],
    [1, 0, 0, 1],
  ],
  [
    'the same question to the person counts (fuzz seed 212: "nobody answered" 2,400 times)',
    [
      ['main', 'mcp__human__ask', { question: 'q' }],
      ['main', 'mcp__human__ask', { question: 'q' }],
    ],
    [1, 2],
  ],
  [
    'reading an empty inbox again and again counts',
    [
      ['main', 'mcp__human__inbox', {}],
      ['main', 'mcp__human__inbox', {}],
    ],
    [1, 2],
  ],
  [
    "a monitor or a shell's output is waited on, never counted",
    [
      ['main', 'Monitor', { id: 'm' }],
      ['main', 'BashOutput', { bash_id: 'b' }],
    ],
    [0, 0],
  ],
];
for (const [what, calls, want] of STREAKS) {
  test(`streaks: ${what}`, () => {
    const s = new Streaks();
    assert.deepEqual(
      calls.map(([thread, tool, input]) => s.see(thread, tool, input)),
      want,
    );
  });
}

test('canonical JSON: sorted keys at every depth, arrays in order, bounded depth', () => {
  assert.equal(canonical({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } }), '{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
  assert.notEqual(canonical([1, 2]), canonical([2, 1]));
  let deep: unknown = 'x';
  for (let i = 0; i < 1000; i++) deep = { k: deep };
  assert.ok(canonical(deep).length < 400, 'a deep input does not blow the stack');
});

const decide = async (m: HookCallbackMatcher, tool: string, input: unknown, agentId?: string) =>
  specific([await m.hooks[0]!(pre(tool, input, agentId ? { agentId } : {}), 'toolu_1', { signal: new AbortController().signal })]);

test(`the guard lets ${REPEAT_DENY - 1} identical calls run, refuses the ${REPEAT_DENY}th and every later one, and a different call runs again`, async () => {
  const g = repeatGuard({ lang: 'en' });
  const out = [];
  for (let i = 0; i < REPEAT_DENY + 2; i++) out.push(await decide(g, 'Glob', { pattern: '*.md' }));
  assert.deepEqual(
    out.map((o) => o?.permissionDecision ?? 'pass'),
    [...Array(REPEAT_DENY - 1).fill('pass'), 'deny', 'deny', 'deny'],
  );
  assert.equal(
    out[REPEAT_DENY - 1]?.permissionDecisionReason,
    `This exact Glob call (same input) was already made ${REPEAT_DENY - 1} times in a row; its result will not change. Use what it returned, try something else, or finish with your reply.`,
  );
  assert.equal((await decide(g, 'Glob', { pattern: '*.ts' }))?.permissionDecision, undefined);
  // a worker's streak is its own
  for (let i = 0; i < REPEAT_DENY - 1; i++) assert.equal((await decide(g, 'Glob', { pattern: '*.ts' }, 'a1'))?.permissionDecision, undefined);
  assert.ok(REPEAT_CUT > REPEAT_DENY, 'the model is told before the attempt is cut');
});

test('in Chinese mode the refusal is Chinese', async () => {
  const g = repeatGuard({ lang: 'zh' });
  let last;
  for (let i = 0; i < REPEAT_DENY; i++) last = await decide(g, 'Read', { file_path: 'a' });
  assert.match(last?.permissionDecisionReason ?? '', /连着做了 5 次,结果不会变/);
});
