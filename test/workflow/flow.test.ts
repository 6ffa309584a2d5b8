import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '../../src/errors.js';
import { AgentSpec, type FlowerEvent } from '../../src/runtime/index.js';
import { Lineage, Step, StepAbort, Workflow } from '../../src/workflow/index.js';
import { FakeRuntime } from '../helpers/fake-runtime.js';

const spec = new AgentSpec({ name: 'a' });

test('a step whose `when` says no is skipped: no call, no result, no event', async () => {
  const rt = new FakeRuntime();
  const events: FlowerEvent[] = [];
  const wf = new Workflow([new Step('x', spec, 'p', { when: () => false }), new Step('y', spec, 'q')], { continuous: false });
  const ctx = await wf.run(rt, { onEvent: (e) => events.push(e) });
  assert.deepEqual(
    rt.calls.map((c) => c.stepName),
    ['y'],
  );
  assert.equal(ctx._results.x, undefined);
  assert.deepEqual(
    events.filter((e) => e.kind === 'step').map((e) => e.text),
    ['y'],
  );
});

test('resumeFrom a step that has no session throws instead of silently starting fresh', async () => {
  const rt = new FakeRuntime();
  const wf = new Workflow([new Step('x', spec, 'p', { when: () => false }), new Step('y', spec, 'q', { resumeFrom: 'x' })], { continuous: false });
  await assert.rejects(wf.run(rt), /resumes from 'x'/);
});

test('resumeFrom continues the named step session', async () => {
  const rt = new FakeRuntime();
  const wf = new Workflow([new Step('x', spec, 'p'), new Step('y', spec, 'q', { resumeFrom: 'x' })], { continuous: false });
  await wf.run(rt);
  assert.equal(rt.calls[1]!.resume, rt.calls[0]!.sessionId);
});

test('the gate runs once per attempt, never on a failed result, and stops at the first pass', async () => {
  const rt = new FakeRuntime([{ ok: false, error: 'boom' }, {}, {}]);
  const gated: string[] = [];
  let pass = false;
  const wf = new Workflow(
    [
      new Step('x', spec, 'p', {
        retries: 3,
        gate: (r) => {
          gated.push(r.step);
          const p = pass;
          pass = true;
          return p;
        },
      }),
    ],
    { continuous: false },
  );
  const ctx = await wf.run(rt);
  assert.deepEqual(
    rt.calls.map((c) => c.stepName),
    ['x', 'x#retry1', 'x#retry2'],
  );
  assert.deepEqual(gated, ['x#retry1', 'x#retry2']);
  assert.equal(ctx._failedAt, undefined);
});

test('a rejected round resumes the same session with onReject text, labelled #roundN', async () => {
  const rt = new FakeRuntime();
  let n = 0;
  const wf = new Workflow(
    [
      new Step('w', spec, 'do it', {
        retries: 2,
        gate: () => ++n >= 2,
        onReject: () => 'close the gap',
      }),
    ],
    { continuous: false },
  );
  await wf.run(rt);
  assert.deepEqual(
    rt.calls.map((c) => [c.stepName, c.prompt]),
    [
      ['w', 'do it'],
      ['w#round2', 'close the gap'],
    ],
  );
  assert.equal(rt.calls[1]!.resume, rt.calls[0]!.sessionId);
  assert.equal(rt.calls[1]!.fork, undefined);
});

test('an empty onReject reply reruns the step from scratch', async () => {
  const rt = new FakeRuntime();
  const wf = new Workflow([new Step('w', spec, 'do it', { retries: 1, gate: () => false, onReject: () => '' })], { continuous: false });
  const ctx = await wf.run(rt);
  assert.equal(rt.calls[1]!.resume, undefined);
  assert.equal(rt.calls[1]!.prompt, 'do it');
  assert.equal(ctx._failedAt, 'w');
});

test('StepAbort stops at once without spending the remaining retries', async () => {
  const rt = new FakeRuntime();
  const wf = new Workflow(
    [
      new Step('w', spec, 'p', {
        retries: 4,
        gate: () => {
          throw new StepAbort('nobody answered');
        },
      }),
    ],
    { continuous: false },
  );
  const ctx = await wf.run(rt);
  assert.equal(rt.calls.length, 1);
  assert.equal(ctx._aborted, 'nobody answered');
  assert.equal(ctx._failedAt, 'w');
});

test('onFail decides what a failed step leaves: stop ends the run, skip leaves nothing, continue leaves the text', async () => {
  for (const [onFail, expectNext, expectValue] of [
    ['stop', false, undefined],
    ['skip', true, undefined],
    ['continue', true, 'bad'],
  ] as const) {
    const rt = new FakeRuntime([{ ok: false, text: 'bad' }]);
    const wf = new Workflow([new Step('x', spec, 'p', { onFail }), new Step('y', spec, 'q')], { continuous: false });
    const ctx = await wf.run(rt);
    assert.equal(rt.calls.length, expectNext ? 2 : 1, onFail);
    assert.equal(ctx.x, expectValue, onFail);
    assert.equal(ctx._failedAt, onFail === 'stop' ? 'x' : undefined, onFail);
  }
});

test('a passed step leaves reduce() output under its name; prompts may be functions of ctx', async () => {
  const rt = new FakeRuntime([{ text: 'raw one' }, { text: 'raw two' }]);
  const wf = new Workflow([new Step('x', spec, 'p', { reduce: (r) => r.text.toUpperCase() }), new Step('y', spec, async (ctx) => `use ${String(ctx.x)}`)], {
    continuous: false,
  });
  const ctx = await wf.run(rt);
  assert.equal(ctx.x, 'RAW ONE');
  assert.equal(rt.calls[1]!.prompt, 'use RAW ONE');
  assert.equal(ctx.y, 'raw two');
});

test('onStep is called for failed steps too', async () => {
  const rt = new FakeRuntime([{ ok: false }]);
  const seen: string[] = [];
  await new Workflow([new Step('x', spec, 'p')], { continuous: false }).run(rt, { onStep: (n, r) => seen.push(`${n}:${r.ok}`) });
  assert.deepEqual(seen, ['x:false']);
});

test('a second run in the same folder continues the same session, wakes 2, and sends resumePrompt', async () => {
  const rt = new FakeRuntime();
  const mk = () => new Workflow([new Step('取词', spec, 'first prompt', { resumePrompt: 'carry on' })]);
  const c1 = await mk().run(rt);
  const c2 = await mk().run(rt);
  assert.equal(c1._woke, 1);
  assert.equal(c2._woke, 2);
  assert.equal(c2._sessions['取词'], c1._sessions['取词']);
  assert.deepEqual(
    rt.calls.map((c) => [c.prompt, c.resume ?? null]),
    [
      ['first prompt', null],
      ['carry on', c1._sessions['取词']],
    ],
  );
});

test('without resumePrompt a resumed step is sent its prompt again', async () => {
  const rt = new FakeRuntime();
  await new Workflow([new Step('s', spec, 'same')]).run(rt);
  await new Workflow([new Step('s', spec, 'same')]).run(rt);
  assert.equal(rt.calls[1]!.prompt, 'same');
  assert.ok(rt.calls[1]!.resume);
});

test('a session gone from sessions.db is silently dropped from lineage: the step starts fresh', async () => {
  const rt = new FakeRuntime();
  await new Workflow([new Step('s', spec, 'p')]).run(rt);
  rt.alive.clear();
  const ctx = await new Workflow([new Step('s', spec, 'p')]).run(rt);
  assert.equal(rt.calls[1]!.resume, undefined);
  assert.equal(ctx._failedAt, undefined);
});

test('continuous: false never resumes and writes no lineage', async () => {
  const rt = new FakeRuntime();
  await new Workflow([new Step('s', spec, 'p')], { continuous: false }).run(rt);
  const ctx = await new Workflow([new Step('s', spec, 'p')], { continuous: false }).run(rt);
  assert.equal(rt.calls[1]!.resume, undefined);
  assert.equal(ctx._woke, undefined);
  assert.equal(fs.existsSync(Lineage.fileIn(rt.runDir)), false);
});

test('an explicit resumeFrom wins over lineage', async () => {
  const rt = new FakeRuntime();
  const mk = () => new Workflow([new Step('a', spec, 'p'), new Step('b', spec, 'q', { resumeFrom: 'a' })]);
  await mk().run(rt);
  const ctx = await mk().run(rt);
  assert.equal(rt.calls[3]!.resume, ctx._sessions.a);
});

test('the lineage hook is attached around the step call only: an agent run inside the gate is never recorded', async () => {
  const rt = new FakeRuntime();
  const judge = new AgentSpec({ name: 'judge' });
  const wf = new Workflow([
    new Step('干活', spec, 'work', {
      gate: async (_r, ctx) => {
        const v = await ctx._runtime!.run(judge, 'judge it', { stepName: '干活·判定#1' });
        return v.ok;
      },
    }),
  ]);
  const ctx = await wf.run(rt);
  const [work, verdict] = rt.calls;
  assert.equal(work!.hooked, true);
  assert.equal(verdict!.hooked, false);
  const onDisk = JSON.parse(fs.readFileSync(Lineage.fileIn(rt.runDir), 'utf8')) as { steps: Record<string, string> };
  assert.deepEqual(onDisk.steps, { 干活: work!.sessionId });
  assert.equal(ctx._sessions['干活'], work!.sessionId);
});

test('lineage names the session the moment it exists, before the step ends', async () => {
  let seenDuringCall: unknown;
  const rt = new FakeRuntime([
    () => {
      seenDuringCall = JSON.parse(fs.readFileSync(Lineage.fileIn(rt.runDir), 'utf8'));
      return {};
    },
  ]);
  await new Workflow([new Step('s', spec, 'p')]).run(rt);
  assert.deepEqual((seenDuringCall as { steps: unknown }).steps, { s: rt.calls[0]!.sessionId });
});

// a bad Step or Workflow is the caller's configuration: a ConfigError naming the field and the fix
const BAD_DEFINITIONS: Array<[string, () => unknown, { code: string; field: string; says: RegExp }]> = [
  [
    'step names are unique',
    () => new Workflow([new Step('a', spec, 'p'), new Step('a', spec, 'q')]),
    { code: 'bad-workflow', field: 'steps[1].name', says: /steps\[0\] and steps\[1\] are both named 'a'.*unique; rename one/ },
  ],
  [
    'a step name may not use the reserved # form',
    () => new Step('a#retry1', spec, 'p'),
    { code: 'bad-step', field: 'name', says: /may not contain.*rename it, e\.g\. 'a-retry1'/ },
  ],
  ['a step name may not use the reserved ·判定 form', () => new Step('干活·判定', spec, 'p'), { code: 'bad-step', field: 'name', says: /may not contain/ }],
  ['a step needs a non-empty name', () => new Step('  ', spec, 'p'), { code: 'bad-step', field: 'name', says: /non-empty string.*new Step\('implement'/ }],
  [
    'retries is a whole number ≥ 0',
    () => new Step('s', spec, 'p', { retries: 1.5 }),
    { code: 'bad-step', field: 'retries', says: /retries must be a whole number ≥ 0.*got 1\.5; write e\.g\. retries: 2/ },
  ],
  [
    'onFail is stop, skip or continue',
    () => new Step('s', spec, 'p', { onFail: 'retry' as 'stop' }),
    { code: 'bad-step', field: 'onFail', says: /onFail must be 'stop', 'skip' or 'continue', got "retry"/ },
  ],
  ['a workflow needs at least one step', () => new Workflow([]), { code: 'bad-workflow', field: 'steps', says: /at least one Step.*got an empty array/ }],
  [
    'a workflow holds Step objects only',
    () => new Workflow([new Step('s', spec, 'p'), { name: 't' } as unknown as Step]),
    { code: 'bad-workflow', field: 'steps[1]', says: /steps\[1\] is not a Step \(got an object \(Object\)\); build each one with new Step/ },
  ],
];

for (const [behaviour, build, want] of BAD_DEFINITIONS) {
  test(`${behaviour}: a ConfigError '${want.code}' naming ${want.field}`, () => {
    assert.throws(build, (e: unknown) => {
      assert.ok(e instanceof ConfigError && ConfigError.is(e), `a ConfigError, got ${String(e)}`);
      assert.equal(e.code, want.code);
      assert.equal(e.field, want.field);
      assert.match(e.message, want.says);
      return true;
    });
  });
}

test('fork gives the resumed step a new session id, and lineage follows it', async () => {
  const rt = new FakeRuntime();
  await new Workflow([new Step('s', spec, 'p')]).run(rt);
  const ctx = await new Workflow([new Step('s', spec, 'p', { fork: true })]).run(rt);
  assert.equal(rt.calls[1]!.fork, true);
  assert.notEqual(ctx._sessions.s, rt.calls[0]!.sessionId);
  assert.equal((await Lineage.peek(rt.runDir, rt.workspace)).steps.s, ctx._sessions.s);
  assert.ok(path.isAbsolute(rt.runDir));
});
