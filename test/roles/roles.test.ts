import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { McpServerConfig } from '@anthropic-ai/claude-agent-sdk';
import { ConfigError } from '../../src/errors.js';
import { guardPlan, sessionTools, wantsIsolation } from '../../src/guards/index.js';
import {
  CLARIFIER_RULES,
  COORDINATOR_RULES,
  JUDGE_RULES,
  ORACLE_RULES,
  REPORT_CONTRACT,
  WORKER_RULES,
  clarifier,
  coordinator,
  judge,
  oracle,
  worker,
} from '../../src/roles/index.js';

const server = { type: 'stdio', command: 'true' } as McpServerConfig;
const channel = { server, toolNames: ['mcp__human__ask', 'mcp__human__inbox', 'mcp__human__submit_brief'] };

test('a coordinator may glance, dispatch, track and read — its allowlist; it is delegate-only in acceptEdits mode', () => {
  const w = { builder: worker('builds things', 'You build.', { lang: 'en' }) };
  const c = coordinator('work', 'Ship it.', w, { lang: 'en' });
  assert.deepEqual(c.allowedTools, ['Agent', 'SendMessage', 'TodoWrite', 'Read', 'Glob', 'Grep', 'Bash']);
  assert.equal(c.permissionMode, 'acceptEdits');
  assert.equal(c.delegateOnly, true);
  assert.equal(c.glance, true);
  assert.equal(c.agents, w);
  assert.equal(c.floor, 'workspace', 'its workers write, and they share its sandbox');
  assert.ok(c.instructions.startsWith(COORDINATOR_RULES.en));
  assert.ok(c.instructions.endsWith('Ship it.'), 'user instructions come after the rules');
  assert.deepEqual(guardPlan(c), ['allowlist', 'repeat']);
});

test("without glance the coordinator has no Bash of its own; the session still pre-approves its workers' tools (a subagent asks the session's rules)", () => {
  const c = coordinator('work', '', { w: worker('w', 'p', { lang: 'en' }) }, { glance: false, lang: 'en' });
  assert.equal(c.glance, false);
  assert.ok(!c.allowedTools.includes('Bash'));
  assert.deepEqual(
    sessionTools(c)
      .filter((t) => ['Bash', 'Write', 'Edit'].includes(t))
      .sort(),
    ['Bash', 'Edit', 'Write'],
  );
  const readers = coordinator('work', '', { w: worker('w', 'p', { tools: ['Read', 'Grep'], lang: 'en' }) }, { glance: false, lang: 'en' });
  assert.ok(!sessionTools(readers).includes('Bash'), 'no worker runs Bash: none approved');
  assert.equal(readers.floor, 'read-only', 'no one in the session writes: the workspace is read-only under its commands');
});

test("the workers' web tools are approved for the session, once; not for the coordinator itself", () => {
  const w = {
    a: worker('a', 'p', { tools: ['Read', 'WebFetch'], lang: 'en' }),
    b: worker('b', 'p', { tools: ['WebSearch', 'WebFetch'], lang: 'en' }),
  };
  const c = coordinator('work', '', w, { lang: 'en' });
  assert.ok(!c.allowedTools.includes('WebFetch'));
  const session = sessionTools(c);
  assert.equal(session.filter((t) => t === 'WebFetch').length, 1);
  assert.ok(session.includes('WebSearch'));
});

test('a channel adds its tools (ask and inbox) and its server under the name its tools use', () => {
  const c = coordinator('work', '', {}, { channel, lang: 'en' });
  // the coordinator asks and reads mail; it submits no document (a submit tool is its role's alone)
  assert.deepEqual(
    c.allowedTools.filter((t) => t.startsWith('mcp__')),
    channel.toolNames.filter((t) => !t.includes('__submit_')),
  );
  assert.deepEqual(Object.keys(c.mcpServers), ['human']);
  const source = c.mcpServers.human;
  // a factory, so each query gets a fresh in-process server (one connection per instance)
  assert.equal(typeof source === 'function' ? source() : source, server);
  assert.throws(() => coordinator('w', '', {}, { channel: { server, toolNames: ['ask'] }, lang: 'en' }), ConfigError);
  assert.throws(() => coordinator('w', '', {}, { channel: { server, toolNames: ['mcp__a__x', 'mcp__b__y'] }, lang: 'en' }), /one server/);
});

test('a worker is an SDK agent definition whose prompt ends with the four-section report contract', () => {
  const w = worker('builds things', 'You build.', { lang: 'en' });
  assert.deepEqual(w.tools, ['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep']);
  assert.equal(w.model, 'inherit');
  assert.equal(w.description, 'builds things');
  assert.ok(w.prompt.startsWith('You build.'));
  assert.ok(w.prompt.endsWith(REPORT_CONTRACT.en), 'the contract is the last thing the worker reads');
  for (const s of ['Conclusion:', 'Evidence:', 'Outputs:', 'Unverified:', '30 lines']) assert.ok(w.prompt.includes(s), s);
  assert.ok(!wantsIsolation(w));
  const zh = worker('干活', '', { lang: 'zh' });
  assert.equal(zh.prompt, WORKER_RULES.zh);
  for (const s of ['结论', '证据', '产出', '未验证', '30 行']) assert.ok(zh.prompt.includes(s), s);
  const bare = worker('raw', 'Only this.', { discipline: false, model: 'haiku', tools: ['Read'], isolate: true, lang: 'en' });
  assert.equal(bare.prompt, 'Only this.');
  assert.equal(bare.model, 'haiku');
  assert.deepEqual(bare.tools, ['Read']);
  assert.ok(wantsIsolation(bare));
  assert.throws(() => worker(' ', 'p'), /description/);
});

test('a clarifier can ask and read but has no write, run or dispatch tool at all, no workbench and no turn cap', () => {
  const c = clarifier('clarify', { channel, lang: 'en' });
  assert.deepEqual(c.allowedTools, ['mcp__human__ask', 'mcp__human__submit_brief', 'Read', 'Glob', 'Grep', 'WebFetch', 'WebSearch']);
  for (const t of ['Write', 'Edit', 'NotebookEdit', 'Bash', 'Agent', 'TodoWrite']) {
    assert.ok(c.disallowedTools.includes(t), `${t} removed`);
    assert.ok(!c.allowedTools.includes(t));
  }
  assert.ok(!c.allowedTools.includes('mcp__human__inbox'), 'no inbox');
  assert.equal(c.workbench, false);
  assert.equal(c.maxTurns, undefined);
  assert.equal(c.permissionMode, 'default');
  assert.equal(c.delegateOnly, false);
  assert.deepEqual(guardPlan(c), ['allowlist', 'repeat']);
  assert.equal(c.floor, 'read-only');
  assert.equal(c.instructions, CLARIFIER_RULES.en);
  assert.deepEqual(clarifier('c', { canRead: false, lang: 'en' }).allowedTools, []);
});

test('a judge reads; it runs Bash only with canRun', () => {
  const j = judge('verdict', { channel, lang: 'en' });
  // a judge submits goals and verdicts, never a brief
  assert.deepEqual(j.allowedTools, ['mcp__human__ask', 'Read', 'Glob', 'Grep']);
  assert.equal(j.handoff, false, 'a fresh session every round never hands its verdict to a successor');
  assert.ok(j.disallowedTools.includes('Bash'));
  assert.equal(j.workbench, false);
  const r = judge('verdict', { canRun: true, lang: 'en' });
  assert.deepEqual(r.allowedTools, ['Read', 'Glob', 'Grep', 'Bash']);
  assert.ok(!r.disallowedTools.includes('Bash'));
  assert.ok(r.disallowedTools.includes('Write'));
  assert.deepEqual(guardPlan(r), ['allowlist', 'repeat']);
  assert.equal(r.floor, 'read-only', 'it runs the artifact, never changes it');
});

test('each role is offered only its own submit tool: a clarifier the brief, each judge of the flow its document', () => {
  const all = {
    server,
    toolNames: ['mcp__human__ask', 'mcp__human__inbox', 'mcp__human__submit_brief', 'mcp__human__submit_goal', 'mcp__human__submit_verdict'],
  };
  const submits = (tools: readonly string[]) => tools.filter((t) => t.includes('__submit_'));
  assert.deepEqual(submits(clarifier('c', { channel: all, lang: 'en' }).allowedTools), ['mcp__human__submit_brief']);
  assert.deepEqual(submits(judge('g', { channel: all, lang: 'en', submits: ['goal'] }).allowedTools), ['mcp__human__submit_goal']);
  assert.deepEqual(submits(judge('v', { channel: all, lang: 'en', submits: ['verdict'] }).allowedTools), ['mcp__human__submit_verdict']);
  assert.deepEqual(submits(coordinator('w', '', {}, { channel: all, lang: 'en' }).allowedTools), []);
});

test('an oracle is read-only and capped at 12 turns and $0.5 by default', () => {
  const o = oracle({ lang: 'en' });
  assert.deepEqual(o.allowedTools, ['Read', 'Glob', 'Grep']);
  assert.equal(o.maxTurns, 12);
  assert.equal(o.maxBudgetUsd, 0.5);
  assert.ok(o.disallowedTools.includes('Bash') && o.disallowedTools.includes('Write'));
  assert.equal(o.instructions, ORACLE_RULES.en);
  const p = oracle({ maxTurns: 3, maxBudgetUsd: 0.1, lang: 'en' });
  assert.equal(p.maxTurns, 3);
  assert.equal(p.maxBudgetUsd, 0.1);
});

test('the language option picks the rule text; FLOWER_LANG decides by default', () => {
  const prev = process.env.FLOWER_LANG;
  try {
    process.env.FLOWER_LANG = 'zh';
    assert.equal(judge('j').instructions, JUDGE_RULES.zh);
    process.env.FLOWER_LANG = 'en';
    assert.equal(judge('j').instructions, JUDGE_RULES.en);
    assert.equal(judge('j', { lang: 'zh' }).instructions, JUDGE_RULES.zh);
  } finally {
    if (prev === undefined) delete process.env.FLOWER_LANG;
    else process.env.FLOWER_LANG = prev;
  }
});

// [rule set, phrases that must be in both languages' texts, as [zh, en]]
const RULE_POINTS: Array<[string, { zh: string; en: string }, Array<[RegExp, RegExp]>]> = [
  [
    'judge',
    JUDGE_RULES,
    [
      [/判产物,不判源码/, /Judge the artifact, not the source/],
      [/不信"已完成"/, /Do not believe "done"/],
      [/无法达成/, /unreachable/],
      [/"看不出来"不等于"达成"/, /"Can't tell" is not "done"/],
      [/条数跟着"可能失败的方式"走/, /length follows the ways the task can fail/],
      [/边界不是检查项/, /Boundaries are not checks/],
    ],
  ],
  [
    'clarifier',
    CLARIFIER_RULES,
    [
      [/一次问一个/, /one at a time/],
      [/不设上限/, /no limit on questions/],
      [/记进"未知与假设"/, /record it under unknowns and assumptions/],
      [/恰好四节/, /exactly four sections/],
      [/不写代码/, /No code/],
    ],
  ],
  [
    'coordinator',
    COORDINATOR_RULES,
    [
      [/Agent 工具派给 worker/, /dispatch them to a worker with the Agent tool/],
      [/绝对路径/, /absolute paths/],
      [/上下文要一直保持小/, /Keep your own context small/],
    ],
  ],
];

for (const [name, text, points] of RULE_POINTS) {
  test(`the ${name} rules say the same things in Chinese and English`, () => {
    for (const [zh, en] of points) {
      assert.match(text.zh, zh);
      assert.match(text.en, en);
    }
  });
}
