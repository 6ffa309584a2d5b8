/**
 * Which 需求.md / 目标.md flower may replace: only what it wrote (a complete document, or the remark-only
 * file its mailbox starts before the freeze). Anything else is moved aside as `<file>.kept-<stamp>`
 * before the new one is written — never overwritten.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { AMEND_FILE_HEADER, Brief, Goal, briefForeign, goalForeign } from '../../src/docs/index.js';
import { amendBrief } from '../../src/human/index.js';

const full = new Brief({ goal: 'g', acceptance: 'a', boundaries: 'b', unknowns: 'u' });
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'flower-foreign-'));

test("briefForeign: flower's own shapes are replaceable, anything else is not", () => {
  const cases: Array<[string, string, boolean]> = [
    ['a complete brief', full.toMarkdown(), false],
    ['an empty file', '', false],
    ['the mailbox header alone', `${AMEND_FILE_HEADER}\n`, false],
    ['the mailbox header and a remark', `${AMEND_FILE_HEADER}\n\n## 运行中补充(10:00:00)\nuse tabs\n`, false],
    ["a person's own notes", 'my notes\nmore notes\n', true],
    ['an incomplete brief', '## 目标\n\nsomething\n', true],
    ['notes followed by a remark', 'my notes\n\n## 运行中补充(10:00:00)\nx\n', true],
  ];
  for (const [what, text, foreign] of cases) assert.equal(briefForeign(text) !== null, foreign, what);
  assert.match(briefForeign('x')!, /missing: 目标, 验收标准, 边界, 未知与假设/);
  assert.equal(goalForeign(new Goal({ statement: 's', checks: ['c'] }).toMarkdown()), null);
  assert.notEqual(goalForeign('# my goals\nlearn rust\n'), null);
});

test("writing a brief over a person's notes moves them aside first and says where; over flower's own, no copy", () => {
  const d = tmp();
  const f = path.join(d, '需求.md');
  fs.writeFileSync(f, 'my notes\n\n## 运行中补充(10:00:00)\nkeep this remark\n');
  const w = full.write(f);
  assert.ok(w.kept && /需求\.md\.kept-\d{8}-\d{6}$/.test(w.kept));
  assert.match(w.keptReason!, /not a complete brief/);
  assert.equal(fs.readFileSync(w.kept, 'utf8'), 'my notes\n\n## 运行中补充(10:00:00)\nkeep this remark\n');
  assert.match(fs.readFileSync(f, 'utf8'), /keep this remark/, 'the remark carries over into the new brief');
  const again = full.write(f);
  assert.equal(again.kept, null);
  const g = path.join(d, 'amended.md');
  amendBrief(g, 'a remark before the freeze');
  assert.equal(full.write(g).kept, null, "the mailbox file is flower's");
  assert.deepEqual(fs.readdirSync(d).filter((n) => n.includes('.kept-')).length, 1);
});
