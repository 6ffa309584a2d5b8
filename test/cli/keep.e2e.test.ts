/**
 * Never destroy what flower did not write, end to end: a person's own 20 MB 需求.md, their own 目标.md
 * and a lineage.json written for another workspace all survive a full `flower "…"` run — each moved
 * aside next to itself byte for byte, with a warning line naming where it went.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { SimItem } from '../../src/sim/index.js';
import { cli, project, readJson, testEnv } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

const clarifier = { firstUserIncludes: 'submit_brief' };
const goalSetter = { firstUserIncludes: 'submit_goal' };
const judge = { firstUserIncludes: 'submit_verdict' };
const flow = (): SimItem[] => [
  {
    type: 'tool_use',
    match: clarifier,
    name: 'mcp__human__submit_brief',
    input: { goal: '写 md2html 脚本', acceptance: ['node md2html.mjs a.md 输出 html'], boundaries: ['不用第三方库'], unknowns: ['输出到标准输出'] },
  },
  { type: 'text', match: clarifier, text: '好了' },
  {
    type: 'tool_use',
    match: goalSetter,
    name: 'mcp__human__submit_goal',
    input: { statement: 'md 能转 html', checks: [{ text: 'node md2html.mjs a.md 输出含 <h1>' }] },
  },
  { type: 'text', match: goalSetter, text: '好了' },
  { type: 'text', match: { toolsInclude: 'Agent' }, text: '写好了' },
  {
    type: 'tool_use',
    match: judge,
    name: 'mcp__human__submit_verdict',
    input: { state: 'achieved', reason: '', checks: [{ item: '输出含 <h1>', pass: true, evidence: '看了输出' }] },
  },
  { type: 'text', match: judge, text: '判定完毕' },
];
const sha = (b: Buffer | string) => crypto.createHash('sha256').update(b).digest('hex');
const keptNext = (file: string) =>
  fs
    .readdirSync(path.dirname(file))
    .filter((n) => n.startsWith(`${path.basename(file)}.kept-`))
    .map((n) => path.join(path.dirname(file), n));

test("a person's own 20 MB 需求.md, their 目标.md and another workspace's lineage survive a run, kept aside with a warning", async () => {
  const p = project('keep');
  const notes = path.join(p.ws, '.flower', 'notes');
  fs.mkdirSync(notes, { recursive: true });
  fs.mkdirSync(p.runs, { recursive: true });
  const line = 'my own notes about the project, not a brief — 我自己的笔记,不是需求确认书\n';
  const mine = Buffer.from(line.repeat(Math.ceil((20 * 1024 * 1024) / Buffer.byteLength(line))));
  assert.ok(mine.length >= 20 * 1024 * 1024);
  const briefFile = path.join(notes, '需求.md');
  const goalFile = path.join(notes, '目标.md');
  const lineageFile = path.join(p.runs, 'lineage.json');
  fs.writeFileSync(briefFile, mine);
  fs.writeFileSync(goalFile, '# my goals\n\nlearn rust this year\n');
  const foreign = `${JSON.stringify({ workspace: path.join(p.dir, 'another-project'), woke: 5, steps: { 干活: 'f0f0f0f0-0000-4000-8000-000000000000' } })}\n`;
  fs.writeFileSync(lineageFile, foreign);

  sim.reset();
  sim.enqueue(...flow());
  const r = await cli(['写个 md 转 html 的脚本', '--timeout', '0', '-w', p.ws, '-r', p.runs], {
    cwd: p.dir,
    env: testEnv(p, sim.url, { FLOWER_LANG: 'zh' }),
    timeoutMs: 180_000,
  });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.deepEqual(sim.unexpected(), []);

  // the person's 20 MB file: moved aside whole, and the new brief written in its place
  const [keptBrief, ...moreB] = keptNext(briefFile);
  assert.ok(keptBrief && moreB.length === 0, fs.readdirSync(notes).join(', '));
  assert.equal(sha(fs.readFileSync(keptBrief)), sha(mine), 'byte for byte');
  assert.match(fs.readFileSync(briefFile, 'utf8'), /## 目标\n\n写 md2html 脚本/);
  const [keptGoal] = keptNext(goalFile);
  assert.equal(fs.readFileSync(keptGoal!, 'utf8'), '# my goals\n\nlearn rust this year\n');
  assert.match(fs.readFileSync(goalFile, 'utf8'), /node md2html\.mjs a\.md 输出含 <h1>/);
  // the other workspace's continuity: kept, and this workspace's lineage is a new one (version 1)
  const [keptLineage] = keptNext(lineageFile);
  assert.equal(fs.readFileSync(keptLineage!, 'utf8'), foreign);
  const now = readJson<{ version: number; workspace: string; woke: number }>(lineageFile);
  assert.deepEqual([now.version, now.workspace, now.woke], [1, p.ws, 1]);
  // each one told, naming where it went
  const out = r.stdout + r.stderr;
  for (const k of [keptBrief, keptGoal!, keptLineage!]) assert.ok(out.includes(k), `a warning names ${k}\n${out}`);
  // the 20 MB never reached the model
  assert.ok(sim.messageRequests().every((m) => !JSON.stringify(m.body).includes('my own notes about the project')));
});
