/**
 * Answer from anywhere (issue 21), end to end: `flower "…"` runs without a terminal with a long
 * --timeout; a second process answers its question (`flower answer 2`), sends a remark (`flower say`)
 * or asks it to stop after the step (`flower stop --after-step`); an answer posted before the start is
 * delivered. Asserted on what the scripted model received and on the records.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { SimItem } from '../../src/sim/index.js';
import { cli, project, readJson, startCli, testEnv, transcriptOf, until, type Project } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

const clarifier = { firstUserIncludes: 'submit_brief' };
const goalSetter = { firstUserIncludes: 'submit_goal' };
const judge = { firstUserIncludes: 'submit_verdict' };
const coordinator = { toolsInclude: 'Agent' };
const QUESTION = { question: 'Where should the html go?', options: ['to stdout', 'to a file next to the input'] };

const ask = (): SimItem => ({ type: 'tool_use', match: clarifier, name: 'mcp__human__ask', input: QUESTION });
const brief = (): SimItem[] => [
  {
    type: 'tool_use',
    match: clarifier,
    name: 'mcp__human__submit_brief',
    input: {
      goal: 'md2html script',
      acceptance: ['node md2html.mjs a.md prints html'],
      boundaries: ['no dependencies'],
      unknowns: ['output goes where the person said'],
    },
  },
  { type: 'text', match: clarifier, text: 'done' },
];
const goal = (): SimItem[] => [
  { type: 'tool_use', match: goalSetter, name: 'mcp__human__submit_goal', input: { statement: 'md becomes html', checks: [{ text: 'output has <h1>' }] } },
  { type: 'text', match: goalSetter, text: 'done' },
];
const verdict = (): SimItem[] => [
  {
    type: 'tool_use',
    match: judge,
    name: 'mcp__human__submit_verdict',
    input: { state: 'achieved', reason: '', checks: [{ item: 'output has <h1>', pass: true, evidence: 'read it' }] },
  },
  { type: 'text', match: judge, text: 'judged' },
];

const env = (p: Project) => testEnv(p, sim.url);
const flower = (p: Project, args: string[]) => cli([...args, '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: env(p), timeoutMs: 120_000 });
const start = (p: Project) => startCli(['write a md to html script', '--timeout', '600', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: env(p) });
const waitingFile = (p: Project) => path.join(p.runs, 'inbox', 'waiting.json');
const waitingNow = (p: Project): Array<{ id: string }> => {
  try {
    return readJson<{ questions: Array<{ id: string }> }>(waitingFile(p)).questions;
  } catch {
    return [];
  }
};
/** Every tool_result text the model was sent, over all requests. */
const toolResults = (): string[] =>
  sim
    .messageRequests()
    .flatMap((r) => r.body.messages ?? [])
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .filter((b): b is { type: 'tool_result'; content: unknown } => (b as { type?: string }).type === 'tool_result')
    .map((b) =>
      typeof b.content === 'string' ? b.content : (Array.isArray(b.content) ? (b.content as Array<{ text?: string }>) : []).map((c) => c.text ?? '').join(''),
    );
const rows = (p: Project) => readJson<Array<{ step: string; ok: boolean }>>(path.join(p.runs, 'manifest.json'));

test('a question asked without a terminal is answered by `flower answer 2` from another process; the model gets that option, logged once', async () => {
  const p = project('answer');
  sim.reset();
  sim.enqueue(ask(), ...brief(), ...goal(), { type: 'text', match: coordinator, text: 'written' }, ...verdict());
  const run = start(p);
  await until('the question waiting in the inbox', () => waitingNow(p).length === 1, 60_000);
  const listed = await flower(p, ['answer']);
  assert.equal(listed.code, 0, listed.stderr);
  assert.match(listed.stdout, /q1 {2}Where should the html go\?[\s\S]*2\. to a file next to the input/);
  const status = await flower(p, ['status', '--json']);
  const waiting = (JSON.parse(status.stdout) as { waiting: { id: string; question: string; options: string[]; asked_at: string } | null }).waiting;
  assert.equal(waiting?.id, 'q1');
  assert.deepEqual(waiting?.options, QUESTION.options);
  assert.ok(Date.parse(waiting!.asked_at) > 0);

  const t0 = Date.now();
  const answered = cli(['answer', '2'], { cwd: p.dir, env: env(p), timeoutMs: 120_000 });
  await until('the model receiving the answer', () => toolResults().some((t) => t.includes('to a file next to the input')), 60_000);
  const latency = Date.now() - t0;
  const a = await answered;
  assert.equal(a.code, 0, a.stderr + a.stdout);
  assert.match(a.stdout, /\+ q1 answered: to a file next to the input/);
  process.stderr.write(`# answer latency (flower answer spawned -> model request with the answer): ${latency} ms\n`);

  const r = await run.done;
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /q1 was answered elsewhere/);
  assert.ok(toolResults().includes('to a file next to the input'), 'exactly the option text');
  const log = fs.readFileSync(path.join(p.ws, '.flower', 'notes', '问答记录.md'), 'utf8');
  assert.equal(log.match(/\*\*A\*\*\[answered\] to a file next to the input/g)?.length, 1, log);
  assert.equal(waitingNow(p).length, 0, 'nothing waiting once the run ended');
  // the same question again: too late, exit 1
  const late = await flower(p, ['answer', '--id', 'q1', '1']);
  assert.equal(late.code, 1);
  assert.match(late.stderr, /q1 is not waiting here/);
  assert.deepEqual(sim.pending(), []);
});

test('`flower say` reaches the working agent through its inbox tool, and the brief', async () => {
  const p = project('say');
  sim.reset();
  sim.enqueue(
    ask(),
    ...brief(),
    ...goal(),
    { type: 'tool_use', match: coordinator, name: 'mcp__human__inbox', input: {} },
    { type: 'text', match: coordinator, text: 'written, with code blocks' },
    ...verdict(),
  );
  const run = start(p);
  await until('the question waiting in the inbox', () => waitingNow(p).length === 1, 60_000);
  const said = await flower(p, ['say', 'also support code blocks']);
  assert.equal(said.code, 0, said.stderr + said.stdout);
  assert.match(said.stdout, /given to the running flower/);
  const a = await flower(p, ['answer', '1']);
  assert.equal(a.code, 0, a.stderr + a.stdout);
  const r = await run.done;
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.ok(
    toolResults().some((t) => t.includes('also support code blocks')),
    `the inbox tool handed the remark to the model: ${JSON.stringify(toolResults())}`,
  );
  assert.match(fs.readFileSync(path.join(p.ws, '.flower', 'notes', '需求.md'), 'utf8'), /also support code blocks/);
  assert.deepEqual(sim.pending(), []);
  const usage = await flower(p, ['say']);
  assert.equal(usage.code, 2);
});

test('`flower stop --after-step` lets the step in progress finish and starts no other', async () => {
  const p = project('stop');
  sim.reset();
  // nothing of the goal step may be asked for: the run stops after 确认需求
  sim.enqueue(ask(), ...brief());
  const run = start(p);
  await until('the question waiting in the inbox', () => waitingNow(p).length === 1, 60_000);
  const stopped = await flower(p, ['stop', '--after-step']);
  assert.equal(stopped.code, 0, stopped.stderr + stopped.stdout);
  assert.match(stopped.stdout, /stops after the step in progress/);
  const a = await flower(p, ['answer', '1']);
  assert.equal(a.code, 0, a.stderr + a.stdout);
  const r = await run.done;
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /stopped after 确认需求, as asked; type flower to continue/);
  assert.deepEqual(
    rows(p).map((x) => [x.step, x.ok]),
    [['确认需求', true]],
    'no step after the one in progress',
  );
  assert.deepEqual(sim.pending(), []);
  const usage = await flower(p, ['stop']);
  assert.equal(usage.code, 2);
});

test('an answer posted before flower starts is given to its first question', async () => {
  const p = project('answer-early');
  const early = await flower(p, ['answer', 'to stdout']);
  assert.equal(early.code, 0, early.stderr);
  assert.match(early.stdout, /nothing is waiting now; the answer is kept/);
  sim.reset();
  sim.enqueue(ask(), ...brief(), ...goal(), { type: 'text', match: coordinator, text: 'written' }, ...verdict());
  const r = await start(p).done;
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.ok(toolResults().includes('to stdout'), toolResults().join('\n'));
  const seen = sim.messageRequests().map((x) => transcriptOf(x.body).join('\n'));
  assert.ok(seen.some((s) => s.includes('to stdout')));
});
