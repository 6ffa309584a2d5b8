import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judgeEphemeral, isEphemeral } from '../../src/guards/index.js';
import { HOSTILE, EVERYDAY, EVERYDAY_REFUSED, HOSTILE_REWRITTEN } from './ephemeral-shell.fixtures.js';

/** The rewritten command of an allowed verdict is itself a glance that needs no further rewrite. */
function assertFixedPoint(command: string, rewritten: string): void {
  const again = judgeEphemeral(rewritten);
  assert.equal(again.ok, true, `${command} → ${rewritten} is refused: ${again.ok ? '' : again.reason}`);
  if (again.ok) assert.ok(again.command === undefined || again.command === rewritten, `${rewritten} is rewritten again: ${again.command}`);
}

test('the glance tables hold at least 400 cases across both directions', () => {
  assert.ok(HOSTILE.length + EVERYDAY.length >= 400, String(HOSTILE.length + EVERYDAY.length));
});

test('no command is in two lists that expect different verdicts', () => {
  const refused = new Set([...HOSTILE, ...EVERYDAY_REFUSED]);
  assert.deepEqual(
    [...EVERYDAY, ...HOSTILE_REWRITTEN].filter((c) => refused.has(c)),
    [],
  );
});

for (const command of HOSTILE) {
  test(`a hostile command is refused with a reason: ${JSON.stringify(command)}`, () => {
    const v = judgeEphemeral(command);
    assert.equal(v.ok, false, `accepted: ${command}${v.ok && v.command ? ` as ${v.command}` : ''}`);
    assert.equal(isEphemeral(command), false);
    if (!v.ok) assert.ok(v.reason.length > 10, v.reason);
  });
}

for (const command of HOSTILE_REWRITTEN) {
  test(`a recursive search that could read .env runs only rewritten to exclude them: ${JSON.stringify(command)}`, () => {
    const v = judgeEphemeral(command);
    assert.equal(v.ok, true, v.ok ? '' : v.reason);
    if (!v.ok) return;
    assert.ok(v.command !== undefined && v.command !== command, `not rewritten: ${command}`);
    assert.match(v.command!, /'--exclude=\.env\*' '--exclude=\*\.env'|-g '!\.env\*' -g '!\*\.env'/);
    assertFixedPoint(command, v.command!);
  });
}

for (const command of EVERYDAY) {
  test(`an everyday read-only command is a glance: ${JSON.stringify(command)}`, () => {
    const v = judgeEphemeral(command);
    assert.equal(v.ok, true, v.ok ? '' : `${command}: ${v.reason}`);
    if (v.ok && v.command !== undefined) assertFixedPoint(command, v.command);
  });
}

for (const command of EVERYDAY_REFUSED) {
  test(`an everyday command refused on purpose says a worker can run it: ${JSON.stringify(command)}`, () => {
    const v = judgeEphemeral(command);
    assert.equal(v.ok, false);
    if (!v.ok) assert.match(v.reason, /a worker can run it|dispatch a worker/);
  });
}

test('at least 95% of everyday commands are glances', () => {
  const all = [...EVERYDAY, ...EVERYDAY_REFUSED];
  const allowed = all.filter((c) => judgeEphemeral(c).ok).length;
  const share = allowed / all.length;
  assert.ok(share >= 0.95, `${allowed}/${all.length} = ${(share * 100).toFixed(1)}%`);
});
