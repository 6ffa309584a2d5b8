import test from 'node:test';
import assert from 'node:assert/strict';
import { emptyOutcome, type AttemptOutcome } from '../../src/runtime/attempt.js';
import { failure, fatalLine } from '../../src/runtime/failure.js';
import { DEFAULT_RESILIENCE, NO_RETRY, INTERRUPT_NOTE, RESUME_PROMPT, fatalMessage } from '../../src/runtime/index.js';
import {
  MAX_HUMAN_INTERRUPTS,
  afterAttempt,
  handedOff,
  retryFrom,
  startState,
  type Facts,
  type LoopState,
  type Next,
  type Retry,
} from '../../src/runtime/next.js';

const outcome = (o: Partial<AttemptOutcome> = {}): AttemptOutcome => ({ ...emptyOutcome(), sessionId: 'sess-1', error: 'failed', numTurns: 1, ...o });
const facts = (f: Partial<Facts> = {}): Facts => ({ session: 'sess-1', request: null, route: null, policy: DEFAULT_RESILIENCE, lang: 'en', ...f });
const fresh: LoopState = startState('the task');
const forked: LoopState = startState('the task', { resume: 'old', fork: true, resumeAt: 'uuid-7' });
const overloaded = failure('overloaded', '529 overloaded');
const auth = failure('auth', '401 invalid x-api-key');

test('the step after an attempt', () => {
  const rows: Array<[string, AttemptOutcome, LoopState, Facts, Next]> = [
    ['a success ends the step', outcome({ ok: true, error: null }), fresh, facts(), { kind: 'done' }],
    ['a success ends the step even when a handoff was due', outcome({ ok: true, error: null }), fresh, facts({ route: 'threshold' }), { kind: 'done' }],
    [
      "words that came as the step's last message did are still heard: the same session goes on with them",
      outcome({ ok: true, error: null }),
      fresh,
      facts({ request: { remark: 'use tabs' } }),
      { kind: 'listen', remark: 'use tabs', state: { ...fresh, resume: 'sess-1', prompt: `use tabs\n\n${INTERRUPT_NOTE.en}`, heard: 1 } },
    ],
    [
      'a success with words but past the interrupt bound ends the step',
      outcome({ ok: true, error: null }),
      { ...fresh, heard: MAX_HUMAN_INTERRUPTS },
      facts({ request: { remark: 'x' } }),
      { kind: 'done' },
    ],
    [
      "a person's interrupt resumes the same session with their words and the note, not counted as an attempt",
      outcome({ interrupted: 'human' }),
      forked,
      facts({ request: { remark: 'use tabs' } }),
      {
        kind: 'listen',
        remark: 'use tabs',
        state: { resume: 'sess-1', fork: false, resumeAt: undefined, prompt: `use tabs\n\n${INTERRUPT_NOTE.en}`, failed: 0, heard: 1 },
      },
    ],
    [
      'an interrupt without a remark resumes with the plain resume prompt',
      outcome({ interrupted: 'human' }),
      fresh,
      facts({ request: { remark: '' }, lang: 'zh' }),
      { kind: 'listen', remark: '', state: { ...fresh, resume: 'sess-1', prompt: RESUME_PROMPT.zh, heard: 1 } },
    ],
    [
      'an interrupt whose request is already gone still resumes with the plain resume prompt',
      outcome({ interrupted: 'human' }),
      fresh,
      facts({ request: null }),
      { kind: 'listen', remark: '', state: { ...fresh, resume: 'sess-1', prompt: RESUME_PROMPT.en, heard: 1 } },
    ],
    [
      'an interrupt before any session exists stops the step and uses up the request',
      outcome({ interrupted: 'human', sessionId: null }),
      fresh,
      facts({ session: null, request: { remark: 'x' } }),
      { kind: 'stop', why: null, took: true },
    ],
    [
      "a person's interrupt wins over a handoff that was also due",
      outcome({ interrupted: 'human' }),
      fresh,
      facts({ route: 'threshold' }),
      { kind: 'listen', remark: '', state: { ...fresh, resume: 'sess-1', prompt: RESUME_PROMPT.en, heard: 1 } },
    ],
    [
      'past the interrupt bound, a stuck interrupt is a plain failure (here: retried like any other)',
      outcome({ interrupted: 'human', failure: overloaded }),
      { ...fresh, heard: MAX_HUMAN_INTERRUPTS },
      facts(),
      { kind: 'wait-retry', failure: overloaded, state: { ...fresh, heard: MAX_HUMAN_INTERRUPTS, failed: 1 } },
    ],
    [
      'a full context hands off by threshold',
      outcome({ interrupted: 'handoff' }),
      fresh,
      facts({ route: 'threshold' }),
      { kind: 'hand-off', route: 'threshold' },
    ],
    [
      'an overflow hands off instead of retrying the same prompt',
      outcome({ failure: failure('context-full', 'prompt is too long') }),
      fresh,
      facts({ route: 'overflow' }),
      { kind: 'hand-off', route: 'overflow' },
    ],
    [
      'a handoff does not count as a failed attempt',
      outcome({ interrupted: 'handoff' }),
      { ...fresh, failed: 2 },
      facts({ route: 'threshold' }),
      { kind: 'hand-off', route: 'threshold' },
    ],
    [
      'a retryable failure waits and tries again, counting the attempt',
      outcome({ failure: overloaded }),
      fresh,
      facts(),
      { kind: 'wait-retry', failure: overloaded, state: { ...fresh, failed: 1 } },
    ],
    ['a fatal failure stops at once with a line saying what to fix', outcome({ failure: auth }), fresh, facts(), { kind: 'stop', why: fatalLine(auth) }],
    [
      "with the retry policy off a retryable failure stops, keeping the attempt's own error",
      outcome({ failure: overloaded }),
      fresh,
      facts({ policy: NO_RETRY }),
      { kind: 'stop', why: null },
    ],
    [
      'after the last allowed attempt the step gives up and says how many it made',
      outcome({ failure: overloaded, error: '529 overloaded' }),
      { ...fresh, failed: DEFAULT_RESILIENCE.maxAttempts - 1 },
      facts(),
      { kind: 'stop', why: `529 overloaded | gave up after ${DEFAULT_RESILIENCE.maxAttempts} attempts` },
    ],
    [
      'an untyped failure is read from its text: a 401 is fatal',
      outcome({ error: 'API Error: 401 {"type":"authentication_error"}' }),
      fresh,
      facts(),
      { kind: 'stop', why: fatalMessage('API Error: 401 {"type":"authentication_error"}') },
    ],
  ];
  for (const [behaviour, o, s, f, want] of rows) assert.deepEqual(afterAttempt(o, s, f), want, behaviour);
});

test('how the next attempt starts after the wait', () => {
  const waited: LoopState = { ...fresh, failed: 1, prompt: 'the task' };
  const rows: Array<[string, LoopState, Parameters<typeof retryFrom>[1], Retry]> = [
    [
      'a session in the store goes on, told only that it was interrupted',
      waited,
      { session: 'sess-1', stored: true, task: 'the task', lang: 'en' },
      { kind: 'resume', state: { ...waited, resume: 'sess-1', prompt: RESUME_PROMPT.en } },
    ],
    [
      'a fork that reached the store resumes the fork itself, not its source again',
      { ...forked, failed: 1 },
      { session: 'new', stored: true, task: 'the task', lang: 'en' },
      { kind: 'resume', state: { ...forked, failed: 1, resume: 'new', fork: false, resumeAt: undefined, prompt: RESUME_PROMPT.en } },
    ],
    [
      'a new session that never reached the store is not resumed: the task goes to a new session',
      { ...waited, prompt: 'a handoff' },
      { session: 'sess-1', stored: false, task: 'the task', lang: 'en' },
      { kind: 'fresh', state: { ...waited, prompt: 'the task' } },
    ],
    [
      'no session id at all: the task again to a new session',
      waited,
      { session: null, stored: false, task: 'the task', lang: 'en' },
      { kind: 'fresh', state: waited },
    ],
    [
      "the caller's resume whose own session never got stored is tried again as it was",
      { ...forked, failed: 1 },
      { session: 'new', stored: false, task: 'the task', lang: 'en' },
      { kind: 'again', state: { ...forked, failed: 1 } },
    ],
  ];
  for (const [behaviour, s, f, want] of rows) assert.deepEqual(retryFrom(s, f), want, behaviour);
});

test('a handoff starts a brand-new session whose first prompt is the handoff, keeping the counts', () => {
  const s: LoopState = { ...forked, failed: 2, heard: 3 };
  assert.deepEqual(handedOff(s, '# handoff'), { resume: undefined, fork: false, resumeAt: undefined, prompt: '# handoff', failed: 2, heard: 3 });
});

test("the loop starts from the caller's resume, fork and cut, with nothing counted", () => {
  assert.deepEqual(startState('t'), { resume: undefined, fork: false, resumeAt: undefined, prompt: 't', failed: 0, heard: 0 });
  assert.deepEqual(forked, { resume: 'old', fork: true, resumeAt: 'uuid-7', prompt: 'the task', failed: 0, heard: 0 });
});
