/**
 * --isolate end to end: workers in their own git worktrees, the workbench outside the repository.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { cli, project, testEnv } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

test('--isolate outside a git repository exits 1 naming the folder', async () => {
  const p = project('iso-nogit');
  const r = await cli(['--isolate', '写个脚本', '-w', p.ws, '-r', p.runs, '--timeout', '0'], { cwd: p.dir, env: testEnv(p, sim.url) });
  assert.equal(r.code, 1);
  assert.match(r.stderr, /git/);
  assert.ok(r.stderr.includes(p.ws));
  assert.equal(sim.messageRequests().length, 0, 'no model call');
});

test('--isolate runs each worker in a git worktree and keeps the notes in the external workbench', async () => {
  const p = project('iso');
  const git = (...a: string[]) =>
    execFileSync('git', a, {
      cwd: p.ws,
      stdio: 'pipe',
      env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
    });
  git('init', '-q');
  fs.writeFileSync(path.join(p.ws, 'README.md'), 'repo\n');
  git('add', '.');
  git('commit', '-qm', 'init');
  sim.reset();
  const worker = { firstUserIncludes: '[iso-worker]' };
  sim.enqueue(
    {
      type: 'tool_use',
      match: { firstUserIncludes: 'submit_brief' },
      name: 'mcp__human__submit_brief',
      input: { goal: 'g', acceptance: ['a'], boundaries: ['b'], unknowns: ['u'] },
    },
    { type: 'text', match: { firstUserIncludes: 'submit_brief' }, text: 'ok' },
    {
      type: 'tool_use',
      match: { toolsInclude: 'Agent', not: worker },
      name: 'Agent',
      input: { description: 'x', subagent_type: 'worker', run_in_background: false, prompt: '[iso-worker] run pwd' },
    },
    { type: 'tool_use', match: worker, name: 'Bash', input: { command: 'pwd', description: 'where am I' } },
    // its file tools write inside its own worktree: the path wall counts the worktree as the workspace's
    (call) => {
      const cwd = /Primary working directory: ([^\s\\]+)/.exec(call.raw)?.[1] ?? '.';
      return { type: 'tool_use', name: 'Write', input: { file_path: path.join(cwd, 'iso-written.txt'), content: 'from the worktree\n' } };
    },
    { type: 'text', match: worker, text: '结论:done' },
    { type: 'text', match: { toolsInclude: 'Agent', not: worker }, text: 'done' },
  );
  const r = await cli(['--isolate', '--no-goal', '写个脚本', '-w', p.ws, '-r', p.runs, '--timeout', '0'], {
    cwd: p.dir,
    env: testEnv(p, sim.url),
    timeoutMs: 120_000,
  });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const external = path.join(path.dirname(p.ws), `.flower-${path.basename(p.ws)}`);
  assert.ok(fs.existsSync(path.join(external, 'notes', '需求.md')), 'the brief is in the external workbench');
  assert.equal(fs.existsSync(path.join(p.ws, '.flower')), false, 'nothing of flower inside the repository');
  const workerCalls = sim.messageRequests().filter((m) => /\[iso-worker\]/.test(JSON.stringify((m.body as { messages?: unknown[] }).messages?.[0] ?? '')));
  const pwd = JSON.stringify(workerCalls.at(-1)!.body).match(/"tool_result"[^}]*?"content":"([^"]*)"/)?.[1] ?? '';
  assert.ok(pwd.trim().length > 0, 'the worker ran pwd');
  assert.notEqual(pwd.trim(), p.ws, `the worker ran outside the main checkout (pwd: ${pwd})`);
  assert.match(pwd, /worktrees/, 'a git worktree of the repository');
  const written = JSON.stringify(workerCalls.at(-1)!.body);
  assert.match(written, /File created successfully/, written.slice(-600));
  assert.ok(fs.existsSync(path.join(pwd.trim(), 'iso-written.txt')), 'the write landed in the worktree');
  assert.deepEqual(sim.unexpected(), []);
  // `flower status` (no --isolate flag) finds the brief where the run kept it: lineage recorded the workbench
  const st = await cli(['status', '--json', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url) });
  assert.equal(st.code, 0, st.stderr);
  const s = JSON.parse(st.stdout) as { brief: { confirmed: boolean; path: string | null }; woke: number };
  assert.equal(s.brief.confirmed, true, st.stdout);
  assert.equal(s.brief.path, path.join(external, 'notes', '需求.md'));
  assert.equal(s.woke, 1);
  const human = await cli(['status', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url) });
  assert.ok(human.stdout.includes(path.join(external, 'notes', '需求.md')), human.stdout);
});
