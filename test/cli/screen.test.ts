/**
 * The screen's pure parts, as tables: wrapping by display width with hanging indents (CJK counts 2,
 * nothing is lost), the palette's on/off rules, friendly names for flower's own tools, the live line,
 * the line editor, and the writer's footer (erased and redrawn around every block; nothing but plain
 * lines in a pipe; one owner per terminal).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { Renderer } from '../../src/cli/render.js';
import { LineEditor } from '../../src/cli/screen/editor.js';
import { liveLine, newLiveState } from '../../src/cli/screen/live.js';
import { toolLine } from '../../src/cli/screen/names.js';
import { colourEnabled, Palette } from '../../src/cli/screen/palette.js';
import { screenTexts } from '../../src/cli/screen/texts.js';
import { clearRows, Screen, ttyKey } from '../../src/cli/screen/tty.js';
import { width, wrapBlock } from '../../src/cli/screen/wrap.js';
import { event } from '../../src/runtime/index.js';

const en = screenTexts('en');
const flat = (lines: string[]) =>
  lines
    .map((l) => l.trim())
    .join(' ')
    .replace(/\s+/g, ' ');

test('wrapping keeps every word, fits the width, and hangs continuation lines under the text', () => {
  const text =
    'Before I touch anything: how should the converter treat existing documents that already contain hand-written HTML fragments? https://example.com/a/very/long/path/that/does/not/fit/in/forty/columns/at/all.html end';
  for (const cols of [40, 80]) {
    const lines = wrapBlock(text, cols, '? (q1) ', '  ');
    for (const l of lines) assert.ok(width(l) <= cols, `${width(l)} > ${cols}: ${l}`);
    assert.ok(lines[0]!.startsWith('? (q1) '));
    for (const l of lines.slice(1)) assert.ok(l.startsWith('  ') && !l.startsWith('   '), `hanging indent: '${l}'`);
    assert.equal(flat(lines).replace(/\s/g, ''), `? (q1) ${text}`.replace(/\s/g, ''), 'nothing is lost, a long URL is broken, not cut');
  }
});

test('CJK text wraps by display columns (2 per character), and a line never starts with closing punctuation', () => {
  const text = '这是一个很长的中文问题,用来检查宽字符按两列计算,不会超出屏幕宽度,也不会被截断。最后一句话在这里结束。';
  const lines = wrapBlock(text, 40, '? ', '  ');
  for (const l of lines) assert.ok(width(l) <= 41, `${width(l)}: ${l}`);
  assert.ok(lines.length >= 3);
  for (const l of lines.slice(1)) assert.doesNotMatch(l.trim(), /^[,。、!?]/);
  assert.equal(lines.map((l, i) => l.slice(i === 0 ? 2 : 2)).join(''), text);
});

test('width 0 means whole lines (pipes and logs)', () => {
  const long = 'word '.repeat(50).trim();
  assert.deepEqual(wrapBlock(long, 0, '  '), [`  ${long}`]);
});

test('colour: NO_COLOR and FORCE_COLOR=0 turn it off, FORCE_COLOR forces it, else only a TTY that is not dumb', () => {
  const cases: [Record<string, string>, boolean, boolean][] = [
    [{}, true, true],
    [{}, false, false],
    [{ NO_COLOR: '1' }, true, false],
    [{ NO_COLOR: '' }, true, true],
    [{ FORCE_COLOR: '0' }, true, false],
    [{ FORCE_COLOR: '1' }, false, true],
    [{ TERM: 'dumb' }, true, false],
    [{ NO_COLOR: '1', FORCE_COLOR: '1' }, true, false],
  ];
  for (const [env, tty, want] of cases) assert.equal(colourEnabled(env, tty), want, JSON.stringify({ env, tty }));
  assert.equal(new Palette(false).paint('error', 'x'), 'x');
  assert.equal(new Palette(true).paint('error', 'x'), '\x1b[31mx\x1b[39m');
});

test("flower's own tools read as words; the question's call is silent; -v shows the real names", () => {
  const v = { verbose: false };
  assert.deepEqual(toolLine('mcp__human__submit_brief', {}, '', en, v), { mark: '+', role: 'answer', text: 'submitted the brief' });
  assert.equal(toolLine('mcp__human__submit_goal', { checks: [{}, {}, {}] }, '', en, v)!.text, 'set the goal: 3 checks');
  assert.equal(toolLine('mcp__human__ask', { question: 'q' }, 'q', en, v), null);
  assert.equal(toolLine('mcp__human__submit_verdict', {}, '', en, v), null);
  assert.equal(toolLine('Agent', { subagent_type: 'worker', description: 'write it' }, '', en, v)!.text, 'dispatch worker: write it');
  assert.equal(toolLine('mcp__github__create_issue', {}, 'x', en, v)!.text, 'github/create_issue x');
  assert.equal(toolLine('mcp__human__submit_brief', {}, '', en, { verbose: true })!.text, 'mcp__human__submit_brief');
});

test('the renderer shows the verdict with its pass count and the judge cost, and never says done for a failure', () => {
  let out = '';
  const ui = new Renderer({ write: (s: string) => (out += s) }, 'en');
  ui.event(event('task', 'x', { kind: 'verdict', outcome: 'achieved', passed: 5, total: 5, cost_usd: 0.0123, num_turns: 2, duration_s: 3 }));
  ui.result({
    step: '确认需求',
    session_id: 's',
    ok: false,
    cost_usd: 0.5,
    num_turns: 3,
    text: '',
    error: 'no complete brief (missing: 边界)',
    started_at: '2026-01-01T00:00:00Z',
    ended_at: '2026-01-01T00:00:10Z',
    attempts: 1,
    errors: [],
    resumed: false,
    retired: [],
    context: 0,
  });
  ui.event(event('tool_call', '', { id: 't1', input: {} }, { tool: 'mcp__human__submit_brief' }));
  ui.event(event('tool_result', 'Input validation error: acceptance: give at least one acceptance criterion', { tool_use_id: 't1', is_error: true }));
  assert.match(out, /^= verdict: achieved — 5\/5 checks · 2 turns · \$0\.0123 · 0:03$/m);
  assert.match(out, /^x failed · 3 turns · \$0\.5000 · 0:10 · no complete brief \(missing: 边界\)$/m);
  assert.doesNotMatch(out, /done/);
  assert.match(out, /^x the brief was rejected: Input validation error/m);
  assert.doesNotMatch(out, /mcp__/);
});

test('a question that ends at once (--timeout 0, a pipe, the quota spent) is shown whole with its options before how it ended, and only once', () => {
  for (const state of ['timeout', 'over_budget', 'declined'] as const) {
    let out = '';
    const ui = new Renderer({ write: (s: string) => (out += s) }, 'en');
    const ask = { id: 'q1', question: 'Where should the HTML go?', options: ['standard output', 'a file next to the input'], asked_at: 't0' };
    ui.event(event('ask', ask.question, { ...ask, state }));
    assert.match(flat(out.split('\n')), /\? \(q1\) Where should the HTML go\? 1\. standard output 2\. a file next to the input \S/, state);
    // a question asked and then settled is not shown a second time
    out = '';
    ui.event(event('ask', 'Which name?', { id: 'q2', question: 'Which name?', options: ['a'], asked_at: 't1', state: 'asked' }));
    ui.event(event('ask', 'Which name?', { id: 'q2', question: 'Which name?', options: ['a'], asked_at: 't1', state }));
    assert.equal(out.split('Which name?').length, 2, `${state}: once:\n${out}`);
  }
});

test("one judgement, one line: the closing verdict is not repeated under the step's; 1 turn; the wake tag on the first resumed step only", () => {
  let out = '';
  const ui = new Renderer({ write: (s: string) => (out += s) }, 'en');
  ui.event(event('step', 'set the goal', { index: 2, total: 3, resumed: true, woke: 2 }));
  ui.event(event('step', 'work', { index: 3, total: 3, resumed: true, woke: 2 }));
  const v = { outcome: 'achieved', passed: 2, total: 2, cost_usd: 0.1, num_turns: 1, duration_s: 3 };
  ui.event(event('task', 'x', { kind: 'verdict', ...v }));
  ui.closingVerdict(v);
  assert.equal(out.match(/wake #2/g)?.length, 1, out);
  assert.equal(out.match(/^= verdict:/gm)?.length, 1, out);
  assert.match(out, /· 1 turn ·/);
  // a closing verdict the screen did not show last is shown
  ui.closingVerdict({ ...v, outcome: 'not_yet', passed: 1 });
  assert.equal(out.match(/^= verdict:/gm)?.length, 2, out);
});

test('the live line: spinner, step, context, cost, elapsed; "waiting for you" while a question waits; never wider than the screen', () => {
  const s = { ...newLiveState(0), step: '干活', context: 12_300, cost: 0.5, pendingCost: 0.0123 };
  // the seed's step in English, with its name beside it; in Chinese as it is
  assert.equal(liveLine(s, 65_000, 80, en), '| work (干活) · ctx 12.3K · $0.5123 · 1:05 · quiet 1:05');
  assert.equal(liveLine(s, 65_000, 80, screenTexts('zh')), '| 干活 · 上下文 12.3K · $0.5123 · 1:05 · 安静 1:05');
  assert.equal(liveLine({ ...s, step: '干活·判定#2' }, 65_000, 80, en), '| work · judge #2 (干活·判定#2) · ctx 12.3K · $0.5123 · 1:05 · quiet 1:05');
  s.waiting = true;
  assert.match(liveLine(s, 65_250, 80, en), /^\/ work \(干活\) .* · waiting for you$/);
  for (const cols of [20, 40]) assert.ok(width(liveLine(s, 65_000, cols, en)) <= cols - 1);
});

test('with --budget and --deadline the live line shows spent / cap and the time left (never below zero)', () => {
  const s = { ...newLiveState(0), step: 'work', cost: 1.2, pendingCost: 0, cap: 5, deadlineAt: 3_600_000 };
  assert.equal(liveLine(s, 65_000, 100, en), '| work · $1.20 / $5.00 · 1:05 · 58:55 left · quiet 1:05');
  assert.match(liveLine(s, 4_000_000, 100, en), / · 0:00 left/);
});

test('the line editor edits by character (CJK too), keeps the text across redraws, and submits on Enter', () => {
  const e = new LineEditor();
  for (const ch of '你好 world') e.key(ch);
  e.key(undefined, { name: 'backspace' });
  assert.equal(e.text, '你好 worl');
  e.key(undefined, { name: 'a', ctrl: true });
  e.key(undefined, { name: 'delete' });
  assert.equal(e.text, '好 worl');
  e.key(undefined, { name: 'e', ctrl: true });
  e.key(undefined, { name: 'w', ctrl: true });
  assert.equal(e.text, '好 ');
  e.key('\x1b[31m!');
  assert.equal(e.text, '好 !', 'escape sequences never become text');
  assert.deepEqual(e.view('> ', 80), { line: '> 好 !', col: 2 + 4 });
  assert.deepEqual(e.key(undefined, { name: 'return' }), { submit: '好 !' });
  assert.equal(e.text, '');
  assert.equal(e.key(undefined, { name: 'c', ctrl: true }), 'interrupt');
  assert.equal(e.key(undefined, { name: 'd', ctrl: true }), 'eof');
  for (const ch of 'x'.repeat(200)) e.key(ch);
  const v = e.view('> ', 40);
  assert.ok(width(v.line) <= 39 && v.line.startsWith('> <'), 'a long line scrolls, marked with <');
});

test('the writer: a footer erased and redrawn around every block on a terminal; nothing but the lines in a pipe', () => {
  let pipe = '';
  const plain = new Screen({ out: { write: (s: string) => (pipe += s) }, live: false });
  plain.setFooter({ status: 'x', input: null });
  plain.print(['a', 'b']);
  assert.equal(pipe, 'a\nb\n');
  let tty = '';
  const live = new Screen({ out: { write: (s: string) => (tty += s), isTTY: true, columns: 80 }, live: true, lockDir: null });
  live.setFooter({ status: 'S', input: { line: '> hi', col: 4 } });
  assert.equal(tty, 'S\n> hi\r\x1b[4C');
  tty = '';
  live.print(['line']);
  assert.equal(tty, `${clearRows(2)}line\nS\n> hi\r\x1b[4C`);
  tty = '';
  live.close();
  assert.equal(tty, clearRows(2));
});

test('two flowers on one terminal: the lock is keyed by the terminal device; only one owns the footer, the other erases it before its lines', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-ttylock-'));
  let fd: number;
  try {
    fd = fs.openSync('/dev/tty', 'w');
  } catch {
    fd = fs.openSync('/dev/null', 'w'); // no controlling terminal here: /dev/null is a character device too
  }
  try {
    let screen = '';
    const out = { write: (s: string) => (screen += s), isTTY: true, columns: 80, fd };
    const a = new Screen({ out, live: true, lockDir: dir });
    const b = new Screen({ out, live: true, lockDir: dir });
    assert.equal(a.ownsFooter, true);
    assert.equal(b.ownsFooter, false, 'the second one on the same device does not draw a footer');
    a.setFooter({ status: 'A', input: null });
    screen = '';
    b.print(['from b']);
    assert.equal(screen, `${clearRows(1)}from b\n`, "b erases a's footer first");
    screen = '';
    a.setFooter({ status: 'A2', input: null });
    assert.equal(screen, 'A2', "a draws afresh, without erasing rows that now hold b's line");
    a.close();
    b.close();
    assert.deepEqual(
      fs.readdirSync(dir).filter((f) => f.endsWith('.live')),
      [],
      'the lease is given back',
    );
  } finally {
    fs.closeSync(fd);
  }
});

test('two flowers starting at once: a lease caught between its creation and its content is not taken over (two owners left footers in the scrollback)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-ttylease-'));
  const fd = fs.openSync('/dev/null', 'w'); // a character device: the lock is keyed by its number
  const lock = path.join(dir, `.flower-tty-${ttyKey({ fd })}`);
  // the other flower: holds the terminal lock, has created its lease but not yet written it
  const script = `const fs=require('fs');fs.writeFileSync(${JSON.stringify(`${lock}.lock`)},String(process.pid));fs.writeFileSync(${JSON.stringify(`${lock}.live`)},'');console.log('ready');setTimeout(()=>{fs.writeFileSync(${JSON.stringify(`${lock}.live`)},process.pid+' 1 other');fs.unlinkSync(${JSON.stringify(`${lock}.lock`)});},200);setInterval(()=>{},1000);`;
  const other = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    await once(other.stdout!, 'data');
    const mine = new Screen({ out: { write: () => true, isTTY: true, columns: 80, fd }, live: true, lockDir: dir });
    assert.equal(mine.ownsFooter, false, 'the lease being written belongs to the other flower');
    mine.close();
    assert.match(fs.readFileSync(`${lock}.live`, 'utf8'), new RegExp(`^${other.pid} \\d+ other$`), "the lease is still the other's");
  } finally {
    other.kill('SIGKILL');
    fs.closeSync(fd);
  }
});

test('-q shows prose, questions and verdicts only; the default adds one line per tool call and thinking; -v shows them whole with real names', () => {
  const seen = (o: { quiet?: boolean; verbose?: boolean }) => {
    let out = '';
    const ui = new Renderer({ write: (s: string) => (out += s) }, 'en', o);
    ui.event(event('text', 'the main prose', {}));
    ui.event(event('thinking', 'first thought\nsecond thought', {}));
    ui.event(event('tool_call', 'npm test', { id: 'a', input: { command: 'npm test' } }, { tool: 'Bash' }));
    ui.event(event('tool_call', 'ls', { id: 'b', input: { command: 'ls' } }, { tool: 'Bash', subagent: true }));
    ui.event(event('tool_call', '', { id: 'c', input: {} }, { tool: 'mcp__human__submit_brief' }));
    ui.event(event('text', 'worker prose', {}, { subagent: true }));
    ui.event(event('task', 'v', { kind: 'verdict', outcome: 'not_yet', passed: 1, total: 2, cost_usd: 0, num_turns: 1, duration_s: 0 }));
    return out;
  };
  const q = seen({ quiet: true });
  assert.match(q, /the main prose/);
  assert.match(q, /verdict: not yet — 1\/2 checks/);
  assert.doesNotMatch(q, /Bash|thought|submitted|worker prose/);
  const d = seen({});
  assert.match(d, /^\* Bash npm test$/m);
  assert.match(d, /^ {2}\| \* Bash ls$/m, 'worker activity under its mark');
  assert.match(d, /^~ first thought second thought$/m, 'thinking on one line');
  assert.match(d, /^\+ submitted the brief$/m);
  assert.doesNotMatch(d, /worker prose|mcp__/);
  const v = seen({ verbose: true });
  assert.match(v, /mcp__human__submit_brief/);
  assert.match(v, /worker prose/);
  assert.match(v, /~ first thought\n {2}second thought/);
});
