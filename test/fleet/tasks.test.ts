import assert from 'node:assert/strict';
import { test } from 'node:test';
import { failureText, fleetTiming, parseTaskLines, takeoverBound, taskState, type StateInputs } from '../../src/fleet/index.js';

test('taskState: the engine state, the outcome and the lock give the state status shows', () => {
  const base: StateInputs = { job: 'created', output: null, locked: false, waiting: false };
  const rows: Array<[Partial<StateInputs>, string, string | null]> = [
    [{}, 'queued', null],
    [{ job: 'retry', output: { message: 'handed back: stopped' } }, 'queued', 'handed back: stopped'],
    [{ job: 'active', locked: true }, 'running', null],
    [{ job: 'active', locked: true, waiting: true }, 'waiting', null],
    [{ job: 'completed', output: { outcome: 'achieved', passed: 3, total: 3 } }, 'achieved', '3/3'],
    [{ job: 'completed', output: { outcome: 'stopped', reason: 'budget' } }, 'stopped', 'budget'],
    [{ job: 'cancelled' }, 'stopped', 'cancelled'],
    [{ job: 'failed', output: { message: 'cannot clone /x: repository does not exist\nstack' } }, 'failed', 'cannot clone /x: repository does not exist'],
    [
      { job: 'retry', output: { value: { message: 'job failed by timeout in active state' } } },
      'queued',
      'the worker running it stopped answering (lease expired)',
    ],
  ];
  for (const [given, state, reason] of rows) assert.deepEqual(taskState({ ...base, ...given }), { state, reason }, JSON.stringify(given));
});

test('parseTaskLines: JSON lines and plain requests, defaults from the command line, errors name the line', () => {
  const t = parseTaskLines('# tasks\n\nfix it\n{"request":"b","repo":"r2","budget":2}\n', { repo: 'r1' });
  assert.deepEqual(t, [
    { repo: 'r1', request: 'fix it' },
    { repo: 'r2', request: 'b', budget: 2 },
  ]);
  assert.throws(() => parseTaskLines('{"request":"a","repos":"x"}', {}, 'f.jsonl'), /f\.jsonl line 1/);
  assert.throws(() => parseTaskLines('{bad', {}, 'f.jsonl'), /f\.jsonl line 1 is not JSON/);
});

test('fleetTiming: defaults take over within two minutes; flags over the environment; a heartbeat must be shorter than the lease', () => {
  const d = fleetTiming({});
  assert.ok(takeoverBound(d) <= 120, String(takeoverBound(d)));
  assert.equal(fleetTiming({ FLOWER_FLEET_LEASE: '10' }).leaseS, 10);
  assert.equal(fleetTiming({ FLOWER_FLEET_LEASE: '10' }, { leaseS: 4 }).leaseS, 4);
  assert.throws(() => fleetTiming({ FLOWER_FLEET_LEASE: 'x' }), /FLOWER_FLEET_LEASE/);
  assert.throws(() => fleetTiming({}, { leaseS: 3, heartbeatS: 3 }), /shorter than the lease/);
  assert.equal(failureText('nope'), null);
});
