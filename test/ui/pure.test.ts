/** The ui's pure parts as tables: calls from transcript entries, figures, the curve, parsing, escaping. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  callsBetween,
  clean,
  curveSvg,
  esc,
  figuresOf,
  foldCalls,
  parseManifest,
  readLineage,
  spillOf,
  verdictCallOf,
  type ModelCall,
} from '../../src/ui/index.js';
import { groupRuns, verdictOf } from '../../src/ui/runs.js';
import type { UiRow } from '../../src/ui/source.js';

const usage = (i: number, cc = 0, cr = 0, o = 1) => ({ input_tokens: i, cache_creation_input_tokens: cc, cache_read_input_tokens: cr, output_tokens: o });
const asst = (id: string, u: object, extra: object = {}, at = '2026-01-01T00:00:00.000Z') => ({
  type: 'assistant',
  uuid: `u-${id}-${Math.random()}`,
  timestamp: at,
  message: { id, model: 'claude-x', content: [{ type: 'text', text: 'x' }], usage: u },
  ...extra,
});

test('one model call per message id: the blocks of one call are one point; synthetic, API-error and sidechain entries are none', () => {
  const cases: Array<[string, unknown[], number[]]> = [
    ['two blocks, one call', [asst('m1', usage(10, 100, 1000)), asst('m1', usage(10, 100, 1000))], [1110]],
    ['three calls', [asst('a', usage(1)), { type: 'user' }, asst('b', usage(2, 3, 4)), asst('c', usage(5))], [1, 9, 5]],
    [
      'synthetic error',
      [asst('s', usage(0), { isApiErrorMessage: true }), { type: 'assistant', message: { id: 'z', model: '<synthetic>', usage: usage(9) } }],
      [],
    ],
    ['sidechain', [asst('side', usage(50), { isSidechain: true }), asst('main', usage(7))], [7]],
    ['no usage', [{ type: 'assistant', message: { id: 'n', model: 'm' } }], []],
    ['junk', [null, 3, 'x', { type: 'assistant', message: 'nope' }], []],
  ];
  for (const [name, entries, want] of cases)
    assert.deepEqual(
      foldCalls(entries, 's').map((c) => c.context),
      want,
      name,
    );
});

test('a growing session read in two parts counts a call split across the parts once', () => {
  const calls = foldCalls([asst('a', usage(1)), asst('b', usage(2, 0, 0, 1))], 's');
  foldCalls([asst('b', usage(2, 0, 0, 40)), asst('c', usage(3))], 's', calls);
  assert.deepEqual(
    calls.map((c) => [c.id, c.output]),
    [
      ['a', 1],
      ['b', 40],
      ['c', 1],
    ],
  );
});

test("a step's calls are those made between its start and end (a session continued by a later round keeps its own)", () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
  const calls = foldCalls([asst('a', usage(1), {}, at(1)), asst('b', usage(2), {}, at(5)), asst('c', usage(3), {}, at(9))], 's');
  assert.deepEqual(
    callsBetween(calls, at(0), at(6)).map((c) => c.id),
    ['a', 'b'],
  );
  assert.deepEqual(
    callsBetween(calls, at(6), null).map((c) => c.id),
    ['c'],
    'still running: up to now',
  );
  assert.deepEqual(
    callsBetween(calls, 'garbage', at(1)).map((c) => c.id),
    ['a', 'b', 'c'],
    'no usable start: all',
  );
});

test('figures: cache hit rate, tool counts, subagent share (token prices), spill savings', () => {
  const main = [
    { type: 'assistant', message: { id: 'm1', model: 'x', usage: usage(100, 0, 900), content: [{ type: 'tool_use', id: 't1', name: 'Agent', input: {} }] } },
    {
      type: 'user',
      message: {
        content: [
          {
            type: 'tool_result',
            tool_use_id: 't1',
            content: [
              { type: 'text', text: `[output spilled: 10000 chars → /w/spill/ab.txt — use Read for the full text, Grep to search] Head:\n${'h'.repeat(400)}` },
            ],
          },
        ],
      },
    },
    { type: 'assistant', message: { id: 'm1', model: 'x', usage: usage(100, 0, 900), content: [{ type: 'tool_use', id: 't1', name: 'Agent', input: {} }] } },
  ];
  const sub = [
    {
      type: 'assistant',
      isSidechain: true,
      message: {
        id: 's1',
        model: 'x',
        usage: usage(1000, 0, 0, 0),
        content: [
          { type: 'tool_use', id: 't2', name: 'Bash', input: {} },
          { type: 'tool_use', id: 't3', name: 'Bash', input: {} },
        ],
      },
    },
  ];
  const f = figuresOf(main, [sub], 'sid');
  assert.equal(f.calls, 1);
  assert.equal(f.subagentCalls, 1);
  assert.equal(f.cacheHitRate, 900 / 2000);
  assert.deepEqual(f.tools, { Agent: 1, Bash: 2 });
  // main: 100 + 900*0.1 + 1*5 = 195; sub: 1000
  assert.equal(f.subagentCostShare, 1000 / 1195);
  assert.equal(f.spills, 1);
  assert.ok(f.spillSavedChars > 9000 && f.spillSavedChars < 9600, String(f.spillSavedChars));
  assert.deepEqual(spillOf('[输出过长,已转存:5000 字符 → /a/b.txt —— 用 Read 看全文,用 Grep 搜索] 开头:x'), {
    chars: 5000,
    file: '/a/b.txt',
    pointerChars: 58,
  });
  assert.equal(spillOf('nothing spilled here'), null);
});

test('the curve: an svg role=img whose English label says context, one circle per call, far limits noted, a line per handoff', () => {
  const mk = (n: number, session = 's1'): ModelCall[] =>
    Array.from({ length: n }, (_, k) => ({
      id: `${session}-${k}`,
      at: '',
      session,
      input: 0,
      cacheCreation: 0,
      cacheRead: 0,
      output: 0,
      context: 1000 * (k + 1),
    }));
  for (const calls of [[], mk(1), mk(7), [...mk(3), ...mk(4, 's2'), ...mk(2, 's3')]]) {
    const svg = curveSvg({ calls, window: 200_000, threshold: 150_000, label: '干活' });
    assert.match(svg, /^<svg class="curve" role="img" aria-label="context curve of 干活: /);
    assert.equal((svg.match(/<circle /g) ?? []).length, calls.length);
    // a few thousand tokens under a 200K window: the lines are named in a note, not drawn
    assert.equal((svg.match(/<line class="window"/g) ?? []).length, 0);
    assert.equal((svg.match(/<line class="threshold"/g) ?? []).length, 0);
    assert.match(svg, /<text class="beyond"[^>]*>handoff threshold 150\.0K, window 200\.0K — above the chart/);
    assert.equal((svg.match(/<line class="handoff"/g) ?? []).length, new Set(calls.map((c) => c.session)).size - (calls.length ? 1 : 0));
    assert.doesNotMatch(svg, /NaN|undefined|Infinity/);
  }
  // a context over the window stays on the chart
  const over = curveSvg({ calls: [{ ...mk(1)[0]!, context: 300_000 }], window: 200_000, threshold: 150_000, label: 'x' });
  const cy = Number(/<circle [^>]*cy="([\d.]+)"/.exec(over)![1]);
  assert.ok(cy >= 10, 'inside the plot');
  assert.match(curveSvg({ calls: [], window: 1, threshold: 1, label: '<b>"x"</b>' }), /aria-label="context curve of &lt;b&gt;&quot;x&quot;&lt;\/b&gt;:/);
});

test('escaping: HTML special characters, terminal escapes and control bytes', () => {
  const cases: Array<[string, string]> = [
    ['<script>alert("x")</script>', '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'],
    ['\u001b[1;31mred\u001b[0m', 'red'],
    ['\u001b]8;;http://evil\u0007link\u001b]8;;\u0007', 'link'],
    ["a\u0000b\u0008c\td\r\ne'", 'abc\td\ne&#39;'],
    ['中文 · ok', '中文 · ok'],
  ];
  for (const [input, want] of cases) assert.equal(esc(input), want, JSON.stringify(input));
  assert.equal(clean(undefined), '');
});

test('manifest and lineage: readable parts kept, damage reported with the file name', () => {
  assert.deepEqual(parseManifest('[]', 'm.json'), { rows: [], problems: [] });
  for (const bad of ['', '{', '{"a":1}', 'null', '"x"']) {
    const r = parseManifest(bad, '/r/manifest.json');
    assert.equal(r.rows.length, 0);
    assert.equal(r.problems[0]!.file, '/r/manifest.json', bad);
  }
  const good = {
    run: 'r',
    step: 's',
    session_id: null,
    ok: true,
    cost_usd: 1,
    num_turns: 1,
    text: '',
    error: null,
    started_at: '',
    ended_at: null,
    attempts: 1,
    errors: [],
    resumed: false,
    duration_s: 0,
    verdict: { outcome: 'achieved', passed: 1, total: 1 },
  };
  const mixed = parseManifest(JSON.stringify([good, { ...good, cost_usd: 'lots' }, { step: 's' }, 7]), 'm');
  assert.equal(mixed.rows.length, 1);
  assert.deepEqual(mixed.rows[0]!.verdict, good.verdict);
  assert.match(mixed.problems[0]!.message, /3 unreadable rows/);
  assert.match(parseManifest('[{"__proto__": {}}]', 'm').problems[0]!.message, /not valid JSON/);
});

test('lineage through the versioned reader, read-only: damage is a problem naming the file and the file stays as it was', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-ui-lineage-'));
  const file = path.join(dir, 'lineage.json');
  assert.deepEqual(readLineage(file), { lineage: null, problems: [] }, 'missing: nothing to say');
  fs.writeFileSync(file, '{"workspace":"/w","woke":2,"steps":{"a":"s1"}}');
  assert.equal(readLineage(file).lineage?.steps.a, 's1', 'version 0 (the seed)');
  fs.writeFileSync(file, '{"version":1,"workspace":"/w","woke":1,"steps":{},"workbench":"/wb"}');
  assert.equal(readLineage(file).lineage?.workbench, '/wb');
  for (const bad of ['[', '[]', '{"workspace":1,"steps":{}}', '{"workspace":"/w"}', '{"version":99,"workspace":"/w","woke":0,"steps":{}}']) {
    fs.writeFileSync(file, bad);
    const r = readLineage(file);
    assert.equal(r.lineage, null, bad);
    assert.equal(r.problems[0]?.file, file, bad);
    assert.equal(fs.readFileSync(file, 'utf8'), bad, 'left in place');
    assert.deepEqual(fs.readdirSync(dir), ['lineage.json'], 'nothing kept aside: the ui writes nothing');
  }
});

test("runs are grouped by run id in the order they started, wake numbers from 1; the verdict is the structured field, then the judge's call, then its text", () => {
  const row = (run: string, step: string, started: string, o: Partial<UiRow> = {}): UiRow => ({
    run,
    step,
    started_at: started,
    ended_at: started,
    ok: true,
    cost_usd: 0.5,
    num_turns: 1,
    text: '',
    error: null,
    attempts: 1,
    errors: [],
    resumed: false,
    retired: [],
    context: 0,
    duration_s: 1,
    session_id: 's',
    ...o,
  });
  const g = groupRuns([row('b', 'x', '2026-01-02T00:00:00Z'), row('a', 'x', '2026-01-01T00:00:00Z'), row('b', 'y', '2026-01-02T00:01:00Z', { ok: false })]);
  assert.deepEqual(
    g.map((x) => [x.run, x.wake, x.rows.length, x.cost, x.ok]),
    [
      ['a', 1, 1, 0.5, true],
      ['b', 2, 2, 1, false],
    ],
  );
  const call = verdictCallOf([
    {
      type: 'assistant',
      message: {
        content: [
          {
            type: 'tool_use',
            name: 'mcp__human__submit_verdict',
            input: { state: 'not_yet', reason: 'r', checks: [{ item: 'i', pass: false, evidence: 'e' }] },
          },
        ],
      },
    },
  ]);
  assert.equal(call?.state, 'not_yet');
  const j = row('a', '干活·判定#1', '2026-01-01T00:00:00Z', { text: '结论:已达成' });
  assert.equal(verdictOf({ ...j, verdict: { outcome: 'unreachable', passed: 0, total: 2 } }, call).outcome, 'unreachable');
  assert.equal(verdictOf(j, call).outcome, 'not_yet');
  assert.equal(verdictOf(j, null).outcome, 'achieved');
  assert.equal(verdictOf({ ...j, text: '嗯' }, null).outcome, 'unclear');
});
