/**
 * Widths a person reads, as tables: ambiguous-width characters measured two columns, a command's own
 * lines wrapped between words under a hanging indent, where they wrap (terminal, pipe, COLUMNS), and a
 * judge's shell command shown whole — wrapped, never cut with `...` — up to six lines, then how many more.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import stringWidth from 'string-width';
import { Renderer } from '../../src/cli/render.js';
import { commandLines, COMMAND_LINES } from '../../src/cli/screen/names.js';
import { screenTexts } from '../../src/cli/screen/texts.js';
import { Screen } from '../../src/cli/screen/tty.js';
import { hangingLines, width, wrapBlock } from '../../src/cli/screen/wrap.js';
import { width as termWidth, wrapWidth } from '../../src/cli/term.js';
import { event } from '../../src/runtime/index.js';

const words = (lines: string[]) => lines.join(' ').split(/\s+/).filter(Boolean);

test('one width measure: ambiguous-width characters count two, like CJK; ASCII one', () => {
  const table: Array<[string, number]> = [
    ['abc', 3],
    ['—', 2],
    ['…', 2],
    ['·', 2],
    ['“x”', 5],
    ['干活', 4],
    ['干活·判定#1', 12],
    ['$0.1776', 7],
    ['', 0],
  ];
  for (const [s, w] of table) {
    assert.equal(width(s), w, s);
    assert.equal(termWidth(s), w, `term.ts and wrap.ts measure alike: ${s}`);
  }
});

test('plain ASCII, measured without string-width, measures as string-width does (colours take no room)', () => {
  const printable = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i)).join('');
  const table = [printable, '  ~/proj  (runs: ./runs)', '\x1b[1mbold\x1b[0m and \x1b[38;5;208morange\x1b[0m', '\x1b[m', 'a\tb', 'a\x07b', 'a\x1b]8;;x\x07link'];
  for (const s of table) assert.equal(termWidth(s), stringWidth(s, { ambiguousIsNarrow: false }), JSON.stringify(s));
});

test('wrapping by that measure: a line full of · and — still fits', () => {
  const text = Array.from({ length: 12 }, (_, i) => `a${i} · b${i} — c…`).join(' ');
  for (const cols of [40, 60]) {
    const lines = wrapBlock(text, cols, '* ', '  ');
    for (const l of lines) assert.ok(width(l) <= cols, `${width(l)} > ${cols}: ${l}`);
    assert.deepEqual(words(lines), words([`* ${text}`]));
  }
});

test('hangingLines: between words only, continuation indented past the line own indent, long tokens whole', () => {
  const path = `/tmp/${'x'.repeat(70)}/md2html.mjs`;
  const table: Array<{ line: string; cols: number; hang: number; lead: string }> = [
    { line: '2026-12-02 04:18:53  20261202-041850-82c8ac  + work · judge #1 (干活·判定#1)  $0.1776 · 3 turns · 0:01 · ctx 14.7K', cols: 60, hang: 4, lead: '' },
    { line: '  last run 20261202-041850-82c8ac: 3 rows, $0.5549, ok, last step 干活·判定#1', cols: 40, hang: 2, lead: '  ' },
    { line: `  ${path} and more words after the path`, cols: 60, hang: 2, lead: '  ' },
    { line: '  最近一次 20261202-041850-82c8ac: 3 行, $0.5549, ok, 最后一步 干活·判定#1', cols: 40, hang: 2, lead: '  ' },
  ];
  for (const { line, cols, hang, lead } of table) {
    const lines = hangingLines(line, cols, hang);
    assert.ok(lines.length > 1, line);
    assert.deepEqual(words(lines), words([line]), 'no word lost, none split');
    assert.ok(lines[0]!.startsWith(lead) && !lines[0]!.startsWith(`${lead} `));
    for (const l of lines.slice(1)) assert.ok(l.startsWith(lead + ' '.repeat(hang)) && l[lead.length + hang] !== ' ', `hang: '${l}'`);
    for (const l of lines) assert.ok(width(l) <= cols || !/\s/.test(l.trim()), `only a lone long token is wider: ${l}`);
  }
  assert.deepEqual(hangingLines('short', 60), ['short']);
  assert.deepEqual(hangingLines('word '.repeat(30), 0), ['word '.repeat(30)], '0: as it is');
});

test('wrapWidth: the terminal width on a terminal, COLUMNS in a pipe, else whole lines', () => {
  const table: Array<[{ isTTY?: boolean; columns?: number }, Record<string, string>, number]> = [
    [{ isTTY: true, columns: 60 }, {}, 60],
    [{ isTTY: true, columns: 200 }, {}, 110],
    [{ isTTY: true, columns: 20 }, {}, 40],
    [{ isTTY: true }, { COLUMNS: '60' }, 60],
    [{ isTTY: true }, {}, 80],
    [{}, {}, 0],
    [{}, { COLUMNS: '60' }, 60],
    [{}, { COLUMNS: 'wide' }, 0],
    [{}, { COLUMNS: '0' }, 0],
  ];
  for (const [out, env, cols] of table) assert.equal(wrapWidth(out, env), cols, JSON.stringify([out, env]));
});

test('commandLines: the whole command wrapped under its start, at most six lines, then how many more', () => {
  const en = screenTexts('en');
  const zh = screenTexts('zh');
  const long = 'node md2html.mjs sample.md > out.html && grep -c "<pre><code class=\\"language-js\\">" out.html && diff -u expected.html out.html';
  const lines = commandLines('* Bash ', long, 60, en);
  assert.ok(lines.length > 1 && lines.length <= COMMAND_LINES);
  assert.ok(lines[0]!.startsWith('* Bash node '));
  for (const l of lines) assert.ok(width(l) <= 60, l);
  for (const l of lines.slice(1)) assert.match(l, /^ {7}\S/, 'under the command');
  assert.doesNotMatch(lines.join('\n'), /\.\.\./);
  assert.deepEqual(words(lines), words([`* Bash ${long}`]));
  const script = Array.from({ length: 20 }, (_, i) => `echo step ${i + 1}`).join('\n');
  const cut = commandLines('* Bash ', script, 60, en);
  assert.equal(cut.length, COMMAND_LINES + 1);
  assert.equal(cut.at(-1), `       … 14 more lines`);
  assert.equal(cut[5], '       echo step 6');
  assert.equal(commandLines('* Bash ', script, 0, zh).at(-1), '       … 还有 14 行');
  assert.deepEqual(commandLines('* Bash ', 'npm test', 60, en), ['* Bash npm test']);
  assert.equal(commandLines('* Bash ', 'a\nb\nc\nd\ne\nf\ng', 60, en).at(-1), '       … 1 more line');
});

test("the renderer shows a judge's command whole at 60 columns; a worker's stays one compact line", () => {
  let out = '';
  const screen = new Screen({
    out: {
      write: (s: string) => {
        out += s;
        return true;
      },
      isTTY: true,
      columns: 60,
    },
    live: true,
  });
  const ui = new Renderer({ write: () => true }, 'en', { screen });
  const command = `node md2html.mjs sample.md && node -e "const h = require('fs').readFileSync('out.html', 'utf8'); if (!h.includes('<pre>')) process.exit(1)"`;
  ui.event(event('tool_call', command.slice(0, 20), { id: 'a', input: { command } }, { tool: 'Bash' }));
  ui.event(event('tool_call', command, { id: 'b', input: { command } }, { tool: 'Bash', subagent: true }));
  screen.close();
  // eslint-disable-next-line no-control-regex
  const plain = out.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
  const rows = plain.split('\n').filter((l) => l.trim());
  const main = rows.filter((l) => !l.startsWith('  |'));
  assert.ok(main[0]!.startsWith('* Bash node md2html.mjs'), plain);
  assert.ok(main.length > 2, plain);
  assert.doesNotMatch(main.join('\n'), /\.\.\./, 'never cut');
  assert.deepEqual(words(main), words([`* Bash ${command}`]));
  for (const l of main) assert.ok(width(l) <= 60, l);
  assert.equal(rows.filter((l) => l.startsWith('  |')).length, 1, 'the worker call stays compact');
});
