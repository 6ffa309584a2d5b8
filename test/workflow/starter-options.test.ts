/**
 * clarifyStep, goalStep and withGoal without a spec (the standard clarifier and judges) and with
 * instructions, onFail and retries (issue 22): asserted on the spec each run receives, turned into the
 * SDK options the binary would get, and on what the workflow does.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { SessionStore } from '@anthropic-ai/claude-agent-sdk';
import { ConfigError } from '../../src/errors.js';
import { CLARIFIER_RULES, JUDGE_RULES } from '../../src/roles/index.js';
import { buildOptions } from '../../src/runtime/options.js';
import { AgentSpec, type RunOptions, type StepResult } from '../../src/runtime/index.js';
import { clarifyStep, goalStep, Step, withGoal, Workflow, type FlowChannel } from '../../src/workflow/index.js';
import { FakeRuntime } from '../helpers/fake-runtime.js';

const BRIEF = '## 目标\n写 md2html\n## 验收标准\n- 运行得到 html\n## 边界\n- 不做 GUI\n## 未知与假设\n- 无';
const GOAL = '# 目标\n能把 md 转成 html\n\n# 判定清单\n- node md2html.mjs a.md 输出含 <h1>';

const channel: FlowChannel = {
  server: { type: 'sdk', name: 'human' } as unknown as FlowChannel['server'],
  toolNames: ['mcp__human__ask', 'mcp__human__inbox', 'mcp__human__submit_brief', 'mcp__human__submit_goal', 'mcp__human__submit_verdict'],
  ask: async () => ({ state: 'timeout', answer: null }),
  takeSubmission: (() => null) as FlowChannel['takeSubmission'],
};

/** The FakeRuntime, keeping each run's spec (what the Runtime would turn into SDK options). */
class SpecRuntime extends FakeRuntime {
  readonly specs: AgentSpec[] = [];
  override async run(spec: AgentSpec, prompt: string, o: RunOptions = {}): Promise<StepResult> {
    this.specs.push(spec);
    return super.run(spec, prompt, o);
  }
}

const sdk = (spec: AgentSpec) => buildOptions({ spec, cwd: '/ws', store: {} as SessionStore, env: {}, abortController: new AbortController(), lang: 'en' });
const append = (spec: AgentSpec) => (sdk(spec).systemPrompt as { append: string }).append;

test('no spec: the standard clarifier and goal judge run, with the extra instructions after their rules', async () => {
  const rt = new SpecRuntime([{ text: BRIEF }, { text: GOAL }]);
  const notes = path.join(rt.workspace, '.flower', 'notes');
  const ctx = await new Workflow([
    clarifyStep(undefined, channel, 'md to html', { briefPath: path.join(notes, '需求.md'), lang: 'en', instructions: 'Ask in French.' }),
    goalStep(null, channel, { goalPath: path.join(notes, '目标.md'), lang: 'en', instructions: 'Three checks at most.' }),
  ]).run(rt);
  assert.equal(ctx._failedAt, undefined);
  const [c, g] = rt.specs;
  assert.ok(append(c!).startsWith(CLARIFIER_RULES.en) && append(c!).endsWith('Ask in French.'));
  assert.ok(append(g!).startsWith(JUDGE_RULES.en) && append(g!).endsWith('Three checks at most.'));
  const ct = sdk(c!).allowedTools ?? [];
  assert.ok(ct.includes('mcp__human__submit_brief') && !ct.includes('mcp__human__submit_goal') && !ct.includes('mcp__human__inbox'));
  const gt = sdk(g!).allowedTools ?? [];
  assert.ok(gt.includes('mcp__human__submit_goal') && !gt.includes('mcp__human__submit_verdict'));
  assert.ok(sdk(c!).disallowedTools?.includes('Write'));
});

test('a given spec keeps its rules and gets the instructions appended', () => {
  const step = clarifyStep(new AgentSpec({ name: 'mine', instructions: 'Mine.' }), channel, 'x', {
    briefPath: '/n/b.md',
    lang: 'en',
    instructions: 'Also this.',
  });
  assert.equal(append(step.spec), 'Mine.\n\nAlso this.');
  assert.equal(step.spec.name, 'mine');
});

test('onFail and retries reach the Step: a clarifier that never briefs is tried 1 + 2 times, then skipped, and the next step runs', async () => {
  const rt = new SpecRuntime([{ text: 'no brief' }, { text: 'still none' }, { text: 'nope' }, { text: GOAL }]);
  const notes = path.join(rt.workspace, '.flower', 'notes');
  const ctx = await new Workflow([
    clarifyStep(undefined, channel, 'x', { briefPath: path.join(notes, '需求.md'), lang: 'en', onFail: 'skip', retries: 2 }),
    goalStep(undefined, channel, { goalPath: path.join(notes, '目标.md'), lang: 'en', onFail: 'continue', retries: 1 }),
  ]).run(rt);
  assert.deepEqual(
    rt.calls.map((c) => c.stepName),
    ['确认需求', '确认需求#retry1', '确认需求#retry2', '设定目标'],
  );
  assert.equal(ctx._failedAt, undefined);
  const g = goalStep(undefined, channel, { goalPath: '/n/g.md', lang: 'en', onFail: 'continue', retries: 1 });
  assert.equal(g.onFail, 'continue');
  assert.equal(g.retries, 1);
  assert.throws(
    () => clarifyStep(undefined, channel, 'x', { briefPath: '/n/b.md', lang: 'en', retries: -1 }),
    (e: unknown) => ConfigError.is(e) && e.code === 'bad-step' && e.field === 'retries',
  );
});

test('withGoal without a judge spec: the standard verdict judge (Bash only with canRun), onFail kept, retries = rounds - 1', () => {
  const work = new Step('build', new AgentSpec({ name: 'w' }), 'go');
  const base = { goalPath: '/n/g.md', manifestPath: '/r/m.json', lang: 'en' as const };
  const judged = withGoal(work, undefined, channel, { ...base, canRun: true, onFail: 'continue', retries: 4, instructions: 'Run the tests.' });
  assert.equal(judged.onFail, 'continue');
  assert.equal(judged.retries, 4);
  assert.equal(withGoal(work, undefined, channel, { ...base, rounds: 2 }).retries, 1);
  assert.throws(
    () => withGoal(work, undefined, channel, { ...base, rounds: 2, retries: 5 }),
    (e: unknown) => ConfigError.is(e) && e.code === 'bad-step',
  );
});

test('the standard verdict judge is what the judge round runs', async () => {
  const rt = new SpecRuntime([{ text: 'done' }, { text: '结论: 达成' }]);
  const work = withGoal(new Step('build', new AgentSpec({ name: 'w' }), 'go'), undefined, channel, {
    goalPath: path.join(rt.workspace, 'g.md'),
    manifestPath: path.join(rt.runDir, 'm.json'),
    lang: 'en',
    rounds: 1,
    canRun: true,
    instructions: 'Run the tests.',
  });
  await new Workflow([work]).run(rt);
  const j = rt.specs[1]!;
  assert.equal(j.name, 'build·判定');
  assert.ok(append(j).startsWith(JUDGE_RULES.en) && append(j).endsWith('Run the tests.'));
  const tools = sdk(j).allowedTools ?? [];
  assert.ok(tools.includes('Bash') && tools.includes('mcp__human__submit_verdict') && !tools.includes('mcp__human__submit_goal'));
});
