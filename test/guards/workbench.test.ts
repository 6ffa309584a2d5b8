import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '../../src/errors.js';
import { describe, indexGuard, touchesWorkbench, Workbench } from '../../src/guards/index.js';
import { fire, post, SUB } from './helpers.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'flower-wb-'));

test('a workbench lives in <ws>/.flower with scripts, artifacts, notes and spill; ensure creates them', () => {
  const ws = tmp();
  const wb = new Workbench(ws, { lang: 'en' }).ensure();
  assert.equal(wb.root, path.join(ws, '.flower'));
  for (const d of [wb.scripts, wb.artifacts, wb.notes, wb.spill]) assert.ok(fs.statSync(d).isDirectory(), d);
  assert.equal(wb.external, false);
  const other = new Workbench(ws, { root: path.join(tmp(), 'workbench'), lang: 'en' });
  assert.equal(other.external, true);
  assert.equal(new Workbench(ws, { dirname: '.bench' }).root, path.join(ws, '.bench'));
});

test('bad options are refused with a message naming the value', () => {
  assert.throws(
    () => new Workbench(tmp(), { dirname: 'a/b' }),
    (e: unknown) => e instanceof ConfigError && /a\/b/.test(e.message),
  );
  assert.throws(() => new Workbench(tmp(), { maxIndexEntries: 0 }), /maxIndexEntries/);
});

// [behaviour, head of file, markdown?, description]
const DESCS: Array<[string, string, boolean, string | undefined]> = [
  ['a shell script with # desc:', '#!/bin/sh\n# desc: build the thing\nmake', false, 'build the thing'],
  ['a JS script with // desc:', '// desc: count lines\nconsole.log(1)', false, 'count lines'],
  ['a SQL / Lua script with -- desc:', '-- desc: list users\nselect 1;', false, 'list users'],
  ['a full-width colon', '# desc：中文说明\n', false, '中文说明'],
  ['desc on line 8 counts', `${'x\n'.repeat(7)}# desc: late`, false, 'late'],
  ['desc on line 9 does not', `${'x\n'.repeat(8)}# desc: too late`, false, undefined],
  ['no desc line', '#!/bin/sh\necho hi', false, undefined],
  ['a markdown note falls back to its heading', '# Use sqlite for the cache\n\nbecause …', true, 'Use sqlite for the cache'],
  ['a desc line beats the heading', '# Title\n<!-- -->\n# desc: the real one', true, 'the real one'],
];

for (const [name, head, md, want] of DESCS) {
  test(`describe: ${name}`, () => assert.equal(describe(head, md), want));
}

test('the index lists each folder with descriptions, newest first, and ends with the three rules', () => {
  const ws = tmp();
  const wb = new Workbench(ws, { lang: 'en' }).ensure();
  fs.writeFileSync(path.join(wb.scripts, 'old.sh'), '#!/bin/sh\n# desc: the old one\n');
  fs.utimesSync(path.join(wb.scripts, 'old.sh'), new Date(1_000_000), new Date(1_000_000));
  fs.writeFileSync(path.join(wb.scripts, 'new.py'), '# desc: the new one\n');
  fs.mkdirSync(path.join(wb.artifacts, 'logs'));
  fs.writeFileSync(path.join(wb.artifacts, 'logs', 'build.log'), 'x'.repeat(3000));
  fs.writeFileSync(path.join(wb.notes, 'cache.md'), '# Use sqlite\n');
  fs.writeFileSync(path.join(wb.spill, 'abcdef0123456789.txt'), 'spilled');
  fs.writeFileSync(path.join(wb.scripts, '.hidden'), '# desc: hidden');
  const text = wb.refresh();
  assert.equal(fs.readFileSync(wb.index, 'utf8'), text);
  const s = text.indexOf('## scripts/ (2)');
  assert.ok(s > 0, text);
  assert.ok(text.indexOf('scripts/new.py') < text.indexOf('scripts/old.sh'), 'newest first');
  assert.match(text, /- scripts\/new\.py \(\d+ B\) — the new one/);
  assert.match(text, /- artifacts\/logs\/build\.log \(2\.9 KB\)/);
  assert.match(text, /- notes\/cache\.md \(\d+ B\) — Use sqlite/);
  assert.doesNotMatch(text, /spill\/|hidden/);
  assert.match(text, /Reusable scripts go in scripts\//);
  assert.match(text, /longer than 2000 characters .* artifacts\/.*only its path and the conclusion/);
  assert.match(text, /one decision per file/);
});

test('at most 40 entries per folder are listed, with a count of the rest', () => {
  const wb = new Workbench(tmp(), { lang: 'en' }).ensure();
  for (let i = 0; i < 45; i++) {
    const f = path.join(wb.scripts, `s${String(i).padStart(2, '0')}.sh`);
    fs.writeFileSync(f, `# desc: script ${i}\n`);
    fs.utimesSync(f, new Date(1_000_000 + i * 1000), new Date(1_000_000 + i * 1000));
  }
  const text = wb.refresh();
  assert.equal((text.match(/^- scripts\//gm) ?? []).length, 40);
  assert.match(text, /## scripts\/ \(45\)/);
  assert.match(text, /… 5 more in scripts\//);
  assert.match(text, /s44\.sh/, 'the newest are kept');
  assert.doesNotMatch(text, /s04\.sh/, 'the oldest are dropped');
  const small = new Workbench(wb.workspace, { maxIndexEntries: 3, lang: 'zh' });
  const zh = small.refresh();
  assert.equal((zh.match(/^- scripts\//gm) ?? []).length, 3);
  assert.match(zh, /另有 42 个/);
});

test('refresh is atomic and idempotent: an unchanged desk leaves INDEX.md untouched', () => {
  const wb = new Workbench(tmp(), { lang: 'en' });
  wb.refresh();
  fs.utimesSync(wb.index, new Date(2_000_000), new Date(2_000_000));
  wb.refresh();
  assert.equal(fs.statSync(wb.index).mtimeMs, 2_000_000);
  fs.writeFileSync(path.join(wb.notes, 'n.md'), '# one decision\n');
  wb.refresh();
  assert.notEqual(fs.statSync(wb.index).mtimeMs, 2_000_000);
  assert.deepEqual(
    fs.readdirSync(wb.root).filter((f) => f.endsWith('.tmp')),
    [],
  );
});

test("the prompt block goes in front of a new session's first message, never on resume", () => {
  const wb = new Workbench(tmp(), { lang: 'en' });
  const block = wb.promptBlock();
  assert.match(block, /^<workbench>\n# Workbench index\n/);
  assert.match(block, new RegExp(`root: ${wb.root.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`));
  assert.match(block, /<\/workbench>$/);
  const first = wb.prime('do the task');
  assert.ok(first.startsWith('<workbench>') && first.endsWith('\n\ndo the task'));
  assert.equal(wb.prime('go on', { resume: 'sid-1' }), 'go on');
});

// [behaviour, written path, cwd (relative to ws), refresh?]
const WRITES: Array<[string, string, string, boolean]> = [
  ['an absolute path into scripts/', '<root>/scripts/a.sh', '.', true],
  ['a relative path into notes/', '.flower/notes/a.md', '.', true],
  ['a relative path from a subfolder', '../.flower/artifacts/r.md', 'src', true],
  ['a write elsewhere in the workspace', 'src/a.ts', '.', false],
  ['a sibling folder named like the workbench', '.flower-other/a.md', '.', false],
];

for (const [name, p, cwdRel, yes] of WRITES) {
  test(`index guard: ${name} ${yes ? 'refreshes' : 'does not refresh'} INDEX.md`, async () => {
    const wb = new Workbench(tmp(), { lang: 'en' });
    const file = p.replace('<root>', wb.root);
    const cwd = path.join(wb.workspace, cwdRel);
    assert.equal(touchesWorkbench(wb, { file_path: file }, cwd), yes);
    let n = 0;
    const g = indexGuard({
      root: wb.root,
      refresh: () => {
        n++;
      },
    });
    await fire(g, post('Write', { file_path: file, content: 'x' }, { type: 'create' }, { cwd, agentId: SUB }));
    assert.equal(n, yes ? 1 : 0);
  });
}

test('index guard: a real write by a subagent shows up in INDEX.md at once', async () => {
  const wb = new Workbench(tmp(), { lang: 'en' }).ensure();
  wb.refresh();
  const f = path.join(wb.scripts, 'probe.sh');
  fs.writeFileSync(f, '# desc: probe the toolchain\n');
  await fire(indexGuard(wb), post('Edit', { file_path: f, old_string: 'a', new_string: 'b' }, {}, { cwd: wb.workspace, agentId: SUB }));
  assert.match(fs.readFileSync(wb.index, 'utf8'), /scripts\/probe\.sh .* — probe the toolchain/);
});
