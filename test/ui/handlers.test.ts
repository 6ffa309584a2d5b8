/**
 * The ui's handlers in-process, on a run dir made by the real default flow (claude binary + scripted
 * model): the token, the landing page, the session pages, damaged files, sanitising, paging, and that
 * nothing in the run dir is ever written.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { startSim, type Sim } from '../../src/sim/index.js';
import { SqliteSessionStore } from '../../src/store/index.js';
import { FileSource, handle, type UiApp } from '../../src/ui/index.js';
import { project, readJson, type Project } from '../helpers/e2e.js';
import { copyRuns, firstFlow, listing, type FlowRun } from './fixture.js';

let sim: Sim;
let p: Project;
let run: FlowRun;
const TOKEN = 'tok-123';
const app = (runDir: string): UiApp => ({ source: FileSource.at(runDir), token: TOKEN, window: 200_000, threshold: 150_000 });
const get = (a: UiApp, url: string) => handle(a, 'GET', url);

before(async () => {
  sim = await startSim({ port: 0, onUnexpected: 'error' });
  ({ p, run } = await firstFlow(sim, 'ui-handlers'));
});
after(async () => {
  await sim.close();
});

interface Row {
  run: string;
  step: string;
  session_id: string;
}
const rows = (dir: string) => readJson<Row[]>(path.join(dir, 'manifest.json'));

/** The svg drawn for one step (its aria-label names the step). */
function curveOf(html: string, step: string): string {
  const m = new RegExp(`<svg[^>]*role="img"[^>]*aria-label="context curve of ${step}:[^"]*"[\\s\\S]*?</svg>`).exec(html);
  assert.ok(m, `a context curve for ${step}`);
  return m[0];
}

test('every request needs the token: 401 without, 403 with a wrong one — static files and the favicon too', async () => {
  const a = app(p.runs);
  for (const pathname of ['/', '/static/ui.css', '/static/ui.js', '/favicon.svg', '/favicon.ico', '/api/fingerprint', '/api/runs', '/session/x']) {
    assert.equal((await get(a, pathname)).status, 401, pathname);
    assert.equal((await get(a, `${pathname}?token=`)).status, 401, pathname);
    assert.equal((await get(a, `${pathname}?token=tok-12`)).status, 403, pathname);
    assert.equal((await get(a, `${pathname}?token=TOK-123`)).status, 403, pathname);
  }
  for (const pathname of ['/', '/static/ui.css', '/static/ui.js', '/favicon.svg', '/favicon.ico', '/api/fingerprint']) {
    assert.equal((await get(a, `${pathname}?token=${TOKEN}`)).status, 200, pathname);
  }
  assert.equal((await handle(a, 'POST', `/?token=${TOKEN}`)).status, 405, 'read-only');
});

test("the landing page shows the run, its steps, the verdict with evidence, costs and the work step's context curve", async () => {
  const r = await get(app(p.runs), `/?token=${TOKEN}`);
  assert.equal(r.status, 200);
  const html = r.body;
  const id = rows(p.runs)[0]!.run;
  assert.match(html, new RegExp(`<span class="run-id">${id}</span>`));
  for (const step of ['确认需求', '设定目标', '干活', '干活·判定#1']) assert.ok(html.includes(`data-step="${step}"`), step);
  // the name a person reads: the seed's translated (the page is English), the name itself beside it
  assert.match(html, /data-step="确认需求">\s*<td class="name">clarify \(确认需求\)<\/td>/);
  assert.match(html, /data-step="干活·判定#1">\s*<td class="name">work · judge #1 \(干活·判定#1\)<\/td>/);
  assert.match(html, /verdict: achieved (\d+)\/\1</, 'all checks passed, counted');
  assert.match(html, /class="evidence">— node md2html\.mjs sample\.md 输出/, 'per-check evidence from the judge');
  assert.match(html, /class="run-cost">\$\d+\.\d\d/);
  const svg = curveOf(html, '干活');
  assert.equal((svg.match(/<circle /g) ?? []).length, run.workCalls, 'one point per model call of the work step');
  assert.ok(run.workCalls >= 2);
  // far above the step's own peak: named on the chart, not drawn (a linear axis scaled to the peak)
  assert.match(svg, /<text class="beyond"[^>]*>handoff threshold 150\.0K, window 200\.0K — above the chart \(peak /);
  // every link inside the page carries the token (but a jump within the page, which requests nothing)
  for (const m of html.matchAll(/(?:href|src)="([^"#][^"]*)"/g)) assert.match(m[1]!, /token=tok-123/, m[1]);
  for (const m of html.matchAll(/href="(#[^"]*)"/g)) assert.match(m[1]!, /^#run-[\w-]+$/, 'a fragment only to a run card');
  // the overview: the request the person typed, on the table and on the card
  assert.match(html, new RegExp(`<tr class="run-row state-achieved" data-run="${id}">\\s*<td class="request"><a href="#run-${id}">写个 md 转 html 的脚本</a>`));
  assert.match(html, /<h2 class="request">写个 md 转 html 的脚本<\/h2>/);
  // the workspace's brief and goal checklist
  assert.match(html, /需求\.md/);
  assert.match(html, /<ul class="checklist"><li>/);
});

test('a session page: figures, the whole curve, subagents, the transcript; an unknown session is a 404 page', async () => {
  const a = app(p.runs);
  const work = rows(p.runs).find((x) => x.step === '干活')!;
  const r = await get(a, `/session/${work.session_id}?token=${TOKEN}`);
  assert.equal(r.status, 200);
  assert.match(r.body, /cache hit rate/);
  assert.match(r.body, /<code>Agent<\/code> 1/);
  assert.match(r.body, /subagent share of cost<\/th><td class="sub-share">\d+\.\d%/);
  // the subagent is named by its Agent call's description (the scenario's task), linking to its transcript
  assert.match(r.body, /<a class="task" href="\/session\/[^"]*sub=subagents%2Fagent-[^"]*">写 md2html\.mjs<\/a>/);
  assert.match(r.body, /<div class="tool-use kind-agent"><span class="tool">Agent<\/span> <span class="task">写 md2html\.mjs<\/span>/);
  assert.doesNotMatch(r.body, /<span class="role">queue-operation<\/span>/, 'harness records hidden by default');
  assert.match((await get(a, `/session/${work.session_id}?harness=1&token=${TOKEN}`)).body, /<span class="role">queue-operation<\/span>/);
  const sub = /href="(\/session\/[^"]*sub=[^"]*)"/.exec(r.body)![1]!.replace(/&amp;/g, '&');
  const s = await get(a, sub);
  assert.equal(s.status, 200);
  assert.match(s.body, /<div class="tool-use kind-edit"><span class="tool">Write<\/span>/);
  assert.match(s.body, /<div class="tool-use kind-bash"><span class="tool">Bash<\/span> <pre class="command">\$ node md2html\.mjs sample\.md<\/pre>/);
  for (const bad of ['/session/no-such-session', '/session/%E0%A4%A', '/session/a%2Fb', '/nothing/here']) {
    const n = await get(a, `${bad}?token=${TOKEN}`);
    assert.equal(n.status, 404, bad);
    assert.match(n.body, /404 — not found/);
  }
  assert.equal((await get(a, `/session/${work.session_id}?sub=subagents/none&token=${TOKEN}`)).status, 404);
});

test('damaged files show a banner naming the file, never a blank page or a stack trace', async () => {
  const cases: Array<[string, string, string | Buffer]> = [
    ['manifest.json', 'not json', '{"oops'],
    ['manifest.json', 'not a list', '{"step":"x"}'],
    ['lineage.json', 'not json', '[[['],
    ['lineage.json', 'wrong shape', '{"workspace": 3}'],
    ['sessions.db', 'not sqlite', Buffer.from('this is not a database, just text '.repeat(200))],
  ];
  for (const [file, why, content] of cases) {
    const dir = copyRuns(p.runs, 'damaged');
    fs.writeFileSync(path.join(dir, file), content);
    const r = await get(app(dir), `/?token=${TOKEN}`);
    assert.equal(r.status, 200, `${file} ${why}`);
    assert.match(
      r.body,
      new RegExp(`<div class="banner" role="alert"><strong>Cannot read <code class="file">[^<]*${file.replace('.', '\\.')}</code>`),
      `${file} ${why}`,
    );
    assert.doesNotMatch(r.body, /\n\s+at .*\(.*:\d+:\d+\)/, 'no stack trace');
    assert.equal(fs.readFileSync(path.join(dir, file)).toString(), content.toString(), 'the damaged file is left as it was');
  }
  // a manifest with one good row and one bad one: the good one is shown, the bad one counted
  const dir = copyRuns(p.runs, 'partial');
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify([...rows(p.runs), { nope: 1 }]));
  const r = await get(app(dir), `/?token=${TOKEN}`);
  assert.match(r.body, /has 1 unreadable row/);
  assert.match(r.body, /data-step="干活"/);
  // no run dir at all: an empty page that says so
  const none = await get(app(path.join(p.dir, 'nowhere')), `/?token=${TOKEN}`);
  assert.equal(none.status, 200);
  assert.match(none.body, /No runs recorded yet/);
});

test('text from files and transcripts is escaped and stripped of terminal escapes', async () => {
  const dir = copyRuns(p.runs, 'hostile');
  const rs = rows(p.runs) as unknown as Array<Record<string, unknown>>;
  rs.push({
    ...rs[0]!,
    run: '<img src=x onerror=alert(1)>',
    step: '\u001b[31m<script>alert(1)</script>\u001b[0m',
    ok: false,
    error: 'boom \u001b]0;title\u0007<b>x</b>',
    text: '',
  });
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(rs));
  const r = await get(app(dir), `/?token=${TOKEN}`);
  assert.equal(r.status, 200);
  assert.doesNotMatch(r.body, /<script>alert|<img src=x|<b>x<\/b>/);
  assert.ok(!r.body.includes('\u001b') && !r.body.includes('\u0007'), 'no terminal escapes reach the page');
  assert.match(r.body, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(r.body, /boom &lt;b&gt;x&lt;\/b&gt;/);
});

test('a huge transcript is paged: 200 entries a page, with links to the rest', async () => {
  const q = project('ui-paging');
  const sid = '11111111-2222-3333-4444-555555555555';
  const store = new SqliteSessionStore(path.join(q.runs, 'sessions.db'));
  const entries = Array.from({ length: 1000 }, (_, k) =>
    k % 2
      ? {
          type: 'assistant',
          uuid: `a${k}`,
          timestamp: new Date(1_800_000_000_000 + k).toISOString(),
          message: {
            id: `m${k}`,
            model: 'm',
            content: [{ type: 'text', text: `reply ${k}` }],
            usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 1000 + k },
          },
        }
      : { type: 'user', uuid: `u${k}`, message: { role: 'user', content: `ask ${k}` } },
  );
  store.appendSync({ projectKey: 'p', sessionId: sid }, entries);
  store.close();
  fs.writeFileSync(
    path.join(q.runs, 'manifest.json'),
    JSON.stringify([
      {
        run: 'r1',
        step: '干活',
        session_id: sid,
        ok: true,
        cost_usd: 1,
        num_turns: 500,
        text: '',
        error: null,
        started_at: new Date(1_700_000_000_000).toISOString(),
        ended_at: new Date(1_900_000_000_000).toISOString(),
        attempts: 1,
        errors: [],
        resumed: false,
        retired: [],
        context: 0,
        duration_s: 1,
      },
    ]),
  );
  const a = app(q.runs);
  const first = await get(a, `/session/${sid}?token=${TOKEN}`);
  assert.equal((first.body.match(/<li class="entry/g) ?? []).length, 200);
  assert.match(first.body, /entries 1–200 of 1,000/);
  assert.match(first.body, /class="next" href="[^"]*from=200/);
  const last = await get(a, `/session/${sid}?from=900&token=${TOKEN}`);
  assert.match(last.body, /entries 901–1000 of 1,000/);
  assert.match(last.body, /ask 998/);
  assert.doesNotMatch(last.body, /class="next"/);
  const landing = await get(a, `/?token=${TOKEN}`);
  assert.equal((curveOf(landing.body, '干活').match(/<circle /g) ?? []).length, 500);
});

test('the ui never writes to the run dir: not after a finished run, not while a run writes (WAL)', async () => {
  const dir = copyRuns(p.runs, 'readonly');
  const before = listing(dir);
  const a = app(dir);
  const work = rows(dir).find((x) => x.step === '干活')!;
  for (const u of ['/', `/session/${work.session_id}`, '/api/fingerprint', '/api/runs']) await get(a, `${u}?token=${TOKEN}`);
  assert.deepEqual(listing(dir), before, 'no -wal / -shm or any other file appears; nothing changes');
  // a live writer: the ui reads what it appends, and holds no connection that would keep -wal behind
  const fp0 = (await get(a, `/api/fingerprint?token=${TOKEN}`)).body;
  const w = new SqliteSessionStore(path.join(dir, 'sessions.db'));
  const key = { projectKey: 'live', sessionId: work.session_id };
  w.appendSync(key, [
    {
      type: 'assistant',
      uuid: 'x1',
      timestamp: new Date().toISOString(),
      message: { id: 'live-1', model: 'm', content: [], usage: { input_tokens: 1, cache_creation_input_tokens: 2, cache_read_input_tokens: 3 } },
    },
  ]);
  const s = await get(a, `/session/${work.session_id}?token=${TOKEN}`);
  assert.equal(s.status, 200);
  assert.notEqual((await get(a, `/api/fingerprint?token=${TOKEN}`)).body, fp0, 'a write changes the fingerprint the page polls');
  w.close();
  assert.ok(!fs.existsSync(path.join(dir, 'sessions.db-wal')), 'the writer closed last: no WAL file left behind by the ui');
});

test('without -r the run dir is found upward, like git; with none anywhere it is ./runs', async () => {
  const { findRunDir } = await import('../../src/ui/index.js');
  const deep = path.join(p.dir, 'a', 'b');
  fs.mkdirSync(deep, { recursive: true });
  assert.equal(findRunDir(deep), p.runs);
  assert.equal(findRunDir(p.dir), p.runs);
  const lonely = project('ui-nowhere');
  assert.equal(findRunDir(lonely.ws), path.join(lonely.ws, 'runs'));
});

test("a handoff: the row's retired sessions lead to its current one, and the step's handoff note is rendered", async () => {
  const dir = copyRuns(p.runs, 'handoff');
  const rs = rows(p.runs) as unknown as Array<Record<string, unknown>>;
  const work = rs.find((x) => x.step === '干活')!;
  const judge = rs.find((x) => x.step === '确认需求')!;
  // the clarifier's session stands in for a retired generation of the work step (its calls fall inside the row's time)
  work.retired = [judge.session_id];
  work.started_at = judge.started_at;
  fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(rs));
  const notes = path.join(p.ws, '.flower', 'notes');
  fs.writeFileSync(path.join(notes, '交接-干活.md'), '# 交接书(干活)\n\n## 现在在做什么\n写 <md2html>\n\n## 下一步\n跑测试\n');
  try {
    const r = await get(app(dir), `/?token=${TOKEN}`);
    assert.match(
      r.body,
      new RegExp(
        `handoff generations: <a [^>]*><code>${String(judge.session_id).slice(0, 8)}</code></a> → <a [^>]*><code>${String(work.session_id).slice(0, 8)}</code></a>`,
      ),
    );
    assert.match(r.body, /<h4>现在在做什么<\/h4><pre>写 &lt;md2html&gt;<\/pre>/);
    assert.match(r.body, /<h4>下一步<\/h4><pre>跑测试<\/pre>/);
    const svg = curveOf(r.body, '干活');
    assert.equal((svg.match(/<line class="handoff"/g) ?? []).length, 1, 'one handoff drawn');
    assert.ok((svg.match(/<circle /g) ?? []).length > run.workCalls, "both generations' calls are on the curve");
    assert.match(svg, /aria-label="[^"]*2 sessions \(handoff generations\)/);
  } finally {
    fs.rmSync(path.join(notes, '交接-干活.md'));
  }
});

test("a row without an end is running only in the newest run and only while the run lock's holder lives", async () => {
  const dir = copyRuns(p.runs, 'stopped');
  const rs = rows(p.runs) as unknown as Array<Record<string, unknown>>;
  const open = (run: string, started: string) => ({ ...rs[2]!, run, started_at: started, ended_at: null, ok: false, duration_s: 0 });
  fs.writeFileSync(
    path.join(dir, 'manifest.json'),
    JSON.stringify([open('old-run', '2020-01-01T00:00:00.000Z'), ...rs, open('new-run', '2100-01-01T00:00:00.000Z')]),
  );
  const status = (html: string, run: string) => new RegExp(`<section [^>]*data-run="${run}"[\\s\\S]*?<td class="status">(\\w+)`).exec(html)?.[1];
  let r = await get(app(dir), `/?token=${TOKEN}`);
  assert.equal(status(r.body, 'old-run'), 'stopped', 'an older run cannot still be running');
  assert.equal(status(r.body, 'new-run'), 'running', 'no lock file: the newest run may be running');
  // a lock whose holder is gone: the newest run was stopped
  fs.writeFileSync(
    path.join(dir, 'run.lock'),
    JSON.stringify({ pid: 999_999_999, startedAt: null, host: (await import('node:os')).hostname(), since: new Date().toISOString() }),
  );
  r = await get(app(dir), `/?token=${TOKEN}`);
  assert.equal(status(r.body, 'new-run'), 'stopped');
  assert.ok(fs.existsSync(path.join(dir, 'run.lock')), 'the ui does not take over or remove a stale lock');
});
