/**
 * A second Ctrl-C (issue 22): flower says how to continue, releases the folder's run lock and exits
 * 130 — `flower status` works at once, and the next `flower` in the folder continues the run. A real
 * tmux pane, the real binary, the scripted model; every wait is on the screen or on files.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';

import { BIN, cli, project, readJson, testEnv } from '../helpers/e2e.js';
import { hasTmux, Pane, words } from '../helpers/tmux.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

const clarifier = { firstUserIncludes: 'submit_brief' };
const coordinator = { toolsInclude: 'Agent' };
const judge = { firstUserIncludes: 'submit_verdict' };

for (const lang of ['en', 'zh'] as const) {
  test(`[${lang}] Ctrl-C twice: one line saying how to continue, exit 130, no run.lock left; status works and flower continues`, {
    skip: !hasTmux && 'tmux is not installed',
  }, async () => {
    const p = project(`quit-${lang}`);
    let done!: () => void;
    const paneDone = new Promise<void>((r) => (done = r));
    sim.reset();
    sim.enqueue(
      { type: 'tool_use', match: clarifier, name: 'mcp__human__submit_brief', input: { goal: 'g', acceptance: ['a'], boundaries: ['b'], unknowns: ['u'] } },
      { type: 'text', match: clarifier, text: 'ok' },
      // the work turn holds its last event until the test is done with the pane: both presses land while
      // the model speaks, however loaded the box. A slow stream (200 × 200 ms) was a time window: under
      // load the step ended first, the run gave the terminal back, and the second Ctrl-C was a real
      // SIGINT to the pane's shell, which died and took the tmux server with it ("no server running")
      { type: 'text', match: coordinator, text: 'working slowly SLOWWORK on it, chunk after chunk', holdEnd: () => paneDone },
    );
    // FLOWER_WATCHDOG 0: the held turn is silence the watchdog would cut (the screen waits are the safety net)
    const env = testEnv(p, sim.url, { TERM: 'xterm-256color', TMPDIR: p.dir, NO_COLOR: '1', FLOWER_LANG: lang, FLOWER_WATCHDOG: '0' });
    const pane = await Pane.open([process.execPath, BIN, '-w', p.ws, '-r', p.runs, '--no-goal', 'do the work'], { cols: 100, cwd: p.dir, env });
    const lock = path.join(p.runs, 'run.lock');
    const hint = lang === 'en' ? 'run `flower` here to continue' : '在这里再运行 `flower` 接着做';
    try {
      await pane.waitFor('the work step', (s) => /SLOWWORK/.test(s));
      assert.ok(fs.existsSync(lock), 'the run holds its lock');
      await pane.keys('C-c', true);
      await pane.waitFor('the interrupt hint', (s) => /Ctrl-C/.test(words(s)) && /!/.test(s));
      await pane.keys('C-c', true);
      const code = await pane.exitCode();
      const screen = await pane.screen();
      assert.equal(code, 130, screen);
      assert.equal(screen.split('\n').filter((l) => l.includes(hint)).length, 1, screen);
      assert.equal(fs.existsSync(lock), false, 'run.lock released');
    } finally {
      done();
      await pane.close();
    }
    const rows = () => readJson<{ step: string; ok: boolean; error: string | null }[]>(path.join(p.runs, 'manifest.json'));
    assert.match(rows().at(-1)!.error ?? '', /interrupted-by-human/);
    const st = await cli(['status', '-r', p.runs, '-w', p.ws], { cwd: p.dir, env: testEnv(p, sim.url, { FLOWER_LANG: lang }) });
    assert.equal(st.code, 0, st.stderr + st.stdout);
    sim.reset();
    sim.enqueue(
      { type: 'text', match: coordinator, text: 'FINISHEDWORK' },
      {
        type: 'tool_use',
        match: judge,
        name: 'mcp__human__submit_verdict',
        input: { state: 'achieved', reason: '', checks: [{ item: 'a', pass: true, evidence: 'seen' }] },
      },
      { type: 'text', match: judge, text: 'done' },
    );
    const again = await cli(['-w', p.ws, '-r', p.runs, '--no-goal'], { cwd: p.dir, env: testEnv(p, sim.url, { FLOWER_LANG: lang }), timeoutMs: 120_000 });
    assert.equal(again.code, 0, again.stderr + again.stdout);
    assert.ok(
      rows().some((r) => r.ok && /干活/.test(r.step)),
      JSON.stringify(rows()),
    );
    sim.assertNoUnexpected();
  });
}
