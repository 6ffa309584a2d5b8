/**
 * Handoff pieces without a model: the prompt, where the record goes, how an answer becomes a handoff,
 * the stop messages.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Handoff } from '../../src/docs/index.js';
import {
  HANDOFF_PROMPT,
  HANDOFF_TOOL,
  degradedStreakMessage,
  generationsMessage,
  handoffFile,
  handoffFrom,
  handoffPrompt,
  safeStepName,
  sectionsOf,
  thresholds,
  writeHandoffRecord,
} from '../../src/runtime/index.js';

test('the handoff prompt fills {used} and {window} and asks for the five sections with their rules, in both languages', () => {
  assert.match(handoffPrompt('en', 152_000, 200_000), /^Your context has reached 152\.0K of a 200K window/);
  assert.match(handoffPrompt('zh', 46_100, 60_000), /^你的上下文已经用到 46\.1K\(窗口 60K\)/);
  for (const lang of ['zh', 'en'] as const) {
    const p = handoffPrompt(lang, 1, 1_000_000);
    assert.doesNotMatch(p, /\{used\}|\{window\}/);
    assert.match(p, /submit_handoff/);
  }
  const zh = HANDOFF_PROMPT.zh;
  for (const s of ['现在在做什么', '已经定下的', '走不通的路', '下一步', '现场', '为什么', '暂无', '不要编', '只写路径', '自成一体', '不要复述需求和目标']) {
    assert.ok(zh.includes(s), `zh prompt lacks ${s}`);
  }
  const en = HANDOFF_PROMPT.en;
  for (const s of ['doing', 'decided', 'deadends', 'next', 'scene', 'its why', 'none yet', 'never invent', 'Paths only', 'self-contained', 'do not restate']) {
    assert.ok(en.includes(s), `en prompt lacks ${s}`);
  }
  assert.equal(HANDOFF_TOOL, 'mcp__flower_handoff__submit_handoff');
});

test('the markdown fallback of either language parses into a complete handoff; a submission wins over the text', () => {
  const en = handoffFrom(
    's',
    null,
    '## Doing now\nwiring\n\n## Decided\nzod: readable errors\n\n## Dead ends\nnone yet\n\n## Next step\nrun it\n\n## Scene\nsrc/a.ts',
  );
  assert.deepEqual(sectionsOf(en), { doing: 'wiring', decided: 'zod: readable errors', deadends: 'none yet', next: 'run it', scene: 'src/a.ts' });
  assert.equal(en.complete(), true);
  const zh = handoffFrom('s', null, '## 现在在做什么\n接线\n\n## 下一步\n跑测试');
  assert.equal(zh.complete(), true);
  assert.equal(handoffFrom('s', null, 'I could not finish.').complete(), false);
  const sub = handoffFrom('s', { doing: 'from the tool', decided: '', deadends: '', next: 'go', scene: '' }, '## Doing now\nfrom the text\n## Next step\nx');
  assert.equal(sub.doing, 'from the tool');
  assert.equal(sub.step, 's');
});

test('a step name becomes a safe file name', () => {
  const cases: Array<[string, string]> = [
    ['干活', '干活'],
    ['a/b:c', 'abc'],
    ['  <x>|"y"?*  ', 'xy'],
    ['..\\..\\etc', '....etc'],
    ['/:*?"<>|', 'step'],
    ['', 'step'],
    ['line\nbreak', 'linebreak'],
  ];
  for (const [step, safe] of cases) assert.equal(safeStepName(step), safe, JSON.stringify(step));
  assert.equal(handoffFile('/ws', 'a/b'), path.join('/ws', '.flower', 'notes', '交接-ab.md'));
});

test('a new handoff moves the previous one to the archive, by time, never overwriting an archived one', () => {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-hrec-'));
  const now = new Date(2026, 0, 2, 3, 4, 5);
  const mk = (doing: string) => new Handoff({ step: 'a/b', doing, next: 'n' });
  const first = writeHandoffRecord(ws, mk('one'), now);
  assert.equal(first.path, path.join(ws, '.flower', 'notes', '交接-ab.md'));
  assert.equal(first.archived, null);
  const second = writeHandoffRecord(ws, mk('two'), now);
  assert.equal(second.archived, path.join(ws, '.flower', 'notes', 'archive', '交接', 'ab-20260102-030405.md'));
  const third = writeHandoffRecord(ws, mk('three'), now);
  assert.equal(third.archived, path.join(ws, '.flower', 'notes', 'archive', '交接', 'ab-20260102-030405-2.md'));
  assert.match(fs.readFileSync(first.path, 'utf8'), /three/);
  assert.match(fs.readFileSync(second.archived!, 'utf8'), /one/);
  assert.match(fs.readFileSync(third.archived!, 'utf8'), /two/);
});

test('the stop messages say what to change', () => {
  const c = { step: 'work', window: 60_000, t: thresholds({ window: 60_000, headroom: 0 }) };
  const gens = generationsMessage(c, 8);
  assert.match(gens, /retired 8 sessions/);
  assert.match(gens, /threshold \(45000 tokens of a 60000-token window\)/);
  assert.match(gens, /start-up floor \(about 34k tokens for a coordinator\)/);
  assert.match(gens, /--window N \(or FLOWER_WINDOW\), or run with --no-handoff/);
  const deg = degradedStreakMessage(c, 2);
  assert.match(deg, /2 degraded handoffs in a row in step "work"/);
  assert.match(deg, /window 60000, threshold 45000, room 15000 tokens/);
});

test('a degraded handoff keeps the start of the task and says to inspect the scene first', () => {
  const h = Handoff.degraded('s', `HEAD ${'x'.repeat(2000)} TAIL`, 'context overflow: Prompt is too long');
  assert.equal(h.isDegraded, true);
  assert.equal(h.complete(), true);
  assert.match(h.scene, /HEAD/);
  assert.doesNotMatch(h.scene, /TAIL/);
  assert.match(h.doing, /context overflow/);
  assert.match(h.promptBlock(), /降级/);
});
