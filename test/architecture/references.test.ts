/**
 * Comments and docs name only files that are in the repository (issue 20: 16 comments cited a
 * measurement document kept outside it, and one a CONTRACTS.md that never existed). Every path a
 * comment or a doc names under the repository's own folders must exist.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/e2e.js';

const SCANNED = ['src', 'docs', 'bench', 'scripts', 'examples'];
const TOP = ['src', 'test', 'docs', 'bench', 'scripts', 'examples', 'bin', '.ci'];
// a path under one of the repository's folders, ending in a file name with an extension (globs and placeholders excluded)
const PATH = new RegExp(`(?<![\\w./-])(?:${TOP.map((t) => t.replace('.', '\\.')).join('|')})/[\\w./-]*\\w\\.(?:ts|mjs|js|md|json|sh|png)\\b`, 'g');

// paths of a user's project inside an example (a handoff's Outputs), not of this repository
const EXAMPLE_PATHS = new Set(['src/a.ts', 'src/render.mjs', 'test/render.test.mjs']);

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : files(p);
    return /\.(ts|mjs|js|md)$/.test(e.name) ? [p] : [];
  });
}

test('every repository path a comment or a doc names exists', () => {
  const missing: string[] = [];
  for (const top of SCANNED) {
    if (!fs.existsSync(path.join(ROOT, top))) continue;
    for (const file of files(path.join(ROOT, top))) {
      const text = fs.readFileSync(file, 'utf8');
      for (const m of text.matchAll(PATH)) {
        const named = m[0].replace(/[.]+$/, '');
        if (/[*<>]/.test(named) || EXAMPLE_PATHS.has(named)) continue;
        if (!fs.existsSync(path.join(ROOT, named))) missing.push(`${path.relative(ROOT, file)}: ${named}`);
      }
    }
  }
  assert.deepEqual(missing, []);
});

test('nothing cites the measurement notes kept outside the repository, or a contracts file that is not in it', () => {
  const cites: string[] = [];
  for (const top of SCANNED) {
    for (const file of files(path.join(ROOT, top))) {
      const text = fs.readFileSync(file, 'utf8');
      if (/(?<!docs\/|\[)sdk-facts §|(?<![\w/])sdk-facts\.md(?! ?§|\)|\])(?<!docs\/sdk-facts\.md)|CONTRACTS\.md|shared\/spec/.test(text))
        cites.push(path.relative(ROOT, file));
    }
  }
  assert.deepEqual(cites, []);
});
