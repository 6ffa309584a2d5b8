/**
 * The fleet end to end (issue 25): a real PostgreSQL, a bare git repository as the origin, worker
 * processes with their own HOMEs and work folders playing hosts, real child `flower` runs of the real
 * claude binary against the scripted model. One worker is SIGKILLed while a task's work step waits on
 * the model; another worker continues that task (wake 2, the same work session, the first worker's
 * commits kept), all six end achieved, no task runs on two workers at once, and a task whose repository
 * cannot be cloned ends failed with one line naming it. `flower answer --task ID` answers a waiting task.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { firstUserText, lastUserText, offeredTools, type SimItem } from '../../src/sim/index.js';
import { cli, project, testEnv, until } from '../helpers/e2e.js';
import { PG_SKIP, adminSql, dropDatabases, freshDatabase } from '../helpers/pg.js';
import { useSim } from '../helpers/sim.js';
import { FAST, bareOrigin, brief, git, goal, settled, startWorker, takesOf, verdict, work } from './helpers.js';

const sim = useSim();
after(() => dropDatabases());

interface Status {
  id: string;
  name: string | null;
  state: string;
  reason: string | null;
  host: string | null;
  wakes: number;
  cost_usd: number;
  branch: string;
}

describe('flower fleet end to end', { skip: PG_SKIP }, () => {
  test('six tasks on three workers, one SIGKILLed mid-work: all achieved, the task continued elsewhere; a clone failure ends failed', {
    timeout: 900_000,
  }, async () => {
    const url = await freshDatabase('fleet');
    const admin = project('fleet-admin');
    const origin = bareOrigin(admin.dir);
    const env = (extra: Record<string, string> = {}) =>
      testEnv(admin, sim.url, { FLOWER_STORE: url, FLOWER_FLEET_RETRIES: '2', FLOWER_FLEET_RETRY_DELAY: '0', ...extra });
    const fleet = (args: string[], extra?: Record<string, string>) => cli(['fleet', ...args], { cwd: admin.dir, env: env(extra), timeoutMs: 60_000 });

    sim.reset();
    const marks = [1, 2, 3, 4, 5, 6].map((k) => `TASK-${k}`);
    const victim = marks[0]!;
    // the victim's coordinator dispatches a worker whose request is left unanswered: the host dies while
    // its work step waits, with the dispatch already in the store; its wake may set the goal again
    const dispatch: SimItem = {
      type: 'tool_use',
      name: 'Agent',
      match: { toolsInclude: 'Agent', firstUserIncludes: victim },
      input: { description: 'write it', prompt: 'VICTIM-SUB: write the file', subagent_type: 'worker', run_in_background: false },
    };
    const report: SimItem = { type: 'text', match: { firstUserIncludes: 'VICTIM-SUB' }, text: 'Conclusion: VICTIM-SUB done' };
    const hang: SimItem = { type: 'hang', match: { toolsInclude: 'Agent', firstUserIncludes: victim, lastUserIncludes: 'VICTIM-SUB done' } };
    sim.enqueue(...brief(victim), ...goal(victim, 2), dispatch, report, hang, work(victim), ...verdict(victim));
    for (const m of marks.slice(1)) sim.enqueue(...brief(m), ...goal(m), work(m), ...verdict(m));

    const ids: string[] = [];
    for (const [i, m] of marks.entries()) {
      const r = await fleet(['add', `${m}: write ${m}.txt`, '--repo', origin, '--name', `task-${i + 1}`]);
      assert.equal(r.code, 0, r.stderr);
      assert.match(r.stdout, /^t-[0-9a-f]{10}\n$/, 'the task id alone on stdout');
      ids.push(r.stdout.trim());
    }
    const missing = path.join(admin.dir, 'no-such-repo.git');
    const bad = await fleet(['add', 'TASK-X: never', '--repo', missing, '--name', 'broken'], { FLOWER_FLEET_RETRIES: '0' });
    assert.equal(bad.code, 0, bad.stderr);
    const badId = bad.stdout.trim();

    const workers = ['host-a', 'host-b', 'host-c'].map((h) => startWorker(h, sim.url, { FLOWER_STORE: url }, [...FAST, '--timeout', '0']));
    const victimId = ids[0]!;
    // synchronised on the model: the victim's work step has sent its request
    await until(
      "the victim's coordinator waiting on the model after its worker reported",
      () => sim.messageRequests().some((r) => firstUserText(r.body).includes(victim) && lastUserText(r.body).includes('VICTIM-SUB done')),
      300_000,
    );
    // and its work session's dispatch in the store (what the next host resumes)
    const db = new URL(url).pathname.slice(1);
    const stored = async () =>
      Number(
        (
          await adminSql(
            `SELECT count(*) AS n FROM flower.entries e JOIN flower.transcripts t ON t.id = e.transcript AND t.subpath = ''
               JOIN flower.lineage l ON l.session_id = t.session_id WHERE l.project = $1 AND l.step = '干活' AND e.payload LIKE '%VICTIM-SUB done%'`,
            [victimId],
            db,
          )
        ).rows[0]!.n,
      );
    for (const end = Date.now() + 60_000; (await stored()) === 0; ) assert.ok(Date.now() < end, 'the dispatch reached the store');
    const first = workers.find(
      (w) => w.events().some((e) => e.kind === 'task_start' && e.task === victimId) && !w.events().some((e) => e.kind === 'task_end' && e.task === victimId),
    );
    assert.ok(first, 'one worker runs the victim');
    const pushedBefore = git(['ls-remote', origin, `refs/heads/flower/${victimId}`], admin.dir).split(/\s/)[0]!;
    assert.match(pushedBefore, /^[0-9a-f]{40}$/, "the first worker pushed the victim's branch after its first steps");
    const killedAt = new Map([[first.name, Date.now()]]);
    first.kill('SIGKILL');

    const rest = workers.filter((w) => w !== first);
    const ends = await Promise.all(rest.map((w) => settled(w, 600_000)));
    for (const e of ends) assert.equal(e.code, 0, `a draining worker exits 0: ${e.stderr.slice(-2000)}`);

    const st = await fleet(['status', '--json']);
    assert.equal(st.code, 0, st.stderr);
    const rows = st.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Status);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const id of ids) {
      const r = byId.get(id)!;
      assert.equal(r.state, 'achieved', JSON.stringify(r));
      assert.equal(r.branch, `flower/${id}`);
      assert.ok(r.cost_usd > 0, `a cost is reported: ${JSON.stringify(r)}`);
    }
    const b = byId.get(badId)!;
    assert.equal(b.state, 'failed');
    assert.ok(b.reason?.includes(missing) && !b.reason.includes('\n'), `one line naming the repository: ${b.reason}`);

    // the victim: taken over by another worker, woken (#2), the same work session continued
    const v = byId.get(victimId)!;
    assert.ok(v.wakes >= 2, `wakes ${v.wakes}`);
    const takes = takesOf(workers, killedAt);
    const vt = [...takes.get(victimId)!].sort((x, y) => x.start - y.start);
    const seen = JSON.stringify(workers.flatMap((w) => w.events().filter((e) => e.task === victimId)));
    const killedTake = vt.findIndex((t) => t.host === first.name && t.end === killedAt.get(first.name));
    assert.ok(killedTake >= 0 && vt.slice(killedTake + 1).some((t) => t.host !== first.name), `taken over by another worker: ${JSON.stringify(vt)} ${seen}`);
    const log = await cli(['log', '--json', '-n', '100'], { cwd: admin.dir, env: env({ FLOWER_PROJECT: victimId }), timeoutMs: 60_000 });
    assert.equal(log.code, 0, log.stderr);
    const steps = log.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { step: string; session_id: string | null; error: string | null });
    const workRows = steps.filter((s) => s.step === '干活');
    assert.ok(workRows.length >= 2, JSON.stringify(steps));
    // the killed take's row names the work session (written when its id existed; the child, ended through
    // its lifeline, recorded the kill before closing the store), and the next host continued that session
    const sids = workRows.map((s) => s.session_id);
    assert.match(String(sids[0]), /^[0-9a-f-]{36}$/, `the killed work row names its session: ${JSON.stringify(workRows[0])}`);
    assert.equal(workRows[0]!.error, 'killed-by-signal', JSON.stringify(workRows[0]));
    assert.deepEqual(new Set(sids), new Set([sids[0]]), `the same work session before and after the takeover: ${sids.join(' → ')}`);
    // the continued work step carries the first host's conversation: the model on the second host was
    // sent the first worker's report again (the killed turn's request and the resumed one)
    const carried = sim
      .messageRequests()
      .filter((r) => firstUserText(r.body).includes(victim) && JSON.stringify(r.body.messages ?? []).includes('VICTIM-SUB done'));
    assert.ok(carried.length >= 2, `the resumed work session was sent the earlier conversation (${carried.length} requests)`);

    // the first worker's commits stay on the branch, and the notes a wake needs travel with it
    const head = git(['ls-remote', origin, `refs/heads/flower/${victimId}`], admin.dir).split(/\s/)[0]!;
    git(['fetch', '--quiet', origin, `refs/heads/flower/${victimId}`], path.join(admin.dir, 'seed'));
    git(['merge-base', '--is-ancestor', pushedBefore, head], path.join(admin.dir, 'seed'));
    assert.match(git(['show', `${head}:.flower/notes/需求.md`], path.join(admin.dir, 'seed')), new RegExp(victim));

    // no task ran on two workers at the same moment
    for (const [task, list] of takes) {
      const sorted = [...list].sort((x, y) => x.start - y.start);
      for (let i = 1; i < sorted.length; i++) {
        assert.ok(sorted[i]!.start >= sorted[i - 1]!.end, `${task} ran on ${sorted[i - 1]!.host} and ${sorted[i]!.host} at once: ${JSON.stringify(sorted)}`);
      }
    }
    assert.deepEqual(sim.unexpected(), []);
  });

  test('`flower answer --task ID` answers the question a fleet task waits on', { timeout: 600_000 }, async () => {
    const url = await freshDatabase('fleetask');
    const admin = project('fleet-ask');
    const origin = bareOrigin(admin.dir);
    const env = () => testEnv(admin, sim.url, { FLOWER_STORE: url });
    sim.reset();
    const m = 'TASK-Q';
    const clarifier = { firstUserIncludes: ['submit_brief', m] };
    sim.enqueue(
      { type: 'tool_use', match: clarifier, name: 'mcp__human__ask', input: { question: 'Which name?', options: ['a.txt', `${m}.txt`] } },
      ...brief(m),
      ...goal(m),
      work(m),
      ...verdict(m),
    );
    const add = await cli(['fleet', 'add', `${m}: write a file`, '--repo', origin], { cwd: admin.dir, env: env(), timeoutMs: 60_000 });
    assert.equal(add.code, 0, add.stderr);
    const id = add.stdout.trim();
    const w = startWorker('host-q', sim.url, { FLOWER_STORE: url }, [...FAST, '--timeout', '600']);
    let state = '';
    for (const end = Date.now() + 300_000; state !== 'waiting' && Date.now() < end; ) {
      const st = await cli(['fleet', 'status', '--json'], { cwd: admin.dir, env: env(), timeoutMs: 60_000 });
      state = st.stdout.trim() ? (JSON.parse(st.stdout.trim().split('\n')[0]!) as Status).state : '';
    }
    assert.equal(state, 'waiting', 'the task shows as waiting for a person');
    const a = await cli(['answer', '--task', id, '2'], { cwd: admin.dir, env: env(), timeoutMs: 120_000 });
    assert.equal(a.code, 0, a.stderr + a.stdout);
    assert.match(a.stdout, /\+ q1 answered: TASK-Q\.txt/);
    const done = await settled(w, 300_000);
    assert.equal(done.code, 0, done.stderr.slice(-2000));
    const st = await cli(['fleet', 'status', '--json'], { cwd: admin.dir, env: env(), timeoutMs: 60_000 });
    assert.equal((JSON.parse(st.stdout.trim()) as Status).state, 'achieved');
    assert.ok(
      sim.messageRequests().some((r) => JSON.stringify(r.body.messages ?? []).includes('TASK-Q.txt') && firstUserText(r.body).includes('submit_brief')),
      'the clarifier received the answer',
    );
  });
  test('`flower fleet cancel` stops a running task at once; `flower fleet retry` continues it on another worker', { timeout: 600_000 }, async () => {
    const url = await freshDatabase('fleetcancel');
    const admin = project('fleet-cancel');
    const origin = bareOrigin(admin.dir);
    const env = () => testEnv(admin, sim.url, { FLOWER_STORE: url });
    const fleet = (args: string[]) => cli(['fleet', ...args], { cwd: admin.dir, env: env(), timeoutMs: 60_000 });
    const statusOf = async () => JSON.parse((await fleet(['status', '--json'])).stdout.trim()) as Status;
    sim.reset();
    const m = 'TASK-C';
    sim.enqueue(...brief(m), ...goal(m, 2), { type: 'hang', match: { toolsInclude: 'Agent', firstUserIncludes: m } }, work(m), ...verdict(m));
    const id = (await fleet(['add', `${m}: write it`, '--repo', origin])).stdout.trim();
    const w1 = startWorker('host-1', sim.url, { FLOWER_STORE: url }, [...FAST, '--timeout', '0']);
    await until(
      'the work request at the model',
      () => sim.messageRequests().some((r) => offeredTools(r.body).includes('Agent') && firstUserText(r.body).includes(m)),
      300_000,
    );
    const c = await fleet(['cancel', id.slice(0, 6)]);
    assert.equal(c.code, 0, c.stderr);
    assert.match(c.stdout, new RegExp(`\\+ ${id} cancelled`));
    const d1 = await settled(w1, 120_000);
    assert.equal(d1.code, 0, d1.stderr.slice(-2000));
    const s1 = await statusOf();
    assert.deepEqual([s1.state, s1.reason], ['stopped', 'cancelled']);
    assert.equal((await fleet(['cancel', id])).code, 1, 'an ended task cannot be cancelled again');

    const r = await fleet(['retry', id]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal((await statusOf()).state, 'queued');
    const w2 = startWorker('host-2', sim.url, { FLOWER_STORE: url }, [...FAST, '--timeout', '0']);
    const d2 = await settled(w2, 300_000);
    assert.equal(d2.code, 0, d2.stderr.slice(-2000));
    const s2 = await statusOf();
    assert.equal(s2.state, 'achieved', JSON.stringify(s2));
    assert.ok(s2.wakes >= 2, `woken again: ${s2.wakes}`);
  });
  test('SIGTERM: the worker finishes the step, pushes, hands the task back and exits 0; another worker continues it', { timeout: 600_000 }, async () => {
    const url = await freshDatabase('fleetterm');
    const admin = project('fleet-term');
    const origin = bareOrigin(admin.dir);
    const env = () => testEnv(admin, sim.url, { FLOWER_STORE: url, FLOWER_FLEET_RETRY_DELAY: '0' });
    const fleet = (args: string[]) => cli(['fleet', ...args], { cwd: admin.dir, env: env(), timeoutMs: 60_000 });
    sim.reset();
    const m = 'TASK-T';
    // the goal step's answer takes 3 s (three looks at the inbox), so the stop lands inside it
    const [g0, g1] = goal(m);
    sim.enqueue(...brief(m), { ...g0!, delayMs: 3000 }, g1!, work(m), ...verdict(m));
    const id = (await fleet(['add', `${m}: write it`, '--repo', origin])).stdout.trim();
    const w1 = startWorker('host-1', sim.url, { FLOWER_STORE: url }, [...FAST, '--timeout', '0']);
    await until('the goal request at the model', () => sim.messageRequests().some((r) => firstUserText(r.body).includes('submit_goal')), 300_000);
    w1.kill('SIGTERM');
    const d1 = await settled(w1, 120_000);
    assert.equal(d1.code, 0, d1.stderr.slice(-2000));
    const ev = w1.events().filter((e) => e.task === id);
    assert.ok(
      ev.some((e) => e.kind === 'task_step' && e.step === '设定目标'),
      JSON.stringify(ev),
    );
    assert.ok(!ev.some((e) => e.kind === 'task_step' && e.step === '干活'), 'no step after the stop');
    assert.equal(ev.at(-1)?.outcome, 'handed-back', JSON.stringify(ev));
    const queued = JSON.parse((await fleet(['status', '--json'])).stdout.trim()) as Status;
    assert.equal(queued.state, 'queued', JSON.stringify(queued));
    assert.match(git(['show', `refs/heads/flower/${id}:.flower/notes/目标.md`], origin), new RegExp(m), 'the goal was pushed before the hand-back');

    const w2 = startWorker('host-2', sim.url, { FLOWER_STORE: url }, [...FAST, '--timeout', '0']);
    const d2 = await settled(w2, 300_000);
    assert.equal(d2.code, 0, d2.stderr.slice(-2000));
    const done = JSON.parse((await fleet(['status', '--json'])).stdout.trim()) as Status;
    assert.equal(done.state, 'achieved', JSON.stringify(done));
    assert.deepEqual(sim.unexpected(), []);
  });
});
