/** The landing page's overview as tables: run states, requests, failures, the peak-scaled curve, the brief's safe markdown. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { curveScale, curveSvg, linearTicks, REACH } from '../../src/ui/curve.js';
import { briefHtml, mdHtml } from '../../src/ui/markdown.js';
import { failureOf, requestOf, runState, runViews, stateBlock } from '../../src/ui/overview.js';
import { groupRuns, type RunsInput } from '../../src/ui/runs.js';
import type { Snapshot, UiRow } from '../../src/ui/source.js';
import type { ModelCall } from '../../src/ui/transcript.js';

const row = (run: string, step: string, started: string, o: Partial<UiRow> = {}): UiRow => ({
  step,
  run,
  session_id: null,
  ok: true,
  cost_usd: 0.1,
  num_turns: 1,
  text: '',
  error: null,
  started_at: started,
  ended_at: started.replace(/:00\.000Z$/, ':30.000Z'),
  attempts: 1,
  errors: [],
  resumed: false,
  retired: [],
  context: 0,
  duration_s: 30,
  ...o,
});
const T = (m: number) => `2026-12-01T10:${String(m).padStart(2, '0')}:00.000Z`;
const question = { id: 'q1', question: 'Where should the <b>html</b> go?', options: ['stdout', 'a file'], asked_at: T(1), timeout_s: null };

test('a run state: waiting only while it lives and a question waits; achieved by its last judge; failed; stopped', () => {
  const ended = groupRuns([row('a', '确认需求', T(0))])[0]!;
  const open = groupRuns([row('a', '确认需求', T(0), { ok: false, ended_at: null })])[0]!;
  const failed = groupRuns([row('a', '干活', T(0), { ok: false, failure: { kind: 'quota', retryable: true, message: 'usage limit' } })])[0]!;
  const cases: Array<[Parameters<typeof runState>, string]> = [
    [[open, true, question], 'waiting'],
    [[open, true, null], 'running'],
    [[open, false, question], 'stopped'],
    [[ended, false, null, 'achieved'], 'achieved'],
    [[ended, false, null, 'not_yet'], 'done'],
    [[ended, false, null], 'done'],
    [[failed, false, null], 'failed'],
    [[failed, false, null, 'achieved'], 'achieved'],
  ];
  for (const [args, want] of cases) assert.equal(runState(...args), want, JSON.stringify(args.slice(1)));
  assert.deepEqual(failureOf(failed), { kind: 'quota', reason: 'usage limit' });
  assert.deepEqual(failureOf(groupRuns([row('a', 's', T(0), { ok: false, error: 'boom\nstack' })])[0]!), { kind: 'failed', reason: 'boom' });
  assert.equal(failureOf(ended), null);
});

test("a run's request: the rows' own field; for older runs the lineage's, on the first run started after it; else none", () => {
  const groups = groupRuns([
    row('old1', '确认需求', T(0)),
    row('old2', '确认需求', T(10)),
    row('new', '确认需求', T(20), { request: 'wake: add <code> highlighting' }),
  ]);
  const lineage = (at: string) => ({ workspace: '/w', woke: 3, steps: {}, request: { text: 'write md2html', at } });
  const cases: Array<[string, string, string | null]> = [
    ['old1', T(0), 'write md2html'],
    ['old2', T(0), null],
    ['old2', T(5), 'write md2html'],
    ['new', T(0), 'wake: add <code> highlighting'],
    ['new', T(15), 'wake: add <code> highlighting'],
    ['old1', T(30), null],
  ];
  for (const [run, at, want] of cases) assert.equal(requestOf(groups.find((g) => g.run === run)!, groups, lineage(at)), want, `${run} / ${at}`);
  assert.equal(requestOf(groups[0]!, groups, null), null);
});

test('the card of a waiting run holds the question and its options as text; a failed one its kind and reason', () => {
  const snap: Snapshot = {
    runDir: '/r',
    lock: 'held',
    rows: [row('a', '确认需求', T(0), { ok: false, ended_at: null, request: 'do <it>' })],
    lineage: null,
    notes: { dir: null, brief: null, goal: null, qa: null, handoffs: {} },
    problems: [],
  };
  const input: RunsInput = { snap, calls: new Map(), verdicts: new Map(), window: 1_000_000, threshold: 750_000 };
  const waitingSet = { version: 1 as const, owner: 'o', pid: 1, host: 'h', started_at: null, updated_at: T(1), questions: [question] };
  const [v] = runViews(groupRuns(snap.rows).reverse(), { ...input, waiting: waitingSet });
  assert.equal(v!.state, 'waiting');
  assert.equal(v!.request, 'do <it>');
  const html = stateBlock(v!);
  assert.match(html, /<p class="waiting-question">Where should the &lt;b&gt;html&lt;\/b&gt; go\?<\/p>/);
  assert.match(html, /<li>stdout<\/li><li>a file<\/li>/);
  // the lock's holder is gone: stopped, no question shown
  const [gone] = runViews(groupRuns(snap.rows), { ...input, snap: { ...snap, lock: 'free' }, waiting: waitingSet });
  assert.equal(gone!.state, 'stopped');
  assert.equal(stateBlock(gone!), '');
  const failedRows = [row('b', '干活', T(0), { ok: false, failure: { kind: 'guard-denied', retryable: false, message: 'wrote <outside>' } })];
  const [f] = runViews(groupRuns(failedRows), { ...input, snap: { ...snap, rows: failedRows } });
  assert.equal(stateBlock(f!), '<p class="run-failure"><span class="kind">guard-denied</span> wrote &lt;outside&gt;</p>');
});

const calls = (...ctx: number[]): ModelCall[] =>
  ctx.map((context, k) => ({ id: `m${k}`, at: '', session: 's1', input: 0, cacheCreation: 0, cacheRead: 0, output: 0, context }));

test('the curve is linear and scaled to its peak; the window and threshold are lines only within reach of it', () => {
  const cases: Array<[number, number, number, string[], string[]]> = [
    // peak, window, threshold → drawn, noted
    [14_000, 1_000_000, 750_000, [], ['threshold', 'window']],
    [700_000, 1_000_000, 750_000, ['threshold', 'window'], []],
    [500_000, 1_000_000, 750_000, ['threshold'], ['window']],
    [0, 1_000_000, 750_000, [], ['threshold', 'window']],
    [180_000, 200_000, 150_000, ['threshold', 'window'], []],
  ];
  for (const [peak, w, t, drawn, noted] of cases) {
    const s = curveScale(peak, w, t);
    assert.deepEqual([s.drawn, s.noted], [drawn, noted], `peak ${peak}`);
    assert.ok(s.top >= peak && s.top >= Math.max(0, ...s.drawn.map((k) => (k === 'window' ? w : t))), `top ${s.top}`);
    assert.ok(s.drawn.every((k) => (k === 'window' ? w : t) <= peak * REACH));
  }
  for (const [top, want] of [
    [10_800, [2_000, 4_000, 6_000, 8_000, 10_000]],
    [1_080_000, [200_000, 400_000, 600_000, 800_000, 1_000_000]],
    [700, [200, 400, 600]],
    [0, []],
  ] as Array<[number, number[]]>)
    assert.deepEqual(linearTicks(top), want, String(top));
  // the peak is near the top of the plot, whatever the window
  const svg = curveSvg({ calls: calls(7_000, 14_000), window: 1_000_000, threshold: 750_000, label: 'w' });
  const ys = [...svg.matchAll(/<circle [^>]*cy="([\d.]+)"/g)].map((m) => Number(m[1]));
  assert.ok(ys[1]! < 25 && ys[0]! > 60, ys.join(','));
  assert.match(svg, /class="beyond"[^>]*>handoff threshold 750\.0K, window 1M — above the chart \(peak 14\.0K\)/);
  const near = curveSvg({ calls: calls(600_000, 700_000), window: 1_000_000, threshold: 750_000, label: 'w' });
  assert.equal((near.match(/<line class="(window|threshold)"/g) ?? []).length, 2);
  assert.doesNotMatch(near, /class="beyond"/);
  // small: a sparkline with no ticks; circles only while few
  const small = curveSvg({ calls: calls(1, 2, 3), window: 10, threshold: 5, label: 'run x', size: 'small' });
  assert.match(small, /^<svg class="curve small" role="img" aria-label="context curve of run x/);
  assert.doesNotMatch(small, /class="tick"/);
  assert.equal((small.match(/<circle /g) ?? []).length, 3);
  const many = curveSvg({ calls: calls(...Array.from({ length: 100 }, (_, k) => k)), window: 10, threshold: 5, label: 'r', size: 'small' });
  assert.equal((many.match(/<circle /g) ?? []).length, 0);
  assert.match(many, /<polyline /);
  // 30k calls: at most 120 points drawn, the peak kept, the label still counts them all
  const huge = curveSvg({
    calls: calls(...Array.from({ length: 30_000 }, (_, k) => (k === 12_345 ? 99_999 : k % 1000))),
    window: 1,
    threshold: 1,
    label: 'r',
    size: 'small',
  });
  assert.equal(/points="([^"]*)"/.exec(huge)![1]!.split(' ').length, 120);
  assert.match(huge, /30000 model calls, last 999, peak 100\.0K/);
  assert.ok(huge.length < 5000, String(huge.length));
});

test("the brief's markdown: sections, lists and code as tags made here, every text escaped", () => {
  const cases: Array<[string, string]> = [
    ['- a <b>\n- `x<y>`', '<div class="md"><ul><li>a &lt;b&gt;</li><li><code>x&lt;y&gt;</code></li></ul></div>'],
    ['1. one\n2. **two**', '<div class="md"><ol><li>one</li><li><strong>two</strong></li></ol></div>'],
    ['```\n<script>alert(1)</script>\n```', '<div class="md"><pre>&lt;script&gt;alert(1)&lt;/script&gt;</pre></div>'],
    ['## H <i>\ntext\nmore', '<div class="md"><h5>H &lt;i&gt;</h5><p>text<br>more</p></div>'],
    ['[x](javascript:alert(1)) <img src=x onerror=alert(1)>', '<div class="md"><p>[x](javascript:alert(1)) &lt;img src=x onerror=alert(1)&gt;</p></div>'],
    ['- [ ] open\n- [x] done', '<div class="md"><ul><li>☐ open</li><li>☑ done</li></ul></div>'],
  ];
  for (const [md, html] of cases) assert.equal(mdHtml(md), html, md);
  const brief = briefHtml('## 目标\nmd2html <b>\n\n## 验收标准\n- prints html\n\n## 唤醒时追加(10:00:00)\nadd highlighting');
  assert.match(
    brief,
    /^<h4>目标<\/h4><div class="md"><p>md2html &lt;b&gt;<\/p><\/div><h4>验收标准<\/h4><div class="md"><ul><li>prints html<\/li><\/ul><\/div>/,
  );
  assert.match(brief, /<h4>唤醒时追加 <span class="note">10:00:00<\/span><\/h4><div class="md"><p>add highlighting<\/p><\/div>$/);
  assert.doesNotMatch(brief, /<b>/);
});
