/**
 * The terminal's decisions as tables: where a typed line goes, what a question prints as, which
 * option an answer picks.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  cleanOptions,
  inputHint,
  interactiveTimeout,
  pickOption,
  renderAsk,
  renderMail,
  renderSettled,
  routeLine,
  type Ask,
  type Route,
} from '../../src/human/index.js';

const withOptions = { id: 'q3', options: ['HTML', 'PDF', 'Both'] };
const open = { id: 'q4', options: [] };

test('routeLine sends each typed line where the person meant it', () => {
  const table: Array<[string | null, { id: string; options: string[] } | null, Route]> = [
    ['? what is it doing now', null, { kind: 'oracle', question: 'what is it doing now' }],
    ['？现在在干什么', null, { kind: 'oracle', question: '现在在干什么' }],
    ['？ 在等我吗', withOptions, { kind: 'oracle', question: '在等我吗' }],
    ['?', withOptions, { kind: 'none' }],
    ['', withOptions, { kind: 'decline', id: 'q3' }],
    ['   \r\n', withOptions, { kind: 'decline', id: 'q3' }],
    ['', null, { kind: 'none' }],
    ['2', withOptions, { kind: 'pick', id: 'q3', index: 1, option: 'PDF' }],
    [' 3 ', withOptions, { kind: 'pick', id: 'q3', index: 2, option: 'Both' }],
    ['１', withOptions, { kind: 'pick', id: 'q3', index: 0, option: 'HTML' }],
    ['4', withOptions, { kind: 'answer', id: 'q3', text: '4' }],
    ['0', withOptions, { kind: 'answer', id: 'q3', text: '0' }],
    ['2', open, { kind: 'answer', id: 'q4', text: '2' }],
    ['HTML, with a print stylesheet\n', withOptions, { kind: 'answer', id: 'q3', text: 'HTML, with a print stylesheet' }],
    ['also support tables', null, { kind: 'mail', text: 'also support tables' }],
    ['2', null, { kind: 'mail', text: '2' }],
    ['a ? in the middle', null, { kind: 'mail', text: 'a ? in the middle' }],
    [null, withOptions, { kind: 'eof', id: 'q3' }],
    [null, null, { kind: 'eof', id: null }],
  ];
  for (const [line, pending, want] of table) {
    assert.deepEqual(routeLine(line, { pending }), want, `${JSON.stringify(line)} with ${pending ? pending.id : 'nothing'} pending`);
  }
});

const ask = (o: Partial<Ask>): Ask => ({
  id: 'q1',
  question: 'Which format?',
  options: [],
  asked_at: '2024-01-01T00:00:00.000Z',
  state: 'asked',
  answer: null,
  optionIndex: null,
  remaining: -1,
  framework: false,
  settled_at: null,
  ...o,
});

test('renderAsk numbers the options and shows the quota only when there is one', () => {
  assert.deepEqual(renderAsk(ask({ options: ['HTML', 'PDF'] }), 'zh'), ['? Which format?', '  1. HTML', '  2. PDF']);
  assert.deepEqual(renderAsk(ask({ options: ['HTML'], remaining: 2 }), 'zh'), ['? Which format?', '  1. HTML', '  (还能问 2 次)']);
  assert.deepEqual(renderAsk(ask({ remaining: 0 }), 'zh'), ['? Which format?', '  (还能问 0 次)']);
  assert.deepEqual(renderAsk(ask({ remaining: 1 }), 'en'), ['? Which format?', '  (1 more question allowed)']);
  assert.deepEqual(renderAsk(ask({ question: 'Two\nlines?' }), 'en'), ['? Two', '  lines?']);
});

test('outcomes and mail print as one short ASCII-marked line each', () => {
  const table: Array<[Partial<Ask>, string]> = [
    [{ state: 'answered', answer: 'HTML' }, '+ HTML'],
    [{ state: 'timeout' }, '! 无人应答,agent 会自己判断并记下假设'],
    [{ state: 'over_budget' }, '! 提问额度用完,这个问题没有问出来:Which format?'],
    [{ state: 'declined' }, '. 已跳过'],
    [{ state: 'invalid' }, '! agent 发来一个空问题,已退回'],
  ];
  for (const [o, line] of table) assert.deepEqual(renderSettled(ask(o), 'zh'), [line]);
  assert.deepEqual(renderSettled(ask({ options: ['a'] }), 'zh'), renderAsk(ask({ options: ['a'] }), 'zh'));
  assert.equal(renderMail({ id: 'm2', state: 'queued' }, 'zh'), '+ 收到(m2),会转给 agent');
  assert.equal(renderMail({ id: 'm2', state: 'delivered' }, 'en'), '+ Delivered (m2)');
  for (const line of [...table.flatMap(([o]) => renderSettled(ask(o), 'en')), renderMail({ id: 'm1', state: 'queued' }, 'en')]) {
    assert.match(line, /^[+!.?] [\x20-\x7e]/, `glyph of ${line}`);
  }
});

test('the input hint follows the state; without a TTY questions end at once', () => {
  assert.match(inputHint({ options: ['a'] }, 'en'), /number picks/);
  assert.doesNotMatch(inputHint({ options: [] }, 'en'), /number/);
  assert.match(inputHint(null, 'zh'), /\?/);
  assert.equal(interactiveTimeout(false, 1800), 0);
  assert.equal(interactiveTimeout(true, 1800), 1800);
  assert.equal(interactiveTimeout(true, null), null);
});

test('options are cleaned and an answer picks one by number or exact text', () => {
  const clean: Array<[unknown, string[]]> = [
    [
      ['a', ' b ', '', 'a'],
      ['a', 'b'],
    ],
    ['["x","y"]', ['x', 'y']],
    ['one\ntwo\n', ['one', 'two']],
    ['[not json', ['[not json']],
    [
      [1, 'two', null, { x: 1 }],
      ['1', 'two'],
    ],
    [undefined, []],
  ];
  for (const [raw, want] of clean) assert.deepEqual(cleanOptions(raw), want, JSON.stringify(raw));
  const opts = ['HTML', 'PDF'];
  const picks: Array<[string, number | null]> = [
    ['1', 0],
    ['２', 1],
    ['pdf', 1],
    [' HTML ', 0],
    ['3', null],
    ['0', null],
    ['HTM', null],
    ['', null],
  ];
  for (const [typed, index] of picks) assert.equal(pickOption(opts, typed)?.index ?? null, index, JSON.stringify(typed));
  assert.equal(pickOption([], '1'), null);
});
