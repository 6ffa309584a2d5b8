import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Goal, unverifiableReason } from '../../src/docs/index.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'flower-goal-'));

test('a goal parses into a statement and one check per line, bullets and numbering stripped', () => {
  const g = Goal.parse(`我看了环境,下面是目标。

## 目标
conv.py 能把 md 转成 html。

## 判定清单
1. 运行 \`python conv.py a.md\` 产出 a.html
- a.html 含 <h1>
* 空文件报错退出码非 0
`);
  assert.equal(g.statement, 'conv.py 能把 md 转成 html。');
  assert.deepEqual(g.checks, ['运行 `python conv.py a.md` 产出 a.html', 'a.html 含 <h1>', '空文件报错退出码非 0']);
  assert.equal(g.complete(), true);
});

const aliases: Array<[string, string]> = [
  ['完成标志 and 判定条件', '完成标志：X\n判定条件：\n- c'],
  ['验收清单', '# 目标\nX\n# 验收清单\n- c'],
  ['检查项', '**目标**:X\n**检查项**:\n- c'],
  ['判定', '目标：X\n判定：\n- c'],
  ['English', '## Goal\nX\n## Checklist\n- c'],
];
for (const [name, text] of aliases) {
  test(`goal heading alias accepted: ${name}`, () => {
    const g = Goal.parse(text);
    assert.equal(g.statement, 'X');
    assert.deepEqual(g.checks, ['c']);
  });
}

const completeness: Array<[string, string, boolean, string[]]> = [
  ['statement and a check', '# 目标\nX\n# 判定清单\n- c', true, []],
  ['no checklist', '# 目标\nX', false, ['判定清单']],
  ['a (空) checklist', '# 目标\nX\n# 判定清单\n(空)', false, ['判定清单']],
  ['a blank statement', '# 目标\n\n# 判定清单\n- c', false, ['目标']],
  ['nothing', 'whatever', false, ['目标', '判定清单']],
];
for (const [name, text, ok, missing] of completeness) {
  test(`completeness: ${name}`, () => {
    const g = Goal.parse(text);
    assert.equal(g.complete(), ok);
    assert.deepEqual(g.missing(), missing);
  });
}

test('(空) written for an empty checklist is not read back as a check', () => {
  const dir = tmp();
  const file = path.join(dir, '目标.md');
  new Goal({ statement: 'X' }).write(file);
  assert.match(fs.readFileSync(file, 'utf8'), /# 判定清单\n\(空\)\n/);
  const g = Goal.load(file)!;
  assert.deepEqual(g.checks, []);
  assert.equal(g.complete(), false);
});

test('unverifiable checks are found in Chinese and English marks', () => {
  const g = new Goal({
    statement: 'X',
    checks: [
      '在 macOS 上运行产物 [此环境无法验证:容器是 Linux]',
      '签名有效 [无法验证：没有证书]',
      'runs on Windows [cannot verify here: no Windows host]',
      'make 成功',
      '提到"无法验证"三个字但没有标记',
    ],
  });
  assert.deepEqual(g.unverifiable, g.checks.slice(0, 3));
  assert.equal(unverifiableReason(g.checks[0]!), '容器是 Linux');
  assert.equal(unverifiableReason(g.checks[2]!), 'no Windows host');
  assert.equal(unverifiableReason('make 成功'), null);
});

test('amend appends "(已修改)" + the new text to the statement', () => {
  const g = new Goal({ statement: '转 md', checks: ['c'] });
  g.amend('  也支持表格 ');
  assert.equal(g.statement, '转 md\n\n(已修改)也支持表格');
  g.amend('');
  assert.equal(g.statement, '转 md\n\n(已修改)也支持表格');
});

test('an amended goal round-trips through its file', () => {
  const dir = tmp();
  const file = path.join(dir, 'notes', '目标.md');
  const g = new Goal({ statement: '转 md', checks: ['跑 x 得到 y', 'z [此环境无法验证:没有 GPU]'] }).amend('也支持表格');
  g.write(file);
  const back = Goal.load(file)!;
  assert.equal(back.statement, g.statement);
  assert.deepEqual(back.checks, g.checks);
  assert.equal(back.path, path.resolve(file));
  assert.equal(fs.readFileSync(file, 'utf8'), '# 目标\n转 md\n\n(已修改)也支持表格\n\n# 判定清单\n- 跑 x 得到 y\n- z [此环境无法验证:没有 GPU]\n');
});

test('promptBlock carries the statement and, only when present, the checklist', () => {
  assert.equal(new Goal({ statement: 'X', checks: ['a', 'b'] }).promptBlock(), '## 目标\nX\n\n## 判定清单\n- a\n- b');
  assert.equal(new Goal({ statement: 'X' }).promptBlock(), '## 目标\nX');
});

test('a missing goal file loads as null', () => {
  assert.equal(Goal.load(path.join(tmp(), '目标.md')), null);
});

test('a checklist item that talks about a code fence is an item, not the start of a fence', () => {
  const g = Goal.parse('# 目标\nx\n\n# 判定清单\n- a 能跑\n- ```js 代码块输出为 <pre><code class="language-js">\n- 空文件不报错');
  assert.deepEqual(g.checks, ['a 能跑', '```js 代码块输出为 <pre><code class="language-js">', '空文件不报错']);
  const round = Goal.parse(g.toMarkdown());
  assert.deepEqual(round.checks, g.checks);
});
