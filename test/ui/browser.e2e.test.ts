/**
 * `flower ui` in a real browser: Debian's Chromium driven by playwright-core (never a downloaded
 * browser). The run dir comes from the real default flow; the server is the real CLI (`flower ui -r …
 * --port 0`); assertions are on the DOM, and each page leaves a screenshot in test-artifacts/ui/.
 * Without a Chromium the tests skip with a loud line (CI installs it: see .ci/run).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { startSim, type Sim } from '../../src/sim/index.js';
import { ROOT, readJson, startCli, until, type Project } from '../helpers/e2e.js';
import { copyRuns, FIRST, firstFlow, WAKE, wakeFlow, type FlowRun } from './fixture.js';
import { CHROMIUM, launchBrowser } from '../helpers/chromium.js';

if (!CHROMIUM) {
  process.stderr.write(
    '\n########## SKIPPED: the browser tests of `flower ui` — no Chromium at /usr/bin/chromium (apt-get install -y chromium, or set FLOWER_CHROMIUM) ##########\n\n',
  );
}
const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');

let sim: Sim;
let p: Project;
let first: FlowRun;
let browser: BrowserContext;
let profile: string;
const servers: Array<{ kill: () => void; done: Promise<unknown> }> = [];

/** `flower ui -r DIR --port 0`; resolves to the URL it prints first. */
async function serve(runDir: string): Promise<string> {
  const { child, done } = startCli(['ui', '-r', runDir, '--port', '0'], {
    cwd: path.dirname(runDir),
    env: { PATH: process.env.PATH ?? '', HOME: p.home, FLOWER_LANG: 'zh' },
  });
  servers.push({ kill: () => child.kill('SIGTERM'), done });
  let out = '';
  child.stdout!.on('data', (c: string) => {
    out += c;
  });
  await until('the ui URL on stdout', () => out.includes('\n'), 30_000);
  const url = out.split('\n')[0]!;
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{20,}$/);
  return url;
}

async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

before(async () => {
  if (!CHROMIUM) return;
  sim = await startSim({ port: 0, onUnexpected: 'error' });
  ({ p, run: first } = await firstFlow(sim, 'ui-browser'));
  ({ browser, profile } = await launchBrowser({ width: 1200, height: 900 }));
});

after(async () => {
  await browser?.close();
  for (const s of servers) s.kill();
  await Promise.all(servers.map((s) => s.done));
  await sim?.close();
  if (profile) fs.rmSync(profile, { recursive: true, force: true });
});

const runIds = (runs: string) => [...new Set(readJson<Array<{ run: string }>>(path.join(runs, 'manifest.json')).map((r) => r.run))];

test("the landing page shows the run, its steps, the verdict, costs and the work step's context curve; a second run appears by itself", {
  skip: !CHROMIUM,
}, async () => {
  const url = await serve(p.runs);
  const page = await browser.newPage();
  const res = await page.goto(url);
  assert.equal(res?.status(), 200);
  const [id1] = runIds(p.runs);
  const run = page.locator(`section.run[data-run="${id1}"]`);
  assert.equal(await run.locator('.run-id').innerText(), id1);
  // the page is English: the seed's names read translated, the name itself beside it
  const shown: Record<string, string> = {
    确认需求: 'clarify (确认需求)',
    设定目标: 'set the goal (设定目标)',
    干活: 'work (干活)',
    '干活·判定#1': 'work · judge #1 (干活·判定#1)',
  };
  for (const [step, name] of Object.entries(shown)) {
    assert.equal(await run.locator(`tr.step[data-step="${step}"] td.name`).innerText(), name);
  }
  assert.match(await run.locator('.verdict .outcome').innerText(), /verdict: achieved/);
  assert.match(await run.locator('.run-cost').innerText(), /^\$\d+\.\d\d$/);
  // the work step's curve, visible without a click: one circle per model call of the step
  const curve = run.locator('svg[role="img"][aria-label*="context"][aria-label*="干活"]');
  assert.equal(await curve.count(), 1);
  assert.ok(await curve.isVisible());
  assert.equal(await curve.locator('circle').count(), first.workCalls);
  // a linear axis scaled to the step's own peak: the 1M window and its threshold are far above a
  // scripted step's few thousand tokens, so they are named in a note rather than drawn
  assert.equal(await curve.locator('line.window').count(), 0);
  assert.match((await curve.locator('text.beyond').textContent()) ?? '', /window .* above the chart \(peak /);
  const ys = await curve.locator('circle').evaluateAll((cs) => cs.map((c) => Number(c.getAttribute('cy'))));
  // the peak sits near the top of the plot (y 10 … 138), not flat at the bottom of a 1M axis
  assert.ok(Math.min(...ys) < 10 + 128 * 0.2, `the peak near the top: ${ys.join(',')}`);
  // the overview above the cards: the request as typed, the verdict n/m, a small curve
  const row = page.locator(`table.overview tr.run-row[data-run="${id1}"]`);
  assert.equal(await row.locator('td.request').innerText(), FIRST);
  assert.match(await row.locator('td.verdict-count').innerText(), /^achieved \d+\/\d+$/);
  assert.equal(await row.locator('td.state').innerText(), 'achieved');
  assert.equal(await row.locator('td.spark svg[role="img"]').count(), 1);
  assert.equal(await run.locator('h2.request').innerText(), FIRST, 'the card opens with its request');
  assert.ok((await page.locator('main').innerText()).includes(FIRST));
  // the brief is rendered as sections (headings, lists), like the goal — not raw markdown
  assert.ok((await page.locator('details.brief h4').count()) >= 4);
  assert.equal(await page.locator('details.brief pre').count(), 0);
  await shot(page, 'landing');

  // a second run while the page is open: it shows up without a reload
  await page.evaluate('window.stayed = true');
  await wakeFlow(sim, p);
  const id2 = runIds(p.runs).find((r) => r !== id1)!;
  await page.locator(`section.run[data-run="${id2}"] .run-id`).waitFor({ timeout: 30_000 });
  assert.equal(await page.evaluate('window.stayed'), true, 'the same document: no reload');
  assert.equal(await page.locator('section.run').count(), 2);
  assert.equal(await page.locator(`table.overview tr.run-row[data-run="${id2}"] td.request`).innerText(), WAKE, "the wake's own request");
  // and later changes of a row (the judge finishing) follow as well
  await page.locator(`section.run[data-run="${id2}"] tr.step[data-step="干活·判定#1"] td.status`).filter({ hasText: /^ok$/ }).waitFor({ timeout: 30_000 });
  await shot(page, 'landing-two-runs');
  await page.close();
});

test('a session page: figures, the curve, subagents and the transcript; an unknown session is a 404 page; no token, no page', { skip: !CHROMIUM }, async () => {
  const url = await serve(p.runs);
  const page = await browser.newPage();
  await page.goto(url);
  await page.locator('tr.step[data-step="干活"] a.session').first().click();
  await page.locator('table.figures').waitFor();
  assert.match(await page.locator('td.cache-hit').innerText(), /%$/);
  assert.ok((await page.locator('svg[role="img"][aria-label*="context"] circle').count()) >= first.workCalls);
  assert.ok((await page.locator('ol.transcript li.entry').count()) > 0);
  assert.ok((await page.locator('ul.tree li.subagent a.task').count()) >= 1);
  await shot(page, 'session');

  const base = url.replace(/\?token=.*$/, '');
  const token = new URL(url).searchParams.get('token')!;
  const missing = await page.goto(`${base}session/no-such-session?token=${token}`);
  assert.equal(missing?.status(), 404);
  assert.match(await page.locator('h1').innerText(), /404/);
  await shot(page, 'not-found');

  for (const u of [base, `${base}static/ui.js`, `${base}favicon.ico`]) {
    assert.equal((await page.goto(u))?.status(), 401, u);
  }
  assert.equal((await page.goto(`${base}?token=wrong`))?.status(), 403);
  await page.close();
});

test('a damaged manifest shows a banner naming the file', { skip: !CHROMIUM }, async () => {
  const dir = copyRuns(p.runs, 'damaged');
  fs.writeFileSync(path.join(dir, 'manifest.json'), '[{"run": "x", "step": ');
  const url = await serve(dir);
  const page = await browser.newPage();
  assert.equal((await page.goto(url))?.status(), 200);
  const banner = page.locator('#banners .banner[role="alert"]');
  assert.ok(await banner.isVisible());
  assert.match(await banner.innerText(), /manifest\.json/);
  await shot(page, 'damaged-manifest');
  await page.close();
});

test('six runs make a compact page: the overview, one card open (the newest); at 420 px nothing overflows', { skip: !CHROMIUM }, async () => {
  // the real run dir's rows, as six runs (the same rows under six run ids, an hour apart)
  const dir = copyRuns(p.runs, 'six');
  const rows = readJson<Array<{ run: string; started_at: string; ended_at: string | null }>>(path.join(dir, 'manifest.json'));
  const firstRun = rows[0]!.run;
  const base = rows.filter((r) => r.run === firstRun);
  const shift = (iso: string | null, h: number) => (iso ? new Date(Date.parse(iso) + h * 3_600_000).toISOString() : iso);
  const six = [0, 1, 2, 3, 4, 5].flatMap((h) =>
    base.map((r) => ({ ...r, run: `${r.run}-${h}`, started_at: shift(r.started_at, h), ended_at: shift(r.ended_at, h) })),
  );
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(six, null, 2));
  const url = await serve(dir);
  const page = await browser.newPage();
  await page.goto(url);
  assert.equal(await page.locator('table.overview tr.run-row').count(), 6);
  assert.equal(await page.locator('details.run-card').count(), 6);
  assert.equal(await page.locator('details.run-card[open]').count(), 1);
  assert.equal(await page.locator(`section.run[data-run="${firstRun}-5"] details.run-card[open]`).count(), 1, 'the newest is the open one');
  const tall = (await page.evaluate('document.documentElement.scrollHeight')) as number;
  assert.ok(tall < 2600, `six runs in ${tall} px`);
  // a run's link in the overview opens its card
  await page.locator(`table.overview tr.run-row[data-run="${firstRun}-0"] td.request a`).click();
  await page.locator(`section.run[data-run="${firstRun}-0"] details.run-card[open]`).waitFor({ timeout: 10_000 });
  await shot(page, 'landing-six-runs');

  await page.setViewportSize({ width: 420, height: 900 });
  await page.goto(url);
  const [sw, iw] = (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [number, number];
  assert.ok(sw <= iw, `no horizontal overflow at 420 px: scrollWidth ${sw} > innerWidth ${iw}`);
  await shot(page, 'landing-420px');
  await page.close();
});
