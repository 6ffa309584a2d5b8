/**
 * The notification payload, version 1: each builder's output for fixed inputs is the frozen fixture
 * of its kind (test/fixtures/notify/v1/), every fixture passes the schema, and the fields the
 * acceptance scripts rely on are there. A change to a shape fails here first: bump the version.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  NOTIFICATION_KINDS,
  continueLine,
  finished,
  notificationSchema,
  question,
  stopReason,
  stopped,
  verdict,
  type Notification,
  type RunPlace,
} from '../../src/notify/index.js';

const FIX = path.resolve('test/fixtures/notify/v1');
const place: RunPlace = {
  run: '20250301-0412-7f3a',
  step: '干活#round2',
  folder: '/home/someone/proj',
  host: 'nightbox',
  cost_usd: 1.2345678,
  at: '2025-03-01T04:12:09.000Z',
};

const built: Record<string, Notification> = {
  question: question(place, {
    id: 'q3',
    question: 'The judge says the goal is UNREACHABLE: needs screen-recording permission\nWhat now?',
    options: ['Accept this result and move on', 'Change the goal', 'The judge is wrong, keep working'],
    timeoutS: 1800,
  }),
  verdict: verdict({ ...place, step: '干活·判定#2' }, { outcome: 'unreachable', passed: 3, total: 5, reason: 'needs screen-recording permission' }),
  stopped: stopped(place, { failure: 'budget', message: 'spent $5.02 of $5.00', continueCmd: 'flower' }),
  finished: finished(place, { ok: true, verdict: 'achieved', passed: 5, total: 5, durationS: 8123.456 }),
};

for (const kind of NOTIFICATION_KINDS) {
  test(`the ${kind} builder gives the frozen version 1 fixture, which the schema accepts`, () => {
    const file = path.join(FIX, `${kind}.json`);
    const frozen = JSON.parse(fs.readFileSync(file, 'utf8')) as Notification;
    assert.deepEqual(built[kind], frozen);
    assert.equal(notificationSchema.parse(frozen).kind, kind);
    // the fixed points every receiver relies on
    for (const k of ['version', 'kind', 'run', 'step', 'folder', 'host', 'cost_usd', 'text']) assert.ok(k in frozen, `${kind} has ${k}`);
    assert.equal(frozen.version, 1);
  });
}

test('a question says how long it waits and gives one answer line per option; free text gets a template', () => {
  const q = built.question as Extract<Notification, { kind: 'question' }>;
  assert.deepEqual(q.answers, ['flower answer 1', 'flower answer 2', 'flower answer 3']);
  assert.equal(q.answer, 'flower answer 1');
  assert.equal(q.timeout_s, 1800);
  assert.equal(q.text, 'flower asks: The judge says the goal is UNREACHABLE: needs screen-recording permission');
  const free = question(place, { id: 'q1', question: 'Which port?', options: [], timeoutS: null });
  assert.equal(free.answer, 'flower answer "<your answer>"');
  assert.deepEqual(free.answers, []);
  assert.equal(free.timeout_s, null);
});

test('the cost is rounded to a millionth of a dollar and the duration to a tenth of a second', () => {
  assert.equal(built.finished!.cost_usd, 1.234568);
  assert.equal((built.finished as Extract<Notification, { kind: 'finished' }>).duration_s, 8123.5);
});

const REASONS: Array<[string | null, boolean, string, string]> = [
  ['budget', false, 'budget', 'flower --budget <more USD>'],
  ['deadline', false, 'deadline', 'flower --deadline <later>'],
  ['auth', false, 'auth', 'flower setup && flower'],
  ['config', false, 'config', 'flower'],
  ['network', false, 'failed', 'flower'],
  ['rejected', true, 'unanswered', 'flower'],
  [null, false, 'failed', 'flower'],
];
for (const [kind, unanswered, reason, cont] of REASONS) {
  test(`a stop on failure ${kind ?? '(none)'}${unanswered ? ' after an unanswered question' : ''} is reason ${reason}, continued by \`${cont}\``, () => {
    assert.equal(stopReason(kind, { unanswered }), reason);
    assert.equal(continueLine(stopReason(kind, { unanswered }), 'flower'), cont);
    const s = stopped(place, { failure: kind, message: 'x', continueCmd: 'flower', unanswered });
    assert.equal(s.reason, reason);
    assert.equal(s.failure, kind);
  });
}

test('the text is in the terminal language', () => {
  assert.equal(finished({ ...place, lang: 'zh' }, { ok: false, verdict: null, passed: null, total: null, durationS: 1 }).text, 'flower 结束了(有一步失败)');
  assert.equal(verdict(place, { outcome: 'unreachable', passed: 0, total: 0, reason: '' }).text, 'flower: the judge says unreachable');
});

const BAD: Array<[string, unknown]> = [
  ['a future version', { ...built.finished, version: 2 }],
  ['no version', (({ version: _v, ...rest }) => rest)(built.finished as Record<string, unknown>)],
  ['an unknown kind', { ...built.finished, kind: 'party' }],
  ['a stop reason nobody documented', { ...built.stopped, reason: 'bored' }],
  ['a question without its options', (({ options: _o, ...rest }) => rest)(built.question as Record<string, unknown>)],
];
for (const [what, value] of BAD) {
  test(`the schema refuses ${what}`, () => assert.equal(notificationSchema.safeParse(value).success, false));
}
