import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentText, matches, toSimCall, toolResultsOf, type SimMatch } from '../../src/sim/index.js';
import { Script } from '../../src/sim/script.js';

// A request shaped like a second turn of the harness: prompt, a tool round trip, a follow-up.
const body = {
  model: 'm',
  stream: true,
  system: [
    { type: 'text', text: 'billing header' },
    { type: 'text', text: 'You are the JUDGE.' },
  ],
  tools: [{ name: 'Bash' }, { name: 'Write' }],
  messages: [
    {
      role: 'user',
      content: [
        { type: 'text', text: 'SUBAGENT PROMPT: count files' },
        { type: 'text', text: '<system-reminder>x</system-reminder>' },
      ],
    },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'a.txt\nb.txt' }] }] },
  ],
};
const raw = JSON.stringify(body);
const call = toSimCall(1, body, raw);

const table: Array<[string, SimMatch | undefined, boolean]> = [
  ['no matcher accepts everything', undefined, true],
  ['systemIncludes reads every system block', { systemIncludes: 'the JUDGE' }, true],
  ['systemIncludes misses', { systemIncludes: 'WORKER' }, false],
  ['firstUserIncludes reads the first user message', { firstUserIncludes: 'SUBAGENT PROMPT' }, true],
  ['firstUserIncludes ignores later messages', { firstUserIncludes: 'b.txt' }, false],
  ['lastUserIncludes reads tool_result contents', { lastUserIncludes: 'b.txt' }, true],
  ['lastUserIncludes ignores the first message', { lastUserIncludes: 'SUBAGENT' }, false],
  ['an array needle needs every part', { lastUserIncludes: ['a.txt', 'b.txt'] }, true],
  ['an array needle fails on one missing part', { lastUserIncludes: ['a.txt', 'c.txt'] }, false],
  ['bodyIncludes reads the raw JSON', { bodyIncludes: '"tool_use_id":"toolu_1"' }, true],
  ['toolsInclude needs the tool offered', { toolsInclude: 'Write' }, true],
  ['toolsInclude fails for a tool not offered', { toolsInclude: ['Write', 'Agent'] }, false],
  ['all conditions must hold', { systemIncludes: 'JUDGE', toolsInclude: 'Agent' }, false],
  ['not inverts', { not: { firstUserIncludes: 'SUBAGENT' } }, false],
  ['not of a miss accepts', { not: { toolsInclude: 'Agent' } }, true],
  ['a predicate sees the call view', (c) => c.tools.length === 2 && c.stream && c.n === 1, true],
  ['a predicate inside not', { not: (c) => c.lastUser.includes('a.txt') }, false],
];

for (const [name, match, expected] of table) {
  test(`matcher: ${name}`, () => {
    assert.equal(matches(match, call), expected);
  });
}

test('the first queued item whose matcher accepts the request is served, others wait their turn', () => {
  const script = new Script();
  script.push([
    { type: 'text', text: 'for the worker', match: { firstUserIncludes: 'WORKER PROMPT' } },
    { type: 'text', text: 'for the subagent', match: { firstUserIncludes: 'SUBAGENT PROMPT' } },
    { type: 'text', text: 'anyone' },
  ]);
  const served = [call, call].map((c) => script.take(c)?.item);
  assert.deepEqual(
    served.map((i) => i?.type === 'text' && i.text),
    ['for the subagent', 'anyone'],
  );
  assert.deepEqual(
    script.pending().map((p) => p.summary),
    ['text "for the worker" {firstUserIncludes "WORKER PROMPT"}'],
  );
  assert.equal(script.take(call), undefined, 'nothing left that matches');
});

test('times and sticky decide how long an item keeps answering', () => {
  const script = new Script();
  script.push([
    { type: 'error', status: 529, times: 2 },
    { type: 'text', text: 'after' },
    { type: 'hang', sticky: true },
  ]);
  const kinds = Array.from({ length: 5 }, () => script.take(call)?.item.type);
  assert.deepEqual(kinds, ['error', 'error', 'text', 'hang', 'hang']);
  assert.deepEqual(script.pending(), [], 'a sticky item served once is not owed');
});

test('a computed item is built from the call it answers', () => {
  const script = new Script();
  script.push([(c) => ({ type: 'text', text: `you said ${c.lastUser.split('\n')[0]}` })]);
  const taken = script.take(call);
  assert.deepEqual(taken?.item, { type: 'text', text: 'you said a.txt' });
  assert.equal(script.size, 0);
});

test('content text covers strings, text blocks, tool results and tool calls, not thinking', () => {
  const cases: Array<[unknown, string]> = [
    ['plain', 'plain'],
    [
      [
        { type: 'text', text: 'a' },
        { type: 'thinking', thinking: 'secret' },
        { type: 'image', source: {} },
      ],
      'a',
    ],
    [[{ type: 'tool_result', tool_use_id: 't', content: 'out' }], 'out'],
    [[{ type: 'tool_use', name: 'Bash', input: { command: 'ls' } }], 'Bash {"command":"ls"}'],
    [undefined, ''],
    [42, ''],
  ];
  for (const [content, text] of cases) assert.equal(contentText(content), text);
});

test('toolResultsOf lists what the model was told its tools returned', () => {
  assert.deepEqual(toolResultsOf(body), [{ tool_use_id: 'toolu_1', content: 'a.txt\nb.txt', is_error: false }]);
  assert.deepEqual(toolResultsOf({ messages: 'nope' }), []);
});
