import assert from 'node:assert/strict';
import { test } from 'node:test';
import { delegateDecision, delegateGuard, HANDS_ON_TOOLS, whitelistDecision, whitelistGuard } from '../../src/guards/index.js';
import { fire, pre, specific, SUB } from './helpers.js';

// [behaviour, allowed, tool, agentId, allowed?]
const WHITELIST: Array<[string, string[], string, string | undefined, boolean]> = [
  ['a clarifier cannot run Bash on the main thread', ['Read', 'Glob', 'Grep'], 'Bash', undefined, false],
  ['a clarifier cannot Write', ['Read'], 'Write', undefined, false],
  ['a clarifier cannot Edit', ['Read'], 'Edit', undefined, false],
  ['a clarifier cannot edit notebooks', ['Read'], 'NotebookEdit', undefined, false],
  ['a judge with canRun may run Bash', ['Read', 'Bash'], 'Bash', undefined, true],
  ['a permission rule Bash(git:*) lets Bash past the wall (the SDK narrows it)', ['Bash(git:*)'], 'Bash', undefined, true],
  ['Write allowed by name passes', ['Write'], 'Write', undefined, true],
  ["tools outside the four are not this guard's business", ['Read'], 'WebFetch', undefined, true],
  ['Read is never walled', [], 'Read', undefined, true],
  ['a subagent is never walled', ['Read'], 'Bash', SUB, true],
  ['a subagent may Write', [], 'Write', SUB, true],
  ['an allowed list naming Bash does not allow Write', ['Bash'], 'Write', undefined, false],
];

for (const [name, allowed, tool, agent, ok] of WHITELIST) {
  test(`whitelist: ${name}`, () => {
    const d = whitelistDecision(allowed, tool, agent, 'en');
    assert.equal(d.allow, ok);
    if (!ok) assert.match(d.reason!, /reply/);
  });
}

test('whitelist: the hook denies with a message saying the answer belongs in the reply (zh and en)', async () => {
  const en = specific(await fire(whitelistGuard(['Read'], { lang: 'en' }), pre('Bash', { command: 'uname' })));
  assert.equal(en?.permissionDecision, 'deny');
  assert.match(en!.permissionDecisionReason!, /Bash is not available to this role.*reply/);
  const zh = specific(await fire(whitelistGuard(['Read'], { lang: 'zh' }), pre('Write', { file_path: '/tmp/x', content: '' })));
  assert.equal(zh?.permissionDecision, 'deny');
  assert.match(zh!.permissionDecisionReason!, /回复/);
  assert.equal(specific(await fire(whitelistGuard(['Read'], { lang: 'en' }), pre('Bash', { command: 'uname' }, { agentId: SUB }))), undefined);
});

// [behaviour, tool, input, agentId, glance, allowed?]
const DELEGATE: Array<[string, string, unknown, string | undefined, boolean, boolean]> = [
  ['Write is denied on the main thread', 'Write', { file_path: '/tmp/a', content: 'x' }, undefined, true, false],
  ['Edit is denied on the main thread', 'Edit', { file_path: '/tmp/a', old_string: 'a', new_string: 'b' }, undefined, true, false],
  ['NotebookEdit is denied', 'NotebookEdit', { notebook_path: '/tmp/a.ipynb', new_source: '' }, undefined, true, false],
  ['rm -rf is denied even with glance', 'Bash', { command: 'rm -rf x' }, undefined, true, false],
  ['a redirection into a file is denied with glance', 'Bash', { command: 'echo x > f' }, undefined, true, false],
  ['git status passes with glance', 'Bash', { command: 'git status' }, undefined, true, true],
  ['ls -la passes with glance', 'Bash', { command: 'ls -la' }, undefined, true, true],
  ['a read-only pipeline passes with glance', 'Bash', { command: 'cat README.md | head -5' }, undefined, true, true],
  ['git status is denied without glance', 'Bash', { command: 'git status' }, undefined, false, false],
  ['a Bash call without a command string is denied', 'Bash', { cmd: 'ls' }, undefined, true, false],
  ['a subagent may rm', 'Bash', { command: 'rm -rf x' }, SUB, true, true],
  ['a subagent may Write', 'Write', { file_path: '/tmp/a', content: 'x' }, SUB, false, true],
  ['Read is not hands-on', 'Read', { file_path: '/tmp/a' }, undefined, false, true],
  ['Agent is how a coordinator works', 'Agent', { description: 'd', prompt: 'p' }, undefined, false, true],
];

for (const [name, tool, input, agent, glance, ok] of DELEGATE) {
  test(`delegate: ${name}`, () => {
    const d = delegateDecision(tool, input, agent, { glance, lang: 'en' });
    assert.equal(d.allow, ok, d.reason);
    if (!ok) assert.match(d.reason!, /Dispatch a worker \(Agent tool\)/);
  });
}

test('delegate: a refused glance says why, so the model learns the allowlist instead of retrying', () => {
  const d = delegateDecision('Bash', { command: 'echo x > f' }, undefined, { glance: true, lang: 'en' });
  assert.match(d.reason!, /read-only glances.*redirection/);
  const zh = delegateDecision('Bash', { command: 'npm install' }, undefined, { glance: true, lang: 'zh' });
  assert.match(zh.reason!, /派一个 worker/);
  assert.match(zh.reason!, /npm/);
});

test('delegate: the hook matcher covers every hands-on tool, and a glance gets no decision (the SDK decides)', async () => {
  const g = delegateGuard({ glance: true, lang: 'en' });
  for (const t of HANDS_ON_TOOLS) assert.ok(g.matcher!.split('|').includes(t), t);
  assert.ok(!g.matcher!.split('|').includes('Read'));
  assert.deepEqual(await fire(g, pre('Bash', { command: 'git log --oneline -3' })), [{}]);
  assert.equal(specific(await fire(g, pre('Bash', { command: 'touch f' })))?.permissionDecision, 'deny');
  assert.equal(specific(await fire(delegateGuard({ glance: false, lang: 'en' }), pre('Bash', { command: 'ls' })))?.permissionDecision, 'deny');
});

test('delegate: a recursive search runs rewritten, with the .env files excluded; the guard fails closed in the binary too', async () => {
  const d = delegateDecision('Bash', { command: 'grep -rn KEY sub' }, undefined, { glance: true, lang: 'en' });
  assert.equal(d.allow, true);
  assert.match(d.command ?? '', /--exclude=\.env\*/);
  const g = delegateGuard({ glance: true, lang: 'en' });
  assert.equal(g.onFailure, 'block');
  const out = specific(await fire(g, pre('Bash', { command: 'grep -rn KEY sub', description: 'x' })));
  assert.equal(out?.permissionDecision, 'allow');
  assert.deepEqual(out?.updatedInput, { command: d.command, description: 'x' });
});

test('delegate: the guard ignores events other than PreToolUse', async () => {
  const g = delegateGuard({ lang: 'en' });
  const [out] = await Promise.all(
    g.hooks.map((h) =>
      h({ hook_event_name: 'Stop', session_id: 's', transcript_path: '', cwd: '/', stop_hook_active: false } as never, undefined, {
        signal: new AbortController().signal,
      }),
    ),
  );
  assert.deepEqual(out, {});
});
