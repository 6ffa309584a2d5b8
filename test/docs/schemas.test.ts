import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { tool } from '@anthropic-ai/claude-agent-sdk';
import { Brief, CONTRADICTORY_ACHIEVED, Goal, Handoff, fromSubmission } from '../../src/docs/index.js';
import {
  submitBriefSchema,
  submitBriefShape,
  submitGoalSchema,
  submitGoalShape,
  submitHandoffSchema,
  submitHandoffShape,
  submitVerdictSchema,
  submitVerdictShape,
} from '../../src/docs/schemas.js';

const rejects: Array<[string, z.ZodType, unknown]> = [
  ['a brief with an empty goal', submitBriefSchema, { goal: '  ', acceptance: ['a'], boundaries: ['b'], unknowns: ['u'] }],
  ['a brief without acceptance criteria', submitBriefSchema, { goal: 'g', acceptance: [], boundaries: ['b'], unknowns: ['u'] }],
  ['a goal without checks', submitGoalSchema, { statement: 's', checks: [] }],
  ['a goal check with empty text', submitGoalSchema, { statement: 's', checks: [{ text: '' }] }],
  ['a verdict with an unknown state', submitVerdictSchema, { state: 'maybe', reason: '', checks: [] }],
  ['a verdict check without evidence field', submitVerdictSchema, { state: 'achieved', reason: '', checks: [{ item: 'x', pass: true }] }],
  ['a handoff without next', submitHandoffSchema, { doing: 'd', decided: '', deadends: '', next: '', scene: '' }],
];
for (const [name, schema, input] of rejects) {
  test(`schema rejects ${name}`, () => assert.equal(schema.safeParse(input).success, false));
}

test('a brief submission becomes a complete Brief with one bullet per item', () => {
  const x = submitBriefSchema.parse({ goal: ' 转 md ', acceptance: ['跑 x 得到 y', '- 跑 z'], boundaries: ['不做 GUI'], unknowns: ['假设 UTF-8'] });
  const b = fromSubmission.brief(x);
  assert.ok(b instanceof Brief);
  assert.equal(b.complete(), true);
  assert.equal(b.goal, '转 md');
  assert.equal(b.acceptance, '- 跑 x 得到 y\n- 跑 z');
  assert.deepEqual(Brief.parse(b.toMarkdown()).unknowns, '- 假设 UTF-8');
});

test('a goal submission marks unverifiable checks with the canonical suffix', () => {
  const g = fromSubmission.goal(
    submitGoalSchema.parse({
      statement: 's',
      checks: [{ text: 'make 成功' }, { text: 'macOS 上能跑', unverifiable_reason: '容器是 Linux' }],
    }),
  );
  assert.ok(g instanceof Goal);
  assert.deepEqual(g.checks, ['make 成功', 'macOS 上能跑 [此环境无法验证:容器是 Linux]']);
  assert.deepEqual(g.unverifiable, ['macOS 上能跑 [此环境无法验证:容器是 Linux]']);
  assert.deepEqual(Goal.parse(g.toMarkdown()).unverifiable, g.unverifiable);
});

test('a verdict submission keeps per-check evidence and derives failed items', () => {
  const v = fromSubmission.verdict(
    submitVerdictSchema.parse({
      state: 'not_yet',
      reason: '产物是 Mach-O',
      checks: [
        { item: 'make 成功', pass: true, evidence: 'exit 0' },
        { item: '是 ELF', pass: false, evidence: 'file: Mach-O' },
      ],
    }),
  );
  assert.equal(v.state, 'not_yet');
  assert.deepEqual(v.failed, ['是 ELF']);
  assert.equal(v.checks?.[1]?.evidence, 'file: Mach-O');
});

test('"achieved" with a failed or undetermined check is not believed', () => {
  const v = fromSubmission.verdict(
    submitVerdictSchema.parse({
      state: 'achieved',
      reason: '',
      checks: [
        { item: 'a', pass: true, evidence: 'ok' },
        { item: 'b', pass: null, evidence: '' },
      ],
    }),
  );
  assert.equal(v.state, 'not_yet');
  assert.equal(v.reason, CONTRADICTORY_ACHIEVED);
  assert.deepEqual(v.failed, ['b']);
  const clean = fromSubmission.verdict(
    submitVerdictSchema.parse({
      state: 'achieved',
      reason: '',
      checks: [{ item: 'a', pass: true, evidence: 'ok' }],
    }),
  );
  assert.equal(clean.achieved, true);
});

test('a handoff submission becomes a complete Handoff with its step', () => {
  const h = fromSubmission.handoff(submitHandoffSchema.parse({ doing: 'd', decided: '', deadends: '', next: 'n', scene: 'p' }), { step: '干活' });
  assert.ok(h instanceof Handoff);
  assert.equal(h.complete(), true);
  assert.equal(h.step, '干活');
});

test('the raw shapes plug into the SDK tool() and into JSON Schema', () => {
  const ok = async () => ({ content: [{ type: 'text' as const, text: 'ok' }] });
  const shapes = { submit_brief: submitBriefShape, submit_goal: submitGoalShape, submit_verdict: submitVerdictShape, submit_handoff: submitHandoffShape };
  for (const [name, shape] of Object.entries(shapes)) {
    const def = tool(name, 'd', shape, ok);
    assert.equal(def.name, name);
    const js = z.toJSONSchema(z.object(shape)) as { required?: string[]; properties?: Record<string, unknown> };
    assert.deepEqual(Object.keys(js.properties ?? {}).sort(), Object.keys(shape).sort());
  }
  const verdict = z.toJSONSchema(submitVerdictSchema) as { required?: string[] };
  assert.deepEqual(verdict.required?.sort(), ['checks', 'reason', 'state']);
});
