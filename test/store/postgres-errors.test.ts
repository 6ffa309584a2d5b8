/**
 * asPgStoreError decides, from the driver's `code` (never its message text), which PgStoreError a
 * driver failure is — or that it is none of them and passes through. Pure: no server needed.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PgStoreError, asPgStoreError, type PgFailure } from '../../src/store/postgres/index.js';
import { StoreError } from '../../src/errors.js';

const target = { host: 'db.example', port: 5433, database: 'flower', user: 'ann' };
const driverError = (code: string, message = 'driver says no') => Object.assign(new Error(message), { code });

const CASES: Array<[string, unknown, PgFailure]> = [
  ['a refused connection is an unreachable server', driverError('ECONNREFUSED'), 'unreachable'],
  ['a SQLSTATE of class 08 is an unreachable server', driverError('08006'), 'unreachable'],
  ['a wrong password is auth', driverError('28P01'), 'auth'],
  ['a role with no access is auth', driverError('28000'), 'auth'],
  ['a missing database is no-database', driverError('3D000'), 'no-database'],
  ['insufficient privilege is permission', driverError('42501'), 'permission'],
];

for (const [behaviour, e, reason] of CASES) {
  test(`asPgStoreError: ${behaviour}`, () => {
    const got = asPgStoreError(e, target);
    assert.ok(got instanceof PgStoreError && StoreError.is(got));
    assert.equal(got.reason, reason);
    assert.equal(got.code, `pg-${reason}`);
    assert.equal(got.cause, e);
    assert.ok(got.message.includes('db.example:5433'), got.message);
  });
}

test('asPgStoreError passes an unknown driver error through untouched, and a PgStoreError as it is', () => {
  const other = driverError('23505', 'duplicate key');
  assert.equal(asPgStoreError(other, target), other);
  const already = new PgStoreError('auth', 'refused', target);
  assert.equal(asPgStoreError(already, target), already);
});
