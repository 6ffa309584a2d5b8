/**
 * `flower ui` on a PostgreSQL store: the history of a real default flow (claude binary + scripted
 * model) is copied into a real PostgreSQL through the store backends (`flower store copy`'s code), and
 * the ui, pointed at it by FLOWER_STORE + FLOWER_PROJECT, shows the same runs, steps, costs, curves and
 * session readings as from the files — with no run dir, and creating nothing locally.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { backendsFor, copyStore } from '../../src/cli/store.js';
import { startSim, type Sim } from '../../src/sim/index.js';
import { RunLayout, type ManifestRow } from '../../src/state/index.js';
import { projectDirName } from '../../src/config/index.js';
import { PostgresRunRecords, PostgresSessionStore } from '../../src/store/postgres/index.js';
import { FileSource, PgSource, handle, type UiApp } from '../../src/ui/index.js';
import { readJson, startCli, until, type Project } from '../helpers/e2e.js';
import { PG_SKIP, dropDatabases, freshDatabase } from '../helpers/pg.js';
import { firstFlow, type FlowRun } from './fixture.js';

const TOKEN = 'tok-pg';
const PROJECT = 'ui-team';
const get = (a: UiApp, url: string) => handle(a, 'GET', url);
const appOf = (source: UiApp['source']): UiApp => ({ source, token: TOKEN, window: 200_000, threshold: 150_000 });

/** Every file under `dir`, recursively (relative paths). */
function tree(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return (fs.readdirSync(dir, { recursive: true }) as string[]).sort();
}

describe('flower ui reads a PostgreSQL store', { skip: PG_SKIP }, () => {
  let sim: Sim;
  let p: Project;
  let run: FlowRun;
  let url: string;
  /** where the ui is started: an empty folder whose run dir does not exist */
  let elsewhere: string;
  let pgSource: PgSource;
  let fileSource: FileSource;

  before(async () => {
    sim = await startSim({ port: 0, onUnexpected: 'error' });
    ({ p, run } = await firstFlow(sim, 'ui-pg'));
    url = await freshDatabase('uipg');
    const from = await backendsFor({ FLOWER_STORE: 'runs' }, RunLayout.of({ cwd: p.dir, workspace: p.ws, runDir: p.runs }));
    const to = await backendsFor({ FLOWER_STORE: url, FLOWER_PROJECT: PROJECT }, RunLayout.of({ cwd: p.dir, workspace: p.ws, runDir: p.runs }));
    try {
      const r = await copyStore(from, to, p.ws);
      assert.ok(r.entries > 0 && r.rows > 0 && r.lineageSteps > 0, JSON.stringify(r));
    } finally {
      from.close();
      to.close();
    }
    elsewhere = fs.mkdtempSync(path.join(p.dir, 'elsewhere-'));
    pgSource = await PgSource.open({ url, project: PROJECT, workspace: p.ws, runDir: path.join(elsewhere, 'runs') });
    fileSource = FileSource.at(p.runs);
  });

  after(async () => {
    pgSource?.close();
    fileSource?.close();
    await sim?.close();
    await dropDatabases();
  });

  test("the landing page lists the run, its steps, $ costs and the work step's context curve from PostgreSQL", async () => {
    const r = await get(appOf(pgSource), `/?token=${TOKEN}`);
    assert.equal(r.status, 200);
    const html = r.body;
    const rows = readJson<ManifestRow[]>(path.join(p.runs, 'manifest.json'));
    assert.match(html, new RegExp(`<span class="run-id">${rows[0]!.run}</span>`));
    for (const step of ['确认需求', '设定目标', '干活', '干活·判定#1']) assert.ok(html.includes(`data-step="${step}"`), step);
    assert.match(html, /class="run-cost">\$\d+\.\d\d/);
    assert.match(html, /verdict: achieved (\d+)\/\1</, "the judge's verdict, read from its transcript in PostgreSQL");
    const svg = /<svg[^>]*role="img"[^>]*aria-label="context curve of 干活:[^"]*"[\s\S]*?<\/svg>/.exec(html);
    assert.ok(svg, 'an svg[role=img] whose aria-label names the context curve');
    assert.ok(run.workCalls >= 2);
    assert.equal((svg[0].match(/<circle /g) ?? []).length, run.workCalls, 'one circle per model call of the work step (counted by the scripted model)');
    assert.match(html, /需求\.md/, 'the notes, from the workspace');
    assert.ok(html.includes(`(project ${PROJECT})`), 'the heading names the store and project');
    assert.ok(!html.includes(p.runs), "nothing is shown from the run dir's files");
    assert.doesNotMatch(html, /class="banner"/, 'no problem banner');
  });

  test('sessions read from PostgreSQL give the same calls, figures, verdicts, subagents and pages as the files', async () => {
    const rows = readJson<ManifestRow[]>(path.join(p.runs, 'manifest.json'));
    const sids = [...new Set(rows.map((r) => r.session_id).filter((s): s is string => !!s))];
    assert.ok(sids.length >= 3);
    for (const sid of sids) {
      const [a, b] = [pgSource.sessions, fileSource.sessions];
      assert.equal(await a.has(sid), true, sid);
      assert.deepEqual(await a.calls(sid), await b.calls(sid), `calls of ${sid}`);
      assert.deepEqual(await a.figures(sid), await b.figures(sid), `figures of ${sid}`);
      assert.deepEqual(await a.verdict(sid), await b.verdict(sid), `verdict of ${sid}`);
      const subs = await a.subagents(sid);
      assert.deepEqual([...subs].sort(), [...(await b.subagents(sid))].sort(), `subagents of ${sid}`);
      assert.deepEqual(await a.page(sid, undefined, 1, 3), await b.page(sid, undefined, 1, 3), `a page of ${sid}`);
      for (const sub of subs) assert.deepEqual(await a.page(sid, sub, 0, 50), await b.page(sid, sub, 0, 50), `${sid} ${sub}`);
      assert.deepEqual(await a.trace(sid), await b.trace(sid), `trace of ${sid}`);
      assert.deepEqual(await a.search(sid, 'md2html', 20), await b.search(sid, 'md2html', 20), `search in ${sid}`);
    }
    assert.equal(await pgSource.sessions.has('no-such-session'), false);
    const work = rows.find((r) => r.step === '干活')!;
    const s = await get(appOf(pgSource), `/session/${work.session_id}?token=${TOKEN}`);
    assert.equal(s.status, 200);
    assert.match(s.body, /<code>Agent<\/code> 1/);
    assert.match(s.body, /<a class="task" href="\/session\/[^"]*sub=subagents%2Fagent-[^"]*">写 md2html\.mjs<\/a>/);
    assert.equal((await get(appOf(pgSource), `/session/no-such-session?token=${TOKEN}`)).status, 404);
  });

  test('a new manifest row written to PostgreSQL changes the live fingerprint and appears on the page', async () => {
    const a = appOf(pgSource);
    const fp = async () => (await get(a, `/api/fingerprint?token=${TOKEN}`)).body;
    await pgSource.poll();
    const before = await fp();
    await pgSource.poll();
    assert.equal(await fp(), before, 'unchanged while nothing changes');
    const rows = readJson<ManifestRow[]>(path.join(p.runs, 'manifest.json'));
    const last = rows.at(-1)!;
    const extra: ManifestRow = { ...last, run: `${last.run}-later`, started_at: new Date(Date.parse(last.started_at) + 3_600_000).toISOString() };
    const rec = await new PostgresRunRecords(url, PROJECT).open();
    try {
      await rec.upsertRows(extra.run, [extra]);
    } finally {
      rec.close();
    }
    await pgSource.poll();
    assert.notEqual(await fp(), before, 'the digest the page polls changed');
    const runs = JSON.parse((await get(a, `/api/runs?token=${TOKEN}`)).body) as { runs: Array<{ run: string }> };
    assert.ok(
      runs.runs.some((r) => r.run === extra.run),
      'the new run is listed',
    );
  });

  test('a session growing in PostgreSQL changes the live fingerprint and its calls are read again', async () => {
    const a = appOf(pgSource);
    const fp = async () => (await get(a, `/api/fingerprint?token=${TOKEN}`)).body;
    const work = readJson<ManifestRow[]>(path.join(p.runs, 'manifest.json')).find((r) => r.step === '干活')!;
    const sid = work.session_id!;
    await pgSource.poll();
    const before = await fp();
    const calls = (await pgSource.sessions.calls(sid)).length;
    const store = await new PostgresSessionStore(url).open();
    try {
      await store.appendNow({ projectKey: projectDirName(PROJECT), sessionId: sid }, [
        {
          type: 'assistant',
          uuid: 'late-call-1',
          timestamp: new Date().toISOString(),
          message: {
            id: 'msg_late_1',
            model: 'claude-x',
            usage: { input_tokens: 7, cache_creation_input_tokens: 0, cache_read_input_tokens: 900, output_tokens: 3 },
          },
        },
      ]);
    } finally {
      store.close();
    }
    await pgSource.poll();
    assert.notEqual(await fp(), before, 'the digest the page polls changed');
    const after = await pgSource.sessions.calls(sid);
    assert.equal(after.length, calls + 1);
    assert.equal(after.at(-1)!.context, 907);
  });

  test('nothing is created locally: no run dir, no sessions.db, manifest.json or lineage.json', () => {
    assert.deepEqual(tree(elsewhere), [], 'the folder the ui was pointed at stays empty');
    for (const f of ['sessions.db', 'manifest.json', 'lineage.json']) {
      assert.ok(!tree(p.ws).some((x) => path.basename(x) === f), `no ${f} in the workspace`);
    }
  });

  test('`flower ui` with FLOWER_STORE + FLOWER_PROJECT serves the PostgreSQL history, not the (absent) run dir', async () => {
    const cwd = fs.mkdtempSync(path.join(p.dir, 'cli-'));
    const { child, done } = startCli(['ui', '--port', '0', '-w', p.ws], {
      cwd,
      env: { PATH: process.env.PATH ?? '', HOME: p.home, FLOWER_LANG: 'en', FLOWER_STORE: url, FLOWER_PROJECT: PROJECT },
    });
    try {
      let out = '';
      child.stdout!.setEncoding('utf8');
      child.stdout!.on('data', (c: string) => {
        out += c;
      });
      await until('two lines from flower ui', () => out.split('\n').length > 2, 60_000);
      const [pageUrl, line] = out.split('\n');
      assert.match(line!, new RegExp(`read-only view of postgres://.*\\(project ${PROJECT}\\)`));
      assert.ok(!out.includes(new URL(url).password || '\u0000'), 'the password is not printed');
      const html = await (await fetch(pageUrl!)).text();
      const rows = readJson<ManifestRow[]>(path.join(p.runs, 'manifest.json'));
      assert.match(html, new RegExp(`<span class="run-id">${rows[0]!.run}</span>`));
      assert.match(html, /<svg[^>]*role="img"[^>]*aria-label="context curve of 干活/);
    } finally {
      child.kill('SIGTERM');
      await done;
    }
    assert.deepEqual(tree(cwd), [], 'nothing written where flower ui ran');
  });
});
