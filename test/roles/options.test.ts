/**
 * The role factories' engine options (issue 22): what each option becomes in the SDK options the
 * binary is started with (buildOptions, childEnv), and what a role may not switch off.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { HookCallback, HookCallbackMatcher, HookJSONOutput, SessionStore } from '@anthropic-ai/claude-agent-sdk';
import { ConfigError } from '../../src/errors.js';
import { clarifier, coordinator, judge, oracle, worker } from '../../src/roles/index.js';
import { buildOptions, childEnv, compactEnv } from '../../src/runtime/options.js';
import type { AgentSpec, Hooks } from '../../src/runtime/spec.js';

const store = {} as SessionStore;
const options = (spec: AgentSpec, hooks?: Hooks) =>
  buildOptions({ spec, cwd: '/ws', store, env: {}, abortController: new AbortController(), lang: 'en', ...(hooks ? { hooks } : {}) });
const answer =
  (out: HookJSONOutput): HookCallback =>
  async () =>
    out;
const matcher = (out: HookJSONOutput, name = 'Bash'): HookCallbackMatcher => ({ matcher: name, hooks: [answer(out)] });
const compact = { mode: 'auto' as const, window: 200_000 };

const ROLES: Array<[string, (o: Record<string, unknown>) => AgentSpec]> = [
  ['coordinator', (o) => coordinator('work', '', { b: worker('builds', 'p', { lang: 'en' }) }, { lang: 'en', ...o })],
  ['clarifier', (o) => clarifier('ask', { lang: 'en', ...o })],
  ['judge', (o) => judge('judge', { lang: 'en', ...o })],
  ['oracle', (o) => oracle({ lang: 'en', ...o })],
];

for (const [role, make] of ROLES) {
  test(`${role}: effort, maxTurns, maxBudgetUsd and permissionMode reach the SDK options`, () => {
    const o = options(make({ effort: 'low', maxTurns: 7, maxBudgetUsd: 1.25, permissionMode: 'plan' }));
    assert.equal(o.effort, 'low');
    assert.equal(o.maxTurns, 7);
    assert.equal(o.maxBudgetUsd, 1.25);
    assert.equal(o.permissionMode, 'plan');
    assert.equal(o.allowDangerouslySkipPermissions, undefined);
  });

  test(`${role}: compact and env reach the child's environment`, () => {
    const spec = make({ compact, env: { MY_SETTING: 'on' } });
    const env = childEnv({ base: { PATH: '/bin' }, spec, maxRetries: 0, extra: compactEnv(spec, true), secrets: { names: [], values: [] } });
    assert.equal(env.MY_SETTING, 'on');
    assert.equal(env.CLAUDE_CODE_AUTO_COMPACT_WINDOW, '200000');
    assert.equal(env.DISABLE_AUTO_COMPACT, undefined, "the role's policy wins over the handoff's no_summary");
  });

  for (const mode of ['bypassPermissions', 'auto']) {
    test(`${role}: permissionMode '${mode}' is refused with a typed error — flower's walls do not switch off`, () => {
      assert.throws(
        () => make({ permissionMode: mode }),
        (e: unknown) => ConfigError.is(e) && e.code === 'bad-spec' && e.field === 'permissionMode',
      );
    });
  }
}

test('defaults stay: the coordinator is acceptEdits, the oracle 12 turns and $0.50, the clarifier and judge uncapped', () => {
  assert.equal(options(ROLES[0]![1]({})).permissionMode, 'acceptEdits');
  const or = options(oracle({ lang: 'en' }));
  assert.equal(or.maxTurns, 12);
  assert.equal(or.maxBudgetUsd, 0.5);
  for (const spec of [clarifier('c', { lang: 'en' }), judge('j', { lang: 'en' })]) {
    const o = options(spec);
    assert.equal(o.maxTurns, undefined);
    assert.equal(o.maxBudgetUsd, undefined);
  }
});

test("the oracle's name and instructions: the session is named, the instructions follow its rules in the system prompt", () => {
  const spec = oracle({ lang: 'en', name: 'side', instructions: 'Answer in one line.' });
  assert.equal(spec.name, 'side');
  const sp = options(spec).systemPrompt as { append: string };
  assert.ok(sp.append.endsWith('Answer in one line.'));
});

test("a worker's effort, maxTurns, permissionMode and compaction window land on its AgentDefinition in the session's agents", () => {
  const w = worker('builds', 'p', { lang: 'en', effort: 'high', maxTurns: 30, permissionMode: 'acceptEdits', compact: { window: 300_000 } });
  const o = options(coordinator('work', '', { b: w }, { lang: 'en' }));
  const def = o.agents?.b;
  assert.equal(def?.effort, 'high');
  assert.equal(def?.maxTurns, 30);
  assert.equal(def?.permissionMode, 'acceptEdits');
  assert.equal(def?.autoCompactWindow, 300_000);
  assert.throws(
    () => worker('w', 'p', { permissionMode: 'bypassPermissions' as 'default' }),
    (e: unknown) => ConfigError.is(e) && e.field === 'permissionMode',
  );
});

test("a role's env cannot re-add what the scrub removed: a secret's name or a value holding a secret is dropped", () => {
  const key = 'sk-ant-abcdefghijklmnopqrstuvwxyz0123';
  const spec = clarifier('c', {
    lang: 'en',
    env: { GITHUB_TOKEN: 'ghp_x', PLAIN: 'ok', SNEAKY: `prefix-${key}`, ANTHROPIC_API_KEY: 'sk-other-key-1234567890' },
  });
  const env = childEnv({ base: { ANTHROPIC_API_KEY: key }, spec, maxRetries: 0, secrets: { names: ['GITHUB_TOKEN', 'ANTHROPIC_API_KEY'], values: [key] } });
  assert.equal(env.PLAIN, 'ok');
  assert.equal(env.GITHUB_TOKEN, undefined);
  assert.equal(env.SNEAKY, undefined);
  assert.equal(env.ANTHROPIC_API_KEY, key, "the credential is flower's chain's, never the spec's");
});

test("a role's hooks run after flower's guards, and cannot allow, rewrite an input or rewrite an output", async () => {
  const guard = matcher({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'wall' } });
  const mine: Hooks = {
    PreToolUse: [
      matcher({
        decision: 'approve',
        hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: 'rm -rf /' }, additionalContext: 'note' },
      }),
    ],
    PostToolUse: [matcher({ hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput: 'the secret', additionalContext: 'seen' } })],
  };
  const o = options(judge('j', { lang: 'en', hooks: mine }), { PreToolUse: [guard] });
  const pre = o.hooks?.PreToolUse ?? [];
  assert.equal(pre.length, 2);
  const signal = new AbortController().signal;
  const input = { hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: {}, session_id: 's', transcript_path: '', cwd: '/ws' } as never;
  const first = (await pre[0]!.hooks[0]!(input, 't', { signal })) as { hookSpecificOutput: { permissionDecision: string } };
  assert.equal(first.hookSpecificOutput.permissionDecision, 'deny', "flower's guard is first");
  const second = (await pre[1]!.hooks[0]!(input, 't', { signal })) as Record<string, unknown> & { hookSpecificOutput: Record<string, unknown> };
  assert.equal(second.decision, undefined);
  assert.equal(second.hookSpecificOutput.permissionDecision, undefined);
  assert.equal(second.hookSpecificOutput.updatedInput, undefined);
  assert.equal(second.hookSpecificOutput.additionalContext, 'note');
  const post = (await o.hooks!.PostToolUse![0]!.hooks[0]!(input, 't', { signal })) as { hookSpecificOutput: Record<string, unknown> };
  assert.equal(post.hookSpecificOutput.updatedToolOutput, undefined);
  assert.equal(post.hookSpecificOutput.additionalContext, 'seen');
});

test("a role's PreToolUse hook that throws denies the call (fails closed, like flower's own)", async () => {
  const boom: HookCallback = async () => {
    throw new Error('boom');
  };
  const o = options(clarifier('c', { lang: 'en', hooks: { PreToolUse: [{ matcher: 'Read', hooks: [boom] }] } }));
  const out = (await o.hooks!.PreToolUse![0]!.hooks[0]!({} as never, 't', { signal: new AbortController().signal })) as {
    hookSpecificOutput: { permissionDecision: string };
  };
  assert.equal(out.hookSpecificOutput.permissionDecision, 'deny');
});
