/**
 * The style's sizes, kept: no module in src/ over 400 lines and no function over 80 (a function whose
 * body is one data literal, a table, is exempt). The measure is scripts/sizes.mjs (the TypeScript
 * parser, so a function is a function however it is written); `node scripts/sizes.mjs` lists what is over.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
// @ts-expect-error a plain .mjs script, untyped
import { FUNCTION_MAX, functionsOf, MODULE_MAX, report } from '../../scripts/sizes.mjs';

interface Fn {
  file: string;
  name: string;
  line: number;
  lines: number;
  table: boolean;
}

test('no module in src/ is over the limit', () => {
  const { modules } = report() as { modules: Array<{ file: string; lines: number }> };
  assert.deepEqual(
    modules.map((m) => `${m.file} (${m.lines} lines)`),
    [],
    `modules over ${MODULE_MAX} lines: split them by mechanism`,
  );
});

test('no function in src/ is over the limit, tables aside', () => {
  const { functions } = report() as { functions: Fn[] };
  const over = functions.filter((f) => !f.table).map((f) => `${f.file}:${f.line} ${f.name} (${f.lines} lines)`);
  assert.deepEqual(over, [], `functions over ${FUNCTION_MAX} lines: name their decisions`);
});

test('the measure counts what it should', () => {
  const long = (n: number) => Array.from({ length: n }, (_, i) => `  x += ${i};`).join('\n');
  const text = [
    `export function big() {\n  let x = 0;\n${long(85)}\n  return x;\n}`,
    `const arrow = (a: number) => {\n${long(3)}\n};`,
    `class C {\n  method() {\n${long(90)}\n  }\n}`,
    `function table() {\n  return {\n${Array.from({ length: 90 }, (_, i) => `    k${i}: ${i},`).join('\n')}\n  };\n}`,
  ].join('\n');
  const { functions } = functionsOf('x.ts', text) as { functions: Fn[] };
  const byName = Object.fromEntries(functions.map((f) => [f.name, f]));
  assert.equal(byName.big?.lines, 89);
  assert.equal(byName.arrow?.lines, 5);
  assert.equal(byName.method?.lines, 92);
  assert.equal(byName.table?.table, true);
  assert.equal(byName.big?.table, false);
});
