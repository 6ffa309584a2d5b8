/**
 * Continuity end to end: real `flower run` processes, the real claude binary, the sim.
 * Each scenario is a sentence of the seed's Continuity page.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import Database from 'better-sqlite3';
import { startSim, type Sim } from '../../src/sim/index.js';
import { cli, DIST, killGroup, project, readJson, startCli, testEnv, transcriptOf, until, type Project } from '../helpers/e2e.js';

let sim: Sim;
before(async () => {
  sim = await startSim({ port: 0 });
});
after(async () => {
  await sim.close();
});

interface Lin {
  workspace: string;
  woke: number;
  steps: Record<string, string>;
}
interface Row {
  step: string;
  session_id: string | null;
  ok: boolean;
  error: string | null;
  run: string;
}

/** The seed's example, as a module `flower run` can load, plus a script that runs it through the library. */
function seedProject(tag: string, stepName = '取词'): Project {
  const p = project(tag);
  fs.writeFileSync(path.join(p.ws, 'seed.txt'), '鸢尾\n');
  const flow = `
import { AgentSpec, Step, Workflow } from ${JSON.stringify(DIST)};
const terse = new AgentSpec({ name: 'terse', instructions: '回答极简,一行以内,不解释不寒暄。', allowedTools: ['Read', 'Glob'], maxTurns: 4 });
export const workflow = () => new Workflow([new Step(${JSON.stringify(stepName)}, terse, '读 seed.txt,只回文件里那个词。')]);
`;
  fs.writeFileSync(path.join(p.dir, 'flow.mjs'), flow);
  fs.writeFileSync(
    path.join(p.dir, 'seed-example.mjs'),
    `
import { AgentSpec, Runtime, Step, Workflow, wakeState } from ${JSON.stringify(DIST)};
const terse = new AgentSpec({ name: 'terse', instructions: '回答极简,一行以内,不解释不寒暄。', allowedTools: ['Read', 'Glob'], maxTurns: 4 });
const wf = new Workflow([new Step('取词', terse, '读 seed.txt,只回文件里那个词。')]);
const rt = new Runtime({ workspace: ${JSON.stringify(p.ws)}, runDir: 'runs' });
let ctx;
try { ctx = await wf.run(rt); } finally { rt.close(); }
const st = await wakeState(${JSON.stringify(p.ws)}, { runDir: 'runs' });
console.log(JSON.stringify({ woke: ctx._woke, sessions: ctx._sessions, failed: ctx._failedAt ?? null, state: { woke: st.woke, steps: st.steps, waking: st.waking } }));
`,
  );
  return p;
}

function storedEntries(p: Project, sid: string): number {
  if (!fs.existsSync(path.join(p.runs, 'sessions.db'))) return 0;
  const db = new Database(path.join(p.runs, 'sessions.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('select count(*) n from entries where store_key like ?').get(`%/${sid}`) as { n: number }).n;
  } catch {
    return 0;
  } finally {
    db.close();
  }
}

const runFlow = (p: Project, extra: string[] = [], env = testEnv(p, sim.url)) =>
  cli(['run', 'flow.mjs:workflow', '-w', p.ws, '-r', p.runs, ...extra], { cwd: p.dir, env });

test('the seed example run twice in one folder wakes 1 then 2 and continues the same session', async () => {
  const p = seedProject('seed');
  const env = testEnv(p, sim.url);
  const node = async () => {
    const r = await cli([], { cwd: p.dir, env, script: path.join(p.dir, 'seed-example.mjs') });
    assert.equal(r.code, 0, r.stderr);
    return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
      woke: number;
      sessions: Record<string, string>;
      failed: string | null;
      state: { woke: number; steps: Record<string, string> };
    };
  };
  sim.reset();
  sim.enqueue({ type: 'text', text: '鸢尾' }, { type: 'text', text: '鸢尾' });
  const first = await node();
  const second = await node();
  assert.equal(first.woke, 1);
  assert.equal(second.woke, 2);
  assert.equal(first.failed, null);
  assert.equal(second.sessions['取词'], first.sessions['取词']);
  assert.deepEqual(second.state, { woke: 2, steps: { 取词: first.sessions['取词'] }, waking: false });
  const seen = transcriptOf(sim.messageRequests()[1]!.body).join('\n');
  assert.match(seen, /读 seed\.txt/);
  assert.match(seen, /assistant:.*鸢尾/);
});

test('kill -9 while the first step waits on the model: lineage already names the session and the rerun resumes it', async () => {
  const p = seedProject('kill9');
  sim.reset();
  sim.enqueue({ type: 'hang' }, { type: 'text', text: '鸢尾' });
  const { child, done } = startCli(['run', 'flow.mjs:workflow', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url) });
  // kill the whole process group (flower and its claude child), as a crashed terminal would
  const lineage = path.join(p.runs, 'lineage.json');
  await until('the model request', () => sim.messageRequests().length >= 1);
  const sid = readJson<Lin>(lineage).steps['取词'];
  assert.ok(sid, 'lineage names the session before the step ends');
  // the SDK mirrors the transcript to sessions.db about every 100 ms; "waiting on the model" means
  // the prompt is stored by then (a kill within that first instant starts fresh, by invariant 2)
  await until('the prompt in sessions.db', () => storedEntries(p, sid!) > 0);
  process.kill(child.pid!, 'SIGKILL');
  await done;
  sim.reset();
  sim.enqueue({ type: 'text', text: '鸢尾' });
  const r = await runFlow(p);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /resumed · wake #2/);
  const lin = readJson<Lin>(lineage);
  assert.equal(lin.woke, 2);
  assert.equal(lin.steps['取词'], sid);
  assert.match(transcriptOf(sim.messageRequests()[0]!.body).join('\n'), /读 seed\.txt/);
});

test('kill -9 mid-step, then right after the resumed step starts: each killed row names the session, and the third wake continues it', async () => {
  const p = seedProject('kill9row');
  const manifest = path.join(p.runs, 'manifest.json');
  const rows = () => (fs.existsSync(manifest) ? readJson<Row[]>(manifest) : []);
  const start = () => startCli(['run', 'flow.mjs:workflow', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url), group: true });
  sim.reset();
  sim.enqueue({ type: 'hang' });
  // 1: a new session, killed (flower and its claude child) while it waits on the model
  const first = start();
  await until('the model request', () => sim.messageRequests().length >= 1);
  const sid = readJson<Lin>(path.join(p.runs, 'lineage.json')).steps['取词']!;
  await until('the prompt in sessions.db', () => storedEntries(p, sid) > 0);
  killGroup(first.child, 'SIGKILL');
  await first.done;
  assert.deepEqual(
    rows().map((r) => [r.step, r.session_id]),
    [['取词', sid]],
    'the killed row names the session (it was rewritten when the id existed, not only at the end)',
  );
  const run1 = rows()[0]!.run;

  // 2: the wake resumes it; killed the moment its row appears — before its claude process has started
  const second = start();
  await until("the resumed step's row", () => rows().some((r) => r.run !== run1));
  killGroup(second.child, 'SIGKILL');
  await second.done;
  const killed = rows().filter((r) => r.run !== run1);
  assert.deepEqual(
    killed.map((r) => [r.step, r.session_id]),
    [['取词', sid]],
    'a resumed step knows its id before it spawns: its first row names it',
  );

  // 3: the third wake continues the same session to the end
  sim.reset();
  sim.enqueue({ type: 'text', text: '鸢尾' });
  const r = await runFlow(p);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /resumed · wake #3/);
  const all = rows();
  assert.equal(all.length, 3);
  assert.deepEqual(new Set(all.map((x) => x.session_id)), new Set([sid]), JSON.stringify(all));
  assert.equal(all.at(-1)!.ok, true);
  assert.match(transcriptOf(sim.messageRequests()[0]!.body).join('\n'), /读 seed\.txt/);
});

test('a copied folder, a deleted sessions.db or a garbage lineage.json each start fresh with exit 0; garbage is kept aside', async () => {
  const p = seedProject('mismatch');
  sim.reset();
  sim.enqueue({ type: 'text', text: 'a', sticky: true });
  assert.equal((await runFlow(p)).code, 0);
  const firstSid = readJson<Lin>(path.join(p.runs, 'lineage.json')).steps['取词'];

  // a copy of the whole folder somewhere else: the workspace path no longer matches
  const copy = project('copy');
  fs.cpSync(p.dir, copy.dir, { recursive: true });
  const rc = await cli(['run', 'flow.mjs:workflow', '-w', copy.ws, '-r', copy.runs], { cwd: copy.dir, env: testEnv(copy, sim.url) });
  assert.equal(rc.code, 0, rc.stderr);
  const copied = readJson<Lin>(path.join(copy.runs, 'lineage.json'));
  assert.equal(copied.workspace, copy.ws);
  assert.notEqual(copied.steps['取词'], firstSid);
  assert.doesNotMatch(rc.stdout, /resumed/);

  // sessions.db deleted
  for (const f of fs.readdirSync(p.runs)) if (f.startsWith('sessions.db')) fs.rmSync(path.join(p.runs, f));
  const rd = await runFlow(p);
  assert.equal(rd.code, 0, rd.stderr);
  assert.notEqual(readJson<Lin>(path.join(p.runs, 'lineage.json')).steps['取词'], firstSid);
  assert.doesNotMatch(rd.stdout, /resumed/);

  // garbage lineage
  fs.writeFileSync(path.join(p.runs, 'lineage.json'), 'garbage{{');
  const rg = await runFlow(p);
  assert.equal(rg.code, 0, rg.stderr);
  const kept = fs.readdirSync(p.runs).filter((f) => f.startsWith('lineage.json.corrupt-'));
  assert.equal(kept.length, 1);
  assert.equal(fs.readFileSync(path.join(p.runs, kept[0]!), 'utf8'), 'garbage{{');
  assert.equal(readJson<Lin>(path.join(p.runs, 'lineage.json')).woke, 1);
  sim.reset();
});

test('--new archives lineage and the notes, starts a fresh session, and leaves old transcripts in sessions.db', async () => {
  const p = seedProject('new');
  sim.reset();
  sim.enqueue({ type: 'text', text: 'a', sticky: true });
  assert.equal((await runFlow(p)).code, 0);
  const old = readJson<Lin>(path.join(p.runs, 'lineage.json')).steps['取词']!;
  const notes = path.join(p.ws, '.flower', 'notes');
  fs.mkdirSync(notes, { recursive: true });
  fs.writeFileSync(path.join(notes, '需求.md'), '# 需求确认书\n');
  const r = await runFlow(p, ['--new']);
  assert.equal(r.code, 0, r.stderr);
  const archives = fs.readdirSync(path.join(notes, 'archive'));
  assert.equal(archives.length, 1);
  assert.deepEqual(fs.readdirSync(path.join(notes, 'archive', archives[0]!)).sort(), ['lineage.json', '需求.md']);
  const lin = readJson<Lin>(path.join(p.runs, 'lineage.json'));
  assert.equal(lin.woke, 1);
  assert.notEqual(lin.steps['取词'], old);
  const db = new Database(path.join(p.runs, 'sessions.db'), { readonly: true });
  const keys = (db.prepare('select distinct store_key k from entries').all() as { k: string }[]).map((x) => x.k);
  db.close();
  assert.ok(
    keys.some((k) => k.endsWith(old)),
    'the old transcript is still in sessions.db',
  );
  sim.reset();
});

test('SIGTERM during a step writes a killed-by-signal row with the session id', async () => {
  const p = seedProject('sigterm');
  sim.reset();
  sim.enqueue({ type: 'hang' });
  const { child, done } = startCli(['run', 'flow.mjs:workflow', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url) });
  await until('the model request', () => sim.messageRequests().length >= 1);
  child.kill('SIGTERM');
  const r = await done;
  assert.equal(r.signal, 'SIGTERM');
  const rows = readJson<Row[]>(path.join(p.runs, 'manifest.json'));
  assert.equal(rows.length, 1);
  assert.equal(rows[0]!.error, 'killed-by-signal');
  assert.equal(rows[0]!.ok, false);
  assert.equal(rows[0]!.session_id, readJson<Lin>(path.join(p.runs, 'lineage.json')).steps['取词']);
  sim.reset();
});

test('two workflows with different step names started together in one folder (--wait: one after the other) both stay in lineage', async () => {
  const p = seedProject('two');
  fs.writeFileSync(
    path.join(p.dir, 'flow2.mjs'),
    fs.readFileSync(path.join(p.dir, 'flow.mjs'), 'utf8').replace("'取词'", "'另一步'").replace('"取词"', '"另一步"'),
  );
  sim.reset();
  sim.enqueue({ type: 'text', text: 'x', delayMs: 400, sticky: true });
  const env = testEnv(p, sim.url);
  const [a, b] = await Promise.all([
    cli(['run', 'flow.mjs:workflow', '--wait', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env }),
    cli(['run', 'flow2.mjs:workflow', '--wait', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env }),
  ]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  const lin = readJson<Lin>(path.join(p.runs, 'lineage.json'));
  assert.deepEqual(Object.keys(lin.steps).sort(), ['取词', '另一步'].sort());
  assert.equal(readJson<Row[]>(path.join(p.runs, 'manifest.json')).length, 2);
  assert.equal(lin.woke, 2, 'one run per folder: the second waited and woke it a second time');
  sim.reset();
});

test('a failing step exits 1 with one stderr line naming the step, the reason and how to continue', async () => {
  const p = seedProject('fail');
  sim.reset();
  sim.enqueue({ type: 'error', status: 401, sticky: true });
  const r = await runFlow(p);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /^x step '取词' failed: authentication failed: .* — run `flower run flow\.mjs:workflow` here to continue\n$/);
  assert.doesNotMatch(r.stdout, /\+ done/, 'a failed step never prints done');
  sim.reset();
});
