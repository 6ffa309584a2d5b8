/**
 * A model that misbehaves never breaks flower (issue 19): the faults a fuzzing model found, each
 * replayed on the real binary through `flower "…"` with the sim on 127.0.0.1. "Done" means a fresh
 * judge verified every check of the frozen goal with evidence; a judge that gives no valid verdict is
 * told once and then stops the run cleanly; a worker whose model stalls is bounded by the watchdog.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { toolResultsOf, type SimItem } from '../../src/sim/index.js';
import { cli, project, readJson, testEnv, type Project } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

interface Row {
  step: string;
  ok: boolean;
  error: string | null;
  verdict?: { outcome: string; passed: number; total: number };
  failure?: { kind: string };
}

const clarifier = { firstUserIncludes: 'submit_brief' };
const goalSetter = { firstUserIncludes: 'submit_goal' };
const judge = { firstUserIncludes: 'submit_verdict' };
const coordinator = { toolsInclude: 'Agent' };
const CHECKS = ['node md2html.mjs a.md prints <h1>', 'an empty file exits 0'];

const setup = (): SimItem[] => [
  {
    type: 'tool_use',
    match: clarifier,
    name: 'mcp__human__submit_brief',
    input: { goal: 'md2html', acceptance: ['prints html'], boundaries: ['no deps'], unknowns: ['stdout'] },
  },
  { type: 'text', match: clarifier, text: 'ok' },
  { type: 'tool_use', match: goalSetter, name: 'mcp__human__submit_goal', input: { statement: 'md becomes html', checks: CHECKS.map((text) => ({ text })) } },
  { type: 'text', match: goalSetter, text: 'ok' },
];
const work = (text: string): SimItem => ({ type: 'text', match: coordinator, text });
const submit = (state: string, checks: Array<{ item: string; pass: boolean; evidence: string }>): SimItem => ({
  type: 'tool_use',
  match: judge,
  name: 'mcp__human__submit_verdict',
  input: { state, reason: 'looked', checks },
});
const all = (evidence = 'ran it and saw it'): Array<{ item: string; pass: boolean; evidence: string }> =>
  CHECKS.map((item) => ({ item, pass: true, evidence }));

const go = (p: Project, args: string[]) =>
  cli([...args, '-w', p.ws, '-r', p.runs, '--timeout', '0'], { cwd: p.dir, env: testEnv(p, sim.url, { FLOWER_LANG: 'en' }), timeoutMs: 180_000 });
const rows = (p: Project) => readJson<Row[]>(path.join(p.runs, 'manifest.json'));
/** What each submit_verdict call answered the judge, in order (each result once: later requests repeat the history). */
const judgeResults = () => {
  const seen = new Map<string, ReturnType<typeof toolResultsOf>[number]>();
  for (const m of sim.messageRequests())
    for (const t of toolResultsOf(m.body)) if (/Verdict received|Not received as achieved|Recorded as not_yet/.test(t.content)) seen.set(t.tool_use_id, t);
  return [...seen.values()];
};

test('regression (fuzz fault: empty checks): an achieved verdict that judged nothing is sent back once and recorded not yet — never 2/2', async () => {
  const p = project('mis-empty');
  sim.reset();
  sim.enqueue(...setup(), work('done'), submit('achieved', []), submit('achieved', []), { type: 'text', match: judge, text: 'submitted' });
  const r = await go(p, ['write md2html', '--rounds', '1']);
  assert.equal(r.code, 1, r.stderr + r.stdout);
  const j = rows(p).find((x) => x.step === '干活·判定#1')!;
  assert.deepEqual(j.verdict, { outcome: 'not_yet', passed: 0, total: 2 });
  const [first, second] = judgeResults();
  assert.match(first?.content ?? '', /Not received as achieved — not judged: node md2html\.mjs a\.md prints <h1>; not judged: an empty file exits 0/);
  assert.equal(first?.is_error, true, 'the judge is told at once, as an error it can fix');
  assert.match(second?.content ?? '', /Recorded as not_yet/);
  assert.match(r.stderr, /not_yet \(0\/2\)/);
  assert.doesNotMatch(r.stderr + r.stdout, /[判定者没有给出明确结论]{6}|按未达成处理/, 'English mode says it in English');
});

test('regression (fuzz fault: no evidence): pass without evidence is not achieved; the judge fixes it once and the work passes', async () => {
  const p = project('mis-evidence');
  sim.reset();
  sim.enqueue(
    ...setup(),
    work('done'),
    submit('achieved', all('')),
    submit('achieved', all('ran node md2html.mjs a.md: <h1>a</h1>; touch e.md and ran it: exit 0')),
    { type: 'text', match: judge, text: 'submitted' },
  );
  const r = await go(p, ['write md2html']);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const j = rows(p).find((x) => x.step === '干活·判定#1')!;
  assert.deepEqual(j.verdict, { outcome: 'achieved', passed: 2, total: 2 });
  assert.match(judgeResults()[0]?.content ?? '', /no evidence: node md2html\.mjs a\.md prints <h1>/);
});

test('regression (fuzz fault: a partial verdict): judging one of two checks is not yet 1/2, and the next round goes on with the gap', async () => {
  const p = project('mis-partial');
  sim.reset();
  const one = [{ item: CHECKS[0]!, pass: true, evidence: 'saw <h1>' }];
  sim.enqueue(
    ...setup(),
    work('first'),
    submit('achieved', one),
    submit('achieved', one),
    { type: 'text', match: judge, text: 'submitted' },
    work('second'),
    submit('achieved', all()),
    { type: 'text', match: judge, text: 'submitted' },
  );
  const r = await go(p, ['write md2html', '--rounds', '2']);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const verdicts = rows(p)
    .filter((x) => x.verdict)
    .map((x) => x.verdict);
  assert.deepEqual(verdicts, [
    { outcome: 'not_yet', passed: 1, total: 2 },
    { outcome: 'achieved', passed: 2, total: 2 },
  ]);
  const round2 = sim
    .messageRequests()
    .filter((m) => JSON.stringify(m.body).includes('"name":"Agent"'))
    .at(-1)!;
  assert.match(JSON.stringify(round2.body), /not judged: an empty file exits 0/, 'the worker is told which check was never judged');
});

test('regression (fuzz fault: prose only): a judge that never submits is told once, then its row fails with a typed failure and the run stops cleanly', async () => {
  const p = project('mis-prose');
  sim.reset();
  sim.enqueue(
    ...setup(),
    work('done'),
    { type: 'text', match: judge, text: 'Looks good to me, achieved.' },
    { type: 'text', match: judge, text: 'Yes, achieved.' },
  );
  const r = await go(p, ['write md2html']);
  assert.equal(r.code, 1, r.stderr + r.stdout);
  const judged = rows(p).filter((x) => x.step === '干活·判定#1');
  assert.equal(judged.length, 2);
  for (const row of judged) {
    assert.equal(row.ok, false);
    assert.equal(row.failure?.kind, 'model');
  }
  assert.equal(rows(p).filter((x) => /^干活(#round\d+)?$/.test(x.step)).length, 1, 'no second round judged by nobody');
  const lines = r.stderr
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('x '));
  assert.equal(lines.length, 1, r.stderr);
  assert.match(
    lines[0]!,
    /^x step '干活' failed: 干活·判定#1: the judge submitted no valid verdict \(submit_verdict\); stopped here \(the work is kept and judged again when you continue\) — run `flower` here to continue$/,
  );
  assert.doesNotMatch(r.stderr + r.stdout, /\n\s+at .+:\d+:\d+|Unhandled|TypeError/, 'no stack trace');
});

test("regression (fuzz fault: a stalled worker stream): a worker whose model goes silent is bounded by the watchdog, not the binary's 5 minutes", async () => {
  const p = project('mis-stall');
  sim.reset();
  const workerReq = { firstUserIncludes: 'STALL-WORKER' };
  sim.enqueue(
    ...setup(),
    {
      type: 'tool_use',
      match: { ...coordinator, not: workerReq },
      name: 'Agent',
      input: { description: 'w', prompt: 'STALL-WORKER: write it', subagent_type: 'worker', run_in_background: false },
    },
    { type: 'drop_mid', match: workerReq, stall: true, afterEvents: 3 },
    { type: 'text', match: workerReq, text: 'Conclusion: written.' },
    { type: 'text', match: { ...coordinator, not: workerReq }, text: 'the worker wrote it' },
    submit('achieved', all()),
    { type: 'text', match: judge, text: 'submitted' },
  );
  const t0 = Date.now();
  const r = await cli(['write md2html', '-w', p.ws, '-r', p.runs, '--timeout', '0'], {
    cwd: p.dir,
    env: testEnv(p, sim.url, { FLOWER_LANG: 'en', FLOWER_WATCHDOG: '6' }),
    timeoutMs: 240_000,
  });
  const secs = (Date.now() - t0) / 1000;
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.ok(secs < 120, `the run took ${secs.toFixed(0)} s`);
  const work = rows(p).find((x) => x.step === '干活')!;
  assert.ok(
    (work as unknown as { errors: string[] }).errors.some((e) => /watchdog: no data from a worker's model for 6s/.test(e)),
    JSON.stringify(work),
  );
});

test("regression (fuzz seed 5006, unknown_tool + prose): another role's submit_verdict is refused, and a stale verdict never passes the work", async () => {
  const p = project('mis-stale');
  sim.reset();
  sim.enqueue(
    // the clarifier reaches for the judge's tool first: it is not its tool
    {
      type: 'tool_use',
      match: clarifier,
      name: 'mcp__human__submit_verdict',
      input: { state: 'achieved', reason: 'done', checks: CHECKS.map((item) => ({ item, pass: true, evidence: 'trust me' })) },
    },
    ...setup(),
    work('nothing built'),
    { type: 'text', match: judge, text: 'It looks done to me.' },
    { type: 'text', match: judge, text: 'Done.' },
  );
  const r = await go(p, ['write md2html']);
  assert.equal(r.code, 1, r.stderr + r.stdout);
  assert.doesNotMatch(r.stdout, /verdict: achieved/);
  const refused = sim
    .messageRequests()
    .flatMap((m) => toolResultsOf(m.body))
    .find((t) => /submit_verdict is not one of this role's tools/.test(t.content));
  assert.ok(refused, 'the clarifier was told the tool is not its');
  assert.equal(rows(p).filter((x) => x.verdict).length, 0, 'no row carries a verdict nobody gave');
});

test('regression (fuzz seed 30, refusal): a verdict from a judge run that then failed is not believed; the run stops with a typed failure', async () => {
  const p = project('mis-refused');
  sim.reset();
  // the judge submits, then its session fails for good (the binary re-sends a 400 five times: sticky)
  sim.enqueue(...setup(), work('done'), submit('achieved', all()), {
    type: 'error',
    match: judge,
    status: 400,
    message: "Opus 5.5's safeguards flagged this message",
    sticky: true,
  });
  const r = await go(p, ['write md2html']);
  assert.equal(r.code, 1, r.stderr + r.stdout);
  assert.doesNotMatch(r.stdout, /verdict: achieved/);
  const j = rows(p).find((x) => x.step === '干活·判定#1')!;
  assert.equal(j.ok, false);
  assert.ok(j.failure, 'a typed failure on the judge row');
  assert.equal(j.verdict, undefined);
});

test('regression (fuzz fault: stuck): a coordinator that makes the same call forever is refused from the 6th time and cut at the 12th, each round; the run stops cleanly with a typed failure', async () => {
  const p = project('mis-stuck');
  sim.reset();
  const glob: SimItem = { type: 'tool_use', match: coordinator, name: 'Glob', input: { pattern: '**/*.md' } };
  // more than enough for three rounds: the cut must come from flower, never from the script running out
  sim.enqueue(...setup(), ...Array.from({ length: 60 }, () => glob));
  const r = await go(p, ['write md2html']);
  assert.equal(r.code, 1, r.stderr + r.stdout);
  const lines = r.stderr
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('x '));
  assert.equal(lines.length, 1, r.stderr);
  assert.match(
    lines[0]!,
    /^x step '干活' failed: the model made the same Glob call 12 times in a row and would not stop; cut the turn — run `flower` here to continue$/,
  );
  const work = rows(p).filter((x) => /^干活(#round\d+)?$/.test(x.step));
  assert.deepEqual(
    work.map((x) => [x.step, x.ok, x.failure?.kind]),
    [
      ['干活', false, 'model'],
      ['干活#round2', false, 'model'],
      ['干活#round3', false, 'model'],
    ],
  );
  assert.equal(rows(p).filter((x) => x.step.includes('判定')).length, 0, 'nothing to judge: no round finished');
  // what the model read in the first round: five real results, then the refusal that says the result will not change
  const seen = new Map<string, string>();
  const coordinatorRequests = sim.messageRequests().filter((m) => JSON.stringify(m.body.tools ?? []).includes('"Agent"'));
  for (const m of coordinatorRequests) for (const t of toolResultsOf(m.body)) seen.set(t.tool_use_id, t.content);
  const results = [...seen.values()];
  assert.ok(
    results.slice(0, 5).every((c) => !/was already made/.test(c)),
    results.slice(0, 5).join(' | '),
  );
  assert.ok(
    results.slice(5, 11).every((c) => /This exact Glob call \(same input\) was already made \d+ times in a row/.test(c)),
    results.slice(5, 11).join(' | '),
  );
  // each round is cut at its 12th call (a request or two may be in flight at the cut), never retried within the round
  const asked = coordinatorRequests.length;
  assert.ok(asked >= 36 && asked <= 42, `${asked} coordinator requests`);
  assert.doesNotMatch(r.stderr + r.stdout, /\n\s+at .+:\d+:\d+|Unhandled|TypeError/, 'no stack trace');
});

test('regression (fuzz seed 212, stuck): a clarifier that asks the same question forever with nobody there is refused, then cut — never 2,400 questions', async () => {
  const p = project('mis-ask');
  sim.reset();
  const ask: SimItem = {
    type: 'tool_use',
    match: clarifier,
    name: 'mcp__human__ask',
    input: { question: 'Which markdown flavour?', options: ['CommonMark', 'GFM'] },
  };
  sim.enqueue(...Array.from({ length: 40 }, () => ask));
  const r = await go(p, ['write md2html', '--rounds', '1']);
  assert.equal(r.code, 1, r.stderr + r.stdout);
  const clarify = rows(p).filter((x) => x.step.startsWith('确认需求'));
  assert.ok(clarify.length >= 1 && clarify.every((x) => !x.ok && x.failure?.kind === 'model'), JSON.stringify(clarify));
  const lines = r.stderr
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('x '));
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0]!, /the model made the same mcp__human__ask call 12 times in a row/);
  assert.ok(sim.messageRequests().length <= 14 * clarify.length + 4, `${sim.messageRequests().length} requests`);
});
