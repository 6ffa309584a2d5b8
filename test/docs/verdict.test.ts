import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AMBIGUOUS_REASON, Verdict, classifyVerdict, type VerdictState } from '../../src/docs/index.js';

const forms: Array<[string, string, VerdictState]> = [
  ['达成 in a 结论 section', '## 结论\n达成\n## 理由\n都过了', 'achieved'],
  ['未达成 in a 结论 section', '## 结论\n未达成\n## 理由\n缺 a.html', 'not_yet'],
  ['无法达成 in a 结论 section', '## 结论\n无法达成\n## 理由\n需要 macOS', 'unreachable'],
  ['此环境无法验证 is unreachable, never a pass', '结论：此环境无法验证', 'unreachable'],
  ['a bare 1', '1', 'achieved'],
  ['a bare 0', '0', 'not_yet'],
  ['a bare true', ' TRUE \n', 'achieved'],
  ['a bare false', 'false', 'not_yet'],
  ['已达成 inline after a bold heading', '**结论**：已达成', 'achieved'],
  ['尚未达成', '结论: 尚未达成', 'not_yet'],
  ['判定 as the state heading', '判定：没有达成', 'not_yet'],
  ['1 in a 结论 section', '结论: 1', 'achieved'],
  ['0 in a 结论 section', '结论: 0', 'not_yet'],
  ['a count in a 结论 section is not a lone 1', '结论: 1 of 4 checks failed', ''],
  ['English verdict heading', 'Verdict: not achieved\nReason: the binary is missing', 'not_yet'],
  ['English not_yet token', 'Verdict: NOT_YET', 'not_yet'],
  ['English achieved', '## Verdict\nAchieved.', 'achieved'],
  ['English unreachable', '## Conclusion\nunreachable - needs a GPU', 'unreachable'],
  ['no heading: the conclusion is read from the text', '未达成,还差两项', 'not_yet'],
  ['no 结论: the preamble is read, not the 未通过 heading', '达成。\n## 理由\n都有证据\n## 未通过\n(无)', 'achieved'],
  ['vague text is no conclusion', '看起来差不多了,应该没什么问题', ''],
  ['vague English is no conclusion', 'Looks fine to me overall.', ''],
  ['empty reply is no conclusion', '', ''],
  ['a fenced fake conclusion is ignored', '```\n结论：达成\n```\n还在看', ''],
];
for (const [name, text, state] of forms) {
  test(`verdict form: ${name}`, () => {
    const v = Verdict.parse(text);
    assert.equal(v.state, state);
    assert.equal(v.ok, state !== '');
  });
}

// Substring matching read `no` inside these words as not_yet.
const boundaries: Array<[string, VerdictState]> = [
  ['nothing', ''],
  ['unknown', ''],
  ['nothing is missing; achieved', 'achieved'],
  ['the outcome is unknown', ''],
  ['not achieved', 'not_yet'],
  ['has not yet been achieved', 'not_yet'],
  ["isn't met", 'not_yet'],
  ['cannot be verified here', 'unreachable'],
  ['No.', 'not_yet'],
  ['No, the binary is missing', 'not_yet'],
  ['Yes', 'achieved'],
  ['yes — all three pass', 'achieved'],
  ['nobody knows', ''],
  ['yesterday it worked', ''],
  ['impossible on Linux', 'unreachable'],
  ['1 of 4 checks failed', ''],
];
for (const [text, state] of boundaries) {
  test(`word boundaries: ${JSON.stringify(text)} reads as ${state || 'no conclusion'}`, () => {
    assert.equal(classifyVerdict(text), state);
  });
}

test('nothing/unknown in a 结论 section are not read as not_yet', () => {
  assert.equal(Verdict.parse('Verdict: unknown').state, '');
  assert.equal(Verdict.parse('结论: nothing to add').state, '');
});

test('priority is unreachable, then not_yet, then achieved', () => {
  assert.equal(classifyVerdict('达成了三项,但第四项无法达成'), 'unreachable');
  assert.equal(classifyVerdict('部分达成,整体未达成'), 'not_yet');
});

test('an ambiguous verdict is not achieved and carries the default reason', () => {
  const v = Verdict.parse('嗯……说不好');
  assert.equal(v.ok, false);
  assert.equal(v.achieved, false);
  assert.equal(v.reason, AMBIGUOUS_REASON);
  const w = Verdict.parse('结论: 待定\n理由: 没跑起来');
  assert.equal(w.reason, `${AMBIGUOUS_REASON}\n没跑起来`);
  assert.equal(new Verdict(w).reason, w.reason, 'the default reason is not prepended twice');
});

test('reason and failed items are parsed; (无) and a bare 无 are not failed items', () => {
  const v = Verdict.parse('结论：未达成\n理由：a.html 没生成\n未通过：\n- 运行 x 得到 a.html\n2. a.html 含 <h1>');
  assert.equal(v.reason, 'a.html 没生成');
  assert.deepEqual(v.failed, ['运行 x 得到 a.html', 'a.html 含 <h1>']);
  assert.deepEqual(Verdict.parse('结论：达成\n未通过：(无)').failed, []);
  assert.deepEqual(Verdict.parse('结论：达成\n未通过：无').failed, []);
});

test('feedback gives the reason, the failed items and "only these gaps", and no fixes of its own', () => {
  const fb = Verdict.parse('结论：未达成\n理由：a.html 没生成\n未通过：\n- 运行 x 得到 a.html').feedback();
  assert.match(fb, /a\.html 没生成/);
  assert.match(fb, /- 运行 x 得到 a\.html/);
  assert.match(fb, /只补上面这些差距/);
  assert.match(fb, /不要重头开始/);
  assert.match(fb, /不要扩大范围/);
  assert.equal(fb.split('\n').filter((l) => l.startsWith('- ')).length, 1);
});

test('feedback without a reason says so, and quotes evidence of failed checks', () => {
  const v = new Verdict({
    state: 'not_yet',
    checks: [
      { item: 'make 成功', pass: true, evidence: 'exit 0' },
      { item: 'out/a.bin 是 Linux ELF', pass: false, evidence: 'file 说是 Mach-O' },
      { item: 'macOS 上能跑', pass: null, evidence: '' },
    ],
  });
  assert.deepEqual(v.failed, ['out/a.bin 是 Linux ELF', 'macOS 上能跑']);
  const fb = v.feedback();
  assert.match(fb, /\(没给理由\)/);
  assert.match(fb, /- out\/a\.bin 是 Linux ELF\(看到的:file 说是 Mach-O\)/);
  assert.match(fb, /- macOS 上能跑\n/);
  assert.doesNotMatch(fb, /make 成功/);
});
