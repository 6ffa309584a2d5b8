import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEGRADED, Handoff } from '../../src/docs/index.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'flower-handoff-'));

const FULL = `好,交接如下。

## 现在在做什么
在修 out/a.bin 的链接错误。

## 已经定下的
- 用 clang 不用 gcc:gcc 12 的 LTO 在这台机器上崩

## 走不通的路
- -static 链接:glibc 不给

## 下一步
跑 make -C build,如果还报 undefined reference 就改 link.ld

## 现场
- build/Makefile
- out/a.bin
`;

test('a full handoff parses into five sections and is complete', () => {
  const h = Handoff.parse(FULL);
  assert.equal(h.doing, '在修 out/a.bin 的链接错误。');
  assert.match(h.decided, /用 clang 不用 gcc/);
  assert.match(h.deadends, /-static 链接/);
  assert.match(h.next, /^跑 make -C build/);
  assert.equal(h.scene, '- build/Makefile\n- out/a.bin');
  assert.equal(h.complete(), true);
  assert.equal(h.isDegraded, false);
});

const aliases: Array<[string, string, Partial<Record<'doing' | 'decided' | 'deadends' | 'next' | 'scene', string>>]> = [
  ['long Chinese aliases', '现在在做:D\n已定的事:S\n试过不行的:X\n下一步:N\n现场:P', { doing: 'D', decided: 'S', deadends: 'X', next: 'N', scene: 'P' }],
  ['other aliases', '## 当前进度\nD\n## 排除的路\nX\n## 下一步\nN', { doing: 'D', deadends: 'X', next: 'N' }],
  ['short aliases as full headings', '## 进度\nD\n## 决策\nS\n## 下一步\nN\n## 文件\nP', { doing: 'D', decided: 'S', next: 'N', scene: 'P' }],
  [
    'English headings',
    '## Doing now\nD\n## Decided\nS\n## Dead ends\nX\n## Next step\nN\n## Scene\nP',
    { doing: 'D', decided: 'S', deadends: 'X', next: 'N', scene: 'P' },
  ],
];
for (const [name, text, want] of aliases) {
  test(`handoff aliases: ${name}`, () => {
    const h = Handoff.parse(text);
    for (const k of ['doing', 'decided', 'deadends', 'next', 'scene'] as const) assert.equal(h[k], want[k] ?? '', k);
  });
}

test('bare short-alias lines (文件: / 进度: / 决策:) stay body text', () => {
  const h = Handoff.parse('## 下一步\n改 link.ld\n文件: build/link.ld\n进度:一半\n决策:先不动 CI\n## 现在在做什么\nD');
  assert.equal(h.next, '改 link.ld\n文件: build/link.ld\n进度:一半\n决策:先不动 CI');
  assert.equal(h.scene, '');
  assert.equal(h.doing, 'D');
});

test('fenced fake headings in a handoff are ignored', () => {
  const h = Handoff.parse('## 现在在做什么\nD\n```\n## 下一步\n假的\n```\n## 下一步\nN');
  assert.equal(h.next, 'N');
  assert.equal(h.doing, 'D');
});

const required: Array<[string, string, string[]]> = [
  ['only doing and next are enough', '## 现在在做什么\nD\n## 下一步\nN', []],
  ['missing next', '## 现在在做什么\nD\n## 已经定下的\nS\n## 走不通的路\nX\n## 现场\nP', ['下一步']],
  ['missing doing', '## 下一步\nN', ['现在在做什么']],
  ['(空) counts as empty', '## 现在在做什么\n(空)\n## 下一步\nN', ['现在在做什么']],
  ['truncated inside a fence', '## 现在在做什么\nD\n```\nlog...\n## 下一步\nN', ['下一步']],
];
for (const [name, text, missing] of required) {
  test(`required sections: ${name}`, () => {
    const h = Handoff.parse(text);
    assert.deepEqual(h.missing(), missing);
    assert.equal(h.complete(), missing.length === 0);
  });
}

test('a degraded handoff carries the marker, a look-first next step and the first 1200 chars of the task', () => {
  const task = `  ${'任'.repeat(1000)}${'务'.repeat(500)}  `;
  const h = Handoff.degraded('干活', task, '上下文溢出');
  assert.ok(h.doing.startsWith(DEGRADED));
  assert.match(h.doing, /「干活」/);
  assert.match(h.doing, /上下文溢出/);
  assert.match(h.next, /git status/);
  assert.match(h.next, /不要假设前面什么都没做/);
  const kept = h.scene.slice(h.scene.indexOf('\n\n') + 2);
  assert.equal(kept, `${'任'.repeat(1000)}${'务'.repeat(200)}`);
  assert.equal(h.isDegraded, true);
  assert.equal(h.complete(), true);
  assert.equal(h.step, '干活');
});

test('degraded status and the step survive a round trip through the file', () => {
  const dir = tmp();
  const file = path.join(dir, 'notes', '交接-干活.md');
  const h = Handoff.degraded('干活', '写个 md 转 html 的脚本');
  h.write(file);
  const md = fs.readFileSync(file, 'utf8');
  assert.ok(md.startsWith('# 交接书(干活)\n'));
  assert.match(md, /## 已经定下的\n\n\(空\)/);
  const back = Handoff.load(file)!;
  assert.equal(back.isDegraded, true);
  assert.equal(back.step, '干活');
  assert.equal(back.decided, '', '(空) reads as empty');
  assert.deepEqual({ ...back, path: null }, { ...h, path: null });
});

test('promptBlock tells the successor it has no memory, lists non-empty sections, and says continue', () => {
  const p = Handoff.parse(FULL).promptBlock();
  assert.match(p, /你没有它的记忆,只有这份交接和磁盘上的东西/);
  assert.match(p, /照「下一步」接着做/);
  assert.match(p, /不要停下来问人/);
  for (const name of ['现在在做什么', '已经定下的', '走不通的路', '下一步', '现场']) assert.match(p, new RegExp(`## ${name}\\n`));
  const partial = new Handoff({ doing: 'D', next: 'N' }).promptBlock();
  assert.doesNotMatch(partial, /## 走不通的路/);
  assert.doesNotMatch(partial, /降级/);
  assert.match(Handoff.degraded('干活', 't').promptBlock(), /这份交接是降级的/);
});

test('a missing handoff file loads as null', () => {
  assert.equal(Handoff.load(path.join(tmp(), '交接-x.md')), null);
});
