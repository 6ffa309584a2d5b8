/**
 * flower as a person sees it, in real tmux panes: a 300-character question with three long options
 * is readable whole at 80 and at 40 columns and a typed `2` answers it — under `flower` and under
 * `flower run` with the shipped example workflow; the live line appears and its clock moves while the
 * model is silent; the Ctrl-C hint is whole; colours on a terminal, none with NO_COLOR=1; the verdict
 * and its pass count on screen. Every wait is on what the screen shows.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { SimCall } from '../../src/sim/index.js';
import { BIN, ROOT, project, readJson, testEnv, transcriptOf, type Project } from '../helpers/e2e.js';
import { hasTmux, Pane, words } from '../helpers/tmux.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

const skip = !hasTmux && 'tmux is not installed (.ci/run installs it)';

// 300 characters, three options of ~100 each: every word must be on screen
const QUESTION =
  'Before I touch anything: how should the converter treat existing documents that already contain hand-written HTML fragments? Rewriting them blindly could break pages that other people maintain and rely on every day, while keeping them verbatim could produce invalid output in strict mode. Which way QEND';
const OPTIONS = [
  'Keep every hand-written fragment exactly as it is and convert only the markdown around it, OPTA',
  'Escape the fragments so that they show up as literal text in the generated page: safe but ugly OPTB',
  'Stop and list every file with fragments so that a person decides, file by file, what to do OPTC',
];
assert.ok(QUESTION.length >= 300);

const SGR = /\x1b\[[0-9;]*m/;
const LIVE_LINE = /^[|/\\-] \S.* · \$\d+\.\d+ · \d+:\d\d/m;

function env(p: Project, extra: Record<string, string> = {}): Record<string, string> {
  return testEnv(p, sim.url, { TERM: 'xterm-256color', TMPDIR: p.dir, ...extra });
}

/** What a person can read of the question: every word of it and of its options, in order. */
function assertQuestionWhole(screen: string, cols: number): void {
  const text = words(screen);
  assert.ok(text.includes(words(QUESTION)), `the question reads whole at ${cols} columns:\n${screen}`);
  OPTIONS.forEach((o, i) => {
    assert.ok(text.includes(`${i + 1}. ${words(o)}`), `option ${i + 1} reads whole at ${cols} columns:\n${screen}`);
  });
  assert.doesNotMatch(screen, /\.\.\.\s*$/m, 'nothing is cut with ...');
}

const WORKER = '[team-worker]';
const coordinator = { toolsInclude: 'Agent', not: { firstUserIncludes: [WORKER] } };
const judgeReq = { firstUserIncludes: 'submit_verdict' };

test('flower run examples/team.mjs at 80 columns: the question reads whole, `2` answers it, the live line ticks, a 10,000-char output spills, the coordinator gets the workbench index, the verdict shows 2/2', {
  skip,
}, async () => {
  const p = project('team');
  sim.reset();
  sim.enqueue(
    { type: 'tool_use', match: coordinator, name: 'mcp__human__ask', input: { question: QUESTION, options: OPTIONS } },
    {
      type: 'tool_use',
      match: { ...coordinator, lastUserIncludes: 'OPTB' },
      name: 'Agent',
      input: {
        description: 'list the files',
        subagent_type: 'researcher',
        run_in_background: false,
        prompt: `${WORKER} list every file in ${p.ws} with its size`,
      },
    },
    {
      type: 'tool_use',
      match: { firstUserIncludes: WORKER },
      name: 'Bash',
      input: { command: 'yes 0123456789abcdefghi | head -n 500', description: 'a long listing' },
    },
    { type: 'text', match: { firstUserIncludes: WORKER }, text: 'Conclusion: one file, data.txt.\nEvidence: the listing.\nOutputs: none\nUnverified: none' },
    {
      type: 'tool_use',
      match: coordinator,
      name: 'Agent',
      input: { description: 'write NOTES.md', subagent_type: 'writer', run_in_background: false, prompt: `${WORKER} write NOTES.md` },
    },
    {
      type: 'tool_use',
      match: { firstUserIncludes: WORKER },
      name: 'Write',
      input: { file_path: path.join(p.ws, 'NOTES.md'), content: 'data.txt — sample data\n' },
    },
    { type: 'text', match: { firstUserIncludes: WORKER }, text: 'Conclusion: NOTES.md written.\nEvidence: Write ok.\nOutputs: NOTES.md\nUnverified: none' },
    { type: 'text', match: coordinator, text: 'NOTES.md is written.' },
    {
      type: 'tool_use',
      match: judgeReq,
      name: 'mcp__human__submit_verdict',
      input: {
        state: 'achieved',
        reason: '',
        checks: [
          { item: 'NOTES.md exists in the workspace and is not empty', pass: true, evidence: 'cat NOTES.md: one line' },
          { item: 'every file in the workspace (except NOTES.md and .flower/) has a line in NOTES.md', pass: true, evidence: 'data.txt listed' },
        ],
      },
    },
    { type: 'text', match: judgeReq, text: 'Verdict submitted.' },
  );
  fs.writeFileSync(path.join(p.ws, 'data.txt'), 'x\n');
  const example = path.join(ROOT, 'examples', 'team.mjs');
  const pane = await Pane.open([process.execPath, BIN, '-w', p.ws, '-r', p.runs, 'run', example, 'write NOTES.md'], { cols: 80, cwd: p.dir, env: env(p) });
  try {
    const asked = await pane.waitFor('the question and its options', (s) => /OPTC/.test(s));
    assertQuestionWhole(asked, 80);
    assert.match(await pane.visible(), /q1> /, 'the input line shows that typing is possible');
    assert.match(await pane.screen(true), SGR, 'colours on a terminal');
    // the live line (spinner · step · $ · elapsed), redrawn in place while nothing else happens
    const clock = (s: string) => /^[|/\\-] build · .*\$\d+\.\d+ · (\d+:\d\d) · waiting for you/m.exec(s)?.[1];
    const first = clock(await pane.waitFor('the live line', (s) => clock(s) !== undefined, { visible: true }));
    await pane.waitFor(
      'the live line to tick',
      (s) => {
        const c = clock(s);
        return c !== undefined && c !== first;
      },
      { visible: true },
    );
    await pane.keys('2');
    await pane.keys('Enter', true);
    await pane.waitFor('the answer', (s) => /\+ Escape the fragments/.test(s));
    const code = await pane.exitCode();
    const screen = await pane.screen();
    assert.equal(code, 0, screen);
    assert.match(words(screen), /verdict: achieved — 2\/2 checks/);
    assert.doesNotMatch(screen, /mcp__human__/, 'no internal tool names in the default view');
    assert.doesNotMatch(screen, LIVE_LINE, 'the live line is redrawn in place: no copies of it left in the scrollback');
    assert.match(words(screen), new RegExp(`manifest ${p.runs.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/manifest\\.json`), 'the manifest path is whole');
  } finally {
    await pane.close();
  }
  sim.assertNoUnexpected();
  // the coordinator's new session opened with the workbench index; the 10,000 chars went to a spill file
  const coordFirst = sim.messageRequests().find((m) => (m.body as { tools?: { name: string }[] }).tools?.some((t) => t.name === 'Agent'))!;
  assert.match(transcriptOf(coordFirst.body)[0]!, /<workbench>\\n# Workbench index/, "the workbench index is in the coordinator's first message");
  const spill = path.join(p.ws, '.flower', 'spill');
  const spilled = fs.readdirSync(spill).map((f) => fs.readFileSync(path.join(spill, f), 'utf8'));
  assert.ok(
    spilled.some((t) => t.length >= 9_999 && t.startsWith('0123456789abcdefghi')),
    'the 10,000-char output is in a spill file',
  );
  const rows = readJson<{ step: string; ok: boolean; verdict?: unknown }[]>(path.join(p.runs, 'manifest.json'));
  assert.deepEqual(rows.find((r) => r.step === 'build·判定#1')?.verdict, { outcome: 'achieved', passed: 2, total: 2 });
  assert.equal(rows.find((r) => r.step === 'build')?.ok, true);
});

const clarifierReq = { firstUserIncludes: 'submit_brief' };
const goalReq = { firstUserIncludes: 'submit_goal' };

test('flower at 40 columns with NO_COLOR=1: the question reads whole and `2` answers it, the Ctrl-C hint is whole, no colour, the verdict on screen', {
  skip,
}, async () => {
  const p = project('narrow');
  sim.reset();
  let said = (): void => {};
  const typed = new Promise<void>((resolve) => {
    said = resolve;
  });
  sim.enqueue(
    { type: 'tool_use', match: clarifierReq, name: 'mcp__human__ask', input: { question: QUESTION, options: OPTIONS } },
    {
      type: 'tool_use',
      match: { ...clarifierReq, lastUserIncludes: 'OPTB' },
      name: 'mcp__human__submit_brief',
      input: { goal: 'convert md', acceptance: ['a'], boundaries: ['b'], unknowns: ['u'] },
    },
    { type: 'text', match: clarifierReq, text: 'ok' },
    { type: 'tool_use', match: goalReq, name: 'mcp__human__submit_goal', input: { statement: 'converted', checks: [{ text: 'out.html exists' }] } },
    { type: 'text', match: goalReq, text: 'ok' },
    // the turn holds its last event until the person's words are on screen: the interrupt is asked for
    // while the model speaks, on a loaded box too (it once came after the turn, and cut the judge instead)
    {
      type: 'text',
      match: { ...coordinator, not: { lastUserIncludes: 'PINEAPPLE' } },
      text: 'working on it, chunk after chunk',
      chunks: 60,
      chunkDelayMs: 20,
      holdEnd: () => typed,
    },
    { type: 'text', match: { lastUserIncludes: 'PINEAPPLE' }, text: 'adjusted to PINEAPPLE' },
    {
      type: 'tool_use',
      match: judgeReq,
      name: 'mcp__human__submit_verdict',
      input: { state: 'achieved', reason: '', checks: [{ item: 'out.html exists', pass: true, evidence: 'ls' }] },
    },
    { type: 'text', match: judgeReq, text: 'done' },
  );
  const pane = await Pane.open([process.execPath, BIN, '-w', p.ws, '-r', p.runs, 'convert the docs'], { cols: 40, cwd: p.dir, env: env(p, { NO_COLOR: '1' }) });
  try {
    const asked = await pane.waitFor('the question', (s) => /OPTC/.test(s));
    assertQuestionWhole(asked, 40);
    await pane.keys('2');
    await pane.keys('Enter', true);
    await pane.waitFor('the work step', (s) => /== (?:work \()?干活/.test(s) && /working on it/.test(s));
    await pane.keys('C-c', true);
    const hint = await pane.waitFor('the interrupt hint', (s) => /Ctrl-C again quits/.test(words(s)));
    assert.ok(
      words(hint).includes(
        'Interrupt? Type what to tell it and Enter (Enter alone = nothing): it stops at the next message boundary and goes on from your words (work in flight in a subagent is lost). Ctrl-C again quits',
      ),
      hint,
    );
    await pane.keys('PINEAPPLE please');
    await pane.keys('Enter', true);
    await pane.waitFor('the words echoed', (s) => /! PINEAPPLE please/.test(s));
    said();
    const code = await pane.exitCode();
    const screen = await pane.screen(true);
    assert.equal(code, 0, screen);
    assert.doesNotMatch(screen, SGR, 'NO_COLOR=1: not one colour escape');
    assert.doesNotMatch(screen, LIVE_LINE, 'no copies of the live line left in the scrollback');
    assert.match(words(screen), /verdict: achieved — 1\/1 checks/);
    assert.match(words(screen), /interrupted: PINEAPPLE please/);
  } finally {
    said();
    await pane.close();
  }
  sim.assertNoUnexpected();
  const rows = readJson<{ step: string; verdict?: unknown }[]>(path.join(p.runs, 'manifest.json'));
  assert.deepEqual(rows.find((r) => r.step === '干活·判定#1')?.verdict, { outcome: 'achieved', passed: 1, total: 1 });
});

test('in a pipe: plain appended lines, no escape at all, whole lines; the verdict line is there', async () => {
  const p = project('pipe');
  sim.reset();
  sim.enqueue(
    { type: 'tool_use', match: clarifierReq, name: 'mcp__human__submit_brief', input: { goal: 'g', acceptance: ['a'], boundaries: ['b'], unknowns: ['u'] } },
    { type: 'text', match: clarifierReq, text: 'ok' },
    { type: 'tool_use', match: goalReq, name: 'mcp__human__submit_goal', input: { statement: 's', checks: [{ text: 'c1' }, { text: 'c2' }] } },
    { type: 'text', match: goalReq, text: 'ok' },
    { type: 'text', match: coordinator, text: `done \x1b]0;pwned\x07 with ${'a long line of prose '.repeat(8)}` },
    {
      type: 'tool_use',
      match: judgeReq,
      name: 'mcp__human__submit_verdict',
      input: {
        state: 'not_yet',
        reason: 'c2 fails',
        checks: [
          { item: 'c1', pass: true, evidence: 'e' },
          { item: 'c2', pass: false, evidence: 'e' },
        ],
      },
    },
    { type: 'text', match: judgeReq, text: 'judged' },
  );
  const { cli } = await import('../helpers/e2e.js');
  const r = await cli(['-w', p.ws, '-r', p.runs, '--rounds', '1', 'do it'], { cwd: p.dir, env: testEnv(p, sim.url, { FORCE_COLOR: '0' }) });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.doesNotMatch(r.stdout + r.stderr, /\x1b/, 'no escape of any kind in a pipe');
  assert.match(r.stdout, /done\s+with (a long line of prose ?){8}$/m, 'prose is one whole line in a pipe');
  assert.match(r.stdout, /= verdict: not yet — 1\/2 checks · \d+ turns? · \$\d/);
  assert.doesNotMatch(r.stdout.slice(r.stdout.search(/== (?:work \()?干活/)), /^\+ done/m, 'a failed step never prints done');
  assert.match(r.stderr, /^x step '干活' failed: verdict not_yet \(1\/2\): c2 fails — run `flower` here to continue\n$/);
  const rows = readJson<{ step: string; ok: boolean; verdict?: unknown }[]>(path.join(p.runs, 'manifest.json'));
  assert.equal(rows.find((x) => x.step === '干活')?.ok, false, 'the rejected work step is ok:false in the manifest');
  assert.deepEqual(rows.find((x) => x.step === '干活·判定#1')?.verdict, { outcome: 'not_yet', passed: 1, total: 2 });
});

export type { SimCall };

test('a clarify whose brief is rejected by the schema: no "done", one stderr line naming the step and why, the row ok:false', async () => {
  const p = project('nobrief');
  sim.reset();
  sim.enqueue(
    // acceptance must hold at least one line: the handler's parse refuses it, with typed issues
    { type: 'tool_use', match: clarifierReq, name: 'mcp__human__submit_brief', input: { goal: 'g', acceptance: [], boundaries: ['b'], unknowns: ['u'] } },
    { type: 'text', match: clarifierReq, text: 'I tried to submit the brief.' },
  );
  const { cli } = await import('../helpers/e2e.js');
  const r = await cli(['-w', p.ws, '-r', p.runs, 'do it'], { cwd: p.dir, env: testEnv(p, sim.url) });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.doesNotMatch(r.stdout, /\+ done/, 'no done line');
  assert.match(r.stdout, /^~ brief not accepted: acceptance — needs at least one item$/m, 'the rejection is on screen in words');
  assert.match(r.stdout, /^x failed · \d+ turns · \$[\d.]+ · \d+:\d\d · no complete brief \(missing: /m);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  // a pipe keeps the line whole (no width to keep to); no JSON in it
  assert.match(
    lines[0]!,
    /^x step '确认需求' failed: no complete brief \(missing: [^)]+\); submit_brief not accepted: acceptance: empty list — run `flower` here to continue$/,
  );
  const rows = readJson<{ step: string; ok: boolean; error: string | null }[]>(path.join(p.runs, 'manifest.json'));
  const row = rows.find((x) => x.step === '确认需求')!;
  assert.equal(row.ok, false);
  assert.match(
    row.error ?? '',
    /no complete brief \(missing: [^)]+\); submit_brief not accepted: acceptance: empty list$/,
    'the whole reason stays in the row',
  );
  sim.assertNoUnexpected();
});

test('two flowers on one terminal: blocks never interleave, one live line, no footer left behind', { skip }, async () => {
  const p = project('twoflowers');
  const a = path.join(p.dir, 'wa');
  const b = path.join(p.dir, 'wb');
  fs.mkdirSync(a);
  fs.mkdirSync(b);
  const block = (who: string) =>
    Array.from({ length: 30 }, (_, i) => `${who} line ${String(i + 1).padStart(2, '0')} of a block that must arrive whole`).join('\n');
  sim.reset();
  for (const who of ['ALPHA', 'BETA']) {
    const mine = { firstUserIncludes: ['submit_brief', `task ${who}`] };
    sim.enqueue(
      { type: 'tool_use', match: mine, name: 'mcp__human__submit_brief', input: { goal: who, acceptance: ['a'], boundaries: ['b'], unknowns: ['u'] } },
      { type: 'text', match: mine, delayMs: 300, text: block(who) },
    );
  }
  const flower = (ws: string, who: string) =>
    [process.execPath, BIN, '-w', ws, '-r', path.join(ws, 'runs'), '--clarify-only', `task ${who}`].map((x) => `'${x}'`).join(' ');
  // one pane, one terminal device: one flower in the background, one in the foreground
  const pane = await Pane.open(['sh', '-c', `${flower(a, 'ALPHA')} & ${flower(b, 'BETA')}; wait`], { cols: 80, cwd: p.dir, env: env(p) });
  try {
    const code = await pane.exitCode();
    const screen = await pane.screen();
    assert.equal(code, 0, screen);
    const lines = screen.split('\n');
    for (const who of ['ALPHA', 'BETA']) {
      const first = lines.findIndex((l) => l.includes(`${who} line 01`));
      assert.ok(first >= 0, screen);
      for (let i = 0; i < 30; i++) {
        assert.equal(
          lines[first + i]!.trim(),
          `${who} line ${String(i + 1).padStart(2, '0')} of a block that must arrive whole`,
          `${who}'s block arrives whole and together:\n${screen}`,
        );
      }
    }
    assert.doesNotMatch(screen, LIVE_LINE, 'no copies of the live line left behind');
  } finally {
    await pane.close();
  }
  sim.assertNoUnexpected();
});
