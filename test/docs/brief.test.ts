import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Brief, BRIEF_SECTIONS } from '../../src/docs/index.js';
import { FlowerError } from '../../src/errors.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'flower-brief-'));

const FULL = `好的,我看过仓库了。下面是需求确认书。

## 目标
做一个把 md 转成 html 的脚本,给我自己写博客用。

## 验收标准
- 运行 \`python conv.py a.md\`,得到 a.html
- 目标文件 a.html 里含 <h1>

## 边界
- 不做 GUI
- 不引入第三方依赖

## 未知与假设
- 假设输入为 UTF-8
假设输入为空时报错
`;

test('a full brief parses and the preamble is dropped', () => {
  const b = Brief.parse(FULL);
  assert.equal(b.complete(), true);
  assert.equal(b.goal, '做一个把 md 转成 html 的脚本,给我自己写博客用。');
  assert.equal(b.acceptance, '- 运行 `python conv.py a.md`,得到 a.html\n- 目标文件 a.html 里含 <h1>');
  assert.equal(b.boundaries, '- 不做 GUI\n- 不引入第三方依赖');
  for (const k of BRIEF_SECTIONS) assert.ok(!b[k].includes('仓库'), `preamble leaked into ${k}`);
});

test('body lines that start with an alias word are not eaten as headings', () => {
  const b = Brief.parse(FULL);
  assert.equal(b.unknowns, '- 假设输入为 UTF-8\n假设输入为空时报错');
  assert.match(b.acceptance, /目标文件 a\.html 里含 <h1>/);
});

test('an acceptance line starting with 目标 does not cut the section short', () => {
  const b = Brief.parse('目标：X\n验收标准：\n目标文件存在\n运行 x 得到 y\n边界：无 GUI\n未知与假设：无');
  assert.equal(b.goal, 'X');
  assert.equal(b.acceptance, '目标文件存在\n运行 x 得到 y');
});

test('a code fence and the fake headings inside it do not leak out', () => {
  const b = Brief.parse(`## 目标
真目标
\`\`\`markdown
## 目标
假目标
## 验收标准
假验收
\`\`\`
## 验收标准
真验收
~~~
## 边界
假边界
~~~
## 边界
真边界
## 未知与假设
真未知
`);
  assert.deepEqual([b.goal, b.acceptance, b.boundaries, b.unknowns], ['真目标', '真验收', '真边界', '真未知']);
});

test('truncated output (an unclosed fence) fails completeness', () => {
  const b = Brief.parse('## 目标\nX\n## 验收标准\n看代码:\n```python\nprint(1)\n## 边界\n不做 GUI\n## 未知与假设\n无');
  assert.equal(b.complete(), false);
  assert.deepEqual(b.missing(), ['边界', '未知与假设']);
  assert.equal(b.acceptance, '看代码:');
});

test('a partial brief reports [验收标准, 未知与假设] as missing', () => {
  const b = Brief.parse('## 目标\nX\n## 边界\nY\n');
  assert.deepEqual(b.missing(), ['验收标准', '未知与假设']);
  assert.equal(b.complete(), false);
});

const variants: Array<[string, string]> = [
  ['markdown headings', '## 目标\nG\n## 验收标准\nA\n## 边界\nB\n## 未知与假设\nU'],
  ['bold headings with inline bodies', '**目标**:G\n**验收标准**:A\n**边界**:B\n**未知与假设**:U'],
  ['colon headings (full-width)', '目标：G\n验收条件：A\n范围边界：B\n未知项：U'],
  ['numbered headings', '1. 目标\nG\n2. 验收\nA\n3、不做什么\nB\n4) 假设\nU'],
  ['numbered bold markdown headings', '### 1. **目标**\nG\n### 2. **验收标准**\nA\n### 3. **边界**\nB\n### 4. **已知未知**\nU'],
  ['bracket headings', '【目标】G\n【验收标准】A\n【边界】B\n【未知与假设】U'],
  ['English headings', '## Goal\nG\n## Acceptance criteria\nA\n## Boundaries\nB\n## Unknowns and assumptions\nU'],
  ['English colon headings', 'Goal: G\nAcceptance: A\nOut of scope: B\nAssumptions: U'],
];
for (const [name, text] of variants) {
  test(`heading variant accepted: ${name}`, () => {
    const b = Brief.parse(text);
    assert.deepEqual([b.goal, b.acceptance, b.boundaries, b.unknowns], ['G', 'A', 'B', 'U']);
  });
}

test('toMarkdown has the header, the two quoted lines and (未填) for empty sections', () => {
  const md = new Brief({ goal: 'G' }).toMarkdown();
  const lines = md.split('\n');
  assert.equal(lines[0], '# 需求确认书');
  assert.equal(lines.filter((l) => l.startsWith('> ')).length, 2);
  assert.equal(md.match(/\(未填\)/g)?.length, 3);
  assert.ok(md.indexOf('## 目标') < md.indexOf('## 验收标准'));
  assert.ok(md.indexOf('## 边界') < md.indexOf('## 未知与假设'));
});

test('promptBlock lists only non-empty sections as ## blocks', () => {
  const b = new Brief({ goal: 'G', boundaries: 'B' });
  assert.equal(b.promptBlock(), '## 目标\nG\n\n## 边界\nB');
});

test('write then load round-trips, atomically and without leftovers', () => {
  const dir = tmp();
  const file = path.join(dir, 'notes', '需求.md');
  const b = Brief.parse(FULL);
  const w = b.write(file);
  assert.equal(w.path, path.resolve(file));
  assert.equal(w.backup, null);
  assert.equal(b.path, w.path);
  const back = Brief.load(file)!;
  assert.deepEqual({ ...back, path: null }, { ...b, path: null });
  assert.deepEqual(fs.readdirSync(path.dirname(file)), ['需求.md']);
  assert.equal(Brief.parse(b.toMarkdown()).toMarkdown(), b.toMarkdown());
});

test('a missing file loads as null', () => {
  assert.equal(Brief.load(path.join(tmp(), 'nope.md')), null);
});

test('(未填) placeholders load as empty, so a copied template is still incomplete', () => {
  const dir = tmp();
  const file = path.join(dir, '需求.md');
  fs.writeFileSync(file, new Brief({ goal: 'G', acceptance: 'A' }).toMarkdown());
  const b = Brief.load(file)!;
  assert.equal(b.boundaries, '');
  assert.equal(b.unknowns, '');
  assert.deepEqual(b.missing(), ['边界', '未知与假设']);
  fs.writeFileSync(file, '## 目标\n（未填）\n## 验收标准\nA\n## 边界\nB\n## 未知与假设\nU');
  assert.deepEqual(Brief.load(file)!.missing(), ['目标']);
});

test('amend appends "\\n## <label>(HH:MM:SS)\\n<text>\\n" and keeps the original at the top', () => {
  const dir = tmp();
  const file = path.join(dir, '需求.md');
  new Brief({ goal: 'G', acceptance: 'A', boundaries: 'B', unknowns: 'U' }).write(file);
  const before = fs.readFileSync(file, 'utf8');
  const now = new Date(2026, 0, 2, 9, 5, 7);
  assert.equal(Brief.amend(file, '  顺便支持代码块高亮  ', { now }), true);
  assert.equal(Brief.amend(file, '目标：改成也支持 Windows', { label: '唤醒时追加', now }), true);
  const after = fs.readFileSync(file, 'utf8');
  assert.ok(after.startsWith(before));
  assert.equal(after.slice(before.length), '\n## 运行中补充(09:05:07)\n顺便支持代码块高亮\n\n## 唤醒时追加(09:05:07)\n目标：改成也支持 Windows\n');
  const b = Brief.load(file)!;
  assert.equal(b.goal, 'G');
  assert.equal(b.unknowns, 'U', 'amendments are no longer folded into 未知与假设');
  assert.deepEqual(b.amendments, [
    { label: '运行中补充', time: '09:05:07', text: '顺便支持代码块高亮' },
    { label: '唤醒时追加', time: '09:05:07', text: '目标：改成也支持 Windows' },
  ]);
});

test('the same remark is never appended twice, but a remark that is only a substring is', () => {
  const dir = tmp();
  const file = path.join(dir, '需求.md');
  new Brief({ goal: '支持代码块高亮的转换器', acceptance: 'A', boundaries: 'B', unknowns: 'U' }).write(file);
  assert.equal(Brief.amend(file, '支持代码块高亮'), true, 'a substring of the file is not a duplicate');
  const once = fs.readFileSync(file, 'utf8');
  assert.equal(Brief.amend(file, '支持代码块高亮'), false);
  assert.equal(Brief.amend(file, '支持代码块高亮\n', { label: '唤醒时追加' }), false);
  assert.equal(Brief.amend(file, '   '), false);
  assert.equal(fs.readFileSync(file, 'utf8'), once);
});

test('an amendment label that is a brief heading is refused before anything is written', () => {
  const file = path.join(tmp(), '需求.md');
  assert.throws(
    () => Brief.amend(file, 'x', { label: '目标' }),
    (e: unknown) => FlowerError.is(e) && e.code === 'doc-bad-label',
  );
  assert.equal(fs.existsSync(file), false);
});

test('amending a missing brief creates it; the freeze later keeps that remark', () => {
  const dir = tmp();
  const file = path.join(dir, 'notes', '需求.md');
  assert.equal(Brief.amend(file, '记得要有暗色主题', { now: new Date(2026, 0, 1, 1, 2, 3) }), true);
  assert.equal(Brief.load(file)!.complete(), false);
  const frozen = new Brief({ goal: 'G', acceptance: 'A', boundaries: 'B', unknowns: 'U' });
  frozen.write(file);
  const b = Brief.load(file)!;
  assert.equal(b.complete(), true);
  assert.deepEqual(
    b.amendments.map((a) => a.text),
    ['记得要有暗色主题'],
  );
  new Brief({ goal: 'G2', acceptance: 'A', boundaries: 'B', unknowns: 'U' }).write(file, { keepAmendments: false });
  assert.deepEqual(Brief.load(file)!.amendments, []);
});

test('amendments are rendered in their own block by promptBlock, in order', () => {
  const b = Brief.parse(`${new Brief({ goal: 'G', acceptance: 'A', boundaries: 'B', unknowns: 'U' }).toMarkdown()}
## 运行中补充(10:00:00)
第一句

## 唤醒时追加(11:00:00)
第二句
多行也行
`);
  const block = b.promptBlock();
  assert.ok(block.startsWith('## 目标\nG'));
  const i1 = block.indexOf('### 运行中补充(10:00:00)\n第一句');
  const i2 = block.indexOf('### 唤醒时追加(11:00:00)\n第二句\n多行也行');
  assert.ok(block.indexOf('## 后来的补充') > block.indexOf('## 未知与假设\nU'));
  assert.ok(i1 > 0 && i2 > i1);
  assert.equal(b.unknowns, 'U');
});

test('a remark containing an unclosed fence or alias lines stays intact', () => {
  const dir = tmp();
  const file = path.join(dir, '需求.md');
  new Brief({ goal: 'G', acceptance: 'A', boundaries: 'B', unknowns: 'U' }).write(file);
  Brief.amend(file, '用这个:\n```\n## 边界\n可以做 GUI');
  const b = Brief.load(file)!;
  assert.equal(b.boundaries, 'B');
  assert.equal(b.amendments[0]!.text, '用这个:\n```\n## 边界\n可以做 GUI');
});

test('a damaged brief loads as null, is kept aside on write, and refuses amends', () => {
  const dir = tmp();
  const file = path.join(dir, '需求.md');
  const damaged = Buffer.from([0x23, 0x20, 0xff, 0xfe, 0x00, 0x41]);
  fs.writeFileSync(file, damaged);
  assert.equal(Brief.load(file), null);
  assert.throws(
    () => Brief.amend(file, 'x'),
    (e: unknown) => FlowerError.is(e) && e.code === 'doc-corrupt' && e.message.includes(file),
  );
  assert.deepEqual(fs.readFileSync(file), damaged);
  const w = new Brief({ goal: 'G', acceptance: 'A', boundaries: 'B', unknowns: 'U' }).write(file, { now: new Date(2026, 4, 6, 7, 8, 9) });
  assert.equal(w.backup, `${file}.corrupt-20260506-070809`);
  assert.deepEqual(fs.readFileSync(w.backup), damaged);
  assert.equal(Brief.load(file)!.goal, 'G');
});

test('an unreadable brief is never overwritten', () => {
  const dir = tmp();
  const file = path.join(dir, '需求.md');
  fs.mkdirSync(file); // reading a directory fails (EISDIR) even as root, unlike chmod 000
  fs.writeFileSync(path.join(file, 'keep.txt'), 'k');
  assert.equal(Brief.load(file), null);
  assert.throws(
    () => new Brief({ goal: 'G' }).write(file),
    (e: unknown) => FlowerError.is(e) && e.code === 'doc-unreadable' && /refusing to overwrite/.test(e.message),
  );
  assert.throws(
    () => Brief.amend(file, 'x'),
    (e: unknown) => FlowerError.is(e) && e.code === 'doc-unreadable',
  );
  assert.equal(fs.readFileSync(path.join(file, 'keep.txt'), 'utf8'), 'k');
  assert.deepEqual(fs.readdirSync(dir), ['需求.md'], 'no temp file left behind');
});
