import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BRIEF_HEADINGS,
  HANDOFF_HEADINGS,
  bullets,
  cleanBody,
  headChars,
  isPlaceholder,
  matchHeading,
  parseSections,
  splitSections,
  stripFences,
} from '../../src/docs/index.js';

// [line, expected key or null, expected inline body]
const headings: Array<[string, string | null, string?]> = [
  ['## 目标', 'goal', ''],
  ['# 目标', 'goal', ''],
  ['###### 目标', 'goal', ''],
  ['##目标', 'goal', ''],
  ['## 目标 ##', 'goal', ''],
  ['**目标**', 'goal', ''],
  ['__目标__', 'goal', ''],
  ['【目标】', 'goal', ''],
  ['目标:', 'goal', ''],
  ['目标：', 'goal', ''],
  ['目标', 'goal', ''],
  ['  目标  ', 'goal', ''],
  ['目标: 做一个 X', 'goal', '做一个 X'],
  ['目标：做一个 X', 'goal', '做一个 X'],
  ['**目标**：做一个 X', 'goal', '做一个 X'],
  ['**目标：** 做一个 X', 'goal', '做一个 X'],
  ['**目标** 做一个 X', 'goal', '做一个 X'],
  ['【目标】做一个 X', 'goal', '做一个 X'],
  ['## 目标：做一个 X', 'goal', '做一个 X'],
  ['1. 目标', 'goal', ''],
  ['1、目标', 'goal', ''],
  ['1) 目标', 'goal', ''],
  ['一、目标', 'goal', ''],
  ['## 1. 目标', 'goal', ''],
  ['1. **目标**', 'goal', ''],
  ['### 2) **未知与假设**', 'unknowns', ''],
  ['目标(一句话)：做一个 X', 'goal', '做一个 X'],
  ['## 验收标准(每行一条)', 'acceptance', ''],
  ['## 未知与假设', 'unknowns', ''],
  ['## 未知项与假设', 'unknowns', ''],
  ['未知:', 'unknowns', ''],
  ['范围边界：不做 GUI', 'boundaries', '不做 GUI'],
  ['## Goal', 'goal', ''],
  ['Goal: build X', 'goal', 'build X'],
  ['**Acceptance criteria**', 'acceptance', ''],
  ['acceptance criteria:', 'acceptance', ''],
  ['## Unknowns and assumptions', 'unknowns', ''],
  ['## Boundaries', 'boundaries', ''],
  // word boundaries: an alias glued to prose is a body line
  ['假设输入为空时报错', null],
  ['目标文件存在且含 <h1>', null],
  ['验收通过后发邮件', null],
  ['边界条件要测', null],
  ['## 目标 做一个 X', null],
  ['**目标文件**', null],
  ['Goals: many', null],
  ['Goalkeeper', null],
  ['Boundary conditions are tested', null],
  // not heading forms at all
  ['- 目标：做一个 X', null],
  ['> 目标', null],
  ['我的目标：做一个 X', null],
  ['', null],
  ['---', null],
];

for (const [line, key, inline] of headings) {
  test(`heading ${JSON.stringify(line)} is ${key ?? 'not a heading'}`, () => {
    const m = matchHeading(line, BRIEF_HEADINGS);
    assert.equal(m?.key ?? null, key);
    if (key !== null) assert.equal(m!.inline, inline);
  });
}

test('the longest alias wins: 未知与假设 is not read as 未知 followed by text', () => {
  assert.deepEqual(matchHeading('未知与假设', BRIEF_HEADINGS), { key: 'unknowns', inline: '', form: 'plain' });
  assert.deepEqual(matchHeading('## 不做什么', BRIEF_HEADINGS)?.key, 'boundaries');
});

// Strict aliases (进度 / 决策 / 文件) count only in the markdown or bold forms.
const strict: Array<[string, string | null]> = [
  ['## 文件', 'scene'],
  ['**文件**', 'scene'],
  ['【进度】', 'doing'],
  ['### 决策', 'decided'],
  ['文件: src/a.ts', null],
  ['文件', null],
  ['进度：一半', null],
  ['决策:', null],
  ['现场：src/a.ts', 'scene'],
];
for (const [line, key] of strict) {
  test(`strict alias line ${JSON.stringify(line)} is ${key ?? 'body text'}`, () => {
    assert.equal(matchHeading(line, HANDOFF_HEADINGS)?.key ?? null, key);
  });
}

const fences: Array<[string, string, string]> = [
  ['a backtick fence is removed', 'a\n```\n## 目标\n```\nb', 'a\nb'],
  ['a tilde fence is removed', 'a\n~~~md\n## 目标\n~~~\nb', 'a\nb'],
  ['an unclosed backtick fence drops the rest', 'a\n```python\nprint(1)\n## 目标\nx', 'a'],
  ['an unclosed tilde fence drops the rest', 'a\n~~~\n## 目标\nx', 'a'],
  ['a tilde line does not close a backtick fence', 'a\n```\n~~~\n## x\n```\nb', 'a\nb'],
  ['a shorter fence does not close a longer one', 'a\n````\n```\nz\n````\nb', 'a\nb'],
  ['inline triple backticks on one line are not a fence', '运行 ```make``` 得到\nb', '运行 ```make``` 得到\nb'],
  ['a line starting with inline triple backticks is not a fence', '```make``` 跑通\nb', '```make``` 跑通\nb'],
  ['an indented fence in a list item is removed', '- a\n  ```\n  code\n  ```\n- b', '- a\n- b'],
  ['CRLF input is handled', 'a\r\n```\r\nx\r\n```\r\nb', 'a\nb'],
];
for (const [name, input, out] of fences) {
  test(name, () => assert.equal(stripFences(input), out));
}

test('a body is cleaned: trailing spaces, rules and outer blank lines go, 3+ newlines become 2', () => {
  assert.equal(cleanBody('\n\n  a  \n---\nb\n\n\n\nc\n***\n___\n- - -\n\n'), 'a\nb\n\nc');
});

test('placeholders are recognised in both bracket widths, real content is not', () => {
  for (const p of ['(未填)', '（未填）', '(空)', '（空）', '(无)', ' (none) ', '(Empty)']) assert.equal(isPlaceholder(p), true, p);
  for (const p of ['无', '未填', '(未填) 但是有内容', '(暂无)']) assert.equal(isPlaceholder(p), false, p);
});

test('the preamble before the first heading is kept apart from the sections', () => {
  const s = splitSections('好的,下面是结果。\n\n## 目标\nx', BRIEF_HEADINGS);
  assert.equal(s.preamble, '好的,下面是结果。');
  assert.deepEqual(s.sections, [{ key: 'goal', body: 'x' }]);
});

test('the first non-empty duplicate wins, and a placeholder counts as empty', () => {
  const text = '## 目标\n(未填)\n## 边界\nB\n## 目标\n第一个\n## 验收\nA\n## 目标\n第二个';
  assert.deepEqual(parseSections(text, BRIEF_HEADINGS), { goal: '第一个', boundaries: 'B', acceptance: 'A' });
});

test('a heading of the open section with content stays a body line', () => {
  const text = '未知与假设：\n- 输入为 UTF-8\n假设：用户在 macOS\n## 假设\n- 单线程';
  assert.deepEqual(parseSections(text, BRIEF_HEADINGS), {
    unknowns: '- 输入为 UTF-8\n假设：用户在 macOS\n## 假设\n- 单线程',
  });
});

const items: Array<[string, string, string[]]> = [
  ['dash, star, plus and dot bullets are stripped', '- a\n* b\n+ c\n• d', ['a', 'b', 'c', 'd']],
  ['numbering in three styles is stripped', '1. a\n2、b\n3) c\n(4) d', ['a', 'b', 'c', 'd']],
  ['a decimal number is not numbering', '1.5 秒内返回\n1.运行 x', ['1.5 秒内返回', '运行 x']],
  ['task-list boxes are stripped', '- [ ] a\n- [x] b', ['a', 'b']],
  ['placeholders and sub-headings are not items', '(空)\n### 功能\n- a\n(无)', ['a']],
  ['an indented non-bullet line continues the previous item', '- 运行 make\n  然后看 out/ 下有 a.bin\n- b', ['运行 make 然后看 out/ 下有 a.bin', 'b']],
  ['a nested bullet is its own item', '- a\n  - a1', ['a', 'a1']],
  ['a star line that is bold text is kept whole', '**重点** 跑 x', ['**重点** 跑 x']],
];
for (const [name, input, out] of items) {
  test(name, () => assert.deepEqual(bullets(input), out));
}

test('headChars cuts by code points, never inside a surrogate pair', () => {
  assert.equal(headChars('😀😀😀', 2), '😀😀');
  assert.equal(headChars('abc', 10), 'abc');
});
