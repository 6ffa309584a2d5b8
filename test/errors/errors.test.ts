/** FlowerError and its subclasses: stable codes, causes, context — and a type test of their own each. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, FlowerError, InternalError, StateCorrupt, StoreError } from '../../src/errors.js';
import { StoreOpenError } from '../../src/store/sqlite.js';

const CLASSES = [ConfigError, StateCorrupt, StoreError, InternalError] as const;

for (const A of CLASSES) {
  for (const B of CLASSES) {
    test(`${B.name}.is(new ${A.name}) is ${A === B}`, () => {
      const e = new A('some-code', 'msg');
      assert.equal(B.is(e), A === B);
      assert.equal(FlowerError.is(e), true);
    });
  }
}

test('ConfigError.is(new StateCorrupt(…)) is false (the seed inherited the test)', () => {
  assert.equal(ConfigError.is(new StateCorrupt('x', 'y')), false);
});

test("a subclass of a subclass passes its own test and its ancestors', not its siblings'", () => {
  const e = new StoreOpenError('/tmp/x.db', 'cannot-open', 'cannot open', { cause: new Error('boom') });
  assert.equal(StateCorrupt.is(e), true);
  assert.equal(StoreOpenError.is(e), true);
  assert.equal(FlowerError.is(e), true);
  assert.equal(ConfigError.is(e), false);
  assert.equal(StoreOpenError.is(new StateCorrupt('a', 'b')), false, 'a parent is not its child');
});

test('non-errors and look-alikes fail every test', () => {
  for (const v of [null, undefined, 0, 'ConfigError', {}, new Error('x'), { code: 'x', name: 'ConfigError' }]) {
    assert.equal(FlowerError.is(v), false);
    assert.equal(ConfigError.is(v), false);
  }
});

test('the type test works across two installed copies: the marks are registry symbols', () => {
  const e = new ConfigError('c', 'm');
  const copy = Object.create(null) as Record<symbol, unknown>;
  for (const s of Object.getOwnPropertySymbols(e)) copy[s] = (e as unknown as Record<symbol, unknown>)[s];
  assert.equal(ConfigError.is(copy), true);
  assert.equal(StateCorrupt.is(copy), false);
  assert.equal(copy[Symbol.for('flower.error')], true, "the seed's mark stays for older copies");
});

test('code, message, cause, step, session and path are kept; the name is the class', () => {
  const cause = new Error('root');
  const e = new StoreError('store-readonly', 'sessions.db is read-only', { cause, step: '干活', sessionId: 's1', path: '/x/sessions.db' });
  assert.equal(e.code, 'store-readonly');
  assert.equal(e.message, 'sessions.db is read-only');
  assert.equal(e.cause, cause);
  assert.equal(e.step, '干活');
  assert.equal(e.sessionId, 's1');
  assert.equal(e.path, '/x/sessions.db');
  assert.equal(e.name, 'StoreError');
  assert.ok(e instanceof FlowerError && e instanceof Error);
  const k = new StateCorrupt('c', 'm', { keptAt: '/a' });
  assert.equal(k.keptAt, '/a');
});
