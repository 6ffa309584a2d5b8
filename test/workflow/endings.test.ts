/**
 * Honest endings in the Workflow: a result the gate rejects is a failed step (ok:false with the reason,
 * the manifest row corrected through `amend`), a rejected round reports its own cost before the next
 * one, the judge's verdict lands on its row with the pass count; and the Workflow carries the channel
 * and workbench wishes `flower run` reads.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Verdict } from '../../src/docs/index.js';
import { HumanChannel } from '../../src/human/index.js';
import { AgentSpec, type StepResult } from '../../src/runtime/index.js';
import { Step, withGoal, Workflow, type FlowChannel } from '../../src/workflow/index.js';
import { FakeRuntime } from '../helpers/fake-runtime.js';

/** The stand-in records what a gate amends (FakeRuntime.amend), as the real Runtime writes it to the row. */
const AmendingRuntime = FakeRuntime;

const spec = new AgentSpec({ name: 'x' });

test("an ok run the gate rejects is a failed step: ok:false with the gate's reason, and its row is amended", async () => {
  const rt = new AmendingRuntime([{ text: 'half a brief' }]);
  const step = new Step('确认需求', spec, 'p', {
    gate: (_r, ctx) => {
      ctx._rejected = 'no complete brief (missing: 边界)';
      return false;
    },
  });
  const seen: StepResult[] = [];
  const ctx = await new Workflow([step]).run(rt, { onStep: (_n, r) => seen.push(r) });
  assert.equal(ctx._failedAt, '确认需求');
  assert.equal(seen[0]!.ok, false);
  assert.equal(seen[0]!.error, 'no complete brief (missing: 边界)');
  assert.deepEqual(rt.amended, [
    {
      step: '确认需求',
      fields: {
        ok: false,
        error: 'no complete brief (missing: 边界)',
        failure: { kind: 'rejected', retryable: false, message: 'no complete brief (missing: 边界)' },
      },
    },
  ]);
});

test("a rejected round reports its own line (cost, reason) before the next round; the judge's verdict lands on its row with n/m", async () => {
  const verdicts = [
    new Verdict({
      state: 'not_yet',
      reason: 'two checks fail',
      checks: [
        { item: 'a', pass: true, evidence: 'e' },
        { item: 'b', pass: false, evidence: '' },
        { item: 'c', pass: false, evidence: '' },
      ],
    }),
    new Verdict({
      state: 'achieved',
      reason: '',
      checks: [
        { item: 'a', pass: true, evidence: 'e' },
        { item: 'b', pass: true, evidence: 'e' },
        { item: 'c', pass: true, evidence: 'e' },
      ],
    }),
  ];
  const rt = new AmendingRuntime([{ cost_usd: 0.1 }, { cost_usd: 0.02 }, { cost_usd: 0.3 }, { cost_usd: 0.04 }]);
  // one verdict per judge run, taken after it (the gate clears a stale submission before the judge runs)
  let judgeRuns = 0;
  const channel = {
    server: {},
    toolNames: [],
    ask: async () => ({ state: 'timeout' }),
    takeSubmission: (k: string) => {
      const n = rt.calls.filter((c) => c.stepName.includes('判定')).length;
      if (k !== 'verdict' || n === judgeRuns) return null;
      judgeRuns = n;
      return verdicts.shift() ?? null;
    },
  } as unknown as FlowChannel;
  const work = withGoal(new Step('干活', spec, 'work'), spec, channel, { goalPath: '/nonexistent/目标.md', manifestPath: '/x', rounds: 2, lang: 'en' });
  const events: { kind: string; payload: Record<string, unknown> }[] = [];
  const ctx = await new Workflow([work], { continuous: false }).run(rt, { onEvent: (e) => events.push(e) });
  assert.equal(ctx._failedAt, undefined);
  const tasks = events.filter((e) => e.kind === 'task').map((e) => e.payload);
  assert.deepEqual(
    tasks.map((t) => t.kind),
    ['verdict', 'attempt', 'verdict'],
  );
  assert.deepEqual([tasks[0]!.outcome, tasks[0]!.passed, tasks[0]!.total, tasks[0]!.cost_usd], ['not_yet', 1, 3, 0.02]);
  const attempt = tasks[1]!.result as StepResult;
  assert.equal(attempt.cost_usd, 0.1, 'the rejected round shows its own cost');
  assert.equal(attempt.error, 'verdict not_yet (1/3): two checks fail');
  assert.deepEqual(
    rt.amended.map((a) => [a.step, a.fields.verdict ?? a.fields.failure?.kind]),
    [
      ['干活·判定#1', { outcome: 'not_yet', passed: 1, total: 3 }],
      ['干活', 'rejected'],
      ['干活·判定#2', { outcome: 'achieved', passed: 3, total: 3 }],
    ],
  );
});

test('Verdict.tally: per-check results when given, else the goal count less the failed items', () => {
  const cases: [Verdict, number, { passed: number; total: number }][] = [
    [
      new Verdict({
        state: 'achieved',
        checks: [
          { item: 'a', pass: true, evidence: '' },
          { item: 'b', pass: true, evidence: '' },
        ],
      }),
      9,
      { passed: 2, total: 2 },
    ],
    [
      new Verdict({
        state: 'not_yet',
        checks: [
          { item: 'a', pass: null, evidence: '' },
          { item: 'b', pass: true, evidence: '' },
        ],
      }),
      0,
      { passed: 1, total: 2 },
    ],
    [new Verdict({ state: 'achieved' }), 5, { passed: 5, total: 5 }],
    [new Verdict({ state: 'not_yet', failed: ['x', 'y'] }), 5, { passed: 3, total: 5 }],
    [new Verdict({ state: 'not_yet' }), 4, { passed: 0, total: 4 }],
    [new Verdict({ state: 'achieved' }), 0, { passed: 0, total: 0 }],
  ];
  for (const [v, n, want] of cases) assert.deepEqual(v.tally(n), want, JSON.stringify(v));
});

test('Workflow options: the channel is kept for `flower run`; the workbench follows the specs unless set', () => {
  const channel = new HumanChannel({ timeoutS: 0 });
  const wants = new AgentSpec({ name: 'c' });
  const not = new AgentSpec({ name: 'j', workbench: false });
  assert.equal(new Workflow([new Step('a', not, 'p')], { channel }).channel, channel);
  assert.equal(new Workflow([new Step('a', not, 'p')]).workbench, false);
  assert.equal(new Workflow([new Step('a', not, 'p'), new Step('b', wants, 'p')]).workbench, true);
  assert.equal(new Workflow([new Step('b', wants, 'p')], { workbench: false }).workbench, false);
  channel.close();
});
