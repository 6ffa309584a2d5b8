/**
 * A rejected submission's pure formatting: the real schemas' zod issues → typed `{ field, reason }`,
 * then one readable line per rejection (en and zh) within a width, never JSON; a reason clipped
 * between words; and the renderer showing the typed line once, not the model's explanation.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Renderer } from '../../src/cli/render.js';
import { clipWords, refusalLines } from '../../src/cli/screen/refusal.js';
import { screenTexts } from '../../src/cli/screen/texts.js';
import { width } from '../../src/cli/screen/wrap.js';
import { submitBriefSchema, submitGoalSchema, submitVerdictSchema } from '../../src/docs/schemas.js';
import { explain, fieldIssues, type FieldIssue } from '../../src/human/index.js';
import { rejectionEvent } from '../../src/human/events.js';
import { event } from '../../src/runtime/index.js';

function issuesOf(schema: { safeParse(x: unknown): { success: boolean; error?: unknown } }, input: unknown): FieldIssue[] {
  const r = schema.safeParse(input);
  assert.equal(r.success, false);
  return fieldIssues(r.error as Parameters<typeof fieldIssues>[0], input);
}

const BRIEF_OK = { goal: 'g', acceptance: ['a'], boundaries: ['b'], unknowns: ['u'] };

test('zod issues → fields and reasons, typed', () => {
  const rows: [string, { parse(x: unknown): unknown; safeParse(x: unknown): { success: boolean } }, unknown, [string, string][]][] = [
    ['a missing field', submitBriefSchema, { ...BRIEF_OK, unknowns: undefined }, [['unknowns', 'required']]],
    ['text for a list', submitBriefSchema, { ...BRIEF_OK, acceptance: 'one' }, [['acceptance', 'expected_list']]],
    ['an empty list', submitBriefSchema, { ...BRIEF_OK, boundaries: [] }, [['boundaries', 'empty_list']]],
    ['blank text', submitBriefSchema, { ...BRIEF_OK, goal: '   ' }, [['goal', 'empty']]],
    ['a blank line inside a list', submitBriefSchema, { ...BRIEF_OK, acceptance: ['a', ' '] }, [['acceptance.1', 'empty']]],
    ['a number for text', submitBriefSchema, { ...BRIEF_OK, goal: 3 }, [['goal', 'expected_text']]],
    ['a nested field', submitGoalSchema, { statement: 's', checks: [{ text: 'c' }, {}] }, [['checks.1.text', 'required']]],
    ['a value off the list', submitVerdictSchema, { state: 'done', reason: '', checks: [] }, [['state', 'not_allowed']]],
    [
      'a text for a boolean',
      submitVerdictSchema,
      { state: 'achieved', reason: '', checks: [{ item: 'i', pass: 'yes', evidence: 'e' }] },
      [['checks.0.pass', 'expected_boolean']],
    ],
  ];
  for (const [what, schema, input, want] of rows) {
    const got = issuesOf(schema, input).map((i) => [i.field, i.reason]);
    assert.deepEqual(got, want, what);
  }
  const off = issuesOf(submitVerdictSchema, { state: 'done', reason: '', checks: [] })[0]!;
  assert.deepEqual(off.allowed, ['achieved', 'not_yet', 'unreachable']);
});

test('what the model is told keeps every field with the schema’s own message', () => {
  const issues = issuesOf(submitBriefSchema, { goal: 'g', acceptance: 'one', boundaries: [] });
  assert.equal(
    explain(issues, 'en'),
    'Not received; missing or invalid fields:\n- acceptance: Invalid input: expected array, received string\n- boundaries: give at least one boundary\n- unknowns: Invalid input: expected array, received undefined',
  );
  assert.match(explain(issues, 'zh'), /^没有收下,缺少或不合格的字段:\n- acceptance: /);
});

test('issues → one line naming each field, within the width, both languages', () => {
  const issues = issuesOf(submitBriefSchema, { goal: 'g', acceptance: 'one', boundaries: [] });
  const verdict = issuesOf(submitVerdictSchema, { state: 'done', reason: '', checks: [] });
  const rows: [string, 'en' | 'zh', 'brief' | 'verdict', FieldIssue[], number, string[]][] = [
    [
      'en, one line',
      'en',
      'brief',
      issues,
      0,
      ['~ brief not accepted: acceptance — expected a list; boundaries — needs at least one item; unknowns — required'],
    ],
    [
      'en, wrapped between words at 60',
      'en',
      'brief',
      issues,
      60,
      ['~ brief not accepted: acceptance — expected a list;', '  boundaries — needs at least one item; unknowns —', '  required'],
    ],
    ['zh, one line', 'zh', 'brief', issues, 0, ['~ 需求确认书没收下:acceptance — 应为列表; boundaries — 至少要一条; unknowns — 缺了']],
    ['zh, wrapped at 40', 'zh', 'brief', issues, 40, ['~ 需求确认书没收下:acceptance —', '  应为列表; boundaries — 至少要一条;', '  unknowns — 缺了']],
    ['en, the allowed values', 'en', 'verdict', verdict, 0, ['~ verdict not accepted: state — one of achieved / not_yet / unreachable']],
    ['zh, the allowed values', 'zh', 'verdict', verdict, 0, ['~ 判定没收下:state — 只能是 achieved / not_yet / unreachable']],
  ];
  for (const [what, lang, kind, list, cols, want] of rows) {
    const got = refusalLines(kind, list, screenTexts(lang), cols);
    assert.deepEqual(got, want, what);
    for (const l of got) {
      assert.ok(cols === 0 || width(l) <= cols, `${what}: ${l}`);
      assert.doesNotMatch(l, /[{}"]/, what);
    }
  }
});

test('a reason clipped between words, never inside one; CJK between characters', () => {
  const rows: [string, number, string][] = [
    ['fits whole', 40, 'fits whole'],
    ['no complete brief (missing: goal, acceptance)', 24, 'no complete brief…'],
    ['no   complete\nbrief', 0, 'no complete brief'],
    ['supercalifragilistic', 10, 'supercal…'],
    ['没有完整的需求确认书,缺了目标', 12, '没有完整的…'],
  ];
  for (const [text, cols, want] of rows) {
    const got = clipWords(text, cols);
    assert.equal(got, want, text);
    assert.ok(cols === 0 || width(got) <= cols, got);
  }
});

test("the renderer shows the channel's typed line once, and nothing of the model's explanation", () => {
  let out = '';
  const ui = new Renderer({ write: (s: string) => (out += s) }, 'en');
  const issues = issuesOf(submitBriefSchema, { goal: 'g', acceptance: 'one', boundaries: ['b'], unknowns: ['u'] });
  for (const id of ['t1', 't2']) {
    ui.event(event('tool_call', '', { id, input: {} }, { tool: 'mcp__human__submit_brief' }));
    ui.event(rejectionEvent('brief', issues));
    ui.event(event('tool_result', explain(issues, 'en'), { tool_use_id: id, is_error: true }));
  }
  assert.equal(out.match(/^~ brief not accepted: acceptance — expected a list$/gm)?.length, 2, out);
  assert.doesNotMatch(out, /Not received|Invalid input|was rejected/);
  // a rejection with no typed event (a review's refusal): its first line only, in words
  ui.event(event('tool_call', '', { id: 't3', input: {} }, { tool: 'mcp__human__submit_brief' }));
  ui.event(event('tool_result', 'first line\nsecond line', { tool_use_id: 't3', is_error: true }));
  assert.match(out, /^x the brief was rejected: first line$/m);
  assert.doesNotMatch(out, /second line/);
});
