import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { AgentSpec, type FlowerEvent } from '../../src/runtime/index.js';
import { Lineage, Step, StepAbort, Workflow } from '../../src/workflow/index.js';
import { FakeRuntime } from '../helpers/fake-runtime.js';

const spec = new AgentSpec({ name: 'a' });

test('a step whose `when` says no is skipped: no call, no result, no event', async () => {
  const rt = new FakeRuntime();
  const events: FlowerEvent[] = [];
  const wf = new Workflow([new Step('x', spec, 'p', { when: () => false }), new Step('y', spec, 'q')], { continuous: false });
  const ctx = await wf.run(rt, { onEvent: (e) => events.push(e) });
  assert.deepEqual(rt.calls.map((c) => c.stepName), ['y']);
  assert.equal(ctx._results.x, undefined);
  assert.deepEqual(events.filter((e) => e.kind === 'step').map((e) => e.text), ['y']);
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
  const wf = new Workflow([new Step('x', spec, 'p', {
    retries: 3,
    gate: (r) => { gated.push(r.step); const p = pass; pass = true; return p; },
  })], { continuous: false });
  const ctx = await wf.run(rt);
  assert.deepEqual(rt.calls.map((c) => c.stepName), ['x', 'x#retry1', 'x#retry2']);
  assert.deepEqual(gated, ['x#retry1', 'x#retry2']);
  assert.equal(ctx._failedAt, undefined);
});

test('a rejected round resumes the same session with onReject text, labelled #roundN', async () => {
  const rt = new FakeRuntime();
  let n = 0;
  const wf = new Workflow([new Step('w', spec, 'do it', {
    retries: 2, gate: () => ++n >= 2, onReject: () => 'close the gap',
  })], { continuous: false });
  await wf.run(rt);
  assert.deepEqual(rt.calls.map((c) => [c.stepName, c.prompt]), [['w', 'do it'], ['w#round2', 'close the gap']]);
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
  const wf = new Workflow([new Step('w', spec, 'p', { retries: 4, gate: () => { throw new StepAbort('nobody answered'); } })], { continuous: false });
  const ctx = await wf.run(rt);
  assert.equal(rt.calls.length, 1);
  assert.equal(ctx._aborted, 'nobody answered');
  assert.equal(ctx._failedAt, 'w');
});

test('onFail decides what a failed step leaves: stop ends the run, skip leaves nothing, continue leaves the text', async () => {
  for (const [onFail, expectNext, expectValue] of [['stop', false, undefined], ['skip', true, undefined], ['continue', true, 'bad']] as const) {
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
  const wf = new Workflow([
    new Step('x', spec, 'p', { reduce: (r) => r.text.toUpperCase() }),
    new Step('y', spec, async (ctx) => `use ${String(ctx.x)}`),
  ], { continuous: false });
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
  assert.deepEqual(rt.calls.map((c) => [c.prompt, c.resume ?? null]), [['first prompt', null], ['carry on', c1._sessions['取词']]]);
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
  const wf = new Workflow([new Step('干活', spec, 'work', {
    gate: async (_r, ctx) => {
      const v = await ctx._runtime!.run(judge, 'judge it', { stepName: '干活·判定#1' });
      return v.ok;
    },
  })]);
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
  const rt = new FakeRuntime([() => {
    seenDuringCall = JSON.parse(fs.readFileSync(Lineage.fileIn(rt.runDir), 'utf8'));
    return {};
  }]);
  await new Workflow([new Step('s', spec, 'p')]).run(rt);
  assert.deepEqual((seenDuringCall as { steps: unknown }).steps, { s: rt.calls[0]!.sessionId });
});

test('step names are unique and may not use the reserved # and ·判定 forms', () => {
  assert.throws(() => new Workflow([new Step('a', spec, 'p'), new Step('a', spec, 'q')]), /unique/);
  assert.throws(() => new Step('a#retry1', spec, 'p'), /reserved|may not contain/);
  assert.throws(() => new Step('干活·判定', spec, 'p'), /may not contain/);
});

test('fork gives the resumed step a new session id, and lineage follows it', async () => {
  const rt = new FakeRuntime();
  await new Workflow([new Step('s', spec, 'p')]).run(rt);
  const ctx = await new Workflow([new Step('s', spec, 'p', { fork: true })]).run(rt);
  assert.equal(rt.calls[1]!.fork, true);
  assert.notEqual(ctx._sessions.s, rt.calls[0]!.sessionId);
  assert.equal((await Lineage.peek(rt.runDir, rt.workspace)).steps.s, ctx._sessions.s);
  assert.ok(path.isAbsolute(rt.runDir));
});
