/**
 * The session trace as tables: the line diff, which records are conversation, the timeline, the trace of
 * a hand-made session (subagent named by its Agent call, a Write over a file an earlier Read showed, an
 * Edit, a failed Write), the SQLite reader giving the same trace as the pure path over whole entries,
 * and search (wildcards literal, everything escaped) through the request handler.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { SqliteSessionStore } from '../../src/store/index.js';
import { FileSource, handle, type UiApp } from '../../src/ui/index.js';
import { diffLines, diffStat, diffHtml } from '../../src/ui/diff.js';
import { entryHtml, isConversation } from '../../src/ui/entries.js';
import { TRACE_WINDOW, likePattern } from '../../src/ui/sqlite-trace.js';
import { timelineView } from '../../src/ui/timeline.js';
import { rowOf, traceOf, type TimelineItem } from '../../src/ui/trace.js';
import { snippet } from '../../src/ui/trace-view.js';
import { project } from '../helpers/e2e.js';

test('diffLines: the removed and the added lines between a common head and tail', () => {
  const cases: Array<[string, string, string, { removed: number; added: number }]> = [
    ['a\nb\nc\n', 'a\nB\nc\n', ' a|-b|+B| c', { removed: 1, added: 1 }],
    ['', 'x\ny\n', '+x|+y', { removed: 0, added: 2 }],
    ['x\ny', '', '-x|-y', { removed: 2, added: 0 }],
    ['a\nb\nc', 'a\nc', ' a|-b| c', { removed: 1, added: 0 }],
    ['1\n2\n3\n4', '1\n3\n2\n4', ' 1|-2| 3|+2| 4', { removed: 1, added: 1 }],
    ['same', 'same', ' same', { removed: 0, added: 0 }],
  ];
  for (const [a, b, want, stat] of cases) {
    const ops = diffLines(a, b);
    assert.equal(ops.map((o) => `${o.op}${o.line}`).join('|'), want, `${JSON.stringify(a)} → ${JSON.stringify(b)}`);
    assert.deepEqual(diffStat(ops), stat);
  }
  const html = diffHtml(diffLines('keep\n<old>\n', 'keep\n<new>\n'));
  assert.match(html, /<del class="d-del">- &lt;old&gt;<\/del>/);
  assert.match(html, /<ins class="d-add">\+ &lt;new&gt;<\/ins>/);
  const long = diffHtml(diffLines(`${'x\n'.repeat(50)}a\n`, `${'x\n'.repeat(50)}b\n`));
  assert.match(long, /… 47 unchanged lines/, 'long unchanged runs fold');
});

test('isConversation: an allowlist of user, assistant and the system entries that matter', () => {
  const cases: Array<[unknown, boolean]> = [
    [{ type: 'user' }, true],
    [{ type: 'assistant' }, true],
    [{ type: 'system', subtype: 'api_error' }, true],
    [{ type: 'system', subtype: 'compact_boundary' }, true],
    [{ type: 'system', subtype: 'turn_duration' }, false],
    [{ type: 'queue-operation' }, false],
    [{ type: 'attachment' }, false],
    [{ type: 'atis-latch' }, false],
    [{ type: 'tools-used' }, false],
    [{ type: 'last-prompt' }, false],
    [{ type: 'cost-state' }, false],
    [{ type: 'agent_metadata' }, false],
    [{ type: 'some-record-a-newer-binary-adds' }, false],
  ];
  for (const [e, want] of cases) assert.equal(isConversation(e), want, JSON.stringify(e));
});

test('timelineView: all calls when they fit, else the longest in time order', () => {
  const it = (start: number, ms: number): TimelineItem => ({
    kind: 'tool',
    lane: '',
    label: `t${start}`,
    tool: 'Bash',
    id: `${start}`,
    start,
    end: start + ms,
    error: false,
  });
  const items = [it(0, 5), it(10, 50), it(20, 1), it(30, 30), it(40, 2)];
  assert.deepEqual(
    timelineView(items).rows.map((r) => r.start),
    [0, 10, 20, 30, 40],
  );
  const v = timelineView(items, 2);
  assert.deepEqual(
    v.rows.map((r) => r.start),
    [10, 30],
  );
  assert.equal(v.total, 5);
  assert.equal(v.longest, 50);
});

const T = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const SID = '99999999-8888-7777-6666-555555555555';
const AGENT = 'a0123456789abcdef';
const asst = (s: number, id: string, content: unknown[], extra = {}) => ({
  type: 'assistant',
  timestamp: T(s),
  uuid: `u-${id}-${s}`,
  message: { id, model: 'm', content, usage: { input_tokens: 100, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 10 } },
  ...extra,
});
const result = (s: number, toolUseId: string, content: string, extra: Record<string, unknown> = {}, isError = false) => ({
  type: 'user',
  timestamp: T(s),
  uuid: `r-${toolUseId}`,
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUseId, content, is_error: isError }] },
  ...extra,
});
const MAIN = [
  { type: 'queue-operation', operation: 'enqueue', timestamp: T(0), sessionId: SID },
  { type: 'user', timestamp: T(0), uuid: 'u0', message: { role: 'user', content: 'build it' } },
  asst(1, 'm1', [{ type: 'tool_use', id: 'tu-read', name: 'Read', input: { file_path: '/w/app.js' } }]),
  result(2, 'tu-read', '1\told line\n', {
    toolUseResult: { type: 'text', file: { filePath: '/w/app.js', content: 'keep\nold line\n', numLines: 2, startLine: 1, totalLines: 2 } },
  }),
  asst(3, 'm2', [{ type: 'tool_use', id: 'tu-agent', name: 'Agent', input: { description: 'rewrite <app>', prompt: 'do it', subagent_type: 'worker' } }]),
  result(20, 'tu-agent', 'done', { toolUseResult: { status: 'completed', agentId: AGENT } }),
  asst(21, 'm3', [{ type: 'text', text: 'all done' }]),
  { type: 'cost-state', sessionId: SID, totalCostUSD: 1 },
];
const SUB = [
  { type: 'agent_metadata', agentType: 'worker', description: 'rewrite <app>', toolUseId: 'tu-agent' },
  { type: 'user', timestamp: T(4), isSidechain: true, uuid: 's0', message: { role: 'user', content: 'do it' } },
  asst(5, 's1', [{ type: 'tool_use', id: 'tu-w1', name: 'Write', input: { file_path: '/w/app.js', content: 'keep\nnew line\n' } }], { isSidechain: true }),
  result(6, 'tu-w1', 'updated', { isSidechain: true }),
  asst(7, 's2', [{ type: 'tool_use', id: 'tu-e1', name: 'Edit', input: { file_path: '/w/app.js', old_string: 'new line', new_string: 'newer line' } }], {
    isSidechain: true,
  }),
  result(9, 'tu-e1', 'edited', { isSidechain: true }),
  asst(10, 's3', [{ type: 'tool_use', id: 'tu-w2', name: 'Write', input: { file_path: '/etc/nope', content: 'x' } }], { isSidechain: true }),
  result(11, 'tu-w2', 'EACCES', { isSidechain: true }, true),
  asst(12, 's4', [{ type: 'tool_use', id: 'tu-w3', name: 'Write', input: { file_path: '/w/app.js', content: 'keep\nnewest line\n' } }], { isSidechain: true }),
  result(13, 'tu-w3', 'updated', { isSidechain: true }),
  asst(14, 's5', [{ type: 'text', text: 'report' }], { isSidechain: true }),
];

test('traceOf: the subagent named by its Agent call, Write against what was there, Edit old → new, a failed Write', () => {
  const t = traceOf({ main: MAIN.map((e, i) => rowOf(i, e)), subs: [{ subpath: `subagents/agent-${AGENT}`, rows: SUB.map((e, i) => rowOf(i, e)) }] });
  assert.deepEqual(
    t.subagents.map((s) => [s.agentId, s.description, s.toolUseId, s.calls, (s.end - s.start) / 1000]),
    [[AGENT, 'rewrite <app>', 'tu-agent', 5, 10]],
  );
  assert.deepEqual(
    t.changes.map((c) => [c.tool, c.path, c.before, c.after, c.known, c.failed]),
    [
      ['Write', '/w/app.js', 'keep\nold line\n', 'keep\nnew line\n', true, false],
      ['Edit', '/w/app.js', 'new line', 'newer line', true, false],
      ['Write', '/etc/nope', null, 'x', false, true],
      // the Edit was applied to what the first Write left
      ['Write', '/w/app.js', 'keep\nnewer line\n', 'keep\nnewest line\n', true, false],
    ],
  );
  const agent = t.items.find((i) => i.id === 'tu-agent')!;
  assert.equal(agent.end - agent.start, 17_000, 'a tool call lasts from its tool_use to its result');
  const firstModel = t.items.find((i) => i.id === 'm2')!;
  assert.equal(firstModel.end - firstModel.start, 1000, 'a model call starts at the entry before it');
  assert.equal(t.items.find((i) => i.id === 'tu-w2')!.error, true);
  assert.equal(t.items.filter((i) => i.kind === 'model').length, 3 + 5);
});

function madeRunDir(): string {
  const q = project('ui-trace');
  const store = new SqliteSessionStore(path.join(q.runs, 'sessions.db'));
  store.appendSync({ projectKey: 'p', sessionId: SID }, MAIN as never);
  store.appendSync({ projectKey: 'p', sessionId: SID, subpath: `subagents/agent-${AGENT}` }, SUB as never);
  store.close();
  const row = {
    run: 'r<1>',
    step: '干活',
    session_id: SID,
    ok: true,
    cost_usd: 2,
    num_turns: 3,
    text: '',
    error: null,
    started_at: T(0),
    ended_at: T(30),
    attempts: 2,
    errors: ['529 overloaded_error: busy'],
    resumed: true,
    retired: [],
    context: 0,
    duration_s: 30,
  };
  fs.writeFileSync(path.join(q.runs, 'manifest.json'), JSON.stringify([row]));
  return q.runs;
}

test('the SQLite reader extracts the same trace in SQL as the pure path over whole entries', async () => {
  const src = FileSource.at(madeRunDir());
  const fromDb = await src.sessions.trace(SID);
  const pure = traceOf({ main: MAIN.map((e, i) => rowOf(i, e)), subs: [{ subpath: `subagents/agent-${AGENT}`, rows: SUB.map((e, i) => rowOf(i, e)) }] });
  assert.deepEqual(fromDb, pure);
  src.sessions.close();
});

test('the session page: step and run, attempts, the tree, what changed, the timeline, search escaped and literal', async () => {
  const a: UiApp = { source: FileSource.at(madeRunDir()), token: 't', window: 200_000, threshold: 150_000 };
  const get = async (u: string) => (await handle(a, 'GET', `${u}${u.includes('?') ? '&' : '?'}token=t`)).body;
  const html = await get(`/session/${SID}`);
  assert.match(html, /step <span class="step-name">干活<\/span> of run <a[^>]*><code>r&lt;1&gt;<\/code>/);
  assert.match(
    html,
    /<li class="attempt failed"><span class="n">attempt 1<\/span> <span class="kind">failed<\/span> <span class="why">529 overloaded_error: busy/,
  );
  assert.match(html, /<a class="task" href="[^"]*sub=subagents%2Fagent-a0123456789abcdef[^"]*">rewrite &lt;app&gt;<\/a>/);
  assert.match(html, /<li class="changed-file"><code class="path">\/w\/app\.js<\/code> <a href="#change-0">Write by rewrite &lt;app&gt;<\/a>/);
  assert.match(html, /<del class="d-del">- old line<\/del><ins class="d-add">\+ new line<\/ins>/);
  assert.match(html, /<tr class="tl tool long" data-ms="17000">/, 'the longest call is marked');
  assert.doesNotMatch(html, /queue-operation|cost-state/);
  assert.match(html, /show harness records \(2 on this page\)/);
  assert.match(await get(`/session/${SID}?harness=1`), /<span class="role">queue-operation<\/span>/);

  const hit = await get(`/session/${SID}?q=${encodeURIComponent('<app>')}`);
  assert.match(hit, /matches for <q>&lt;app&gt;<\/q>: [1-9]/);
  assert.match(hit, /<mark>&lt;app&gt;<\/mark>/);
  assert.doesNotMatch(hit, /<app>/);
  assert.match(await get(`/session/${SID}?q=%25`), /matches for <q>%<\/q>: 0/, '% is literal');
  const run = await get(`/search?run=${encodeURIComponent('r<1>')}&q=newest`);
  assert.match(run, /<section class="search-results" data-session="99999999[^"]*">/);
  const m = /<a href="([^"]*)#e-(\d+)">rewrite &lt;app&gt; · entry (\d+)<\/a>/.exec(run)!;
  assert.ok(m, 'a hit in the subagent, named by its task');
  assert.equal(Number(m[3]), Number(m[2]) + 1);
  const target = (await handle(a, 'GET', m[1]!.replace(/&amp;/g, '&'))).body;
  assert.match(target, new RegExp(`<li [^>]*id="e-${m[2]}"[^>]*>[\\s\\S]*?newest line`), 'the link leads to the entry');
  assert.equal(likePattern('50%_a\\b'), '%50\\%\\_a\\\\b%');
  assert.equal(snippet({ t: 'x<y' }, '<'), '{&quot;t&quot;:&quot;x<mark>&lt;</mark>y&quot;}…');
});

test('a transcript longer than the trace window: the trace covers its newest entries, and the page says so', async () => {
  const q = project('ui-trace-window');
  const sid = '12121212-3434-5656-7878-909090909090';
  const store = new SqliteSessionStore(path.join(q.runs, 'sessions.db'));
  const n = TRACE_WINDOW + 50;
  const entries = Array.from({ length: n }, (_, k) =>
    k % 2
      ? asst(k % 60, `m${k}`, [{ type: 'text', text: `reply ${k}` }], { uuid: `a${k}` })
      : { type: 'user', uuid: `u${k}`, timestamp: T(k % 60), message: { role: 'user', content: `ask ${k}` } },
  );
  store.appendSync({ projectKey: 'p', sessionId: sid }, entries as never);
  store.close();
  const src = FileSource.at(q.runs);
  const t = await src.sessions.trace(sid);
  assert.equal(t.from, 50);
  assert.equal(t.items.length, TRACE_WINDOW / 2, 'one model call per assistant entry of the window');
  const html = (await handle({ source: src, token: 't', window: 1, threshold: 1 }, 'GET', `/session/${sid}?token=t`)).body;
  assert.match(html, /the trace \(subagents, changes, timeline\) covers the newest entries, from entry 51 of 10,050/);
  assert.match(html, /the 300 longest of 5,000 calls, in time order/);
  src.sessions.close();
});

test('real transcripts: denials and API errors are styled as such, Bash shows its command and output', () => {
  const read = (f: string) =>
    fs
      .readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'transcripts', f), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as unknown);
  const ctxOf = (es: unknown[]) => {
    const t = traceOf({ main: es.map((e, i) => rowOf(i, e)), subs: [] });
    return { changes: new Map(t.changes.map((c) => [c.toolUseId, c])), tools: new Map(t.items.filter((i) => i.kind === 'tool').map((i) => [i.id, i.tool])) };
  };
  const denials = read('denials.jsonl');
  const d = denials.map((e, i) => entryHtml(i, e, ctxOf(denials))).join('\n');
  assert.equal((d.match(/<li class="entry user denial"/g) ?? []).length, 3, 'the three denied calls');
  assert.equal((d.match(/<div class="tool-result denied"><span class="label">denied<\/span>/g) ?? []).length, 3);
  assert.match(d, /<pre class="command">\$ rm -rf build<\/pre>/);
  const api = read('api-errors.jsonl');
  const a = api.map((e, i) => entryHtml(i, e, ctxOf(api))).join('\n');
  assert.match(a, /<li class="entry system api-error"[^>]*><span class="role">API error<\/span>.*<span class="status">500<\/span>.* · retry 1\/1/);
  assert.match(a, /<li class="entry assistant api-error"[^>]*><span class="role">API error<\/span>/);
  assert.match(a, /<div class="tool-result"><span class="label">output<\/span><pre>total 8/, 'a Bash output shown under its command');
});

test("a row that records its retried attempts' typed failures shows each attempt's kind, status and reason", async () => {
  const runs = madeRunDir();
  const file = path.join(runs, 'manifest.json');
  const [row] = JSON.parse(fs.readFileSync(file, 'utf8'));
  const failures = [{ attempt: 1, kind: 'overloaded', retryable: true, message: '529 overloaded_error: busy\nsecond line', status: 529 }];
  fs.writeFileSync(file, JSON.stringify([{ ...row, attempt_failures: failures }]));
  const source = FileSource.at(runs);
  const a: UiApp = { source, token: 't', window: 200_000, threshold: 150_000 };
  const html = (await handle(a, 'GET', `/session/${SID}?token=t`)).body;
  assert.match(
    html,
    /<li class="attempt failed"><span class="n">attempt 1<\/span> <span class="kind">overloaded<\/span> <span class="status">529<\/span> \(retryable\) <span class="why">529 overloaded_error: busy<\/span><\/li><li class="attempt ok">/,
  );
  assert.doesNotMatch(html, /second line/);
  source.sessions.close();
});
