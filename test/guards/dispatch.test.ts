import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { AgentDefinition } from '@anthropic-ai/claude-agent-sdk';
import { ConfigError } from '../../src/errors.js';
import { guardHooks, guardPlan, isolateDecision, isolated, isolateGuard, requireGitRepo, wantsIsolation, Workbench } from '../../src/guards/index.js';
import { AgentSpec } from '../../src/runtime/index.js';
import { fire, post, pre, specific, SUB } from './helpers.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'flower-guard-'));
const def = (): AgentDefinition => ({ description: 'builds', prompt: 'build', tools: ['Bash'] });

// [behaviour, spec options, workbench?, spill threshold, plan]
const PLANS: Array<[string, ConstructorParameters<typeof AgentSpec>[0], boolean, number | undefined, string[]]> = [
  ['a plain role without a workbench gets the allowlist and the repeat guard', { name: 'a' }, false, undefined, ['allowlist', 'repeat']],
  ['a plain role with a workbench also spills (the output guard) and indexes', { name: 'a' }, true, undefined, ['allowlist', 'repeat', 'output', 'index']],
  ['a delegating role without a workbench still gets its wall', { name: 'c', delegateOnly: true }, false, undefined, ['allowlist', 'repeat']],
  ['a delegating role with a workbench', { name: 'c', delegateOnly: true }, true, undefined, ['allowlist', 'repeat', 'output', 'index']],
  ['spill threshold 0 keeps the index but not the spill', { name: 'a' }, true, 0, ['allowlist', 'repeat', 'index']],
  [
    'an isolated worker adds the isolate guard',
    { name: 'c', delegateOnly: true, agents: { w: isolated(def()) } },
    false,
    undefined,
    ['allowlist', 'repeat', 'isolate'],
  ],
  ['workers without the mark add nothing', { name: 'c', delegateOnly: true, agents: { w: def() } }, false, undefined, ['allowlist', 'repeat']],
];

for (const [name, o, withWb, threshold, plan] of PLANS) {
  test(`dispatcher: ${name}`, () => {
    const spec = new AgentSpec(o);
    const wb = withWb ? new Workbench(tmp(), { lang: 'en' }) : undefined;
    assert.deepEqual(guardPlan(spec, { workbench: wb, ...(threshold !== undefined ? { spillThreshold: threshold } : {}) }), plan);
    const hooks = guardHooks(spec, { workbench: wb, lang: 'en', ...(threshold !== undefined ? { spillThreshold: threshold } : {}) });
    const n = (hooks.PreToolUse?.length ?? 0) + (hooks.PostToolUse?.length ?? 0);
    // the allowlist and the repeat guard answer in one callback (guards/calls): one matcher for the two
    assert.equal(n, plan.length - 1);
    assert.deepEqual(Object.keys(hooks).sort(), [...new Set(plan.map((p) => (p === 'output' || p === 'index' ? 'PostToolUse' : 'PreToolUse')))].sort());
  });
}

test('dispatcher: secrets to keep out of outputs add the output guard, with or without a workbench', () => {
  assert.deepEqual(guardPlan(new AgentSpec({ name: 'a' }), { secrets: () => ['sk-ant-secret-value'] }), ['allowlist', 'repeat', 'output']);
  assert.deepEqual(guardPlan(new AgentSpec({ name: 'a' }), { secrets: () => [], spillThreshold: 0 }), ['allowlist', 'repeat', 'output']);
});

test('dispatcher: every PreToolUse matcher fails closed in the binary too (onFailure block, a timeout)', () => {
  const spec = new AgentSpec({ name: 'c', delegateOnly: true, agents: { w: isolated(def()) } });
  const pre = guardHooks(spec, { lang: 'en' }).PreToolUse!;
  assert.equal(pre.length, 2, 'allowlist with repeat, isolate');
  for (const m of pre) {
    assert.equal(m.onFailure, 'block');
    assert.ok((m.timeout ?? 0) > 0 && (m.timeout ?? 0) <= 60);
  }
});

test("dispatcher: the installed hooks decide as their guards do (the allowlist reads the spec's allowedTools and its agents' tools)", async () => {
  const judge = new AgentSpec({ name: 'j', allowedTools: ['Read', 'Bash'] });
  const [wall] = guardHooks(judge, { lang: 'en' }).PreToolUse!;
  assert.equal(specific(await fire(wall!, pre('Bash', { command: 'make' }))), undefined, 'Bash is allowed for this judge');
  assert.equal(specific(await fire(wall!, pre('Write', { file_path: '/x', content: '' })))?.permissionDecision, 'deny');
  const coord = new AgentSpec({ name: 'c', delegateOnly: true, glance: true, allowedTools: ['Agent', 'Bash'], agents: { w: def() } });
  const [dg] = guardHooks(coord, { lang: 'en' }).PreToolUse!;
  assert.equal(specific(await fire(dg!, pre('Bash', { command: 'make' })))?.permissionDecision, 'deny', 'Bash in allowedTools does not open the wall');
  assert.equal(specific(await fire(dg!, pre('Bash', { command: 'ls' })))?.permissionDecision, 'allow', 'a glance runs (within the glance timeout)');
  assert.equal(specific(await fire(dg!, pre('Bash', { command: 'make' }, { agentId: SUB, agentType: 'w' }))), undefined, 'the declared worker runs its Bash');
  assert.equal(
    specific(await fire(dg!, pre('Bash', { command: 'make' }, { agentId: SUB, agentType: 'general-purpose' })))?.permissionDecision,
    'deny',
    'an undeclared agent type has no tools',
  );
  const noGlance = coord.with({ glance: false, allowedTools: ['Agent'] });
  const [dg2] = guardHooks(noGlance, { lang: 'en' }).PreToolUse!;
  assert.equal(specific(await fire(dg2!, pre('Bash', { command: 'ls' })))?.permissionDecision, 'deny');
});

test('dispatcher: spill uses the given workbench and threshold', async () => {
  const wb = new Workbench(tmp(), { lang: 'en' }).ensure();
  const hooks = guardHooks(new AgentSpec({ name: 'a' }), { workbench: wb, lang: 'en', spillThreshold: 50, spillHead: 5 });
  const spill = hooks.PostToolUse!.find((m) => m.matcher!.includes('Grep'))!;
  const out = specific(await fire(spill, post('Bash', { command: 'x' }, { stdout: 'q'.repeat(60) }, { cwd: wb.workspace })));
  assert.equal((out!.updatedToolOutput as { stdout: string }).stdout.split('\n')[1], 'qqqqq');
  assert.equal(fs.readdirSync(wb.spill).length, 1);
});

// [behaviour, input, injected?]
const ISOLATE: Array<[string, Record<string, unknown>, boolean]> = [
  ['an isolated worker without cwd or isolation gets a worktree', { description: 'd', prompt: 'p', subagent_type: 'iso' }, true],
  ['a call that chose isolation is left alone', { description: 'd', prompt: 'p', subagent_type: 'iso', isolation: 'remote' }, false],
  ['a call that set cwd is left alone', { description: 'd', prompt: 'p', subagent_type: 'iso', cwd: '/elsewhere' }, false],
  ['an unmarked worker is left alone', { description: 'd', prompt: 'p', subagent_type: 'plain' }, false],
  ['an unknown subagent type is left alone', { description: 'd', prompt: 'p', subagent_type: 'general-purpose' }, false],
  ['a call without a type is left alone', { description: 'd', prompt: 'p' }, false],
];

for (const [name, input, yes] of ISOLATE) {
  test(`isolate: ${name}`, async () => {
    const agents = { iso: isolated(def()), plain: def() };
    const d = isolateDecision(agents, input);
    assert.equal(d !== undefined, yes);
    const seen: string[] = [];
    const out = specific(await fire(isolateGuard(agents, { onInject: (t) => seen.push(t) }), pre('Agent', input)));
    if (yes) {
      assert.equal(out?.permissionDecision, 'allow');
      assert.deepEqual(out?.updatedInput, { ...input, isolation: 'worktree' });
      assert.deepEqual(seen, ['iso']);
    } else {
      assert.equal(out, undefined);
    }
  });
}

test('isolate: the mark survives object spread and vanishes in JSON (the binary never sees it)', () => {
  const a = isolated(def());
  assert.ok(wantsIsolation(a));
  assert.ok(wantsIsolation({ ...a }));
  assert.ok(!wantsIsolation(JSON.parse(JSON.stringify(a)) as AgentDefinition));
  assert.ok(!wantsIsolation(isolated(def(), false)));
  assert.ok(!wantsIsolation(undefined));
});

test('requireGitRepo passes inside a work tree and throws a ConfigError naming the folder outside one', () => {
  const repo = tmp();
  execFileSync('git', ['init', '-q'], { cwd: repo });
  fs.mkdirSync(path.join(repo, 'sub'));
  requireGitRepo(path.join(repo, 'sub'));
  const plain = tmp();
  assert.throws(
    () => requireGitRepo(plain),
    (e: unknown) => e instanceof ConfigError && e.code === 'not-a-git-repo' && e.message.includes(plain) && /git init/.test(e.message),
  );
  const missing = path.join(plain, 'nope');
  assert.throws(
    () => requireGitRepo(missing),
    (e: unknown) => e instanceof ConfigError && e.message.includes(missing),
  );
});
