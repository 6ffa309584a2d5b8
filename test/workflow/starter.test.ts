/**
 * The starter flow's control flow (clarify / goal / verdict rounds) with a stand-in runtime and channel.
 * The real binary runs the same flow in the CLI end-to-end tests.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Brief, Goal, Verdict } from '../../src/docs/index.js';
import { AgentSpec } from '../../src/runtime/index.js';
import { clarifyStep, goalStep, Step, withGoal, Workflow, type FlowChannel } from '../../src/workflow/index.js';
import { FakeRuntime, type Reply } from '../helpers/fake-runtime.js';

const spec = new AgentSpec({ name: 'x' });
const BRIEF = '## 目标\n写 md2html\n## 验收标准\n- 运行得到 html\n## 边界\n- 不做 GUI\n## 未知与假设\n- 无';
const GOAL = '# 目标\n能把 md 转成 html\n\n# 判定清单\n- node md2html.mjs a.md 输出含 <h1>\n- 空文件不报错';

class FakeChannel implements FlowChannel {
  readonly server = { type: 'sdk', name: 'human' } as unknown as FlowChannel['server'];
  readonly toolNames = ['mcp__human__ask'];
  asked: string[] = [];
  constructor(
    public answers: { state: string; answer?: string; optionIndex?: number }[] = [],
    public verdicts: (Verdict | null)[] = [],
  ) {}
  async ask(q: string) {
    this.asked.push(q);
    return this.answers.shift() ?? { state: 'timeout', answer: null };
  }
  /** the runtime whose judge runs "submit" the queued verdicts: one per judge run, taken after it */
  rt: FakeRuntime | undefined;
  private judgeRunsSeen = 0;
  takeSubmission(kind: 'brief'): Brief | null;
  takeSubmission(kind: 'goal'): Goal | null;
  takeSubmission(kind: 'verdict'): Verdict | null;
  takeSubmission(kind: 'brief' | 'goal' | 'verdict'): Brief | Goal | Verdict | null {
    if (kind !== 'verdict') return null;
    const judgeRuns = this.rt ? this.rt.calls.filter((c) => c.stepName.includes('判定')).length : Number.POSITIVE_INFINITY;
    // a take before any new judge run (the gate clears stale submissions first) finds nothing
    if (judgeRuns === this.judgeRunsSeen) return null;
    this.judgeRunsSeen = judgeRuns;
    return this.verdicts.shift() ?? null;
  }
}

function paths(rt: FakeRuntime) {
  const notes = path.join(rt.workspace, '.flower', 'notes');
  return { briefPath: path.join(notes, '需求.md'), goalPath: path.join(notes, '目标.md'), manifestPath: path.join(rt.runDir, 'manifest.json') };
}

const v = (state: Verdict['state'], reason = 'r', failed: string[] = []) => new Verdict({ state, reason, failed });
/** An achieved verdict that judges every check of GOAL (or of `goal`), each passed with evidence. */
const achieved = (goal = GOAL) =>
  new Verdict({
    state: 'achieved',
    reason: 'all checks seen',
    checks: Goal.parse(goal).checks.map((item) => ({ item, pass: true, evidence: `ran it: ${item}` })),
  });

function workflow(rt: FakeRuntime, ch: FakeChannel, rounds = 3) {
  ch.rt = rt;
  const p = paths(rt);
  const work = withGoal(new Step('干活', spec, 'work'), new AgentSpec({ name: 'judge' }), ch, {
    goalPath: p.goalPath,
    manifestPath: p.manifestPath,
    rounds,
    lang: 'zh',
  });
  return new Workflow([
    clarifyStep(spec, ch, '写个 md 转 html 的脚本', { briefPath: p.briefPath, lang: 'zh' }),
    goalStep(spec, ch, { goalPath: p.goalPath, lang: 'zh' }),
    work,
  ]);
}

test('clarify freezes a complete brief, the goal step writes 目标.md, one achieved verdict ends the work', async () => {
  const rt = new FakeRuntime([{ text: BRIEF }, { text: GOAL }, { text: 'done' }, {}]);
  const ch = new FakeChannel([], [achieved()]);
  const ctx = await workflow(rt, ch).run(rt);
  assert.equal(ctx._failedAt, undefined);
  assert.deepEqual(
    rt.calls.map((c) => c.stepName),
    ['确认需求', '设定目标', '干活', '干活·判定#1'],
  );
  const p = paths(rt);
  assert.equal(Brief.load(p.briefPath)?.complete(), true);
  assert.equal(Goal.load(p.goalPath)?.checks.length, 2);
  assert.match(rt.calls[3]!.prompt, /node md2html\.mjs a\.md/);
  assert.equal(rt.calls[3]!.resume, undefined, 'the judge is a fresh session');
});

test('an incomplete brief fails the clarify step without writing a file and names what is missing', async () => {
  const rt = new FakeRuntime([{ text: '## 目标\n写个东西' }]);
  const ctx = await workflow(rt, new FakeChannel()).run(rt);
  assert.equal(ctx._failedAt, '确认需求');
  assert.deepEqual(ctx._brief_missing, ['验收标准', '边界', '未知与假设']);
  assert.equal(fs.existsSync(paths(rt).briefPath), false);
});

test('a complete brief and goal on disk skip both steps but still reach the work prompt', async () => {
  const rt = new FakeRuntime([{ text: 'done' }, {}]);
  const p = paths(rt);
  Brief.parse(BRIEF).write(p.briefPath);
  Goal.parse(GOAL).write(p.goalPath);
  const ctx = await workflow(rt, new FakeChannel([], [achieved()])).run(rt);
  assert.equal(ctx._failedAt, undefined);
  assert.deepEqual(
    rt.calls.map((c) => c.stepName),
    ['干活', '干活·判定#1'],
  );
  assert.match(String(ctx['确认需求']), /写 md2html/, 'a skipped clarify step still hydrates ctx');
  assert.match(String(ctx['设定目标']), /判定清单/);
});

test("not yet, then achieved: round 2 resumes the same work session with the judge's reason", async () => {
  const rt = new FakeRuntime([{ text: BRIEF }, { text: GOAL }, { text: 'first try' }, {}, { text: 'second try' }, {}]);
  const ch = new FakeChannel([], [v('not_yet', '空文件会崩溃', ['空文件不报错']), achieved()]);
  const ctx = await workflow(rt, ch).run(rt);
  assert.equal(ctx._failedAt, undefined);
  const names = rt.calls.map((c) => c.stepName);
  assert.deepEqual(names, ['确认需求', '设定目标', '干活', '干活·判定#1', '干活#round2', '干活·判定#2']);
  const round2 = rt.calls[4]!;
  assert.equal(round2.resume, rt.calls[2]!.sessionId);
  assert.match(round2.prompt, /空文件会崩溃/);
  assert.match(round2.prompt, /空文件不报错/);
  assert.notEqual(rt.calls[5]!.sessionId, rt.calls[3]!.sessionId, 'every judge is fresh');
});

test('an unclear verdict is never a pass: no verdict fails the judge row with a typed failure and stops cleanly', async () => {
  const rt = new FakeRuntime([{ text: BRIEF }, { text: GOAL }, { text: 'w' }, { text: '看起来还行吧' }]);
  const ctx = await workflow(rt, new FakeChannel(), 3).run(rt);
  assert.equal(ctx._failedAt, '干活');
  assert.equal(ctx._verdict, undefined);
  assert.match(String(ctx._aborted), /干活·判定#1/);
  assert.equal(rt.calls.filter((c) => /^干活(#round\d+)?$/.test(c.stepName)).length, 1, 'no work round is judged by nobody');
  const failed = rt.amended.find((a) => a.step === '干活·判定#1');
  assert.equal(failed?.fields.ok, false);
  assert.equal(failed?.fields.failure?.kind, 'model');
});

// [behaviour, the submitted verdict, the goal, believed state, tally]
const BELIEVED: Array<[string, Verdict, string, Verdict['state'], string]> = [
  ['achieved with no check judged proves nothing', new Verdict({ state: 'achieved', reason: '', checks: [] }), GOAL, 'not_yet', '0/2'],
  [
    'a pass without evidence is not a pass',
    new Verdict({ state: 'achieved', reason: '', checks: Goal.parse(GOAL).checks.map((item) => ({ item, pass: true, evidence: '' })) }),
    GOAL,
    'not_yet',
    '0/2',
  ],
  [
    'judging one of two checks is not achieved',
    new Verdict({ state: 'achieved', reason: '', checks: [{ item: 'node md2html.mjs a.md 输出含 <h1>', pass: true, evidence: 'saw <h1>' }] }),
    GOAL,
    'not_yet',
    '1/2',
  ],
  ['every check, passed, with evidence, is achieved', achieved(), GOAL, 'achieved', '2/2'],
  [
    "the judge's own words for a check (numbered, trailing stop) still name it",
    new Verdict({
      state: 'achieved',
      reason: '',
      checks: [
        { item: '1. node md2html.mjs a.md 输出含 <h1>。', pass: true, evidence: 'saw it' },
        { item: '2) 空文件不报错', pass: true, evidence: 'exit 0' },
      ],
    }),
    GOAL,
    'achieved',
    '2/2',
  ],
];
for (const [what, submitted, goal, state, tally] of BELIEVED) {
  test(`the gate believes a verdict only against the frozen goal: ${what}`, async () => {
    const rt = new FakeRuntime([{ text: BRIEF }, { text: goal }, { text: 'w' }, {}]);
    const ctx = await workflow(rt, new FakeChannel([], [submitted]), 1).run(rt);
    const verdict = ctx._verdict as Verdict;
    assert.equal(verdict.state, state);
    const t = verdict.tally();
    assert.equal(`${t.passed}/${t.total}`, tally);
    assert.equal(ctx._failedAt, state === 'achieved' ? undefined : '干活');
    const row = rt.amended.find((a) => a.step === '干活·判定#1')?.fields.verdict;
    assert.equal(`${row?.outcome} ${row?.passed}/${row?.total}`, `${state} ${tally}`);
  });
}

test('a judge that can submit but did not is told once, in the same session; a verdict then counts', async () => {
  const rt = new FakeRuntime([{ text: BRIEF }, { text: GOAL }, { text: 'w' }, { text: 'I think it works.' }, {}]);
  class Submitting extends FakeChannel {
    override readonly toolNames = ['mcp__human__ask', 'mcp__human__submit_verdict'];
  }
  const ch = new Submitting([], [null, achieved()]);
  const ctx = await workflow(rt, ch, 1).run(rt);
  assert.equal(ctx._failedAt, undefined);
  const judges = rt.calls.filter((c) => c.stepName === '干活·判定#1');
  assert.equal(judges.length, 2);
  assert.equal(judges[1]!.resume, judges[0]!.sessionId, 'the reminder goes to the same judge session');
  assert.match(judges[1]!.prompt, /submit_verdict/);
  const first = rt.amended.filter((a) => a.step === '干活·判定#1');
  assert.equal(first[0]?.fields.failure?.kind, 'model', 'the run that gave no verdict is a failed row');
  assert.equal(first[1]?.fields.verdict?.outcome, 'achieved', 'the verdict lands on the reminded run');
});

test('in English the worker is told why in English', async () => {
  const rt = new FakeRuntime([{ text: BRIEF }, { text: GOAL }, { text: 'w' }, {}, { text: 'w2' }, {}]);
  const ch = new FakeChannel([], [new Verdict({ state: 'achieved', reason: '', checks: [] }), achieved()]);
  ch.rt = rt;
  const p = paths(rt);
  const work = withGoal(new Step('干活', spec, 'work'), new AgentSpec({ name: 'judge' }), ch, {
    goalPath: p.goalPath,
    manifestPath: p.manifestPath,
    rounds: 2,
    lang: 'en',
  });
  const ctx = await new Workflow([
    clarifyStep(spec, ch, 'x', { briefPath: p.briefPath, lang: 'en' }),
    goalStep(spec, ch, { goalPath: p.goalPath, lang: 'en' }),
    work,
  ]).run(rt);
  assert.equal(ctx._failedAt, undefined);
  const round2 = rt.calls.find((c) => c.stepName === '干活#round2')!;
  assert.match(round2.prompt, /The last round did not reach the goal/);
  assert.match(round2.prompt, /not judged: node md2html\.mjs a\.md/);
  assert.doesNotMatch(round2.prompt, /上一轮|按未达成|判定者|没有判定/, "flower's own words are English");
});

test('unreachable with nobody answering stops at once without spending the remaining rounds', async () => {
  const rt = new FakeRuntime([{ text: BRIEF }, { text: GOAL }, { text: 'w' }, {}]);
  const ch = new FakeChannel([{ state: 'timeout' }], [v('unreachable', '需要 macOS 才能验证')]);
  const ctx = await workflow(rt, ch, 5).run(rt);
  assert.equal(ctx._failedAt, '干活');
  assert.match(String(ctx._aborted), /需要 macOS 才能验证/);
  assert.match(String(ctx._aborted), /目标\.md/);
  assert.equal(rt.calls.filter((c) => c.stepName.startsWith('干活')).length, 2);
});

test('unreachable: accept passes, change the goal amends 目标.md and goes on, "you are wrong" goes on with the override', async () => {
  {
    const rt = new FakeRuntime([{ text: BRIEF }, { text: GOAL }, { text: 'w' }, {}]);
    const ctx = await workflow(rt, new FakeChannel([{ state: 'answered', answer: '接受这个结果,就这样往下走', optionIndex: 0 }], [v('unreachable')])).run(rt);
    assert.equal(ctx._failedAt, undefined);
  }
  {
    const rt = new FakeRuntime([{ text: BRIEF }, { text: GOAL }, { text: 'w' }, {}, { text: 'w2' }, {}]);
    const ch = new FakeChannel(
      [
        { state: 'answered', answer: '修改目标', optionIndex: 1 },
        { state: 'answered', answer: '只需支持标题' },
      ],
      [v('unreachable'), achieved(`${GOAL}\n- (已修改)只需支持标题`)],
    );
    const ctx = await workflow(rt, ch).run(rt);
    assert.equal(ctx._failedAt, undefined);
    assert.match(fs.readFileSync(paths(rt).goalPath, 'utf8'), /\(已修改\)只需支持标题/);
    assert.match(rt.calls[4]!.prompt, /只需支持标题/);
  }
  {
    const rt = new FakeRuntime([{ text: BRIEF }, { text: GOAL }, { text: 'w' }, {}, { text: 'w2' }, {}]);
    const ch = new FakeChannel(
      [{ state: 'answered', answer: '其实可以验证,用 node 跑', optionIndex: undefined as unknown as number }],
      [v('unreachable'), achieved()],
    );
    const ctx = await workflow(rt, ch).run(rt);
    assert.equal(ctx._failedAt, undefined);
    assert.match(rt.calls[4]!.prompt, /其实可以验证/);
  }
});

test('rounds is the total number of work rounds', async () => {
  for (const rounds of [1, 3]) {
    const replies: Reply[] = [{ text: BRIEF }, { text: GOAL }];
    for (let i = 0; i < rounds; i++) replies.push({ text: 'w' }, { text: '结论:未达成\n理由:还差' });
    const rt = new FakeRuntime(replies);
    const ctx = await workflow(rt, new FakeChannel(), rounds).run(rt);
    assert.equal(ctx._failedAt, '干活');
    assert.equal(rt.calls.filter((c) => /^干活(#round\d+)?$/.test(c.stepName)).length, rounds);
  }
});

test('a goal with unverifiable items is announced once with the path, without blocking', async () => {
  const goal = '# 目标\nx\n# 判定清单\n- a 能跑\n- b 在 macOS 上截图 [此环境无法验证:没有 macOS]';
  const rt = new FakeRuntime([{ text: BRIEF }, { text: goal }, { text: 'w' }, {}]);
  const events: { kind: string; payload: Record<string, unknown> }[] = [];
  const ctx = await workflow(rt, new FakeChannel([], [achieved(goal)])).run(rt, { onEvent: (e) => events.push(e) });
  assert.equal(ctx._failedAt, undefined);
  const tasks = events.filter((e) => e.kind === 'task' && e.payload.kind === 'unverifiable');
  assert.equal(tasks.length, 1);
  assert.equal(tasks[0]!.payload.total, 2);
  assert.deepEqual((tasks[0]!.payload.unverifiable as string[]).length, 1);
});

test('no runtime in ctx means the gate refuses to pass unjudged work', async () => {
  const ch = new FakeChannel();
  const step = withGoal(new Step('干活', spec, 'w'), spec, ch, { goalPath: '/nonexistent/目标.md', manifestPath: 'm', lang: 'en' });
  await assert.rejects(async () => step.gate!({ ok: true } as never, { _sessions: {}, _results: {} }), /unjudged/);
});

test('remarks the person sent during the run reach the judge with the goal', async () => {
  const rt = new FakeRuntime([{ text: BRIEF }, { text: GOAL }, { text: 'w' }, {}]);
  const ch = new FakeChannel([], [achieved()]);
  ch.rt = rt;
  const p = paths(rt);
  const work = withGoal(
    new Step('干活', spec, (ctx) => {
      // the person types a remark while the work runs: it lands in 需求.md as 运行中补充
      Brief.amend(p.briefPath, '顺便支持表格');
      return `work ${String(ctx['确认需求']).length}`;
    }),
    new AgentSpec({ name: 'judge' }),
    ch,
    { goalPath: p.goalPath, briefPath: p.briefPath, manifestPath: p.manifestPath, lang: 'zh' },
  );
  const wf = new Workflow([clarifyStep(spec, ch, 'x', { briefPath: p.briefPath, lang: 'zh' }), goalStep(spec, ch, { goalPath: p.goalPath, lang: 'zh' }), work]);
  const ctx = await wf.run(rt);
  assert.equal(ctx._failedAt, undefined);
  const judgeCall = rt.calls.find((c) => c.stepName === '干活·判定#1')!;
  assert.match(judgeCall.prompt, /运行中人补充的要求[\s\S]*顺便支持表格/);
});
