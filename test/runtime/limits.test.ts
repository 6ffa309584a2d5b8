/**
 * A run's limits, decided without a clock or a model: what `--budget` and `--deadline` accept, what an
 * attempt is handed, and when the next attempt may not start.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../../src/errors.js';
import { RunLimits, parseBudget, parseDeadline } from '../../src/runtime/limits.js';

const NOW = new Date(2026, 11, 2, 6, 0, 0).getTime(); // 06:00 local time

test('--budget takes dollars greater than zero', () => {
  const rows: Array<[string, number | null]> = [
    ['5', 5],
    ['2.50', 2.5],
    ['$3', 3],
    [' 0.25 ', 0.25],
    ['0', null],
    ['-1', null],
    ['five', null],
    ['1e3', null],
    ['', null],
    ['Infinity', null],
  ];
  for (const [text, want] of rows) {
    if (want === null)
      assert.throws(
        () => parseBudget(text),
        (e: unknown) => e instanceof ConfigError && e.code === 'bad-budget' && /--budget/.test(e.message),
        text,
      );
    else assert.equal(parseBudget(text), want, text);
  }
});

test('--deadline takes a duration, a clock time (today, or tomorrow once passed) or a date-time', () => {
  const H = 3_600_000;
  const rows: Array<[string, number | null]> = [
    ['6h', NOW + 6 * H],
    ['90s', NOW + 90_000],
    ['45m', NOW + 45 * 60_000],
    ['1h30m', NOW + 1.5 * H],
    ['2d', NOW + 48 * H],
    ['07:30', NOW + 1.5 * H],
    ['05:00', NOW + 23 * H],
    ['06:00:30', NOW + 30_000],
    ['2026-12-02T07:30', new Date(2026, 11, 2, 7, 30).getTime()],
    ['0h', null],
    ['25:00', null],
    ['7:60', null],
    ['soon', null],
    ['6', null],
    ['', null],
  ];
  for (const [text, want] of rows) {
    if (want === null)
      assert.throws(
        () => parseDeadline(text, NOW),
        (e: unknown) => e instanceof ConfigError && e.code === 'bad-deadline',
        text,
      );
    else assert.equal(parseDeadline(text, NOW), want, text);
  }
});

test('an attempt is handed what is left of the run, or the step’s own cap when that is lower', () => {
  const rows: Array<[string, { budget?: number; spent: number; spec?: number }, { cap: number | undefined; binding: boolean }]> = [
    ['no run budget: the spec decides', { spent: 3, spec: 2 }, { cap: 2, binding: false }],
    ['no limit at all', { spent: 3 }, { cap: undefined, binding: false }],
    ['the run budget left', { budget: 5, spent: 1.5 }, { cap: 3.5, binding: true }],
    ['a lower step cap wins and is not the run’s', { budget: 5, spent: 1, spec: 2 }, { cap: 2, binding: false }],
    ['a higher step cap loses to the run', { budget: 5, spent: 4, spec: 2 }, { cap: 1, binding: true }],
    ['spent past the cap: nothing left', { budget: 1, spent: 1.2 }, { cap: 0, binding: true }],
  ];
  for (const [why, i, want] of rows) {
    const l = new RunLimits(i.budget === undefined ? {} : { budgetUsd: i.budget }, () => NOW);
    l.add(i.spent);
    assert.deepEqual(l.attemptCap(i.spec), want, why);
  }
});

test('the next attempt is blocked once the budget is spent or the deadline passed, with how to go on', () => {
  let now = NOW;
  const l = new RunLimits({ budgetUsd: 1, deadlineAt: NOW + 60_000 }, () => now);
  assert.equal(l.blocked(), null);
  l.add(0.6);
  l.add(Number.NaN);
  l.add(-5);
  assert.equal(l.spent, 0.6, 'only real costs count');
  assert.equal(l.blocked(), null);
  l.add(0.45);
  const b = l.blocked();
  assert.equal(b?.kind, 'budget');
  assert.equal(b?.retryable, false);
  assert.match(b!.message, /\$1\.05 of \$1\.00/);
  assert.match(b!.message, /flower --budget \d+/);
  const d = new RunLimits({ deadlineAt: NOW + 60_000 }, () => now);
  assert.equal(d.msLeft(), 60_000);
  now += 60_000;
  assert.equal(d.blocked()?.kind, 'deadline');
  assert.equal(d.msLeft(), 0);
  assert.equal(new RunLimits().none, true);
  assert.equal(new RunLimits().blocked(), null);
});
