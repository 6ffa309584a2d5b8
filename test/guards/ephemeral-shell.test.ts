import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeEphemeral, isEphemeral } from '../../src/guards/index.js';
import { HOSTILE, EVERYDAY, EVERYDAY_REFUSED } from './ephemeral-shell.fixtures.js';

test('the glance tables hold at least 400 cases across both directions', () => {
  assert.ok(HOSTILE.length + EVERYDAY.length >= 400, String(HOSTILE.length + EVERYDAY.length));
});

for (const command of HOSTILE) {
  test(`a hostile command is refused with a reason: ${JSON.stringify(command)}`, () => {
    const v = judgeEphemeral(command);
    assert.equal(v.ok, false, `accepted: ${command}`);
    assert.equal(isEphemeral(command), false);
    if (!v.ok) assert.ok(v.reason.length > 10, v.reason);
  });
}

for (const command of EVERYDAY) {
  test(`an everyday read-only command is a glance: ${JSON.stringify(command)}`, () => {
    assert.deepEqual(judgeEphemeral(command), { ok: true }, command);
  });
}

for (const command of EVERYDAY_REFUSED) {
  test(`a recursive read of the workspace root is refused with the way around it: ${JSON.stringify(command)}`, () => {
    const v = judgeEphemeral(command);
    assert.equal(v.ok, false);
    if (!v.ok) assert.match(v.reason, /name a subfolder .*--exclude='\.env\*'/);
  });
}
