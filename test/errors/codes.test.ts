/**
 * Error codes are an interface: one spelling for all of them, kebab-case (`store-read-only`,
 * `sim-scenario-invalid`). The test reads every `new <FlowerError class>('<code>', …)` in src/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/e2e.js';

const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
// FlowerError and every subclass whose first argument is the code
const THROWN = /new (FlowerError|ConfigError|StateCorrupt|StoreError|InternalError|SqliteStoreError|SimError)\(\s*'([^']*)'/g;
// the sim's codes are also a type: every literal of the SimErrorCode union
const SIM_CODES = /\|\s*'([^']*)'/g;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

test('every error code thrown in src/ is kebab-case', () => {
  const found: string[] = [];
  const bad: string[] = [];
  for (const file of sources(path.join(ROOT, 'src'))) {
    for (const m of fs.readFileSync(file, 'utf8').matchAll(THROWN)) {
      found.push(m[2]!);
      if (!KEBAB.test(m[2]!)) bad.push(`${path.relative(ROOT, file)}: ${m[1]} '${m[2]}'`);
    }
  }
  assert.ok(found.length > 40, `the scan finds the codes (${found.length})`);
  assert.deepEqual(bad, []);
});

test("the sim's code union is kebab-case", () => {
  const text = fs.readFileSync(path.join(ROOT, 'src/sim/errors.ts'), 'utf8');
  const codes = [...text.matchAll(SIM_CODES)].map((m) => m[1]!);
  assert.ok(codes.length >= 7);
  for (const c of codes) assert.match(c, KEBAB);
});
