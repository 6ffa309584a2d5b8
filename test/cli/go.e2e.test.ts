/**
 * The default flow end to end: `flower "…"` processes, the real claude binary, the scripted model.
 * Roles are routed by what their first message asks them to submit.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { SimItem } from '../../src/sim/index.js';
import { cli, project, readJson, startCli, testEnv, transcriptOf, until, type Project } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

interface Row {
  step: string;
  session_id: string;
  ok: boolean;
  error: string | null;
}

const clarifier = { firstUserIncludes: 'submit_brief' };
const goalSetter = { firstUserIncludes: 'submit_goal' };
const judge = { firstUserIncludes: 'submit_verdict' };
const coordinator = { toolsInclude: 'Agent' };

const brief = (): SimItem[] => [
  {
    type: 'tool_use',
    match: clarifier,
    name: 'mcp__human__submit_brief',
    input: { goal: '写 md2html 脚本', acceptance: ['node md2html.mjs a.md 输出 html'], boundaries: ['不用第三方库'], unknowns: ['输出到标准输出'] },
  },
  { type: 'text', match: clarifier, text: '好了' },
];
const goal = (checks = ['node md2html.mjs a.md 输出含 <h1>']): SimItem[] => [
  { type: 'tool_use', match: goalSetter, name: 'mcp__human__submit_goal', input: { statement: 'md 能转 html', checks: checks.map((text) => ({ text })) } },
  { type: 'text', match: goalSetter, text: '好了' },
];
const work = (text: string): SimItem[] => [{ type: 'text', match: coordinator, text }];
const verdict = (state: string, reason = '', items = ['输出含 <h1>']): SimItem[] => [
  {
    type: 'tool_use',
    match: judge,
    name: 'mcp__human__submit_verdict',
    input: { state, reason, checks: items.map((item) => ({ item, pass: state === 'achieved', evidence: '看了输出' })) },
  },
  { type: 'text', match: judge, text: '判定完毕' },
];

const go = (p: Project, args: string[]) =>
  cli([...args, '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url, { FLOWER_LANG: 'zh' }), timeoutMs: 120_000 });
const rows = (p: Project) => readJson<Row[]>(path.join(p.runs, 'manifest.json'));
const notes = (p: Project, f: string) => path.join(p.ws, '.flower', 'notes', f);

test('one sentence in: a four-section brief, a goal checklist, work, a verdict — and exit 0', async () => {
  const p = project('go');
  sim.reset();
  sim.enqueue(...brief(), ...goal(), ...work('写好了'), ...verdict('achieved'));
  const r = await go(p, ['写个 md 转 html 的脚本', '--timeout', '0']);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const b = fs.readFileSync(notes(p, '需求.md'), 'utf8');
  for (const h of ['## 目标', '## 验收标准', '## 边界', '## 未知与假设']) assert.ok(b.includes(h), h);
  assert.match(fs.readFileSync(notes(p, '目标.md'), 'utf8'), /# 判定清单\n- node md2html/);
  assert.deepEqual(
    rows(p).map((x) => x.step),
    ['确认需求', '设定目标', '干活', '干活·判定#1'],
  );
  assert.ok(rows(p).every((x) => x.ok));
  assert.match(r.stdout, /总花费 \$[\d.]+ · 清单 .*manifest\.json/);
  assert.deepEqual(sim.unexpected(), []);
  // the work prompt carries the brief and the goal; the workbench index is in its first message
  const workReq = sim.messageRequests().find((m) => (m.body as { tools?: { name: string }[] }).tools?.some((t) => t.name === 'Agent'));
  const firstUser = transcriptOf(workReq!.body)[0]!;
  assert.match(firstUser, /写 md2html 脚本/);
  assert.match(firstUser, /md 能转 html/);
  assert.match(firstUser, /<workbench>[\s\S]*INDEX|<workbench>/, 'the workbench index opens the new session');
  assert.doesNotMatch(JSON.stringify((workReq!.body as { system?: unknown }).system ?? ''), /<workbench>/, 'never in the system prompt');
  assert.ok(fs.existsSync(path.join(p.ws, '.flower', 'INDEX.md')));
});

test("not yet, then achieved: 干活#round2 continues the same session with the judge's reason", async () => {
  const p = project('round');
  sim.reset();
  sim.enqueue(...brief(), ...goal(), ...work('第一版'), ...verdict('not_yet', '空文件时崩溃'), ...work('修好了'), ...verdict('achieved'));
  const r = await go(p, ['写个 md 转 html 的脚本', '--timeout', '0']);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const rs = rows(p);
  assert.deepEqual(
    rs.map((x) => x.step),
    ['确认需求', '设定目标', '干活', '干活·判定#1', '干活#round2', '干活·判定#2'],
  );
  assert.equal(rs[4]!.session_id, rs[2]!.session_id);
  assert.notEqual(rs[5]!.session_id, rs[3]!.session_id, 'each judge is a fresh session');
  const round2 = sim
    .messageRequests()
    .filter((m) => (m.body as { tools?: { name: string }[] }).tools?.some((t) => t.name === 'Agent'))
    .at(-1)!;
  assert.match(transcriptOf(round2.body).at(-1)!, /空文件时崩溃/);
});

test('unreachable with nobody to ask: exit 1 naming the reason and the goal file, and no further rounds', async () => {
  const p = project('unreach');
  sim.reset();
  sim.enqueue(...brief(), ...goal(), ...work('做不了截图'), ...verdict('unreachable', '需要 macOS 的屏幕录制权限'));
  const r = await go(p, ['写个 md 转 html 的脚本', '--timeout', '0', '--rounds', '5']);
  assert.equal(r.code, 1);
  assert.match(r.stderr, /干活/);
  assert.match(r.stderr, /需要 macOS 的屏幕录制权限/);
  assert.match(r.stderr, /目标\.md/);
  assert.deepEqual(
    rows(p).map((x) => x.step),
    ['确认需求', '设定目标', '干活', '干活·判定#1'],
  );
  assert.match(fs.readFileSync(notes(p, '问答记录.md'), 'utf8'), /无法达成/);
});

test('a wake remark lands in three places; a silent wake makes no clarify or goal call; --new archives', async () => {
  const p = project('wake');
  sim.reset();
  sim.enqueue(...brief(), ...goal(), ...work('写好了'), ...verdict('achieved'));
  assert.equal((await go(p, ['写个 md 转 html 的脚本', '--timeout', '0'])).code, 0);
  const workSid = rows(p)[2]!.session_id;

  sim.reset();
  sim.enqueue(...goal(['输出含 <h1>', '代码块输出 <pre><code>']), ...work('加上了'), ...verdict('achieved', '', ['输出含 <h1>', '代码块输出 <pre><code>']));
  const r = await go(p, ['顺便支持代码块高亮', '--timeout', '0']);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /<- 在 .* 接上上次 {2}需求已确认 · 目标 1 条 · 干活上下文 [\d.]+K · 第 2 次唤醒/);
  assert.match(fs.readFileSync(notes(p, '需求.md'), 'utf8'), /## 唤醒时追加\(\d\d:\d\d:\d\d\)\n顺便支持代码块高亮/);
  assert.match(fs.readFileSync(notes(p, '目标.md'), 'utf8'), /代码块输出/);
  const wake = rows(p).slice(4);
  assert.deepEqual(
    wake.map((x) => x.step),
    ['设定目标', '干活', '干活·判定#1'],
  );
  assert.equal(wake[1]!.session_id, workSid, 'the work step continues its session');
  const resumed = sim.messageRequests().filter((m) => (m.body as { tools?: { name: string }[] }).tools?.some((t) => t.name === 'Agent'))[0]!;
  const last = transcriptOf(resumed.body).at(-1)!;
  assert.match(last, /顺便支持代码块高亮/);
  assert.doesNotMatch(last, /<workbench>/, 'no index again on resume');
  assert.match(last, /代码块输出 <pre><code>/, 'the new checklist is in the resume prompt');
  assert.equal(readJson<{ woke: number }>(path.join(p.runs, 'lineage.json')).woke, 2);

  sim.reset();
  sim.enqueue(...work('继续'), ...verdict('achieved', '', ['输出含 <h1>', '代码块输出 <pre><code>']));
  const silent = await go(p, ['--timeout', '0']);
  assert.equal(silent.code, 0, silent.stderr + silent.stdout);
  const calls = sim.messageRequests();
  assert.ok(
    calls.every((m) => !/submit_brief|submit_goal/.test(transcriptOf(m.body)[0] ?? '')),
    'no clarify or goal call',
  );
  assert.equal(fs.readFileSync(notes(p, '需求.md'), 'utf8').match(/唤醒时追加/g)!.length, 1);

  sim.reset();
  sim.enqueue(...brief(), ...goal(), ...work('另一件'), ...verdict('achieved'));
  const fresh = await go(p, ['--new', '另一件事', '--timeout', '0']);
  assert.equal(fresh.code, 0, fresh.stderr + fresh.stdout);
  const archive = path.join(p.ws, '.flower', 'notes', 'archive');
  const [stampDir] = fs.readdirSync(archive);
  assert.deepEqual(fs.readdirSync(path.join(archive, stampDir!)).sort(), ['lineage.json', '目标.md', '需求.md'].sort());
  assert.equal(readJson<{ woke: number }>(path.join(p.runs, 'lineage.json')).woke, 1);
});

test('flower demo runs the whole flow with no key and exits 0', async () => {
  const p = project('demo');
  const env = testEnv(p, 'http://127.0.0.1:9');
  delete (env as Record<string, string | undefined>).ANTHROPIC_API_KEY;
  delete (env as Record<string, string | undefined>).ANTHROPIC_BASE_URL;
  const r = await cli(['demo', '--dir', path.join(p.dir, 'demo')], { cwd: p.dir, env, timeoutMs: 180_000 });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.match(fs.readFileSync(path.join(p.dir, 'demo', 'md2html.mjs'), 'utf8'), /language-/);
  assert.match(r.stdout, /第 2 次唤醒|wake #2/);
});

test('--window 60000: the work session nearing 45k writes its handoff and a fresh session takes over; a rerun continues the successor', async () => {
  const p = project('handoff');
  const handoffAsk = { lastUserIncludes: 'submit_handoff' };
  const successor = { toolsInclude: 'Agent', firstUserIncludes: '你在接手' };
  sim.reset();
  sim.enqueue(
    ...brief(),
    ...goal(),
    { type: 'tool_use', match: coordinator, name: 'Bash', input: { command: 'ls', description: 'look' }, usage: { input_tokens: 30_000 } },
    {
      type: 'tool_use',
      match: { ...coordinator, not: handoffAsk },
      name: 'Bash',
      input: { command: 'ls -la', description: 'look again' },
      usage: { input_tokens: 46_000 },
    },
    {
      type: 'tool_use',
      match: handoffAsk,
      name: 'mcp__flower_handoff__submit_handoff',
      input: {
        doing: '在写 md2html.mjs,标题已支持',
        decided: '只用 Node 自带模块,因为不许装依赖',
        deadends: '暂无',
        next: '跑 node md2html.mjs a.md,再加列表',
        scene: 'md2html.mjs',
      },
      usage: { input_tokens: 47_000 },
    },
    { type: 'text', match: { lastUserIncludes: '已收到交接书' }, text: '交接书已提交。', usage: { input_tokens: 47_500 } },
    { type: 'text', match: successor, text: '接手后写完了。', usage: { input_tokens: 12_000 } },
    ...verdict('achieved'),
  );
  const r = await go(p, ['写个 md 转 html 的脚本', '--timeout', '0', '--window', '60000']);
  const un = sim
    .unexpected()
    .map(
      (m) =>
        `${m.headers['x-claude-code-session-id']} first=${(transcriptOf(m.body)[0] ?? '').slice(0, 80)} last=${(transcriptOf(m.body).at(-1) ?? '').slice(0, 200)}`,
    );
  assert.deepEqual(un, [], r.stdout);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const doc = fs.readFileSync(notes(p, '交接-干活.md'), 'utf8');
  assert.match(doc, /现在在做什么\n+在写 md2html\.mjs/);
  assert.match(doc, /下一步\n+跑 node md2html\.mjs a\.md/);
  const work = readJson<(Row & { retired: string[] })[]>(path.join(p.runs, 'manifest.json')).find((x) => x.step === '干活')!;
  assert.equal(work.retired.length, 1);
  assert.notEqual(work.session_id, work.retired[0]);
  const handoffReq = sim.messageRequests().find((m) => /submit_handoff/.test(transcriptOf(m.body).at(-1) ?? ''))!;
  assert.equal(handoffReq.headers['x-claude-code-session-id'], work.retired[0], 'the same session writes its handoff');
  const succ = sim.messageRequests().find((m) => (m.headers['x-claude-code-session-id'] as string) === work.session_id)!;
  const first = transcriptOf(succ.body)[0]!;
  assert.match(first, /你在接手/);
  assert.doesNotMatch(first, /写 md2html 脚本/, 'the task is not resent: the handoff is the prompt');
  assert.match(r.stdout, /# 交接完成/);
  const lin = readJson<{ steps: Record<string, string> }>(path.join(p.runs, 'lineage.json'));
  assert.equal(lin.steps['干活'], work.session_id, 'lineage follows the successor');

  sim.reset();
  sim.enqueue({ type: 'text', match: successor, text: '继续', usage: { input_tokens: 13_000 } }, ...verdict('achieved'));
  const again = await go(p, ['--timeout', '0', '--window', '60000']);
  assert.equal(again.code, 0, again.stderr + again.stdout);
  assert.equal(sim.messageRequests()[0]!.headers['x-claude-code-session-id'], work.session_id, 'a rerun continues the successor');
});

test('a model that answers in plain markdown (no submit tools): the brief and the goal still freeze; a prose verdict proves no check, so the judge is told once and the run stops cleanly', async () => {
  const p = project('markdown');
  sim.reset();
  sim.enqueue(
    {
      type: 'text',
      text: '好的,需求如下。\n\n## 目标\n写一个 md 转 html 的脚本\n\n## 验收标准\n- 运行 node md2html.mjs a.md 得到 html\n\n## 边界\n- 不用第三方库\n\n## 未知与假设\n- 假设输出到标准输出',
    },
    { type: 'text', text: '# 目标\nmd 能转成 html\n\n# 判定清单\n- node md2html.mjs a.md 输出含 <h1>\n- 空文件不报错' },
    { type: 'text', text: '写好了 md2html.mjs。' },
    { type: 'text', text: '## 结论\n达成\n\n## 理由\n两条都看到了证据\n\n## 未通过\n(无)' },
    { type: 'text', text: '## 结论\n达成(我看过了)' },
  );
  const r = await go(p, ['写个 md 转 html 的脚本', '--timeout', '0']);
  assert.equal(r.code, 1, r.stderr + r.stdout);
  // the work is not done either: nobody verified it
  assert.deepEqual(
    rows(p).map((x) => [x.step, x.ok]),
    [
      ['确认需求', true],
      ['设定目标', true],
      ['干活', false],
      ['干活·判定#1', false],
      ['干活·判定#1', false],
    ],
  );
  const judged = rows(p).at(-1) as Row & { failure?: { kind: string } };
  assert.equal(judged.failure?.kind, 'model', 'a typed failure, not ok:true with no verdict');
  assert.match(r.stderr, /干活·判定#1.*submit_verdict/);
  const reminder = sim.messageRequests().at(-1)!;
  assert.match(JSON.stringify(reminder.body), /还没有收到你的判定/, 'the same judge session was told once what to do');
  assert.match(fs.readFileSync(notes(p, '需求.md'), 'utf8'), /## 验收标准\n\n- 运行 node md2html\.mjs a\.md 得到 html/);
  assert.match(fs.readFileSync(notes(p, '目标.md'), 'utf8'), /- 空文件不报错/);
  assert.deepEqual(sim.unexpected(), []);
  assert.equal(sim.pending().length, 0);
});

test('killed in the middle of clarifying, the rerun continues the same clarification without re-asking', async () => {
  const p = project('clarify-kill');
  sim.reset();
  sim.enqueue(
    { type: 'tool_use', match: clarifier, name: 'mcp__human__ask', input: { question: '输出到哪里?', options: ['标准输出', '文件'] } },
    { type: 'hang', match: clarifier },
  );
  const { child, done } = startCli(['写个 md 转 html 的脚本', '--timeout', '0', '-w', p.ws, '-r', p.runs], {
    cwd: p.dir,
    env: testEnv(p, sim.url, { FLOWER_LANG: 'zh' }),
  });
  await until('the second clarify request', () => sim.messageRequests().length >= 2);
  await new Promise((r) => setTimeout(r, 400)); // let the mirrored transcript reach sessions.db
  process.kill(child.pid!, 'SIGKILL');
  await done;
  const sid = readJson<{ steps: Record<string, string> }>(path.join(p.runs, 'lineage.json')).steps['确认需求'];
  assert.ok(sid);

  sim.reset();
  sim.enqueue(...brief(), ...goal(), ...work('好了'), ...verdict('achieved'));
  const r = await go(p, ['写个 md 转 html 的脚本', '--timeout', '0']);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const first = sim.messageRequests()[0]!;
  assert.equal(first.headers['x-claude-code-session-id'], sid, 'the same clarify session');
  const seen = transcriptOf(first.body);
  assert.match(seen.join('\n'), /输出到哪里/, 'the earlier question is in its context');
  assert.match(seen.at(-1)!, /继续刚才没做完的需求确认/, 'told to continue, not to start over');
  assert.match(r.stdout, /== 确认需求 =+ {2}1\/3 {2}<- 接上次 · 第 2 次唤醒/);
});

test('flower --json streams the whole flow as NDJSON: step boundaries, events, step results, notes', async () => {
  const p = project('go-json');
  sim.reset();
  sim.enqueue(...brief(), ...goal(), ...work('写好了'), ...verdict('achieved'));
  const r = await go(p, ['写个 md 转 html 的脚本', '--timeout', '0', '--json']);
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const events = r.stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { kind: string; text?: string; step?: string; ok?: boolean });
  assert.deepEqual(
    events.filter((e) => e.kind === 'step').map((e) => e.text),
    ['确认需求', '设定目标', '干活'],
  );
  assert.deepEqual(
    events.filter((e) => e.kind === 'step_result').map((e) => [e.step, e.ok]),
    [
      ['确认需求', true],
      ['设定目标', true],
      ['干活', true],
    ],
  );
  assert.ok(events.some((e) => e.kind === 'note' && /总花费/.test(e.text ?? '')));
});
