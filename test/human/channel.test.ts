/**
 * HumanChannel's ask flow, through the MCP protocol the harness speaks (in process) and through the
 * API flower itself and the UIs use.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { FlowerError } from '../../src/errors.js';
import { DEFAULT_REPLIES, HumanChannel, LOG_HEADER, type HumanChannelOptions } from '../../src/human/index.js';
import type { FlowerEvent } from '../../src/runtime/index.js';
import { connect, states, tmpDir, waitFor } from './helpers.js';

const en = DEFAULT_REPLIES.en;

function channel(o: HumanChannelOptions = {}): { ch: HumanChannel; events: FlowerEvent[] } {
  const events: FlowerEvent[] = [];
  const ch = new HumanChannel({
    lang: 'en',
    onEvent: (e) => {
      events.push(e);
    },
    ...o,
  });
  return { ch, events };
}

test('the answer reaches the model verbatim, and the tool call waits for it', async () => {
  const { ch } = channel();
  const mcp = await connect(ch);
  const started = Date.now();
  const call = mcp.call('ask', { question: 'Which database?' });
  await waitFor('the question', () => ch.pending().length === 1);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(ch.answer(ch.pending()[0]!.id, 'SQLite — one file, no server.\nKeep it simple.'), true);
  const r = await call;
  assert.ok(Date.now() - started >= 150, 'the handler blocked until the answer');
  assert.equal(r.text, 'SQLite — one file, no server.\nKeep it simple.');
  assert.equal(r.isError, false);
  assert.equal(ch.history()[0]!.state, 'answered');
  assert.deepEqual(ch.pending(), []);
  await mcp.close();
});

test('events go asked → answered, with the options, the remaining quota and the ids', async () => {
  const { ch, events } = channel({ maxAsks: 3 });
  const pending = ch.ask('Which output format?', ['HTML', 'PDF']);
  assert.deepEqual(states(events, 'ask'), ['asked:q1']);
  const asked = events[0]!;
  assert.equal(asked.text, 'Which output format?');
  assert.deepEqual(asked.payload.options, ['HTML', 'PDF']);
  assert.equal(asked.payload.remaining, 2);
  assert.equal(asked.payload.answer, null);
  assert.match(String(asked.payload.asked_at), /^\d{4}-\d\d-\d\dT/);
  ch.answer('q1', 'HTML');
  const r = await pending;
  assert.deepEqual(r, { id: 'q1', state: 'answered', answer: 'HTML', optionIndex: 0, reason: null });
  assert.deepEqual(states(events, 'ask'), ['asked:q1', 'answered:q1']);
  assert.equal(events[1]!.payload.answer, 'HTML');
  assert.equal(events[1]!.payload.option_index, 0);
});

test('a declined question tells the model to decide itself, with the reason when one is given', async () => {
  const { ch, events } = channel();
  const mcp = await connect(ch);
  const first = mcp.call('ask', { question: 'Tabs or spaces?' });
  await waitFor('q1', () => ch.pending().length === 1);
  assert.equal(ch.decline('q1'), true);
  assert.equal((await first).text, en.declined);
  const second = mcp.call('ask', { question: 'Which licence?' });
  await waitFor('q2', () => ch.pending().length === 1);
  ch.decline('q2', 'not my call');
  const text = (await second).text;
  assert.ok(text.startsWith(en.declined) && text.includes('not my call'), text);
  assert.deepEqual(states(events, 'ask'), ['asked:q1', 'declined:q1', 'asked:q2', 'declined:q2']);
  await mcp.close();
});

test('nobody answering within 0.3 s ends in timeout with the no-answer text', async () => {
  const { ch, events } = channel({ timeoutS: 0.3 });
  const mcp = await connect(ch);
  const started = Date.now();
  const r = await mcp.call('ask', { question: 'Deploy where?' });
  const took = Date.now() - started;
  assert.ok(took >= 280 && took < 2_000, `took ${took} ms`);
  assert.equal(r.text, en.timeout);
  assert.match(r.text, /未知与假设/);
  assert.deepEqual(states(events, 'ask'), ['asked:q1', 'timeout:q1']);
  assert.equal(ch.answer('q1', 'too late'), false);
  await mcp.close();
});

test('timeoutS 0 answers "nobody is here" at once, without an asked event', async () => {
  for (const timeoutS of [0, -5]) {
    const { ch, events } = channel({ timeoutS });
    const mcp = await connect(ch);
    const started = Date.now();
    const r = await mcp.call('ask', { question: 'Anyone there?', options: ['yes', 'no'] });
    assert.ok(Date.now() - started < 100, `timeoutS ${timeoutS} answered in ${Date.now() - started} ms`);
    assert.equal(r.text, en.timeout);
    assert.deepEqual(states(events, 'ask'), ['timeout:q1']);
    await mcp.close();
  }
});

test('with a quota of 2 the third question is refused instantly and remaining is 0', async () => {
  const { ch, events } = channel({ maxAsks: 2 });
  const mcp = await connect(ch);
  assert.equal(ch.remaining, 2);
  for (const q of ['one?', 'two?']) {
    const call = mcp.call('ask', { question: q });
    await waitFor(q, () => ch.pending().length === 1);
    ch.answer(ch.pending()[0]!.id, 'ok');
    assert.equal((await call).text, 'ok');
  }
  assert.equal(ch.remaining, 0);
  const started = Date.now();
  const third = await mcp.call('ask', { question: 'three?' });
  assert.ok(Date.now() - started < 100);
  assert.equal(third.text, en.over_budget);
  assert.equal(ch.remaining, 0);
  assert.deepEqual(states(events, 'ask').slice(-1), ['over_budget:q3']);
  assert.equal(events.filter((e) => e.payload.state === 'asked').length, 2, 'the third never reached the person');
  await mcp.close();
});

test('an empty question is invalid and does not use the quota', async () => {
  const { ch, events } = channel({ maxAsks: 1 });
  const mcp = await connect(ch);
  const r = await mcp.call('ask', { question: '   ' });
  assert.equal(r.text, en.invalid);
  assert.equal(ch.remaining, 1);
  const call = mcp.call('ask', { question: 'The real question?' });
  await waitFor('q2', () => ch.pending().length === 1);
  ch.answer('q2', 'fine');
  assert.equal((await call).text, 'fine');
  assert.deepEqual(states(events, 'ask'), ['invalid:q1', 'asked:q2', 'answered:q2']);
  await mcp.close();
});

test("flower's own questions ignore the quota, even a quota of 0", async () => {
  const { ch, events } = channel({ maxAsks: 0 });
  const mcp = await connect(ch);
  assert.equal((await mcp.call('ask', { question: 'May I ask?' })).text, en.over_budget);
  const escalation = ch.ask('The goal looks unreachable. What now?', ['accept', 'misjudge', 'change'], { framework: true });
  assert.equal(ch.pending().length, 1);
  ch.answer('q2', '3');
  assert.deepEqual(await escalation, { id: 'q2', state: 'answered', answer: 'change', optionIndex: 2, reason: null });
  assert.equal(ch.remaining, 0);
  const asked = events.find((e) => e.payload.state === 'asked')!;
  assert.equal(asked.payload.framework, true);
  await mcp.close();
});

test('a number within the options picks that option; its text goes to the model; other text stays verbatim', async () => {
  const { ch } = channel();
  const mcp = await connect(ch);
  const cases: Array<[string, string, number | null]> = [
    ['2', 'Markdown', 1],
    [' ３ ', 'Plain text', 2],
    ['markdown', 'Markdown', 1],
    ['4', '4', null],
    ['0', '0', null],
    ['HTML, but with a print stylesheet', 'HTML, but with a print stylesheet', null],
  ];
  for (const [typed, model, index] of cases) {
    const call = mcp.call('ask', { question: 'Output?', options: ['HTML', 'Markdown', 'Plain text'] });
    await waitFor('the question', () => ch.pending().length === 1);
    const id = ch.pending()[0]!.id;
    ch.answer(id, typed);
    assert.equal((await call).text, model, `typed ${JSON.stringify(typed)}`);
    assert.equal(ch.history().find((a) => a.id === id)!.optionIndex, index, `typed ${JSON.stringify(typed)}`);
  }
  await mcp.close();
});

test('options sent as JSON text are taken apart into a list', async () => {
  const { ch } = channel();
  const mcp = await connect(ch);
  const call = mcp.call('ask', { question: 'Which?', options: '["red", "green", "red", " "]' });
  await waitFor('the question', () => ch.pending().length === 1);
  assert.deepEqual(ch.pending()[0]!.options, ['red', 'green']);
  ch.answer(ch.pending()[0]!.id, '2');
  assert.equal((await call).text, 'green');
  await mcp.close();
});

test('answer and decline return false for unknown or settled questions; an empty answer declines', async () => {
  const { ch } = channel();
  assert.equal(ch.answer('q9', 'x'), false);
  assert.equal(ch.decline('q9'), false);
  const p = ch.ask('Q?');
  assert.equal(ch.answer('q1', '  '), true);
  assert.equal((await p).state, 'declined');
  assert.equal(ch.answer('q1', 'late'), false);
  assert.equal(ch.decline('q1'), false);
});

test('nextAsk hands each pending question out once and skips those already settled', async () => {
  const { ch } = channel();
  const a = ch.ask('first?');
  const b = ch.ask('second?');
  const c = ch.ask('third?');
  ch.answer('q1', 'done elsewhere');
  assert.equal(ch.nextAsk()!.id, 'q2');
  assert.equal(ch.nextAsk()!.id, 'q3');
  assert.equal(ch.nextAsk(), null);
  assert.deepEqual(
    ch.pending().map((x) => x.id),
    ['q2', 'q3'],
  );
  const waited = ch.waitForAsk(2_000);
  const d = ch.ask('fourth?');
  assert.equal((await waited)!.id, 'q4');
  assert.equal(await ch.waitForAsk(50), null);
  ch.close();
  assert.deepEqual(
    (await Promise.all([a, b, c, d])).map((r) => r.state),
    ['answered', 'declined', 'declined', 'declined'],
  );
});

test('close() declines everything pending, and later questions end at once', async () => {
  const { ch, events } = channel({ timeoutS: null });
  const mcp = await connect(ch);
  const waiting = mcp.call('ask', { question: 'Forever?' });
  await waitFor('q1', () => ch.pending().length === 1);
  ch.close();
  assert.equal((await waiting).text, en.declined);
  const started = Date.now();
  assert.equal((await mcp.call('ask', { question: 'Still there?' })).text, en.timeout);
  assert.ok(Date.now() - started < 100);
  assert.deepEqual(states(events, 'ask'), ['asked:q1', 'declined:q1', 'timeout:q2']);
  await mcp.close();
});

test('a cancelled tool call declines its question instead of leaving it pending', async () => {
  const { ch } = channel({ timeoutS: null });
  const mcp = await connect(ch);
  const ac = new AbortController();
  const call = mcp.call('ask', { question: 'Will you cancel?' }, { signal: ac.signal });
  await waitFor('q1', () => ch.pending().length === 1);
  ac.abort();
  await assert.rejects(call);
  await waitFor('the question to be declined', () => ch.pending().length === 0);
  assert.equal(ch.history()[0]!.state, 'declined');
  await mcp.close();
});

test('a UI callback that throws is collected and the question still completes', async () => {
  const ch = new HumanChannel({
    lang: 'en',
    onEvent: () => {
      throw new Error('terminal gone');
    },
  });
  const p = ch.ask('Still works?');
  ch.answer('q1', 'yes');
  assert.equal((await p).answer, 'yes');
  assert.equal(ch.uiErrors.length, 2);
  assert.match(String(ch.uiErrors[0]), /terminal gone/);
  const asyncUi = new HumanChannel({
    lang: 'en',
    onEvent: (async () => {
      throw new Error('later');
    }) as unknown as () => void,
  });
  asyncUi.send('hello');
  await waitFor('the rejection', () => asyncUi.uiErrors.length === 1);
});

test('the Q&A log has the header, every question, its options and how it ended', async () => {
  const dir = tmpDir();
  const logPath = path.join(dir, '.flower', 'notes', '问答记录.md');
  const { ch } = channel({ logPath, timeoutS: 0.05, maxAsks: 2 });
  const a = ch.ask('Which format?', ['HTML', 'PDF']);
  ch.answer('q1', '1');
  await a;
  await ch.ask('Anyone?');
  await ch.ask('');
  await ch.ask('Over the quota?');
  ch.send('Also support tables, please.');
  const log = fs.readFileSync(logPath, 'utf8');
  assert.ok(log.startsWith(`${LOG_HEADER}\n\n> `), log);
  assert.equal(log.split(LOG_HEADER).length, 2, 'one header');
  for (const line of [
    '- **Q**(q1) Which format?',
    '  - 选项:HTML / PDF',
    '  - **A**[answered] HTML',
    '- **Q**(q2) Anyone?',
    '  - **A**[timeout]',
    '- **Q**(q3) (空)',
    '  - **A**[invalid]',
    '- **Q**(q4) Over the quota?',
    '  - **A**[over_budget]',
    '- **人主动说**(m5) Also support tables, please.',
  ])
    assert.ok(log.split('\n').includes(line), `missing line ${JSON.stringify(line)} in\n${log}`);
  assert.ok(log.indexOf('(q1)') < log.indexOf('(q2)') && log.indexOf('(q4)') < log.indexOf('(m5)'));
  assert.deepEqual(ch.ioErrors, []);
});

test('a log that cannot be written is reported, never thrown', async () => {
  const dir = tmpDir();
  fs.writeFileSync(path.join(dir, 'notes'), 'a file where a folder should be');
  const { ch } = channel({ logPath: path.join(dir, 'notes', '问答记录.md'), timeoutS: 0 });
  assert.equal((await ch.ask('Q?')).state, 'timeout');
  assert.equal(ch.ioErrors.length, 1);
  assert.match(ch.ioErrors[0]!, /问答记录\.md/);
});

test('bad settings are refused with the value named; a negative quota means unlimited', () => {
  assert.throws(
    () => new HumanChannel({ maxAsks: 1.5 }),
    (e: unknown) => FlowerError.is(e) && /1\.5/.test(e.message),
  );
  assert.throws(
    () => new HumanChannel({ timeoutS: Number.NaN }),
    (e: unknown) => FlowerError.is(e) && /timeoutS/.test(e.message),
  );
  assert.equal(new HumanChannel({ maxAsks: -1 }).remaining, -1);
  assert.equal(new HumanChannel().remaining, -1);
  assert.equal(new HumanChannel().timeoutS, 1800);
  assert.equal(new HumanChannel({ timeoutS: null }).timeoutS, null);
});

test('the server offers ask and inbox under the name human; each read is a fresh instance', async () => {
  const ch = new HumanChannel({ lang: 'zh' });
  assert.deepEqual(ch.toolNames, ['mcp__human__ask', 'mcp__human__inbox']);
  const a = ch.server;
  assert.equal(a.name, 'human');
  assert.equal(a.type, 'sdk');
  assert.notEqual(a.instance, ch.server.instance);
  const mcp = await connect(ch);
  const listed = await mcp.client.listTools();
  assert.deepEqual(listed.tools.map((t) => t.name).sort(), ['ask', 'inbox']);
  const ask = listed.tools.find((t) => t.name === 'ask')!;
  assert.deepEqual(ask.inputSchema.required, ['question']);
  assert.match(ask.description ?? '', /未知与假设/);
  await mcp.close();
});

test('a UI may answer from inside onEvent, and the fixed replies can be replaced', async () => {
  const ch: HumanChannel = new HumanChannel({
    lang: 'zh',
    replies: { declined: '跳过了,你自己定。', timeout: '  ' },
    onEvent: (e) => {
      if (e.payload.state === 'asked') ch.answer(String(e.payload.id), e.payload.id === 'q1' ? '1' : '');
    },
  });
  const mcp = await connect(ch);
  assert.equal((await mcp.call('ask', { question: '选哪个?', options: ['甲', '乙'] })).text, '甲');
  assert.equal((await mcp.call('ask', { question: '还有吗?' })).text, '跳过了,你自己定。');
  const silent = new HumanChannel({ lang: 'zh', timeoutS: 0, replies: { timeout: '  ' } });
  assert.equal(await silent.ask('有人吗?').then((r) => r.state), 'timeout');
  const mcp2 = await connect(silent);
  assert.equal((await mcp2.call('ask', { question: '有人吗?' })).text, DEFAULT_REPLIES.zh.timeout, 'a blank override keeps the default');
  await mcp.close();
  await mcp2.close();
});
