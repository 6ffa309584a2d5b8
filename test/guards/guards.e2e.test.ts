/**
 * Roles and guards end to end: the real claude binary through flower's Runtime, the sim on 127.0.0.1.
 * (a) a coordinator's hands stay off the workspace while its glances run; (b) the work happens in a
 * worker, whose transcript lands under the session's subagents/ key; (c) a long output reaches the model
 * as a pointer, and reading the spill file back is not spilled again.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { guardHooks, Workbench } from '../../src/guards/index.js';
import { coordinator, worker } from '../../src/roles/index.js';
import { AgentSpec, Runtime } from '../../src/runtime/index.js';
import { toolResultsOf, type ToolResultSeen } from '../../src/sim/index.js';
import { SqliteSessionStore, ViewedStore } from '../../src/store/index.js';
import type { SessionKey } from '@anthropic-ai/claude-agent-sdk';
import { project, testEnv, type Project } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

function runtime(p: Project): Runtime {
  return new Runtime({ workspace: p.ws, runDir: p.runs, env: testEnv(p, sim.url), onWarning: () => {} });
}

/** Every tool result the model had been sent by its last request, by tool_use id. */
function resultsById(): Map<string, ToolResultSeen> {
  const last = sim.messageRequests().at(-1)!;
  return new Map(toolResultsOf(last.body).map((r) => [r.tool_use_id, r]));
}

test('a coordinator is denied Write, Edit and mutating Bash (told to dispatch), while its read-only glances run', async () => {
  const p = project('coord-wall');
  const readme = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
  fs.writeFileSync(path.join(p.ws, 'README.md'), readme);
  fs.mkdirSync(path.join(p.ws, 'x'));
  fs.writeFileSync(path.join(p.ws, 'x', 'keep.txt'), 'keep\n');
  execFileSync('git', ['init', '-q'], { cwd: p.ws });
  const spec = coordinator('coord', '', { builder: worker('builds', 'You build.', { lang: 'en' }) }, { lang: 'en' });
  const bash = (id: string, command: string) => ({ type: 'tool_use' as const, id, name: 'Bash', input: { command, description: id } });
  sim.reset();
  sim.enqueue(
    { type: 'tool_use', id: 'toolu_read', name: 'Read', input: { file_path: path.join(p.ws, 'README.md') } },
    { type: 'tool_use', id: 'toolu_write', name: 'Write', input: { file_path: path.join(p.ws, 'x.txt'), content: 'nope\n' } },
    { type: 'tool_use', id: 'toolu_edit', name: 'Edit', input: { file_path: path.join(p.ws, 'README.md'), old_string: 'line 1\n', new_string: 'CHANGED\n' } },
    bash('toolu_rm', 'rm -rf x'),
    bash('toolu_redirect', 'echo x > f'),
    bash('toolu_status', 'git status'),
    bash('toolu_ls', 'ls -la'),
    bash('toolu_pipe', 'cat README.md | head -5'),
    { type: 'text', text: 'Looked around; dispatching next.' },
  );
  const rt = runtime(p);
  try {
    const r = await rt.run(spec, 'look around', { hooks: guardHooks(spec, { lang: 'en' }) });
    assert.equal(r.ok, true, r.error ?? '');
  } finally {
    rt.close();
  }
  sim.assertConsumed();
  sim.assertNoUnexpected();
  const res = resultsById();
  for (const id of ['toolu_write', 'toolu_edit', 'toolu_rm', 'toolu_redirect']) {
    const t = res.get(id)!;
    assert.equal(t.is_error, true, id);
    assert.match(t.content, /Dispatch a worker \(Agent tool\)/, `${id}: ${t.content}`);
  }
  assert.match(res.get('toolu_redirect')!.content, /read-only glances/);
  assert.equal(fs.readFileSync(path.join(p.ws, 'README.md'), 'utf8'), readme, 'Edit did not land');
  assert.ok(!fs.existsSync(path.join(p.ws, 'x.txt')), 'Write did not land');
  assert.ok(fs.existsSync(path.join(p.ws, 'x', 'keep.txt')), 'rm -rf did not run');
  assert.ok(!fs.existsSync(path.join(p.ws, 'f')), 'the redirection did not run');
  assert.match(res.get('toolu_status')!.content, /On branch|No commits yet/);
  assert.equal(res.get('toolu_status')!.is_error, false);
  assert.match(res.get('toolu_ls')!.content, /README\.md/);
  const pipe = res.get('toolu_pipe')!.content;
  assert.match(pipe, /line 5/);
  assert.doesNotMatch(pipe, /line 6/);
});

test("a coordinator dispatches a worker that writes; the worker's transcript is stored under subagents/", async () => {
  const p = project('coord-worker');
  const builder = worker('writes files on request', 'You build what the brief asks.', { lang: 'en' });
  const spec = coordinator('coord', '', { builder }, { lang: 'en' });
  const built = path.join(p.ws, 'built.txt');
  const task = { firstUserIncludes: 'TASK-B7' };
  sim.reset();
  sim.enqueue(
    {
      type: 'tool_use',
      name: 'Agent',
      match: { firstUserIncludes: 'COORD-B7' },
      input: { description: 'write built.txt', prompt: 'TASK-B7: write built.txt and report.', subagent_type: 'builder', run_in_background: false },
    },
    // the worker's system prompt carries the report contract: routing on it proves the definition reached it
    { type: 'tool_use', name: 'Write', match: { ...task, systemIncludes: 'Unverified:' }, input: { file_path: built, content: 'built by the worker\n' } },
    { type: 'tool_use', name: 'Bash', match: task, input: { command: 'echo bash-too > by-bash.txt', description: 'write with bash' } },
    { type: 'text', match: task, text: 'Conclusion: built.txt written. WORKER-REPORT-B7' },
    { type: 'text', match: { firstUserIncludes: 'COORD-B7', lastUserIncludes: 'WORKER-REPORT-B7' }, text: 'The worker built it.' },
  );
  const rt = runtime(p);
  let sid = '';
  try {
    const r = await rt.run(spec, 'COORD-B7: get built.txt made', { hooks: guardHooks(spec, { lang: 'en' }) });
    assert.equal(r.ok, true, r.error ?? '');
    assert.equal(r.text.trim(), 'The worker built it.');
    sid = r.session_id!;
  } finally {
    rt.close();
  }
  sim.assertConsumed();
  sim.assertNoUnexpected();
  assert.equal(fs.readFileSync(built, 'utf8'), 'built by the worker\n');
  assert.equal(fs.readFileSync(path.join(p.ws, 'by-bash.txt'), 'utf8'), 'bash-too\n', "the worker's Bash is not walled");
  const db = new Database(path.join(p.runs, 'sessions.db'), { readonly: true });
  try {
    const keys = (db.prepare('select distinct store_key as k from entries').all() as { k: string }[]).map((r) => r.k);
    const prefix = `${rt.projectKey}/${sid}/subagents/agent-`;
    const sub = keys.filter((k) => k.startsWith(prefix));
    assert.equal(sub.length, 1, `keys: ${keys.join(', ')}`);
    const payloads = (db.prepare('select payload from entries where store_key = ?').all(sub[0]) as { payload: string }[]).map((r) => r.payload).join('\n');
    assert.match(payloads, /TASK-B7/);
    assert.match(payloads, /"isSidechain":true/);
    assert.match(payloads, /built by the worker/);
  } finally {
    db.close();
  }

  // a rerun restores it: resuming the coordinator's session loads the worker's transcript too
  const loaded: string[] = [];
  class SpyStore extends ViewedStore {
    override async load(key: SessionKey) {
      loaded.push(key.subpath ?? '(main)');
      return super.load(key);
    }
  }
  sim.reset();
  sim.enqueue({ type: 'text', match: { firstUserIncludes: 'COORD-B7' }, text: 'still here' });
  const store = new SpyStore(new SqliteSessionStore(path.join(p.runs, 'sessions.db')), p.ws);
  const rt2 = new Runtime({ workspace: p.ws, runDir: p.runs, env: testEnv(p, sim.url), onWarning: () => {}, store });
  try {
    const again = await rt2.run(spec, 'anything left?', { resume: sid });
    assert.equal(again.ok, true, again.error ?? '');
    assert.equal(again.session_id, sid);
  } finally {
    rt2.close();
  }
  assert.ok(loaded.includes('(main)'));
  assert.ok(
    loaded.some((k) => k.startsWith('subagents/agent-')),
    `loaded: ${loaded.join(', ')}`,
  );
});

test('a 10,000-char Bash output reaches the model as a pointer with a ≤400-char head; reading the spill file back is not spilled', async () => {
  const p = project('spill');
  const big = Array.from({ length: 800 }, (_, i) => `row ${String(i).padStart(4, '0')} ${'abcdefgh'.repeat(2)}`).join('\n');
  const expected = big.slice(0, 10_000);
  assert.notEqual(expected.at(-1), '\n');
  fs.writeFileSync(path.join(p.ws, 'big.txt'), big);
  const wb = new Workbench(p.ws, { lang: 'en' }).ensure();
  const spec = new AgentSpec({ name: 'reader', allowedTools: ['Bash', 'Read', 'Grep'] });
  const spilledPath = (text: string): string => {
    const m = /→ (\S+\.txt) —/.exec(text);
    if (!m) throw new Error(`no pointer in: ${text.slice(0, 300)}`);
    return m[1]!;
  };
  sim.reset();
  sim.enqueue(
    { type: 'tool_use', id: 'toolu_big', name: 'Bash', input: { command: 'head -c 10000 big.txt', description: 'print' } },
    (call) => ({ type: 'tool_use', id: 'toolu_readback', name: 'Read', input: { file_path: spilledPath(call.lastUser) } }),
    (call) => ({
      type: 'tool_use',
      id: 'toolu_cat',
      name: 'Bash',
      input: { command: `cat ${path.relative(p.ws, spilledPath(JSON.stringify(call.body)))}`, description: 'cat it' },
    }),
    { type: 'text', text: 'Read it all.' },
  );
  const rt = runtime(p);
  try {
    const r = await rt.run(spec, 'print big.txt', { hooks: guardHooks(spec, { workbench: wb, lang: 'en' }) });
    assert.equal(r.ok, true, r.error ?? '');
  } finally {
    rt.close();
  }
  sim.assertConsumed();
  sim.assertNoUnexpected();
  const files = fs.readdirSync(wb.spill);
  assert.equal(files.length, 1, `one spill file, not one per read: ${files.join(', ')}`);
  const file = path.join(wb.spill, files[0]!);
  assert.equal(fs.readFileSync(file, 'utf8'), expected, 'the spill file holds the full text');
  const res = resultsById();
  const [pointer, head, ...more] = res.get('toolu_big')!.content.split('\n');
  assert.equal(pointer, `[output spilled: 10000 chars → ${file} — use Read for the full text, Grep to search] Head:`);
  assert.ok(head!.length <= 400, `head is ${head!.length} chars`);
  assert.equal(head, expected.slice(0, 400).replace(/\n/g, ' '));
  assert.deepEqual(
    more.filter((l) => !l.startsWith('<system-reminder>') && l.trim() && !l.includes('total_tokens') && !l.startsWith('</')),
    [],
  );
  const readBack = res.get('toolu_readback')!.content;
  assert.doesNotMatch(readBack, /output spilled/);
  const lastRow = expected.split('\n').at(-2)!;
  assert.ok(readBack.includes(lastRow), `Read of the absolute spill path gives the full text (up to ${lastRow})`);
  const cat = res.get('toolu_cat')!.content;
  assert.doesNotMatch(cat, /output spilled/);
  assert.ok(cat.includes(expected.slice(-200)), 'cat of the relative spill path gives the full text');
});
