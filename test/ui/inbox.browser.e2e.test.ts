/**
 * Answering from `flower ui` (issue 21) in a real browser: a run of the default flow waits on a question
 * with no terminal (--timeout long); the page served by the real CLI shows it on top with its options;
 * a click POSTs the answer and the scripted model receives that option's text. A POST from another
 * origin, or without the token, is refused and posts nothing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import type { BrowserContext } from 'playwright-core';
import { startSim, type Sim, type SimItem } from '../../src/sim/index.js';
import { project, readJson, startCli, testEnv, until, type Project } from '../helpers/e2e.js';
import { CHROMIUM, launchBrowser } from '../helpers/chromium.js';

if (!CHROMIUM) process.stderr.write('\n########## SKIPPED: answering from `flower ui` in a browser — no Chromium at /usr/bin/chromium ##########\n\n');

let sim: Sim;
let browser: BrowserContext;
let profile: string;
const children: Array<{ kill: () => void; done: Promise<unknown> }> = [];

before(async () => {
  sim = await startSim({ port: 0, onUnexpected: 'error' });
  if (!CHROMIUM) return;
  ({ browser, profile } = await launchBrowser());
});
after(async () => {
  await browser?.close();
  for (const c of children) c.kill();
  await Promise.all(children.map((c) => c.done));
  await sim.close();
  if (profile) fs.rmSync(profile, { recursive: true, force: true });
});

const clarifier = { firstUserIncludes: 'submit_brief' };
const OPTIONS = ['to stdout', 'to a file next to the input'];
const script = (): SimItem[] => [
  { type: 'tool_use', match: clarifier, name: 'mcp__human__ask', input: { question: 'Where should the <b>html</b> go?', options: OPTIONS } },
  {
    type: 'tool_use',
    match: clarifier,
    name: 'mcp__human__submit_brief',
    input: { goal: 'md2html', acceptance: ['prints html'], boundaries: ['no dependencies'], unknowns: ['where the output goes: as answered'] },
  },
  { type: 'text', match: clarifier, text: 'done' },
];
const toolResults = (): string[] =>
  sim
    .messageRequests()
    .flatMap((r) => r.body.messages ?? [])
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b) => (b as { type?: string }).type === 'tool_result')
    .map((b) => JSON.stringify((b as { content?: unknown }).content));
const waiting = (p: Project) => {
  try {
    return readJson<{ questions: unknown[] }>(path.join(p.runs, 'inbox', 'waiting.json')).questions.length;
  } catch {
    return 0;
  }
};
const pending = (p: Project) => {
  try {
    return fs.readdirSync(path.join(p.runs, 'inbox', 'pending')).length;
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

test('the waiting question is on top of the page; clicking option 2 answers it and the model gets that text', { skip: !CHROMIUM }, async () => {
  const p = project('ui-answer');
  sim.reset();
  sim.enqueue(...script());
  const run = startCli(['write md2html', '--clarify-only', '--timeout', '600', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url) });
  children.push({ kill: () => run.child.kill('SIGKILL'), done: run.done });
  await until('the question waiting', () => waiting(p) === 1, 60_000);
  const url = await ui(p);
  const u = new URL(url);

  // refused: no token (401), a wrong origin (403), a cross-site fetch metadata (403) — nothing posted
  const post = (q: string, headers: Record<string, string>) =>
    fetch(`${u.origin}/api/inbox${q}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify({ kind: 'mail', text: 'x' }),
    });
  assert.equal((await post('', { Origin: u.origin })).status, 401);
  assert.equal((await post(`?token=${u.searchParams.get('token')}`, { Origin: 'http://evil.example' })).status, 403);
  assert.equal((await post(`?token=${u.searchParams.get('token')}`, { 'Sec-Fetch-Site': 'cross-site' })).status, 403);
  // and from a page of another origin in the browser itself (the sim's): the POST never lands
  const other = await browser.newPage();
  await other.goto(`${sim.url}/`);
  const crossStatus = await other.evaluate(async (target) => {
    try {
      const r = await fetch(target, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ kind: 'stop-after-step' }) });
      return r.status;
    } catch {
      return -1;
    }
  }, `${u.origin}/api/inbox${u.search}`);
  assert.notEqual(crossStatus, 200);
  assert.equal(pending(p), 0, 'nothing posted by the refused requests');

  const page = await browser.newPage();
  await page.goto(url);
  const ask = page.locator('#ask');
  assert.match((await ask.locator('.question').textContent()) ?? '', /Where should the <b>html<\/b> go\?/, 'shown as text, not markup');
  assert.deepEqual(await ask.locator('ol.options button').allTextContents(), OPTIONS);
  await ask.locator('ol.options button', { hasText: 'to a file next to the input' }).click();
  await page.locator('#inbox-result.ok').waitFor({ timeout: 60_000 });
  assert.match((await page.locator('#inbox-result').textContent()) ?? '', /q1 answered: to a file next to the input/);
  await until('the model receiving the answer', () => toolResults().some((t) => t.includes('to a file next to the input')), 60_000);
  const r = await run.done;
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const log = fs.readFileSync(path.join(p.ws, '.flower', 'notes', '问答记录.md'), 'utf8');
  assert.equal(log.match(/\*\*A\*\*\[answered\] to a file next to the input/g)?.length, 1, log);
  // the question is gone from the page once nobody waits on it
  await page.locator('#ask.idle').waitFor({ timeout: 30_000 });
});
