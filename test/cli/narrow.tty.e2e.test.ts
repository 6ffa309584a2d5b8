/**
 * A 60-column terminal in English, in real tmux panes: `flower demo` (its run, the judge's command and
 * its own closing lines), then `flower status` and `flower log` on what it left. Every line flower wrote
 * fits 60 columns (read with the terminal's own soft wraps joined again, so a line written wider shows
 * wider), unless it is one lone long word; no token (`$0.1776`, a run id) is split across rows; the
 * seed's step names read translated with the name beside them; nothing is cut with `...`.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { width } from '../../src/cli/term.js';
import { BIN, cli, project, testEnv } from '../helpers/e2e.js';
import { hasTmux, Pane, words } from '../helpers/tmux.js';

const skip = !hasTmux && 'tmux is not installed (.ci/run installs it)';
const COLS = 60;
const MONEY = /\$\d+\.\d+/g;

/** The demo's closing hints: commands to copy, never broken by flower (the terminal soft-wraps them). */
const HINT = /^(Try it|What it remembers|See it|Go on in that folder)\b/;

/** Lines as flower wrote them: none wider than the pane unless it is a single word or a line of commands to copy. */
function assertFits(joined: string, what: string): void {
  for (const l of joined.split('\n')) {
    if (width(l) > COLS && !HINT.test(l)) assert.doesNotMatch(l.trim(), /\s/, `${what}: a line of ${width(l)} columns:\n${l}`);
  }
}

/** Every amount whole on one row: the rows' amounts are the lines' amounts, each with 2 or 4 decimals. */
function assertMoneyWhole(rows: string, joined: string, what: string): void {
  const inRows = rows.match(MONEY) ?? [];
  assert.ok(inRows.length > 0, `${what} shows amounts:\n${rows}`);
  assert.deepEqual(inRows, joined.match(MONEY) ?? [], `${what}: an amount split across rows:\n${rows}`);
  for (const m of inRows) assert.match(m, /^\$\d+\.(\d{2}|\d{4})$/, `${what}: ${m} is whole`);
  assert.doesNotMatch(rows, /\$\d*\.?$/m, `${what}: a row ends inside an amount`);
}

async function inPane(argv: string[], cwd: string, env: Record<string, string>): Promise<{ rows: string; joined: string }> {
  const pane = await Pane.open(argv, { cols: COLS, rows: 50, cwd, env });
  try {
    assert.equal(await pane.exitCode(240_000), 0, await pane.screen());
    const clean = (s: string) => s.replace(/\[exit \d+\]\s*$/, '');
    return { rows: clean(await pane.screen()), joined: clean(await pane.joined()) };
  } finally {
    await pane.close();
  }
}

test('flower demo, status and log at 60 columns: lines fit, tokens stay whole, English step names carry the seed name', { skip }, async () => {
  const p = project('narrow');
  const dir = path.join(p.dir, 'demo');
  const env = testEnv(p, 'http://127.0.0.1:9', { TERM: 'xterm-256color', TMPDIR: p.dir, NO_COLOR: '1' });
  const demo = await inPane([process.execPath, BIN, 'demo', '--dir', dir], p.dir, env);
  assertFits(demo.joined, 'demo');
  assertMoneyWhole(demo.rows, demo.joined, 'demo');
  const seen = words(demo.rows);
  assert.match(demo.rows, /^== work \(干活\) =+ {2}3\/3/m, 'the step banner in English, the seed name beside it');
  assert.ok(seen.includes('* Bash node md2html.mjs sample.md'), `the judge's command whole:\n${demo.rows}`);
  assert.doesNotMatch(demo.rows, /\.\.\.$/m, 'nothing cut with ...');
  // the hints are whole lines as written (a hard break inside a command would run half of it when pasted)
  const hints = demo.joined.split('\n').filter((l) => HINT.test(l));
  assert.equal(hints.length, 4, `four hint lines:\n${demo.joined}`);
  assert.ok(hints.includes(`Try it: node ${dir}/md2html.mjs ${dir}/sample.md`), `the hint whole:\n${demo.joined}`);
  assert.ok(
    hints.some((l) => l.includes(` status -w ${dir}   ·   `) && l.endsWith(` log -w ${dir}`)),
    hints.join('\n'),
  );

  for (const cmd of ['status', 'log']) {
    const shown = await inPane([process.execPath, BIN, cmd, '-w', dir], p.dir, env);
    assertFits(shown.joined, cmd);
    assertMoneyWhole(shown.rows, shown.joined, cmd);
    // the same words, in order, as in a pipe (whole lines): nothing lost, no token split by the wrapping
    const piped = await cli([cmd, '-w', dir], { cwd: p.dir, env });
    assert.equal(piped.code, 0, piped.stderr);
    assert.equal(words(shown.rows), words(piped.stdout), `${cmd} at ${COLS} columns:\n${shown.rows}`);
    assert.ok(
      shown.rows.split('\n').some((l) => width(l) > 0 && /^ {4}\S/.test(l)),
      `${cmd} wraps with a hanging indent:\n${shown.rows}`,
    );
    assert.ok(words(shown.rows).includes('work · judge #1 (干活·判定#1)'), `${cmd} names the judge in English:\n${shown.rows}`);
  }
});
