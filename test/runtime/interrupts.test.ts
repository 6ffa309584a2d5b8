/** Which step a person's interrupt belongs to (src/runtime/interrupts.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Interrupts } from '../../src/runtime/interrupts.js';

test('an interrupt asked for during a step belongs to that step, and only to it', () => {
  const i = new Interrupts();
  const work = i.begin();
  i.ask('  rename it ');
  assert.deepEqual(i.now, { remark: 'rename it', step: work });
  assert.deepEqual(i.for(work)?.remark, 'rename it');
  i.end();
  assert.equal(i.now, null, 'between steps nobody is asked');
  const judge = i.begin();
  assert.equal(i.for(judge), null, 'the next step is never cut by words meant for the one before');
  assert.equal(i.pending, false, 'and the words are dropped when it begins');
});

test('an interrupt asked for between steps belongs to the next step; taking it clears it', () => {
  const i = new Interrupts();
  i.end();
  i.ask('use tabs');
  const next = i.begin();
  assert.equal(i.now?.remark, 'use tabs');
  i.take();
  assert.equal(i.pending, false);
  assert.equal(i.for(next), null);
});
