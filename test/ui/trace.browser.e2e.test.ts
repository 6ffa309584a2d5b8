/**
 * The session page as a trace, in a real browser (Debian's Chromium via playwright-core): a scripted run
 * whose wake makes the worker overwrite md2html.mjs (one line changed) and whose work step fails once
 * (a 529) before it succeeds. Checked on the DOM: no harness record rows by default (the toggle shows
 * them, without script), the subagents named by their Agent calls' descriptions, the changed file as a
 * diff with the removed and the added line, the failed attempt, the timeline, the step and run named.
 * Screenshots go to test-artifacts/ui/.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import { startSim, type Sim } from '../../src/sim/index.js';
import { ROOT, readJson, startCli, until, type Project } from '../helpers/e2e.js';
import { CHANGED_LINE, firstFlow, traceWakeFlow } from './fixture.js';
import { CHROMIUM, launchBrowser } from '../helpers/chromium.js';

if (!CHROMIUM) {
  process.stderr.write(
    '\n########## SKIPPED: the trace browser tests of `flower ui` — no Chromium at /usr/bin/chromium (apt-get install -y chromium, or set FLOWER_CHROMIUM) ##########\n\n',
  );
}
const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');

interface Row {
  run: string;
  step: string;
  session_id: string;
  attempts: number;
  errors: string[];
  attempt_failures?: Array<{ attempt: number; kind: string; message: string }>;
}

let sim: Sim;
let p: Project;
let browser: BrowserContext;
let profile: string;
let server: { kill: () => void; done: Promise<unknown> } | null = null;
let url = '';

before(async () => {
  if (!CHROMIUM) return;
  sim = await startSim({ port: 0, onUnexpected: 'error' });
  ({ p } = await firstFlow(sim, 'ui-trace-browser'));
  await traceWakeFlow(sim, p);
  const { child, done } = startCli(['ui', '-r', p.runs, '--port', '0'], { cwd: p.dir, env: { PATH: process.env.PATH ?? '', HOME: p.home, FLOWER_LANG: 'zh' } });
  server = { kill: () => child.kill('SIGTERM'), done };
  let out = '';
  child.stdout!.on('data', (c: string) => {
    out += c;
  });
  await until('the ui URL on stdout', () => out.includes('\n'), 30_000);
  url = out.split('\n')[0]!;
  ({ browser, profile } = await launchBrowser({ width: 1200, height: 900 }));
});

after(async () => {
  await browser?.close();
  server?.kill();
  await server?.done;
  await sim?.close();
  if (profile) fs.rmSync(profile, { recursive: true, force: true });
});

async function shot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
}

test('the work step as a trace: tree by task, the diff of the overwritten file, the failed attempt, the timeline, no harness rows', {
  skip: !CHROMIUM,
}, async () => {
  const rows = readJson<Row[]>(path.join(p.runs, 'manifest.json'));
  const runs = [...new Set(rows.map((r) => r.run))];
  assert.equal(runs.length, 2);
  const work = rows.find((r) => r.run === runs[1] && r.step === '干活')!;
  assert.equal(work.attempts, 2, 'the scripted 529 failed the first attempt');
  // the row records the retried attempt's typed failure (the texts in `errors` cannot say which attempt)
  const [first] = work.attempt_failures ?? [];
  assert.ok(first, "the row has the first attempt's typed failure");
  assert.equal(first.attempt, 1);
  const page = await browser.newPage();
  await page.goto(url);
  await page.locator(`section.run[data-run="${runs[1]}"] tr.step[data-step="干活"] a.session`).click();
  await page.locator('section.step-of').first().waitFor();

  // the session page names its step and run, with the step's attempts and the failure of the first
  const stepOf = page.locator(`section.step-of[data-run="${runs[1]}"]`);
  assert.equal(await stepOf.locator('.step-name').innerText(), '干活');
  assert.equal(await stepOf.locator('a.run code').innerText(), runs[1]);
  const failed = stepOf.locator('li.attempt.failed');
  assert.equal(await failed.count(), 1);
  assert.equal(await failed.locator('.kind').innerText(), first.kind, 'the failed attempt shows its failure kind');
  assert.equal(await failed.locator('.why').innerText(), first.message.split('\n')[0]);
  assert.match(await failed.innerText(), /529|overloaded/i);
  assert.equal(await stepOf.locator('li.attempt.ok').count(), 1);

  // no harness record rows by default
  assert.equal(
    await page
      .locator('ol.transcript li.entry .role')
      .filter({ hasText: /^queue-operation$/ })
      .count(),
    0,
  );
  assert.equal(await page.locator('ol.transcript li.entry.harness').count(), 0);
  assert.ok((await page.locator('ol.transcript li.entry').count()) > 0);

  // each subagent named by the task its Agent call gave it, linking to its transcript
  const tasks = await page.locator('ul.tree li.subagent a.task').allInnerTexts();
  assert.deepEqual(tasks, ['写 md2html.mjs', '加代码块高亮']);

  // what changed: md2html.mjs, its overwrite as a diff against the first worker's version
  const file = path.join(p.ws, 'md2html.mjs');
  assert.ok((await page.locator('li.changed-file code.path').allInnerTexts()).includes(file));
  const over = page
    .locator('div.change')
    .filter({ hasText: 'overwrote' })
    .filter({ has: page.locator('code.path', { hasText: file }) });
  assert.equal(await over.count(), 1);
  assert.ok(await over.isVisible());
  assert.ok((await over.locator('del.d-del').allInnerTexts()).some((t) => t.includes(CHANGED_LINE.removed)));
  assert.ok((await over.locator('ins.d-add').allInnerTexts()).some((t) => t.includes(CHANGED_LINE.added)));
  // the list links to that diff
  const anchor = await over.getAttribute('id');
  assert.equal(await page.locator(`li.changed-file a[href="#${anchor}"]`).count(), 1);

  // the timeline: every model and tool call, the Agent calls among them, the longest marked
  const tl = page.locator('table.timeline tr.tl');
  assert.ok((await tl.count()) >= 10);
  assert.equal(
    await page
      .locator('table.timeline tr.tl.tool td.what')
      .filter({ hasText: /^Agent 加代码块高亮$/ })
      .count(),
    1,
  );
  assert.ok((await page.locator('table.timeline tr.tl.long').count()) >= 1);
  await shot(page, 'session-trace');

  // the toggle (a plain link) shows the harness records
  await page.locator('a.harness-toggle').click();
  await page.locator('ol.transcript li.entry.harness').first().waitFor();
  assert.ok(
    (await page
      .locator('ol.transcript li.entry .role')
      .filter({ hasText: /^queue-operation$/ })
      .count()) >= 1,
  );

  // the subagent's own page: its task named, its Write as a diff, its timeline
  await page.locator('ul.tree li.subagent a.task', { hasText: '加代码块高亮' }).click();
  await page.locator('h1 .sub-task').waitFor();
  assert.equal(await page.locator('h1 .sub-task').innerText(), '加代码块高亮');
  assert.ok((await page.locator('ol.transcript .tool-use.kind-edit ins.d-add').allInnerTexts()).some((t) => t.includes(CHANGED_LINE.added)));
  assert.ok((await page.locator('table.timeline tr.tl').count()) >= 3);
  await shot(page, 'session-trace-subagent');

  // search: within the session (a GET form, no script needed), and across the run
  await page.locator('form.search input[name="q"]').fill('fenced code blocks');
  await page.locator('form.search button').click();
  await page.locator('section.search-results').waitFor();
  assert.ok((await page.locator('ol.hits li.hit').count()) >= 1);
  assert.match(await page.locator('ol.hits mark').first().innerText(), /fenced code blocks/);
  await page.goto(url.replace('/?', `/search?run=${runs[1]}&q=${encodeURIComponent('<pre>')}&`));
  assert.ok((await page.locator('section.search-results ol.hits li.hit').count()) >= 1);
  assert.equal(await page.locator('ol.hits mark').first().innerText(), '<pre>');
  await shot(page, 'search-run');
  await page.close();
});
