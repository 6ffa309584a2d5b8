/**
 * `flower report`'s analysis and rendering, pure: made-up transcripts in, the report and its text out.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyseRun, cacheHitRate, entriesBetween, type SessionEntries } from '../../src/cli/report-analysis.js';
import { renderReport, sample, sparkline } from '../../src/cli/report-render.js';
import { width } from '../../src/cli/screen/wrap.js';
import type { ManifestRow } from '../../src/state/index.js';

const T0 = Date.parse('2026-01-01T10:00:00Z');
const at = (s: number) => new Date(T0 + s * 1000).toISOString();

interface Use {
  id: string;
  name: string;
  input?: unknown;
}

/** One model call: `uses` become one assistant entry each, sharing the message id (as the SDK writes them). */
function call(id: string, s: number, u: [number, number, number], uses: Use[] = [], o: { sidechain?: boolean } = {}): unknown[] {
  const usage = { input_tokens: u[0], cache_creation_input_tokens: u[1], cache_read_input_tokens: u[2], output_tokens: 5 };
  const blocks = uses.length ? uses.map((x) => ({ type: 'tool_use', id: x.id, name: x.name, input: x.input ?? {} })) : [{ type: 'text', text: 'ok' }];
  return blocks.map((b, i) => ({
    type: 'assistant',
    uuid: `${id}-${i}`,
    timestamp: at(s),
    isSidechain: o.sidechain === true,
    message: { id, model: 'claude-x', usage, content: [b] },
  }));
}

const result = (s: number, toolUseId: string, content: string, extra: Record<string, unknown> = {}): unknown => ({
  type: 'user',
  uuid: `r-${toolUseId}`,
  timestamp: at(s),
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content }] },
  ...extra,
});

function row(step: string, session: string | null, from: number, to: number | null, o: Partial<ManifestRow> = {}): ManifestRow {
  return {
    step,
    run: 'r1',
    session_id: session,
    ok: true,
    cost_usd: 0.5,
    num_turns: 2,
    text: '',
    error: null,
    started_at: at(from),
    ended_at: to === null ? null : at(to),
    attempts: 1,
    errors: [],
    resumed: false,
    retired: [],
    context: 0,
    duration_s: to === null ? 0 : to - from,
    ...o,
  };
}

const spillText = '[output spilled: 9000 chars → .flower/spill/a.txt — use Read for the full text, Grep to search] Head:\nfirst line';

// the coordinator: a glance, a denied Write (the hook's text), a denied Bash (the harness's marker), a delegation
const coordinator: SessionEntries = {
  main: [
    ...call('m1', 1, [100, 900, 0], [{ id: 't1', name: 'Bash', input: { command: 'git status' } }]),
    result(2, 't1', 'clean'),
    ...call(
      'm2',
      3,
      [10, 100, 900],
      [
        { id: 't2', name: 'Write', input: { file_path: 'x' } },
        { id: 't3', name: 'Bash', input: { command: 'rm -rf build' } },
      ],
    ),
    result(4, 't2', 'PreToolUse:Write hook error: You coordinate and do not do hands-on work (Write denied).'),
    result(4, 't3', 'Permission to use Bash has been denied.', { toolDenialKind: 'permission-rule', permissionDecision: { decision: 'reject' } }),
    ...call('m3', 5, [10, 0, 1100], [{ id: 't4', name: 'Agent', input: { prompt: 'build it' } }]),
    result(6, 't4', spillText),
    ...call('m4', 7, [10, 50, 1100]),
  ],
  subagents: [
    [
      ...call('s1', 5, [200, 0, 0], [{ id: 'u1', name: 'Read' }], { sidechain: true }),
      ...call('s2', 6, [0, 0, 200], [{ id: 'u2', name: 'Read' }], { sidechain: true }),
    ],
  ],
};

test('cache hits are cache read over every input token of the run, main thread and subagents', () => {
  const r = analyseRun({ run: 'r1', rows: [row('干活', 'c1', 0, 10)], sessions: { c1: coordinator } });
  const read = 0 + 900 + 1100 + 1100 + 0 + 200;
  const all = read + (100 + 10 + 10 + 10 + 200 + 0) + (900 + 100 + 0 + 50 + 0 + 0);
  assert.deepEqual(r.tokens, { calls: 6, input: 330, cacheCreation: 1050, cacheRead: read, output: 30 });
  assert.equal(r.cache_hit_rate, read / all);
  assert.equal(cacheHitRate({ calls: 0, input: 0, cacheCreation: 0, cacheRead: 0, output: 0 }), 0);
});

test('tools are counted per name, the main thread apart from the subagents, a call of several blocks once', () => {
  const r = analyseRun({ run: 'r1', rows: [row('干活', 'c1', 0, 10)], sessions: { c1: coordinator } });
  assert.deepEqual(r.tools, { main: { Bash: 2, Write: 1, Agent: 1 }, subagents: { Read: 2 } });
});

test("denials are found by the hook's text and by the harness's marker; the coordinator's Bash commands say which were denied", () => {
  const r = analyseRun({ run: 'r1', rows: [row('干活', 'c1', 0, 10)], sessions: { c1: coordinator } });
  assert.deepEqual(r.denied, [
    { step: '干活', tool: 'Write', reason: 'You coordinate and do not do hands-on work (Write denied).' },
    { step: '干活', tool: 'Bash', reason: 'Permission to use Bash has been denied.' },
  ]);
  assert.deepEqual(r.bash, [
    { step: '干活', command: 'git status', denied: false },
    { step: '干活', command: 'rm -rf build', denied: true },
  ]);
});

test('a spill pointer counts the characters it kept out of the context', () => {
  const r = analyseRun({ run: 'r1', rows: [row('干活', 'c1', 0, 10)], sessions: { c1: coordinator } });
  assert.deepEqual(r.spills, { count: 1, saved_chars: 9000 - spillText.length });
});

test('the curve is the main thread only; a handoff starts the successor where the retired session stopped', () => {
  const next: SessionEntries = { main: [...call('n1', 8, [10, 300, 0]), ...call('n2', 9, [10, 0, 300])], subagents: [] };
  const r = analyseRun({ run: 'r1', rows: [row('干活', 'c2', 0, 10, { retired: ['c1'] })], sessions: { c1: coordinator, c2: next } });
  const s = r.steps[0]!;
  assert.deepEqual(s.sessions, ['c1', 'c2']);
  assert.deepEqual(s.curve, [1000, 1010, 1110, 1160, 310, 310]);
  assert.deepEqual(s.handoffs, [4]);
  assert.equal(s.peak, 1160);
  assert.equal(s.last, 310);
});

test("a session continued by a later run counts in each run only inside the row's time span", () => {
  const rows = [row('干活', 'c1', 0, 4), { ...row('干活', 'c1', 4.5, 10), run: 'r2' }];
  const r1 = analyseRun({ run: 'r1', rows: rows.slice(0, 1), sessions: { c1: coordinator } });
  const r2 = analyseRun({ run: 'r2', rows: rows.slice(1), sessions: { c1: coordinator } });
  assert.equal(r1.tokens.calls, 2);
  assert.equal(r2.tokens.calls, 4);
  assert.deepEqual(r1.tools.main, { Bash: 2, Write: 1 });
  assert.deepEqual(r2.tools.main, { Agent: 1 });
  assert.equal(entriesBetween([{ type: 'x' }], at(0), at(1)).length, 1, 'an entry without a time is kept');
});

test('a session the store does not have is named, and the rest of the report stands', () => {
  const r = analyseRun({ run: 'r1', rows: [row('确认需求', 'gone', 0, 1), row('干活', 'c1', 1, 10)], sessions: { c1: coordinator } });
  assert.deepEqual(r.steps[0]!.missing, ['gone']);
  assert.equal(r.steps[1]!.curve.length, 4);
  assert.equal(r.ok, true);
  assert.equal(r.cost_usd, 1);
});

test('the sparkline: bars from the lowest point to the peak, a | at each handoff, sampling keeps the peak', () => {
  const cases: Array<[number[], number[], string]> = [
    [[10, 20, 40, 80, 20], [4], '▁▂▄█|▂'],
    [[], [], ''],
    [[0, 0], [], '▄▄'],
    [[5, 5, 5], [], '▄▄▄'],
    [[100, 200, 150], [], '▁█▅'],
  ];
  for (const [curve, handoffs, want] of cases) assert.equal(sparkline(curve, handoffs), want, JSON.stringify(curve));
  const long = Array.from({ length: 100 }, (_, i) => (i === 37 ? 999 : i));
  const s = sample(long, 10);
  assert.equal(s.length, 10);
  assert.ok(s.includes(999));
  assert.equal(sparkline(long, []).length, 24);
});

test('the text names the rate and the tool counts, in English and in Chinese, and wraps at 60 columns', () => {
  const r = analyseRun({ run: 'r1', rows: [row('干活', 'c1', 0, 10)], sessions: { c1: coordinator } });
  const en = renderReport(r, { zh: false, cols: 0 });
  assert.match(en, /cache hits 70\.5% \(cache read 3\.3K of 4\.7K input tokens, 6 model calls\)/);
  assert.match(en, /tools \(main thread\): Bash 2, Agent 1, Write 1/);
  assert.match(en, /tools \(subagents\): Read 2/);
  assert.match(en, /\n {6}context ▁▁▆█ {2}first 1\.0K · peak 1\.2K · last 1\.2K · 4 calls\n/);
  assert.match(en, /denied coordinator calls: 2\n {4}x 干活 · Write: You coordinate/);
  assert.match(en, / {4}\$ rm -rf build {2}\(denied\)/);
  assert.match(en, /spilled 1 big output to files, ≈2\.2K tokens \(8\.9K chars\) kept out of the context/);
  const zh = renderReport(r, { zh: true, cols: 0 });
  assert.match(zh, /缓存命中 70\.5%/);
  assert.match(zh, /工具\(子代理\): Read 2/);
  const narrow = renderReport(r, { zh: false, cols: 60 }).split('\n');
  assert.ok(narrow.length > en.split('\n').length, 'something was wrapped');
  for (const l of narrow) assert.ok(width(l) <= 60, l);
});
