import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildReply, estimateInputTokens, frameEvent, replyEvents, replyMessage, type SimItem } from '../../src/sim/index.js';
import { splitEven } from '../../src/sim/sse.js';
import { parseSse } from './helpers.js';

type AnswerItem = Extract<SimItem, { type: 'text' | 'tool_use' | 'drop_mid' }>;
const body = { model: 'claude-req', system: 's', messages: [{ role: 'user', content: 'hi' }], tools: [] };

/** Rebuild the content blocks a client would assemble from the events. */
function assemble(events: Array<{ event: string; data: Record<string, unknown> }>): unknown[] {
  const blocks: Array<Record<string, unknown> & { partial?: string }> = [];
  for (const { data } of events) {
    const index = data.index as number;
    if (data.type === 'content_block_start') blocks[index] = { ...(data.content_block as Record<string, unknown>), partial: '' };
    if (data.type === 'content_block_delta') {
      const d = data.delta as Record<string, string>;
      const b = blocks[index]!;
      if (d.type === 'text_delta') b.text = `${b.text as string}${d.text}`;
      if (d.type === 'thinking_delta') b.thinking = `${b.thinking as string}${d.thinking}`;
      if (d.type === 'signature_delta') b.signature = d.signature;
      if (d.type === 'input_json_delta') b.partial = `${b.partial ?? ''}${d.partial_json ?? ''}`;
    }
    if (data.type === 'content_block_stop') {
      const b = blocks[index]!;
      if (b.type === 'tool_use') b.input = JSON.parse(b.partial!);
      delete b.partial;
    }
  }
  return blocks;
}

test('tool input is streamed as input_json_delta pieces after an empty input in content_block_start', () => {
  const input = { command: 'echo "héllo 🌸"', description: 'x'.repeat(50) };
  const reply = buildReply({ type: 'tool_use', name: 'Bash', input, id: 'toolu_a', text: 'Running it.' }, body);
  const events = replyEvents(reply);
  assert.deepEqual(
    events.map((e) => e.event),
    [
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ],
  );
  const start = events[4]!.data.content_block as Record<string, unknown>;
  assert.deepEqual(start, { type: 'tool_use', id: 'toolu_a', name: 'Bash', input: {} });
  const pieces = events.filter((e) => (e.data.delta as { type?: string } | undefined)?.type === 'input_json_delta');
  assert.equal(pieces.length, 2);
  for (const p of pieces) assert.throws(() => JSON.parse((p.data.delta as { partial_json: string }).partial_json), 'each piece alone is partial JSON');
  assert.deepEqual(assemble(events), [
    { type: 'text', text: 'Running it.' },
    { type: 'tool_use', id: 'toolu_a', name: 'Bash', input },
  ]);
  assert.equal((events[8]!.data.delta as { stop_reason: string }).stop_reason, 'tool_use');
});

test('parallel tool calls get one block each, indexes in order', () => {
  const reply = buildReply(
    {
      type: 'tool_use',
      tools: [
        { name: 'Read', input: { file_path: 'a' } },
        { name: 'Bash', input: {} },
      ],
    },
    body,
  );
  const blocks = assemble(replyEvents(reply)) as Array<{ name: string; input: unknown; id: string }>;
  assert.deepEqual(
    blocks.map((b) => [b.name, b.input]),
    [
      ['Read', { file_path: 'a' }],
      ['Bash', {}],
    ],
  );
  assert.ok(blocks.every((b) => /^toolu_[0-9a-f]{24}$/.test(b.id)));
  assert.notEqual(blocks[0]!.id, blocks[1]!.id);
});

test('text is split into the requested number of text_delta events, thinking comes first', () => {
  const reply = buildReply({ type: 'text', text: 'abcdefghij', chunks: 4, thinking: 'hmm' }, body);
  const events = replyEvents(reply, 4);
  const textDeltas = events.filter((e) => (e.data.delta as { type?: string } | undefined)?.type === 'text_delta');
  assert.deepEqual(
    textDeltas.map((e) => (e.data.delta as { text: string }).text),
    ['abc', 'def', 'ghi', 'j'],
  );
  const blocks = assemble(events) as Array<Record<string, unknown>>;
  assert.equal(blocks[0]!.type, 'thinking');
  assert.equal(blocks[0]!.thinking, 'hmm');
  assert.match(String(blocks[0]!.signature), /^sig_/);
  assert.deepEqual(blocks[1], { type: 'text', text: 'abcdefghij' });
});

test('framing survives a round trip through an SSE parser', () => {
  const events = replyEvents(buildReply({ type: 'text', text: 'line1\nline2\n\nend' }, body), 3);
  const text = events.map(frameEvent).join('');
  assert.deepEqual(parseSse(text), events);
});

test('usage is estimated from the request unless given; explicit fields win one by one', () => {
  const estimated = buildReply({ type: 'text', text: 'ok' }, body);
  assert.equal(estimated.usage.input_tokens, Math.ceil(JSON.stringify([body.system, body.messages, body.tools]).length / 4));
  assert.equal(estimated.usage.cache_read_input_tokens, 0);
  const given = buildReply({ type: 'text', text: 'ok', usage: { input_tokens: 7, cache_read_input_tokens: 150_000 } }, body);
  assert.equal(given.usage.input_tokens, 7);
  assert.equal(given.usage.cache_read_input_tokens, 150_000);
  assert.equal(given.usage.output_tokens, estimated.usage.output_tokens);
  const [start, , , , delta] = replyEvents(given);
  const startUsage = (start!.data.message as { usage: Record<string, number> }).usage;
  assert.equal(startUsage.cache_read_input_tokens, 150_000);
  assert.equal(startUsage.output_tokens, 1, 'message_start carries a provisional output count');
  assert.deepEqual(delta!.data.usage, { output_tokens: given.usage.output_tokens });
  assert.equal(estimateInputTokens(null), 1);
});

test('model and stop_reason are echoed or overridden', () => {
  const cases: Array<[AnswerItem, string, string]> = [
    [{ type: 'text', text: 'a' }, 'claude-req', 'end_turn'],
    [{ type: 'text', text: 'a', model: 'claude-other', stop_reason: 'max_tokens' }, 'claude-other', 'max_tokens'],
    [{ type: 'tool_use', name: 'Bash' }, 'claude-req', 'tool_use'],
    [{ type: 'drop_mid' }, 'claude-req', 'end_turn'],
  ];
  for (const [item, model, stop] of cases) {
    const m = replyMessage(buildReply(item, body));
    assert.equal(m.model, model);
    assert.equal(m.stop_reason, stop);
  }
});

test('the non-streaming Message carries the whole content', () => {
  const m = replyMessage(buildReply({ type: 'tool_use', name: 'Write', input: { file_path: 'f' }, text: 'pre' }, body));
  assert.equal(m.type, 'message');
  assert.equal(m.role, 'assistant');
  const content = m.content as Array<Record<string, unknown>>;
  assert.deepEqual(
    content.map((b) => b.type),
    ['text', 'tool_use'],
  );
  assert.deepEqual(content[1]!.input, { file_path: 'f' });
});

test('splitting never cuts a surrogate pair and always yields a part', () => {
  const cases: Array<[string, number, string[]]> = [
    ['', 3, ['']],
    ['abc', 1, ['abc']],
    ['abcd', 2, ['ab', 'cd']],
    ['a🌸b', 2, ['a🌸', 'b']],
    ['ab', 5, ['a', 'b']],
  ];
  for (const [s, k, parts] of cases) assert.deepEqual(splitEven(s, k), parts, `${s}/${k}`);
});
