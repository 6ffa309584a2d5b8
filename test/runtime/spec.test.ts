/** A bad AgentSpec is the caller's configuration: a ConfigError 'bad-spec' that names the field and the value. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError } from '../../src/errors.js';
import { AgentSpec, type AgentSpecOptions } from '../../src/runtime/index.js';

const BAD: Array<[string, AgentSpecOptions, string, RegExp]> = [
  ['a spec needs a name', { name: ' ' }, 'name', /non-empty `name`, e\.g\./],
  ['permissionMode is one of the known modes', { name: 'w', permissionMode: 'yolo' as 'default' }, 'permissionMode', /'yolo' is not one of default/],
  ['maxTurns is a positive number', { name: 'w', maxTurns: 0 }, 'maxTurns', /maxTurns must be a positive number, got 0/],
  ['maxBudgetUsd is a positive number', { name: 'w', maxBudgetUsd: Number.NaN }, 'maxBudgetUsd', /maxBudgetUsd must be a positive number, got NaN/],
  ['skills is all or a list of names', { name: 'w', skills: [1] as unknown as string[] }, 'skills', /skills must be 'all' or a list/],
  ['floor is read-only or workspace', { name: 'w', floor: 'root' as 'workspace' }, 'floor', /floor must be 'read-only' or 'workspace', got root/],
];

for (const [behaviour, options, field, says] of BAD) {
  test(`${behaviour}: a ConfigError naming ${field}`, () => {
    assert.throws(
      () => new AgentSpec(options),
      (e: unknown) => {
        assert.ok(ConfigError.is(e), `a ConfigError, got ${String(e)}`);
        assert.equal(e.code, 'bad-spec');
        assert.equal(e.field, field);
        assert.match(e.message, says);
        return true;
      },
    );
  });
}
