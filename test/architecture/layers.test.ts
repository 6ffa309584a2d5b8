/**
 * Dependencies run one way: every import in src/ points down the layer table, and no two folders
 * import each other, even through others. The table is LAYERS below; docs/architecture.md draws it
 * and says why each folder stands where it does (a test here keeps the two the same).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/e2e.js';

/**
 * Top to bottom. A folder of src/ (a file at the top of src/ by its name without `.ts`) may import its
 * own layer's folders and every layer below, never one above.
 */
const LAYERS: ReadonlyArray<{ layer: string; folders: readonly string[] }> = [
  { layer: 'cli', folders: ['cli', 'ui'] },
  { layer: 'fleet', folders: ['fleet'] },
  { layer: 'library', folders: ['index'] },
  { layer: 'workflow', folders: ['workflow'] },
  { layer: 'roles', folders: ['roles', 'human'] },
  { layer: 'runtime', folders: ['runtime'] },
  { layer: 'guards', folders: ['guards', 'docs'] },
  { layer: 'store', folders: ['store'] },
  { layer: 'helpers', folders: ['config', 'skills', 'glance', 'sim', 'notify'] },
  { layer: 'errors', folders: ['errors'] },
  { layer: 'state', folders: ['state'] },
];

interface Import {
  file: string;
  spec: string;
  from: string;
  to: string;
}

const SRC = path.join(ROOT, 'src');

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? sources(p) : e.name.endsWith('.ts') ? [p] : [];
  });
}

/** The folder of src/ a path is in: `src/store/views/expire.ts` → store, `src/index.ts` → index. */
function folderOf(file: string): string {
  const [first, ...rest] = path.relative(SRC, file).split(path.sep);
  return rest.length > 0 ? first! : first!.replace(/\.(ts|js)$/, '');
}

/** Every relative import of src/: `from '…'` (import and export), `import('…')` and a bare `import '…'`. */
function imports(): Import[] {
  const out: Import[] = [];
  for (const file of sources(SRC)) {
    for (const m of fs.readFileSync(file, 'utf8').matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)['"](\.{1,2}\/[^'"]+)['"]/g)) {
      const target = path.resolve(path.dirname(file), m[1]!);
      if (path.relative(SRC, target).startsWith('..')) continue;
      out.push({ file: path.relative(ROOT, file), spec: m[1]!, from: folderOf(file), to: folderOf(target) });
    }
  }
  return out;
}

const rank = new Map(LAYERS.flatMap(({ folders }, i) => folders.map((f) => [f, i] as const)));

/** An import up the table, in words; none when it points down or stays in its layer. */
function upward(i: Import, ranks: ReadonlyMap<string, number> = rank): string | null {
  const a = ranks.get(i.from),
    b = ranks.get(i.to);
  if (a === undefined || b === undefined || b >= a) return null;
  return `${i.file} imports '${i.spec}': ${i.from} (layer ${LAYERS[a]?.layer ?? a}) → ${i.to} (layer ${LAYERS[b]?.layer ?? b}) points up`;
}

/** Folder cycles (Tarjan's strongly connected components), each with the imports that close it. */
function folderCycles(all: readonly Import[]): string[][] {
  const next = new Map<string, Set<string>>();
  for (const i of all) if (i.from !== i.to) (next.get(i.from) ?? next.set(i.from, new Set()).get(i.from)!).add(i.to);
  const index = new Map<string, number>(),
    low = new Map<string, number>(),
    stack: string[] = [],
    on = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    on.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    for (let w = ''; w !== v; ) {
      w = stack.pop()!;
      on.delete(w);
      scc.push(w);
    }
    if (scc.length > 1) found.push(scc.sort());
  };
  for (const v of next.keys()) if (!index.has(v)) visit(v);
  return found.map((scc) => [
    `folders ${scc.join(', ')} import one another:`,
    ...all.filter((i) => i.from !== i.to && scc.includes(i.from) && scc.includes(i.to)).map((i) => `  ${i.file} imports '${i.spec}' (${i.from} → ${i.to})`),
  ]);
}

const all = imports();

test('every folder of src/ stands in the layer table, and the table names no folder that is gone', () => {
  const folders = new Set(sources(SRC).map(folderOf));
  const missing = [...folders].filter((f) => !rank.has(f));
  assert.deepEqual(missing, [], `add ${missing.join(', ')} to LAYERS in test/architecture/layers.test.ts and to docs/architecture.md`);
  const gone = [...rank.keys()].filter((f) => !folders.has(f));
  assert.deepEqual(gone, [], `LAYERS names ${gone.join(', ')}, which src/ no longer has`);
});

test('no import points up the layer table', () => {
  assert.ok(all.length > 100, 'the imports of src/ were read');
  const up = all.map((i) => upward(i)).filter((s) => s !== null);
  assert.deepEqual(up, [], `imports that point up (move the shared thing down, or the importer up):\n${up.join('\n')}`);
});

test('no two folders of src/ import each other, even through others', () => {
  const cycles = folderCycles(all);
  assert.deepEqual(cycles, [], `folder cycles:\n${cycles.flat().join('\n')}`);
});

test('the check names the file and the import of an upward arrow and of a cycle', () => {
  const up: Import = { file: 'src/store/views/expire.ts', spec: '../../guards/ephemeral.js', from: 'store', to: 'guards' };
  const down: Import = { file: 'src/guards/hooks.ts', spec: '../config/lang.js', from: 'guards', to: 'config' };
  assert.equal(upward(up), "src/store/views/expire.ts imports '../../guards/ephemeral.js': store (layer store) → guards (layer guards) points up");
  assert.equal(upward(down), null);
  const back: Import = { file: 'src/guards/hooks.ts', spec: '../store/index.js', from: 'guards', to: 'store' };
  assert.deepEqual(folderCycles([up, down, back]), [
    [
      'folders guards, store import one another:',
      "  src/store/views/expire.ts imports '../../guards/ephemeral.js' (store → guards)",
      "  src/guards/hooks.ts imports '../store/index.js' (guards → store)",
    ],
  ]);
});

test('docs/architecture.md draws the same table', () => {
  const doc = fs.readFileSync(path.join(ROOT, 'docs', 'architecture.md'), 'utf8');
  for (const { layer, folders } of LAYERS) {
    const row = `| ${layer} | ${folders.map((f) => (f === 'index' || f === 'errors' ? `\`src/${f}.ts\`` : `\`src/${f}/\``)).join(', ')} |`;
    assert.ok(doc.includes(row), `docs/architecture.md has no row starting ${row}`);
  }
});
