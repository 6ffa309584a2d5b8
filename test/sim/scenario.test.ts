import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimError, loadScenario, parseScenario, parseItems } from '../../src/sim/index.js';

const ok: Array<[string, unknown, number]> = [
  ['a bare array of items is a scenario', [{ type: 'text', text: 'hi' }], 1],
  ['the object form with default and onUnexpected', { items: [{ type: 'hang' }], default: { type: 'text', text: 'x' }, onUnexpected: 'error' }, 1],
  [
    'every item type with its fields',
    [
      { type: 'text', text: 'a', chunks: 3, chunkDelayMs: 10, thinking: 't', usage: { input_tokens: 5 }, stop_reason: 'max_tokens', model: 'm', label: 'l' },
      { type: 'tool_use', name: 'Write', input: { file_path: 'a' }, id: 'toolu_1', text: 'pre' },
      {
        type: 'tool_use',
        tools: [
          { name: 'Read', input: {} },
          { name: 'Bash', id: 'x' },
        ],
        sticky: true,
      },
      { type: 'error', status: 529, errorType: 'overloaded_error', message: 'busy', headers: { 'retry-after': 1, 'x-should-retry': 'false' }, times: 2 },
      { type: 'drop', delayMs: 5 },
      { type: 'drop_mid', afterEvents: 3, stall: true, as: 'tool_use', name: 'Bash', input: {}, dropNonStreaming: false },
      { type: 'hang' },
      { type: 'shutdown' },
      { type: 'raw', status: 200, headers: { 'content-type': 'text/plain' }, body: 'x' },
      {
        type: 'text',
        text: 'routed',
        match: {
          systemIncludes: 'S',
          firstUserIncludes: ['a', 'b'],
          lastUserIncludes: 'c',
          bodyIncludes: 'd',
          toolsInclude: 'Bash',
          not: { lastUserIncludes: 'e' },
        },
      },
    ],
    10,
  ],
  ['an empty items list', { items: [], description: 'nothing scripted' }, 0],
];

for (const [name, value, count] of ok) {
  test(`valid: ${name}`, () => {
    assert.equal(parseScenario(value, { source: 't.json' }).items.length, count);
  });
}

// [what is wrong, scenario, index, field, text the message must contain]
const bad: Array<[string, unknown, number | undefined, string | undefined, string]> = [
  [
    'an unknown item type (with a suggestion)',
    [
      { type: 'text', text: 'a' },
      { type: 'tool-use', name: 'X' },
    ],
    1,
    'type',
    'did you mean "tool_use"',
  ],
  ['a missing type', [{ text: 'a' }], 0, 'type', 'must be one of text, tool_use'],
  ['a text item without text', [{ type: 'text' }], 0, 'text', 'is required'],
  ['a misspelled field', [{ type: 'text', text: 'a', chunkDelay: 5 }], 0, 'chunkDelay', 'did you mean "chunkDelayMs"'],
  ['a field of another type', [{ type: 'text', text: 'a', status: 500 }], 0, 'status', 'only error, raw items take it'],
  ['a status out of range', [{ type: 'error', status: 1000 }], 0, 'status', 'between 100 and 599'],
  ['a negative delay', [{ type: 'hang', delayMs: -1 }], 0, 'delayMs', 'integer ≥ 0'],
  ['times zero', [{ type: 'drop', times: 0 }], 0, 'times', 'integer ≥ 1'],
  ['times and sticky together', [{ type: 'drop', times: 2, sticky: true }], 0, 'sticky', 'exclude each other'],
  ['tool_use with neither name nor tools', [{ type: 'tool_use', input: {} }], 0, 'name', 'either "name"'],
  ['tool_use with both name and tools', [{ type: 'tool_use', name: 'A', tools: [{ name: 'B' }] }], 0, 'tools', 'not both'],
  ['a tool call without a name', [{ type: 'tool_use', tools: [{ input: {} }] }], 0, 'tools[0].name', 'must be a string'],
  ['input that is not an object', [{ type: 'tool_use', name: 'Bash', input: 'ls' }], 0, 'input', 'JSON object'],
  ['an unknown matcher', [{ type: 'text', text: 'a', match: { lastUser: 'x' } }], 0, 'match.lastUser', 'is not a matcher'],
  ['a bad nested not-matcher', [{ type: 'text', text: 'a', match: { not: { toolsInclude: [] } } }], 0, 'match.not.toolsInclude', 'non-empty array'],
  ['a bad usage key', [{ type: 'text', text: 'a', usage: { input: 3 } }], 0, 'usage.input', 'is not a usage field'],
  ['a bad header value', [{ type: 'error', headers: { 'retry-after': true } }], 0, 'headers.retry-after', 'string or a number'],
  ['drop_mid as an unknown shape', [{ type: 'drop_mid', as: 'image' }], 0, 'as', 'must be one of "text", "tool_use"'],
  ['an item that is not an object', [{ type: 'hang' }, 'pong'], 1, undefined, 'must be an object'],
  ['an unknown top-level key', { items: [], onUnexpectd: 'error' }, undefined, 'onUnexpectd', 'did you mean "onUnexpected"'],
  ['items not an array', { items: { type: 'hang' } }, undefined, 'items', 'must be an array'],
  ['a bad onUnexpected', { items: [], onUnexpected: 'throw' }, undefined, 'onUnexpected', 'must be one of "default", "error"'],
  [
    'a default with a matcher',
    { items: [], default: { type: 'text', text: 'x', match: { bodyIncludes: 'a' } } },
    undefined,
    'match',
    'meaningless on the default',
  ],
];

for (const [name, value, index, field, text] of bad) {
  test(`invalid: ${name} is named by index and field`, () => {
    assert.throws(
      () => parseScenario(value, { source: 'bad.json' }),
      (err: unknown) => {
        assert.ok(err instanceof SimError);
        assert.equal(err.code, 'sim-scenario-invalid');
        assert.equal(err.index, index);
        assert.equal(err.field, field);
        assert.match(err.message, /^bad\.json: /);
        assert.ok(err.message.includes(text), `message ${JSON.stringify(err.message)} lacks ${JSON.stringify(text)}`);
        if (index !== undefined) assert.ok(err.message.includes(`items[${index}]`));
        return true;
      },
    );
  });
}

test('functions are refused in JSON and accepted from the library', () => {
  const predicate = [{ type: 'text', text: 'a', match: () => true }];
  assert.throws(() => parseItems(predicate), /predicates exist only in the library API/);
  assert.equal(parseItems(predicate, { allowFunctions: true }).length, 1);
  const computed = [() => ({ type: 'text', text: 'a' })];
  assert.throws(() => parseItems(computed), /computed items exist only in the library API/);
  assert.equal(parseItems(computed, { allowFunctions: true }).length, 1);
});

test('loadScenario names the file when it is missing, not JSON, or invalid', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'flower-sim-scn-'));
  await assert.rejects(
    loadScenario(join(dir, 'missing.json')),
    (e: unknown) => e instanceof SimError && e.code === 'sim-scenario-read' && e.message.includes('missing.json'),
  );
  writeFileSync(join(dir, 'broken.json'), '{ "items": [ ');
  await assert.rejects(
    loadScenario(join(dir, 'broken.json')),
    (e: unknown) => e instanceof SimError && e.code === 'sim-scenario-read' && /not valid JSON/.test(e.message),
  );
  const badFile = join(dir, 'bad.json');
  writeFileSync(
    badFile,
    JSON.stringify({
      items: [
        { type: 'text', text: 'ok' },
        { type: 'error', status: 'x' },
      ],
    }),
  );
  await assert.rejects(
    loadScenario(badFile),
    (e: unknown) =>
      e instanceof SimError &&
      e.code === 'sim-scenario-invalid' &&
      e.file === badFile &&
      e.index === 1 &&
      e.field === 'status' &&
      e.message.startsWith(badFile),
  );
  const goodFile = join(dir, 'good.json');
  writeFileSync(goodFile, JSON.stringify([{ type: 'text', text: 'ok' }]));
  assert.deepEqual(await loadScenario(goodFile), { items: [{ type: 'text', text: 'ok' }] });
});
