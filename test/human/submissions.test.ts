/**
 * submit_* tools on the human server: checked input in, a converted document kept for the step.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Brief, CONTRADICTORY_ACHIEVED, Goal, Handoff, Verdict } from '../../src/docs/index.js';
import { FlowerError } from '../../src/errors.js';
import { HumanChannel, type SubmissionKind } from '../../src/human/index.js';
import { connect } from './helpers.js';

const brief = {
  goal: 'md2html: Markdown to HTML for the docs team',
  acceptance: ['run md2html a.md, get a.html', 'tables render as <table>'],
  boundaries: ['no PDF'],
  unknowns: ['assumed CommonMark'],
};

test('submit tools are offered only when turned on, and named for allowedTools', async () => {
  const ch = new HumanChannel({ lang: 'en' }).withSubmissions(['verdict', 'brief', 'brief']);
  assert.deepEqual(ch.toolNames, ['mcp__human__ask', 'mcp__human__inbox', 'mcp__human__submit_brief', 'mcp__human__submit_verdict']);
  const mcp = await connect(ch);
  const names = (await mcp.client.listTools()).tools.map((t) => t.name).sort();
  assert.deepEqual(names, ['ask', 'inbox', 'submit_brief', 'submit_verdict']);
  await mcp.close();
  assert.throws(
    () => ch.withSubmissions(['plan' as SubmissionKind]),
    (e: unknown) => FlowerError.is(e) && /plan/.test(e.message),
  );
});

test('a valid submit_brief is kept as a complete Brief; taking it clears it', async () => {
  const ch = new HumanChannel({ lang: 'en' }).withSubmissions(['brief']);
  const mcp = await connect(ch);
  const r = await mcp.call('submit_brief', brief);
  assert.equal(r.isError, false);
  assert.match(r.text, /Brief received \(2 acceptance criteria, 1 boundaries, 1 unknowns/);
  const b = ch.takeSubmission('brief');
  assert.ok(b instanceof Brief);
  assert.equal(b.complete(), true);
  assert.equal(b.goal, brief.goal);
  assert.equal(b.acceptance, '- run md2html a.md, get a.html\n- tables render as <table>');
  assert.equal(ch.takeSubmission('brief'), null);
  assert.equal(ch.takeSubmission('goal'), null);
  await mcp.close();
});

test('an incomplete submission is answered with what is missing and nothing is kept', async () => {
  const ch = new HumanChannel({ lang: 'en' }).withSubmissions(['brief']);
  const mcp = await connect(ch);
  const r = await mcp.call('submit_brief', { goal: 'x', acceptance: [], boundaries: ['no PDF'] });
  assert.equal(r.isError, true);
  assert.match(r.text, /acceptance/);
  assert.match(r.text, /unknowns/);
  assert.equal(ch.takeSubmission('brief'), null);
  await mcp.close();
});

test('goal, verdict and handoff submissions convert to their documents; an unproven "achieved" is not believed', async () => {
  const ch = new HumanChannel({ lang: 'zh' }).withSubmissions(['goal', 'verdict', 'handoff']);
  const mcp = await connect(ch);
  const g = await mcp.call('submit_goal', {
    statement: 'md2html works on the sample docs',
    checks: [{ text: 'run md2html docs/a.md; a.html has a <table>' }, { text: 'looks good on an iPhone', unverifiable_reason: 'no device here' }],
  });
  assert.match(g.text, /2 条判定项.*1 条标为无法验证/);
  const goal = ch.takeSubmission('goal');
  assert.ok(goal instanceof Goal && goal.checks.length === 2 && goal.unverifiable.length === 1);
  const v = await mcp.call('submit_verdict', {
    state: 'achieved',
    reason: '',
    checks: [
      { item: 'a.html has a <table>', pass: true, evidence: 'grep found <table>' },
      { item: 'exit code 0', pass: null, evidence: '' },
    ],
  });
  assert.ok(v.text.includes(CONTRADICTORY_ACHIEVED), v.text);
  const verdict = ch.takeSubmission('verdict');
  assert.ok(verdict instanceof Verdict);
  assert.equal(verdict.state, 'not_yet');
  assert.deepEqual(verdict.failed, ['exit code 0']);
  await mcp.call('submit_handoff', {
    doing: 'writing the table renderer',
    decided: 'marked, not remark',
    deadends: '',
    next: 'run the tests',
    scene: 'src/render.ts',
  });
  const h = ch.takeSubmission('handoff');
  assert.ok(h instanceof Handoff && h.complete() && h.next === 'run the tests');
  await mcp.close();
});

test('the latest submission of a kind wins', async () => {
  const ch = new HumanChannel({ lang: 'en' }).withSubmissions(['brief']);
  const mcp = await connect(ch);
  await mcp.call('submit_brief', brief);
  await mcp.call('submit_brief', { ...brief, goal: 'the second thought' });
  assert.equal(ch.takeSubmission('brief')!.goal, 'the second thought');
  await mcp.close();
});
