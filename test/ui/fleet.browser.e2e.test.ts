/**
 * `flower ui --store URL` shows the fleet (issue 25 item 4), in Debian's Chromium: a real PostgreSQL, a
 * bare git repository as the origin, a real worker process running a task of the default flow on the
 * scripted model to its end (achieved), a task whose repository cannot be cloned (failed) and one added
 * after the worker drained (queued). The first page lists the three as `flower fleet status` says them,
 * a task's name is text however it is written, and a task's link opens its runs — steps and sessions of
 * its project, read from the store. A store no fleet ever used shows no fleet section, and the ui creates
 * no queue schema in it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { ROOT, cli, project, startCli, testEnv, until, type Project } from '../helpers/e2e.js';
import { CHROMIUM, launchBrowser } from '../helpers/chromium.js';
import { PG_SKIP, adminSql, dropDatabases, freshDatabase } from '../helpers/pg.js';
import { useSim } from '../helpers/sim.js';
import { FAST, bareOrigin, brief, goal, settled, startWorker, verdict, work } from '../fleet/helpers.js';

if (!CHROMIUM) process.stderr.write('\n########## SKIPPED: the fleet in `flower ui` in a browser — no Chromium at /usr/bin/chromium ##########\n\n');
const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');

const sim = useSim();
let browser: BrowserContext;
let profile: string;
const children: Array<{ kill: () => void; done: Promise<unknown> }> = [];

before(async () => {
  if (!CHROMIUM || PG_SKIP) return;
  ({ browser, profile } = await launchBrowser({ width: 1200, height: 900 }));
});
after(async () => {
  await browser?.close();
  for (const c of children) c.kill();
  await Promise.all(children.map((c) => c.done));
  if (profile) fs.rmSync(profile, { recursive: true, force: true });
  await dropDatabases();
});

/** `flower ui --store URL --port 0` from a folder with no run dir; the URL it prints first. */
async function ui(p: Project, url: string): Promise<string> {
  const s = startCli(['ui', '--store', url, '--port', '0'], { cwd: p.dir, env: { PATH: process.env.PATH ?? '', HOME: p.home, FLOWER_LANG: 'en' } });
  children.push({ kill: () => s.child.kill('SIGTERM'), done: s.done });
  let out = '';
  s.child.stdout!.on('data', (c: string) => (out += c));
  await until('the ui URL', () => out.includes('\n'), 30_000);
  return out.split('\n')[0]!;
}

async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

const queueSchema = async (db: string) => Number((await adminSql("SELECT count(*) AS n FROM pg_namespace WHERE nspname = 'flower_queue'", [], db)).rows[0]!.n);

describe('flower ui --store shows the fleet', { skip: PG_SKIP || !CHROMIUM }, () => {
  test('the tasks with their states, spend, wakes and branch; a task links to its runs', { timeout: 600_000 }, async () => {
    const url = await freshDatabase('uifleet');
    const admin = project('ui-fleet');
    const origin = bareOrigin(admin.dir);
    const env = (extra: Record<string, string> = {}) => testEnv(admin, sim.url, { FLOWER_STORE: url, ...extra });
    const add = async (args: string[], extra?: Record<string, string>) => {
      const r = await cli(['fleet', 'add', ...args], { cwd: admin.dir, env: env(extra), timeoutMs: 60_000 });
      assert.equal(r.code, 0, r.stderr);
      return r.stdout.trim();
    };

    sim.reset();
    const m = 'TASK-UI';
    sim.enqueue(...brief(m), ...goal(m), work(m), ...verdict(m));
    // a name is the person's text: shown as text, never as markup
    const NAME = 'md <img src=x onerror="document.title=1"> & co';
    const done = await add([`${m}: write ${m}.txt`, '--repo', origin, '--name', NAME]);
    const missing = path.join(admin.dir, 'no-such-repo.git');
    const broken = await add(['TASK-X: never', '--repo', missing, '--name', 'broken'], { FLOWER_FLEET_RETRIES: '0' });
    const w = startWorker('host-ui', sim.url, { FLOWER_STORE: url }, [...FAST, '--timeout', '0']);
    const end = await settled(w, 400_000);
    assert.equal(end.code, 0, end.stderr.slice(-2000));
    const waiting = await add(['TASK-Q: later', '--repo', origin]);

    const st = await cli(['fleet', 'status', '--json'], { cwd: admin.dir, env: env(), timeoutMs: 60_000 });
    const status = new Map(
      st.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { id: string; state: string; cost_usd: number; wakes: number })
        .map((r) => [r.id, r]),
    );
    assert.deepEqual(
      [done, broken, waiting].map((id) => status.get(id)?.state),
      ['achieved', 'failed', 'queued'],
    );

    const viewer = project('ui-fleet-viewer');
    const page = await browser.newPage();
    await page.goto(await ui(viewer, url));
    // the first page is the fleet's: named by the store (no password), with no inbox of this folder
    const heading = await page.locator('header .heading').innerText();
    assert.ok(heading.startsWith('the fleet in postgres://'), heading);
    const password = new URL(url).password;
    if (password) assert.ok(!heading.includes(password), 'the password is not shown');
    assert.equal(await page.locator('#ask-slot').count(), 0);
    const fleet = page.locator('section.fleet');
    assert.equal(await fleet.locator('.fleet-count').innerText(), '3 tasks: 1 queued, 1 achieved, 1 failed');
    const row = (id: string) => fleet.locator(`tr.task[data-task="${id}"]`);
    assert.deepEqual(await fleet.locator('tr.task').evaluateAll((rs) => rs.map((r) => r.getAttribute('data-task'))), [done, broken, waiting], 'oldest first');

    // achieved: its name as text, the judge's count, what it spent, one wake, its branch
    const a = row(done);
    assert.equal(await a.locator('.task-name').innerText(), NAME);
    assert.equal(await fleet.locator('img').count(), 0, 'no element made from the name');
    assert.equal(await a.locator('.task-id').innerText(), done);
    assert.equal(await a.locator('.state-badge').innerText(), 'achieved');
    assert.equal(await a.locator('.state-detail').innerText(), '1/1');
    const spend = await a.locator('td.spend').innerText();
    assert.equal(spend, `$${status.get(done)!.cost_usd.toFixed(4)}`, 'the spend `flower fleet status` reports');
    assert.notEqual(spend, '$0.0000');
    assert.equal(await a.locator('td.wakes').innerText(), '1');
    assert.equal(await a.locator('td.branch').innerText(), `flower/${done}`);
    // failed: one line naming the repository
    const b = row(broken);
    assert.equal(await b.locator('.state-badge').innerText(), 'failed');
    const reason = await b.locator('.state-detail').innerText();
    assert.ok(reason.includes(missing) && !reason.includes('\n'), reason);
    assert.equal(await b.locator('td.wakes').innerText(), '0');
    // queued: no name given, its id stands alone
    const q = row(waiting);
    assert.equal(await q.locator('.state-badge').innerText(), 'queued');
    assert.equal(await q.locator('.state-detail').count(), 0);
    assert.equal(await q.locator('.task-name').count(), 0);
    assert.equal(await q.locator('td.spend').innerText(), '$0.0000');
    assert.equal(await q.locator('td.task .task-request').innerText(), 'TASK-Q: later');
    const [sw, iw] = (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [number, number];
    assert.ok(sw <= iw, `no horizontal overflow: ${sw} > ${iw}`);
    await shot(page, 'fleet');

    // the achieved task's link: its runs, from its project in the store
    await a.locator('.task-name').click();
    await page.waitForURL((u) => u.searchParams.get('project') === done);
    assert.ok((await page.locator('header .heading').innerText()).includes(done));
    assert.equal(await page.title(), `task ${NAME} — flower ui`);
    assert.equal(await page.locator('section.fleet').count(), 0);
    const card = page.locator('section.run').first();
    assert.equal(await card.locator('h2.request').innerText(), `${m}: write ${m}.txt`);
    assert.equal(await page.locator('table.overview tr.run-row .state-badge').innerText(), 'achieved');
    for (const s of ['确认需求', '设定目标', '干活', '干活·判定#1'])
      assert.equal(await card.locator(`tr.step[data-step="${s}"] td.status`).innerText(), 'ok', s);
    await shot(page, 'fleet-task');
    // a session of that task: the page knows its step and run (the task's rows), and leads back to its runs
    await card.locator('tr.step[data-step="干活"] a.session').click();
    await page.waitForURL((u) => u.pathname.startsWith('/session/') && u.searchParams.get('project') === done);
    assert.match(await page.locator('header .heading').innerText(), /干活 · run /);
    await page.locator('header .heading a', { hasText: 'all runs' }).click();
    await page.waitForURL((u) => u.pathname === '/' && u.searchParams.get('project') === done);
    await page.locator('header .heading a.fleet-home').click();
    await page.waitForURL((u) => u.pathname === '/' && !u.searchParams.has('project'));
    assert.equal(await page.locator('section.fleet tr.task').count(), 3);

    // only the fleet's own tasks open: any other project is not found
    const bogus = new URL(page.url());
    bogus.searchParams.set('project', '/home/someone/else');
    const r = await page.goto(bogus.toString());
    assert.equal(r?.status(), 404);
    assert.match(await page.locator('main').innerText(), /No such task in this fleet/);
    await page.close();
  });

  test('a store no fleet used: no fleet section, no error, and no queue schema made', { timeout: 120_000 }, async () => {
    const url = await freshDatabase('uinofleet');
    const db = new URL(url).pathname.slice(1);
    const viewer = project('ui-nofleet');
    const page = await browser.newPage();
    const res = await page.goto(await ui(viewer, url));
    assert.equal(res?.status(), 200);
    assert.equal(await page.locator('section.fleet').count(), 0);
    assert.equal(await page.locator('#banners .banner').count(), 0, 'no problem shown');
    assert.match(await page.locator('main').innerText(), /No runs recorded yet/);
    assert.equal(await queueSchema(db), 0, 'the ui did not create the queue engine schema');
    await page.close();
  });
});
