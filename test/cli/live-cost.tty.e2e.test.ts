/**
 * The live line's cost across retries (issue 22): a work step whose first two attempts fail after a
 * tool turn each (529, resumed) waits on a question — the cost the live line shows then is the sum
 * the manifest records (the finished steps and the step's failed attempts), and the step's own line
 * at its end shows its manifest row's cost. A real tmux pane, the real binary, the scripted model.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';

import { money } from '../../src/cli/term.js';
import { BIN, project, readJson, testEnv } from '../helpers/e2e.js';
import { hasTmux, Pane, words } from '../helpers/tmux.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

const clarifier = { firstUserIncludes: 'submit_brief' };
const coordinator = { toolsInclude: 'Agent' };
const judge = { firstUserIncludes: 'submit_verdict' };
const fast = { FLOWER_BASE_DELAY: '0.05', FLOWER_MAX_DELAY: '0.2', FLOWER_PROBE_INTERVAL: '0.3', FLOWER_PROBE_TIMEOUT: '1' };
const bash = (n: number) => ({ type: 'tool_use' as const, match: coordinator, name: 'Bash', input: { command: `echo turn-${n}`, description: `turn ${n}` } });

test('after two retried attempts the live line shows the cost the manifest records, and the step line its row', {
  skip: !hasTmux && 'tmux is not installed',
}, async () => {
  const p = project('livecost');
  sim.reset();
  sim.enqueue(
    { type: 'tool_use', match: clarifier, name: 'mcp__human__submit_brief', input: { goal: 'g', acceptance: ['a'], boundaries: ['b'], unknowns: ['u'] } },
    { type: 'text', match: clarifier, text: 'ok' },
    bash(1),
    { type: 'error', match: coordinator, status: 529 },
    bash(2),
    { type: 'error', match: coordinator, status: 529 },
    { type: 'tool_use', match: coordinator, name: 'mcp__human__ask', input: { question: 'Go on PAUSEQ?', options: ['yes', 'no'] } },
    { type: 'text', match: coordinator, text: 'finished the work' },
    {
      type: 'tool_use',
      match: judge,
      name: 'mcp__human__submit_verdict',
      input: { state: 'achieved', reason: '', checks: [{ item: 'a', pass: true, evidence: 'seen' }] },
    },
    { type: 'text', match: judge, text: 'done' },
  );
  const env = testEnv(p, sim.url, { TERM: 'xterm-256color', TMPDIR: p.dir, NO_COLOR: '1', ...fast });
  const pane = await Pane.open([process.execPath, BIN, '-w', p.ws, '-r', p.runs, '--no-goal', 'do the work'], { cols: 100, cwd: p.dir, env });
  try {
    const rows = () => readJson<{ step: string; cost_usd: number; attempts: number }[]>(path.join(p.runs, 'manifest.json'));
    const shown = (s: string) => /^[|/\\-] \S.* · \$(\d+\.\d+) · \d+:\d\d/m.exec(s)?.[1];
    const live = await pane.waitFor('the question and the live line', (s) => /PAUSEQ/.test(s) && shown(s) !== undefined, { visible: true });
    const work = rows().at(-1)!;
    assert.ok(work.attempts === 2 && work.cost_usd > 0, JSON.stringify(work));
    assert.equal(shown(live), money(rows().reduce((a, r) => a + r.cost_usd, 0)), live);
    await pane.keys('1');
    await pane.keys('Enter', true);
    const code = await pane.exitCode();
    const screen = await pane.screen();
    assert.equal(code, 0, screen);
    const row = rows().find((r) => r.step === work.step)!;
    assert.ok(words(screen).includes(`$${money(row.cost_usd)} ·`), `the step line shows its row's $${money(row.cost_usd)}:\n${screen}`);
    assert.ok(words(screen).includes(`total $${money(rows().reduce((a, r) => a + r.cost_usd, 0))}`), screen);
  } finally {
    await pane.close();
  }
  sim.assertNoUnexpected();
});
