/**
 * The allowlist wall and the sandbox policy as tables: what each role's thread may call, what it is told
 * otherwise, and the SDK sandbox settings each floor gets.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import {
  allowlistDecision,
  GLANCE_TIMEOUT_MS,
  glanceWrap,
  guardHooks,
  judgeEphemeral,
  parseNet,
  PathWall,
  sandboxMissing,
  sandboxSettings,
  secretFilePaths,
  sessionTools,
  toolPolicy,
  unwatchedTools,
  type ToolPolicy,
} from '../../src/guards/index.js';
import { clarifier, coordinator, judge, oracle, worker } from '../../src/roles/index.js';
import { AgentSpec } from '../../src/runtime/index.js';
import { scrubMcpServer } from '../../src/runtime/options.js';
import { fire, pre, specific, SUB } from './helpers.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-allow-'));
const ws = path.join(tmp, 'ws');
fs.mkdirSync(ws);
const envFile = path.join(tmp, 'home', '.config', 'flower', '.env');
fs.mkdirSync(path.dirname(envFile), { recursive: true });
fs.writeFileSync(envFile, 'ANTHROPIC_API_KEY=sk-x\n');
fs.symlinkSync(envFile, path.join(ws, 'innocent.txt'));
const secretFiles = [envFile, path.join(ws, '.env'), `${envFile}.previous`];
const paths = new PathWall({ writable: [ws], protected: [], unreadable: secretFiles, home: path.join(tmp, 'home') });

const channel = { server: { type: 'stdio', command: 'true' } as const, toolNames: ['mcp__human__ask', 'mcp__human__inbox'] };
const builder = worker('builds', 'You build.', { lang: 'en' });
const reader = worker('reads', 'You read.', { tools: ['Read', 'Grep'], lang: 'en' });
const coord = coordinator('work', '', { builder, reader }, { channel, lang: 'en' });
const policies: Record<string, ToolPolicy> = {
  coordinator: toolPolicy(coord, { paths, lang: 'en' }),
  judge: toolPolicy(judge('j', { lang: 'en' }), { paths, lang: 'en' }),
  runner: toolPolicy(judge('j', { canRun: true, lang: 'en' }), { paths, lang: 'en' }),
  clarifier: toolPolicy(clarifier('c', { channel, lang: 'en' }), { paths, lang: 'en' }),
  oracle: toolPolicy(oracle({ lang: 'en' }), { paths, lang: 'en' }),
  custom: toolPolicy(new AgentSpec({ name: 'x', allowedTools: ['Bash(git:*)', 'Read', 'mcp__tools'] }), { paths, lang: 'en' }),
};

type Row = [role: string, thread: string | undefined, tool: string, input: Record<string, unknown>, allowed: boolean, says?: RegExp];
const R = (file: string) => path.join(ws, file);
const ROWS: Row[] = [
  // the coordinator: its own list, by name — everything else, future tools included, is denied with a way forward
  ['coordinator', undefined, 'Agent', { subagent_type: 'builder', prompt: 'p', description: 'd' }, true],
  ['coordinator', undefined, 'Agent', { subagent_type: 'reader', prompt: 'p', description: 'd' }, true],
  [
    'coordinator',
    undefined,
    'Agent',
    { subagent_type: 'general-purpose', prompt: 'p', description: 'd' },
    false,
    /no worker called general-purpose.*builder, reader/,
  ],
  ['coordinator', undefined, 'Agent', { prompt: 'p', description: 'd' }, false, /general-purpose/],
  ['coordinator', undefined, 'Agent', { subagent_type: 'Explore', prompt: 'p', description: 'd' }, false, /Explore/],
  ['coordinator', undefined, 'Agent', { subagent_type: 'claude', prompt: 'p', description: 'd' }, false, /claude/],
  ['coordinator', undefined, 'Read', { file_path: R('a.md') }, true],
  ['coordinator', undefined, 'Glob', { pattern: '*.ts' }, true],
  ['coordinator', undefined, 'Grep', { pattern: 'x' }, true],
  ['coordinator', undefined, 'TodoWrite', { todos: [] }, true],
  ['coordinator', undefined, 'SendMessage', { to: 'a1', message: 'go on' }, true],
  ['coordinator', undefined, 'ToolSearch', { query: 'select:Glob' }, true],
  ['coordinator', undefined, 'mcp__human__ask', { question: 'q' }, true],
  ['coordinator', undefined, 'mcp__human__inbox', {}, true],
  ['coordinator', undefined, 'mcp__other__ask', {}, false, /not one of this role's tools/],
  ['coordinator', undefined, 'Bash', { command: 'git status' }, true],
  ['coordinator', undefined, 'Bash', { command: 'rm -rf x' }, false, /Dispatch a worker.*read-only glances/s],
  ['coordinator', undefined, 'Bash', { command: 'ls', dangerouslyDisableSandbox: true }, false, /only inside the sandbox/],
  ['coordinator', undefined, 'Bash', {}, false, /Dispatch a worker/],
  ['coordinator', undefined, 'Write', { file_path: R('x'), content: '' }, false, /Dispatch a worker/],
  ['coordinator', undefined, 'Edit', { file_path: R('x') }, false, /Dispatch a worker/],
  ['coordinator', undefined, 'NotebookEdit', { notebook_path: R('n.ipynb') }, false, /Dispatch a worker/],
  [
    'coordinator',
    undefined,
    'EnterWorktree',
    { name: 'x' },
    false,
    /EnterWorktree is not one of this role's tools \(Agent, SendMessage, TodoWrite, Read, Glob, Grep, Bash, mcp__human__ask, mcp__human__inbox\)/,
  ],
  ['coordinator', undefined, 'CronCreate', { cron: '* * * * *', prompt: 'x', durable: true }, false, /CronCreate is not one/],
  ['coordinator', undefined, 'ExitPlanMode', {}, false, /not one/],
  ['coordinator', undefined, 'KillShell', {}, false, /not one/],
  ['coordinator', undefined, 'WebFetch', { url: 'http://x' }, false, /not one/],
  ['coordinator', undefined, 'SomeToolFrom2030', {}, false, /not one/],
  // credential files: by path, through a link, by glob — every thread
  ['coordinator', undefined, 'Read', { file_path: envFile }, false, /may not read .*: it holds credentials/],
  ['coordinator', undefined, 'Read', { file_path: R('innocent.txt') }, false, /credential/],
  ['coordinator', undefined, 'Read', { file_path: '.env' }, false, /credential/],
  ['coordinator', undefined, 'Read', { file_path: `${envFile}.previous` }, false, /credential/],
  ['coordinator', undefined, 'Grep', { pattern: 'KEY', path: envFile }, false, /credential/],
  ['coordinator', undefined, 'Grep', { pattern: 'KEY', path: ws, glob: '.env*' }, false, /credential/],
  ['coordinator', undefined, 'Glob', { pattern: '.env*' }, false, /credential/],
  // `.env*` means every name that starts so, `.env.example` and `.envrc.md` included: the wall does not guess which hold values
  ['coordinator', undefined, 'Read', { file_path: R('.envrc.md') }, false, /holds credentials/],
  ['coordinator', undefined, 'Read', { file_path: R('env.md') }, true],
  ['coordinator', undefined, 'Read', { file_path: R('sub/deeper/.env.local') }, false, /holds credentials/],
  ['coordinator', undefined, 'Grep', { pattern: 'KEY', path: R('pkg'), glob: '*.env' }, false, /credential/],
  ['coordinator', undefined, 'Glob', { pattern: '**/*.ts' }, true],
  ['coordinator', 'builder', 'Write', { file_path: path.join(tmp, 'home', '.bashrc'), content: '' }, false, /writes only inside the workspace/],
  ['coordinator', 'builder', 'Write', { file_path: R('sub/.env'), content: '' }, false, /may not write \.env/],
  ['coordinator', 'builder', 'Edit', { file_path: R('.git/config') }, false, /may not write \.git/],
  // an MCP tool that names a path is held to the same wall (flower's own in-process servers are not: their arguments are text)
  ['custom', undefined, 'mcp__tools__write_file', { path: path.join(tmp, 'home', '.ssh', 'authorized_keys'), content: 'k' }, false, /writes only inside/],
  ['custom', undefined, 'mcp__tools__write_file', { path: R('out.txt'), content: 'k' }, true],
  ['custom', undefined, 'mcp__tools__save', { options: { destination: '~/.bashrc' } }, false, /writes only inside/],
  ['custom', undefined, 'mcp__tools__note', { text: 'see /etc/passwd for users' }, true],
  ['custom', undefined, 'mcp__tools__copy', { files: Array.from({ length: 300 }, (_, i) => R(`f${i}`)) }, false, /300 paths/],
  ['coordinator', 'builder', 'Read', { file_path: envFile }, false, /credential/],
  // workers: their own lists; an undeclared agent type has none
  ['coordinator', 'builder', 'Write', { file_path: R('x'), content: '' }, true],
  ['coordinator', 'builder', 'Bash', { command: 'make && rm -rf build' }, true],
  ['coordinator', 'builder', 'Bash', { command: 'make', dangerouslyDisableSandbox: true }, false, /sandbox/],
  ['coordinator', 'builder', 'Agent', { subagent_type: 'builder' }, false, /not one/],
  ['coordinator', 'builder', 'EnterWorktree', {}, false, /not one/],
  ['coordinator', 'reader', 'Write', { file_path: R('x'), content: '' }, false, /Write is not one of this role's tools \(Read, Grep\)/],
  ['coordinator', 'reader', 'Bash', { command: 'ls' }, false, /not one/],
  ['coordinator', 'reader', 'Grep', { pattern: 'x' }, true],
  ['coordinator', 'general-purpose', 'Read', { file_path: R('a') }, false, /general-purpose is not a declared worker/],
  // read-only roles
  ['judge', undefined, 'Read', { file_path: R('a') }, true],
  ['judge', undefined, 'Bash', { command: 'ls' }, false, /not one/],
  ['judge', undefined, 'Agent', { subagent_type: 'x' }, false, /not one/],
  ['runner', undefined, 'Bash', { command: 'npm test' }, true],
  ['clarifier', undefined, 'WebFetch', { url: 'https://x' }, true],
  ['clarifier', undefined, 'mcp__human__ask', {}, true],
  ['clarifier', undefined, 'mcp__human__inbox', {}, false, /not one/],
  ['clarifier', undefined, 'TodoWrite', {}, false, /not one/],
  ['oracle', undefined, 'Glob', { pattern: '*' }, true],
  ['oracle', undefined, 'WebSearch', {}, false, /not one/],
  // rule spellings: `Bash(git:*)` lists Bash; `mcp__server` lists every tool of that server
  ['custom', undefined, 'Bash', { command: 'git log' }, true],
  ['custom', undefined, 'mcp__tools__anything', {}, true],
  ['custom', undefined, 'mcp__toolsmith__x', {}, false, /not one/],
  ['custom', undefined, 'Write', {}, false, /not one of this role's tools \(Bash, Read\)/],
];

for (const [role, thread, tool, input, allowed, says] of ROWS) {
  test(`allowlist: ${role}${thread ? ` › ${thread}` : ''} ${tool} ${JSON.stringify(input).slice(0, 60)} → ${allowed ? 'allowed' : 'denied'}`, () => {
    const d = allowlistDecision(policies[role]!, tool, input, thread, thread !== undefined, ws);
    assert.equal(d.allow, allowed, d.reason);
    if (says) assert.match(d.reason ?? '', says);
  });
}

test('allowlist: the installed hook answers every tool in one callback; the wall decides all but those listed for every thread and checked by name only', async () => {
  const hooks = guardHooks(coord, { lang: 'en' });
  const [wall] = hooks.PreToolUse!;
  // one matcher for the wall and the repeat guard (guards/calls): the repeat count must see every tool
  assert.equal(wall!.matcher, undefined);
  assert.equal(wall!.hooks.length, 1, 'one round trip per tool call');
  assert.deepEqual(
    unwatchedTools(toolPolicy(coord, { lang: 'en' })),
    ['Grep', 'Read', 'ToolSearch'],
    "Glob is not the reader's; Bash is the glance check; Agent is always checked",
  );
  assert.equal(specific(await fire(wall!, pre('Read', { file_path: R('a') }))), undefined, 'a tool every thread may use is not walled');
  assert.deepEqual(unwatchedTools(toolPolicy(coord, { lang: 'en', paths })), ['ToolSearch'], 'with a path wall, every read and write is decided on its path');
  const walled = guardHooks(coord, { lang: 'en', paths }).PreToolUse![0]!;
  assert.match(specific(await fire(walled, pre('Read', { file_path: path.join(tmp, 'home', '.config', 'flower', '.env') })))?.permissionDecision ?? '', /deny/);
  assert.equal(specific(await fire(wall!, pre('Glob', { pattern: '*' }, { agentId: SUB, agentType: 'reader' })))?.permissionDecision, 'deny');
  assert.equal(specific(await fire(wall!, pre('SomeToolFrom2030', {})))?.permissionDecision, 'deny', 'an allowlist sees tools nobody listed');
  assert.deepEqual(unwatchedTools(toolPolicy(new AgentSpec({ name: 'p', allowedTools: ['Bash', 'Read', 'Grep', 'Glob'] }), { lang: 'en' })), [
    'Bash',
    'Glob',
    'Grep',
    'Read',
    'ToolSearch',
  ]);
  assert.equal(unwatchedTools(toolPolicy(coordinator('c', '', {}, { lang: 'en' }))).includes('Bash'), false, 'a glance is always checked');
  assert.equal(specific(await fire(wall!, pre('CronCreate', { cron: '* * * * *' })))?.permissionDecision, 'deny');
  assert.equal(specific(await fire(wall!, pre('Bash', { command: 'make' }, { agentId: SUB, agentType: 'builder' }))), undefined);
  assert.equal(specific(await fire(wall!, pre('Bash', { command: 'make' }, { agentId: SUB, agentType: 'Explore' })))?.permissionDecision, 'deny');
});

test('allowlist: with a writable floor, an allowed glance is rewritten to run read-only; a refused one is not', async () => {
  const hooks = guardHooks(coord, { lang: 'en', wrapGlances: true });
  const [wall] = hooks.PreToolUse!;
  const out = specific(await fire(wall!, pre('Bash', { command: 'git status', description: 'd' })));
  assert.equal(out?.permissionDecision, 'allow');
  assert.deepEqual(out?.updatedInput, { command: glanceWrap('git status'), description: 'd', timeout: GLANCE_TIMEOUT_MS });
  assert.equal(specific(await fire(wall!, pre('Bash', { command: 'make' }, { agentId: SUB, agentType: 'builder' }))), undefined, 'workers are not wrapped');
});

test('allowlist: a glance runs as the classifier rewrote it, in the foreground, within the glance timeout', () => {
  const p = policies.coordinator!;
  const grep = allowlistDecision(p, 'Bash', { command: 'grep -rn KEY sub' }, undefined, false, ws);
  const rewritten = judgeEphemeral('grep -rn KEY sub');
  assert.ok(rewritten.ok && rewritten.command?.includes('--exclude=.env*'), JSON.stringify(rewritten));
  assert.deepEqual(grep.updatedInput, { command: rewritten.ok ? rewritten.command : '', timeout: GLANCE_TIMEOUT_MS });
  const bg = allowlistDecision(p, 'Bash', { command: 'ls', run_in_background: true }, undefined, false, ws);
  assert.equal(bg.allow, false);
  assert.match(bg.reason ?? '', /foreground/);
  assert.equal(allowlistDecision(p, 'Bash', { command: 'ls', timeout: 5000 }, undefined, false, ws).updatedInput, undefined, 'a shorter timeout is kept');
  assert.equal(allowlistDecision(p, 'Bash', { command: 'ls', timeout: 600_000 }, undefined, false, ws).updatedInput?.timeout, GLANCE_TIMEOUT_MS);
});

test('a wrapped glance runs the same command, quotes intact, and cannot write', { skip: sandboxMissing() !== undefined && 'bubblewrap not installed' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-wrap-'));
  const cmd = `printf '%s|' "it's" 'a b' $((1+2)); echo; touch made.txt 2>/dev/null || echo refused`;
  const run = (c: string) => execFileSync('bash', ['-c', c], { cwd: dir, encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
  let out: string;
  try {
    out = run(glanceWrap(cmd));
  } catch (e) {
    return assert.fail(`bwrap could not start here: ${String(e)}`);
  }
  assert.equal(out, "it's|a b|3|\nrefused\n");
  assert.ok(!fs.existsSync(path.join(dir, 'made.txt')));
});

test("sessionTools: every thread's tools are pre-approved once (subagents ask the session's rules), minus what the spec removes", () => {
  const s = sessionTools(coord);
  for (const t of ['Agent', 'Read', 'Write', 'Edit', 'Bash', 'Grep', 'ToolSearch', 'mcp__human__ask']) assert.ok(s.includes(t), t);
  assert.equal(new Set(s).size, s.length);
  assert.ok(!sessionTools(judge('j', { lang: 'en' })).includes('Bash'));
});

const base = {
  workspace: ws,
  workbench: path.join(ws, '.flower'),
  runDir: path.join(ws, 'runs'),
  tmpDir: '/tmp/flower-tmp-1-x',
  secretVars: ['ANTHROPIC_API_KEY', 'X_TOKEN'],
  secretFiles: [envFile],
};
test('sandbox: a read-only floor writes only its temp folder and has no network; a writing floor writes workspace, workbench and temp, never the run dir', () => {
  const ro = sandboxSettings({ ...base, floor: 'read-only', net: 'on' });
  assert.equal(ro.enabled, true);
  assert.equal(ro.failIfUnavailable, true);
  assert.equal(ro.allowUnsandboxedCommands, false, 'dangerouslyDisableSandbox is ignored');
  assert.deepEqual(ro.filesystem?.allowWrite, [base.tmpDir]);
  assert.deepEqual(ro.filesystem?.denyWrite, [ws, base.workbench, base.runDir]);
  assert.deepEqual(ro.network, { allowedDomains: [], strictAllowlist: true }, 'read-only roles never have a network, whatever --net says');
  assert.deepEqual(ro.credentials?.envVars, [
    { name: 'ANTHROPIC_API_KEY', mode: 'deny' },
    { name: 'X_TOKEN', mode: 'deny' },
  ]);
  assert.deepEqual(ro.credentials?.files, [{ path: envFile, mode: 'deny' }]);
  const rw = sandboxSettings({ ...base, floor: 'workspace', net: 'off', extraWrite: ['/data/out'] });
  assert.deepEqual(rw.filesystem?.allowWrite, [ws, base.workbench, base.tmpDir, '/data/out']);
  assert.deepEqual(rw.filesystem?.denyWrite, [base.runDir]);
  assert.deepEqual(sandboxSettings({ ...base, floor: 'workspace', net: 'on' }).network, { allowedDomains: ['*'] });
  assert.deepEqual(sandboxSettings({ ...base, floor: 'workspace', net: ['registry.npmjs.org'] }).network, {
    allowedDomains: ['registry.npmjs.org'],
    strictAllowlist: true,
  });
  // a run dir that holds the workspace cannot be walled off without walling off the work
  assert.equal(sandboxSettings({ ...base, runDir: tmp, floor: 'workspace', net: 'on' }).filesystem?.denyWrite, undefined);
  assert.equal(sandboxSettings({ ...base, floor: 'workspace', net: 'on', nestedGlances: true }).allowNestedUserNamespaces, true);
});

const NETS: Array<[string, unknown]> = [
  ['on', 'on'],
  ['off', 'off'],
  [' on ', 'on'],
  ['registry.npmjs.org', ['registry.npmjs.org']],
  ['registry.npmjs.org, *.github.com', ['registry.npmjs.org', '*.github.com']],
  ['*', ['*']],
  ['', Error],
  ['http://x.com', Error],
  ['a b', Error],
  [',', Error],
  ['x.com/path', Error],
];
for (const [v, want] of NETS) {
  test(`--net ${JSON.stringify(v)} → ${want === Error ? 'usage error' : JSON.stringify(want)}`, () => {
    if (want === Error) assert.throws(() => parseNet(v), /--net takes on, off or a comma-separated list/);
    else assert.deepEqual(parseNet(v), want);
  });
}

test('secrets: the credential files flower looks in, and their `.previous` copies', () => {
  assert.deepEqual(secretFilePaths(['/p/.env', '/h/.config/flower/.env']), [
    '/p/.env',
    '/p/.env.previous',
    '/h/.config/flower/.env',
    '/h/.config/flower/.env.previous',
  ]);
});

test('sandboxMissing names what to install, or nothing when bubblewrap and socat are on PATH', () => {
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-nopath-'));
  assert.match(sandboxMissing('linux', empty) ?? '', /bubblewrap \(bwrap\) and socat.*apt-get install bubblewrap socat/);
  const half = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-halfpath-'));
  fs.writeFileSync(path.join(half, 'bwrap'), '#!/bin/sh\n', { mode: 0o755 });
  assert.match(sandboxMissing('linux', half) ?? '', /needs socat,/);
  fs.writeFileSync(path.join(half, 'socat'), '#!/bin/sh\n', { mode: 0o755 });
  assert.equal(sandboxMissing('linux', half), undefined);
  assert.equal(sandboxMissing('darwin', empty), undefined);
  assert.match(sandboxMissing('win32', empty) ?? '', /not available on win32/);
});

test('a stdio MCP server a spec adds is started through `env -u …`: it never inherits a secret (the sandbox covers only commands)', () => {
  const s = scrubMcpServer({ type: 'stdio', command: 'node', args: ['srv.js'], env: { MODE: 'x', X_TOKEN: 'leak' } }, ['ANTHROPIC_API_KEY', 'X_TOKEN']);
  assert.deepEqual(s, { type: 'stdio', command: 'env', args: ['-u', 'ANTHROPIC_API_KEY', '-u', 'X_TOKEN', '--', 'node', 'srv.js'], env: { MODE: 'x' } });
  const plain = { command: 'srv' } as const;
  assert.deepEqual(scrubMcpServer(plain, ['K']), { command: 'env', args: ['-u', 'K', '--', 'srv'] });
  const http = { type: 'http', url: 'http://x' } as const;
  assert.equal(scrubMcpServer(http, ['K']), http, 'not a process: left alone');
  const out = execFileSync('env', [...(scrubMcpServer({ command: 'sh', args: ['-c', 'echo "[$K]"'] }, ['K']) as { args: string[] }).args], {
    env: { PATH: process.env.PATH ?? '', K: 'secret' },
    encoding: 'utf8',
  });
  assert.equal(out, '[]\n');
});
