/**
 * The landing page while a run waits on a person (issue 23), in a real browser: a run of the default
 * flow whose clarifier asks, with no terminal (--timeout long). The page served by the real CLI shows
 * the run's request in the overview and on its card, the run as "waiting for you" with the question and
 * its options — never `running · $0.00 · 0 turns` — fits 420 px, and, once the question is answered
 * from the page, the run's state follows by itself.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { BrowserContext } from 'playwright-core';
import { startSim, type Sim, type SimItem } from '../../src/sim/index.js';
import { ROOT, project, readJson, startCli, testEnv, until, type Project } from '../helpers/e2e.js';
import { CHROMIUM, launchBrowser } from '../helpers/chromium.js';

if (!CHROMIUM) process.stderr.write('\n########## SKIPPED: the landing page of `flower ui` in a browser — no Chromium at /usr/bin/chromium ##########\n\n');
const SHOTS = path.join(ROOT, 'test-artifacts', 'ui');

let sim: Sim;
let browser: BrowserContext;
let profile: string;
const children: Array<{ kill: () => void; done: Promise<unknown> }> = [];

before(async () => {
  sim = await startSim({ port: 0, onUnexpected: 'error' });
  if (!CHROMIUM) return;
  ({ browser, profile } = await launchBrowser({ width: 420, height: 900 }));
});
after(async () => {
  await browser?.close();
  for (const c of children) c.kill();
  await Promise.all(children.map((c) => c.done));
  await sim.close();
  if (profile) fs.rmSync(profile, { recursive: true, force: true });
});

const REQUEST = 'write md2html: a <script> that turns markdown into html';
const QUESTION = 'Where should the <b>html</b> go?';
const OPTIONS = ['to stdout', 'to a file next to the input'];
const clarifier = { firstUserIncludes: 'submit_brief' };
const script = (): SimItem[] => [
  { type: 'tool_use', match: clarifier, name: 'mcp__human__ask', input: { question: QUESTION, options: OPTIONS } },
  {
    type: 'tool_use',
    match: clarifier,
    name: 'mcp__human__submit_brief',
    input: { goal: 'md2html', acceptance: ['prints html'], boundaries: ['no dependencies'], unknowns: ['where the output goes: as answered'] },
  },
  { type: 'text', match: clarifier, text: 'done' },
];
const waiting = (p: Project) => {
  try {
    return readJson<{ questions: unknown[] }>(path.join(p.runs, 'inbox', 'waiting.json')).questions.length;
  } catch {
    return 0;
  }
};

async function ui(p: Project): Promise<string> {
  const s = startCli(['ui', '-r', p.runs, '--port', '0'], { cwd: p.dir, env: { PATH: process.env.PATH ?? '', HOME: p.home, FLOWER_LANG: 'en' } });
  children.push({ kill: () => s.child.kill('SIGTERM'), done: s.done });
  let out = '';
  s.child.stdout!.on('data', (c: string) => (out += c));
  await until('the ui URL', () => out.includes('\n'), 30_000);
  return out.split('\n')[0]!;
}

test('a run waiting on a question: its request and the question are on the landing page, styled as waiting; answered, it moves on', {
  skip: !CHROMIUM,
}, async () => {
  const p = project('ui-landing');
  sim.reset();
  sim.enqueue(...script());
  const run = startCli([REQUEST, '--clarify-only', '--timeout', '600', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url) });
  children.push({ kill: () => run.child.kill('SIGKILL'), done: run.done });
  await until('the question waiting', () => waiting(p) === 1, 60_000);
  // the request is recorded on the run's rows from its first row on
  const rows = readJson<Array<{ run: string; request?: string }>>(path.join(p.runs, 'manifest.json'));
  assert.deepEqual([...new Set(rows.map((r) => r.request))], [REQUEST]);
  const id = rows[0]!.run;

  const page = await browser.newPage();
  await page.goto(await ui(p));
  const main = page.locator('main');
  const text = await main.innerText();
  assert.ok(text.includes(REQUEST), "the landing page's text holds the run's request");
  assert.ok(text.includes(QUESTION), "a waiting question's text is on the landing page while the run waits");
  assert.doesNotMatch(text, /running · \$0\.00 · 0 turns/);
  assert.equal(await page.locator(`table.overview tr.run-row[data-run="${id}"] td.request`).innerText(), REQUEST, 'shown as text, not markup');
  assert.equal(await page.locator(`table.overview tr.run-row[data-run="${id}"] .state-badge`).innerText(), 'waiting for you');
  const card = page.locator(`section.run.state-waiting[data-run="${id}"]`);
  assert.equal(await card.locator('h2.request').innerText(), REQUEST);
  assert.equal(await card.locator('.waiting-for-you .waiting-question').innerText(), QUESTION);
  assert.deepEqual(await card.locator('ol.waiting-options li').allInnerTexts(), OPTIONS);
  const step = card.locator('tr.step[data-step="确认需求"]');
  assert.equal(await step.locator('td.status').innerText(), 'waiting for you');
  assert.equal(await step.locator('td.cost').innerText(), '–', 'no figures yet, not $0.00');
  // waiting is not a failure's style: not red; the badge is the prominent amber one
  const colour = await page.evaluate(`getComputedStyle(document.querySelector('section.run[data-run="${id}"] tr.step td.status')).color`);
  assert.notEqual(colour, 'rgb(176, 0, 32)');
  const [sw, iw] = (await page.evaluate('[document.documentElement.scrollWidth, window.innerWidth]')) as [number, number];
  assert.ok(sw <= iw, `no horizontal overflow at 420 px: scrollWidth ${sw} > innerWidth ${iw}`);
  fs.mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SHOTS, 'landing-waiting.png'), fullPage: true });

  // answered from the landing page: the run goes on and its card follows without a reload
  await page.locator('#ask ol.options button', { hasText: OPTIONS[1]! }).click();
  await page.locator('#inbox-result.ok').waitFor({ timeout: 60_000 });
  const r = await run.done;
  assert.equal(r.code, 0, r.stderr + r.stdout);
  await page.locator(`section.run.state-done[data-run="${id}"]`).waitFor({ timeout: 30_000 });
  assert.equal(await page.locator('.waiting-for-you').count(), 0);
  assert.ok((await main.innerText()).includes(REQUEST));
  await page.close();
});
