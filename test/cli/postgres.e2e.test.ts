/**
 * Beyond one machine, end to end: real `flower` processes, the real claude binary, the scripted
 * model, and a real PostgreSQL. Host A runs the default flow; host B (another path, another HOME,
 * the same workspace files, the same FLOWER_STORE and FLOWER_PROJECT) wakes it and continues A's
 * work session; `flower once` processes at once each keep their row. No sessions.db anywhere. A run
 * killed mid work step (kill -9, and SIGTERM on the wake) leaves a row naming the work session, read
 * back from the database, and the next wake continues that same session.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { firstUserText, offeredTools, startSim, type Sim, type SimItem } from '../../src/sim/index.js';
import { cli, killGroup, project, startCli, testEnv, transcriptOf, until, type Project } from '../helpers/e2e.js';
import { PG_SKIP, adminSql, dropDatabases, freshDatabase, pgUrlWith } from '../helpers/pg.js';

let sim: Sim;
before(async () => {
  sim = await startSim({ port: 0, onUnexpected: 'error' });
});
after(async () => {
  await sim.close();
  await dropDatabases();
});

interface Row {
  step: string;
  session_id: string;
  ok: boolean;
  run: string;
  error: string | null;
}

/** `flower log --json`: one row per line. */
const rowsOf = (stdout: string): Row[] =>
  stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Row);
const clarifier = { firstUserIncludes: 'submit_brief' };
const goalSetter = { firstUserIncludes: 'submit_goal' };
const judge = { firstUserIncludes: 'submit_verdict' };
const coordinator = { toolsInclude: 'Agent' };
const brief = (): SimItem[] => [
  {
    type: 'tool_use',
    match: clarifier,
    name: 'mcp__human__submit_brief',
    input: { goal: '写 md2html 脚本', acceptance: ['node md2html.mjs a.md 输出 html'], boundaries: ['不用第三方库'], unknowns: ['输出到标准输出'] },
  },
  { type: 'text', match: clarifier, text: '好了' },
];
const goal = (checks: string[]): SimItem[] => [
  { type: 'tool_use', match: goalSetter, name: 'mcp__human__submit_goal', input: { statement: 'md 能转 html', checks: checks.map((text) => ({ text })) } },
  { type: 'text', match: goalSetter, text: '好了' },
];
const work = (text: string): SimItem[] => [{ type: 'text', match: coordinator, text }];
const verdict = (items = ['输出含 <h1>']): SimItem[] => [
  {
    type: 'tool_use',
    match: judge,
    name: 'mcp__human__submit_verdict',
    input: { state: 'achieved', reason: '', checks: items.map((item) => ({ item, pass: true, evidence: '看了输出' })) },
  },
  { type: 'text', match: judge, text: '判定完毕' },
];

/** Every file under `dir` whose name starts with sessions.db (the SQLite store and its -wal/-shm). */
function sqliteFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.startsWith('sessions.db')) out.push(p);
    }
  };
  walk(dir);
  return out;
}

describe('PostgreSQL store end to end', { skip: PG_SKIP }, () => {
  test("host A runs the flow; host B wakes it (#2) and continues A's work session; four `once` at once keep four rows", { timeout: 600_000 }, async () => {
    const url = await freshDatabase('e2e');
    const env = (p: Project) => testEnv(p, sim.url, { FLOWER_LANG: 'zh', FLOWER_STORE: url, FLOWER_PROJECT: 'team-md' });
    const flower = (p: Project, args: string[]) => cli([...args, '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: env(p), timeoutMs: 180_000 });
    const logRows = async (p: Project) => {
      const r = await flower(p, ['log', '--json', '-n', '100']);
      assert.equal(r.code, 0, r.stderr);
      return rowsOf(r.stdout);
    };

    // host A
    const a = project('pg-a');
    sim.reset();
    sim.enqueue(...brief(), ...goal(['node md2html.mjs a.md 输出含 <h1>']), ...work('A 写好了 md2html.mjs'), ...verdict());
    const ra = await flower(a, ['写个 md 转 html 的脚本', '--timeout', '0']);
    assert.equal(ra.code, 0, ra.stderr + ra.stdout);
    assert.deepEqual(sqliteFiles(a.dir), [], 'no sessions.db anywhere with a PostgreSQL store');
    assert.equal(
      fs.existsSync(path.join(a.runs, 'manifest.json')) || fs.existsSync(path.join(a.runs, 'lineage.json')),
      false,
      'lineage and manifest are in the database',
    );
    const rowsA = await logRows(a);
    assert.deepEqual(
      rowsA.map((x) => x.step),
      ['确认需求', '设定目标', '干活', '干活·判定#1'],
    );
    const workSid = rowsA[2]!.session_id;
    const db = new URL(url).pathname.slice(1);
    const stored = await adminSql(`SELECT project_key, session_id FROM flower.transcripts WHERE session_id = $1 AND subpath = ''`, [workSid], db);
    assert.deepEqual(stored.rows, [{ project_key: 'flower-team-md', session_id: workSid }], "the session id is stored as plain text under the project's key");

    // host B: A's workspace files at another path, another HOME, the same store and project
    const b = project('pg-b');
    fs.cpSync(a.ws, b.ws, { recursive: true });
    sim.reset();
    sim.enqueue(...goal(['输出含 <h1>', '代码块输出 <pre><code>']), ...work('B 加上了代码块'), ...verdict(['输出含 <h1>', '代码块输出 <pre><code>']));
    const rb = await flower(b, ['顺便支持代码块高亮', '--timeout', '0']);
    assert.equal(rb.code, 0, rb.stderr + rb.stdout);
    assert.match(rb.stdout, /第 2 次唤醒/);
    const rowsB = await logRows(b);
    const wake = rowsB.filter((x) => x.run !== rowsA[0]!.run);
    assert.deepEqual(
      wake.map((x) => x.step),
      ['设定目标', '干活', '干活·判定#1'],
    );
    assert.equal(wake[1]!.session_id, workSid, "B continues A's work session (same id, no fork)");
    assert.deepEqual(new Set(rowsB.map((x) => x.run)).size, 2, '`flower log` in B lists both runs');
    const resumed = sim.messageRequests().find((m) => (m.body as { tools?: { name: string }[] }).tools?.some((t) => t.name === 'Agent'))!;
    const seen = transcriptOf(resumed.body);
    assert.ok(
      seen.some((l) => l.startsWith('assistant:') && l.includes('A 写好了 md2html.mjs')),
      `the model sees A's conversation: ${JSON.stringify(seen).slice(0, 2000)}`,
    );
    // the binary tells the model the working directory moved (a system line after the prompt)
    assert.match(seen.filter((l) => l.startsWith('user:')).at(-1)!, /顺便支持代码块高亮/);
    // (read from the raw messages: transcriptOf leaves the binary's system-role notes out)
    assert.ok(JSON.stringify((resumed.body as { messages?: unknown }).messages).includes(`(was ${a.ws})`), "the model hears it moved from A's path");
    assert.deepEqual(sqliteFiles(b.dir), []);
    const status = await flower(b, ['status', '--json']);
    assert.equal(status.code, 0, status.stderr);
    const st = JSON.parse(status.stdout) as { woke: number; steps: Array<{ step: string; session: string }>; runs: unknown[] };
    assert.equal(st.woke, 2);
    assert.ok(st.steps.some((s) => s.step === '干活' && s.session === workSid));
    assert.equal(st.runs.length, 2);

    // four `flower once` at the same time: four rows, no error
    sim.reset();
    sim.enqueue(...Array.from({ length: 4 }, (): SimItem => ({ type: 'text', text: 'pong' })));
    const onces = await Promise.all(Array.from({ length: 4 }, () => flower(b, ['once', 'ping'])));
    for (const r of onces) assert.equal(r.code, 0, r.stderr + r.stdout);
    const adhoc = (await logRows(b)).filter((x) => x.step === 'ad-hoc');
    assert.equal(adhoc.length, 4);
    assert.equal(new Set(adhoc.map((x) => x.run)).size, 4, 'one row per process');
    assert.ok(adhoc.every((x) => x.ok));
    assert.deepEqual(sqliteFiles(b.dir), []);
    assert.deepEqual(sim.unexpected(), []);
  });

  test('killed mid work step — kill -9, then SIGTERM on the wake: each killed row names the work session, and the third wake continues it', {
    timeout: 600_000,
  }, async () => {
    const url = await freshDatabase('kill');
    const db = new URL(url).pathname.slice(1);
    const p = project('pg-kill');
    const env = testEnv(p, sim.url, { FLOWER_LANG: 'zh', FLOWER_STORE: url, FLOWER_PROJECT: 'team-kill' });
    const args = (extra: string[]) => [...extra, '--timeout', '0', '-w', p.ws, '-r', p.runs];
    const logRows = async () => {
      const r = await cli(['log', '--json', '-n', '100', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env, timeoutMs: 60_000 });
      assert.equal(r.code, 0, r.stderr);
      return rowsOf(r.stdout);
    };
    const workRequests = () => sim.messageRequests().filter((m) => offeredTools(m.body).includes('Agent')).length;
    const storedEntries = async (sid: string) =>
      Number(
        (
          await adminSql(
            `SELECT count(*) AS n FROM flower.entries e JOIN flower.transcripts t ON t.id = e.transcript WHERE t.session_id = $1 AND t.subpath = ''`,
            [sid],
            db,
          )
        ).rows[0]!.n,
      );

    sim.reset();
    // the coordinator waits on the model twice (the two kills), then answers
    sim.enqueue(...brief(), ...goal(['node md2html.mjs a.md 输出含 <h1>']), { type: 'hang', match: coordinator }, { type: 'hang', match: coordinator });
    sim.enqueue(...work('写好了 md2html.mjs'), ...verdict());
    // 1: kill -9 (flower and its claude child) while the work step waits on the model
    const first = startCli(args(['写个 md 转 html 的脚本']), { cwd: p.dir, env, group: true });
    await until('the work step at the model', () => workRequests() >= 1, 300_000);
    const lin = await adminSql(`SELECT session_id FROM flower.lineage WHERE project = $1 AND step = '干活'`, ['team-kill'], db);
    const workSid = String(lin.rows[0]?.session_id ?? '');
    assert.match(workSid, /^[0-9a-f-]{36}$/, 'lineage names the work session while it runs');
    // its prompt in the store: what the wake resumes (a kill in the first instant would start fresh)
    for (const end = Date.now() + 60_000; (await storedEntries(workSid)) === 0; ) assert.ok(Date.now() < end, 'the work prompt reached the store');
    killGroup(first.child, 'SIGKILL');
    await first.done;
    const afterKill = await logRows();
    assert.deepEqual(
      afterKill.map((r) => [r.step, r.step === '干活' ? r.session_id : 'x']),
      [
        ['确认需求', 'x'],
        ['设定目标', 'x'],
        ['干活', workSid],
      ],
      'the killed work row names its session',
    );

    // 2: the wake resumes it; SIGTERM while it waits on the model: the row is written before the pool closes
    const second = startCli(args([]), { cwd: p.dir, env });
    await until('the resumed work step at the model', () => workRequests() >= 2, 300_000);
    second.child.kill('SIGTERM');
    const r2 = await second.done;
    assert.equal(r2.signal, 'SIGTERM', r2.stderr);
    const termed = (await logRows()).filter((r) => r.run !== afterKill[0]!.run);
    assert.deepEqual(
      termed.map((r) => [r.step, r.session_id, r.ok, r.error]),
      [['干活', workSid, false, 'killed-by-signal']],
    );

    // 3: the third wake continues the same session to the end
    const r3 = await cli(args([]), { cwd: p.dir, env, timeoutMs: 180_000 });
    assert.equal(r3.code, 0, r3.stderr + r3.stdout);
    assert.match(r3.stdout, /第 3 次唤醒/);
    const all = await logRows();
    const workRows = all.filter((r) => r.step === '干活');
    assert.deepEqual(
      workRows.map((r) => r.session_id),
      [workSid, workSid, workSid],
      'one work session over the three runs',
    );
    assert.equal(workRows.at(-1)!.ok, true);
    assert.equal(all.at(-1)!.step, '干活·判定#1');
    const asked = sim.messageRequests().filter((m) => offeredTools(m.body).includes('Agent'));
    assert.equal(asked.length, 3);
    // (the kill -9'd turn had no answer, and the SIGTERMed one ended with the binary's interrupt line: the
    // second wake's resume prompt follows the first prompt in the same user turn — it reaches the store
    // only because a signal's shutdown waits for the turn's transcript, Runtime.shutdown)
    const [opened, , continued] = asked.map((m) => firstUserText(m.body));
    assert.ok(
      continued!.startsWith(opened!) && continued!.length > opened!.length,
      `the third wake continued the first run's conversation, with the resumes after it:\n${JSON.stringify(asked.map((m) => firstUserText(m.body)))}`,
    );
    assert.deepEqual(sim.unexpected(), []);
  });

  test('the database unreachable at start: one line naming host:port, exit 1, and no model call', { timeout: 120_000 }, async () => {
    const p = project('pg-down');
    sim.reset();
    const down = pgUrlWith({ port: 1 });
    const r = await cli(['写个 md 转 html 的脚本', '--timeout', '0', '--store', down, '-w', p.ws, '-r', p.runs], {
      cwd: p.dir,
      env: testEnv(p, sim.url),
      timeoutMs: 60_000,
    });
    assert.equal(r.code, 1, r.stderr + r.stdout);
    const lines = r.stderr
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('x '));
    assert.equal(lines.length, 1, r.stderr);
    assert.match(lines[0]!, /cannot reach PostgreSQL at 127\.0\.0\.1:1\b/);
    assert.equal(sim.messageRequests().length, 0, 'no model call');
    const once = await cli(['once', 'hi', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url, { FLOWER_STORE: down }), timeoutMs: 60_000 });
    assert.equal(once.code, 1);
    assert.match(once.stderr, /cannot reach PostgreSQL at 127\.0\.0\.1:1\b/);
    assert.equal(sim.messageRequests().length, 0);
  });
});
