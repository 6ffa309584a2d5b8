/**
 * A clarifier whose brief the schema rejects, as a person sees it: the real binary, the scripted model,
 * `flower "…" --clarify-only` in a pipe told its width by COLUMNS. One readable line per rejection
 * naming each field and what was wrong — no JSON, no line wider than COLUMNS, the model's explanation
 * never on screen — and a short final failure line; the model itself got the whole explanation, and
 * the manifest row keeps the whole reason. In en and zh.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { width } from '../../src/cli/term.js';
import { startSim, type Sim, type SimItem } from '../../src/sim/index.js';
import { cli, project, readJson, testEnv, type Project } from '../helpers/e2e.js';

let sim: Sim;
before(async () => {
  sim = await startSim({ port: 0, onUnexpected: 'error' });
});
after(async () => {
  await sim.close();
});

const COLUMNS = 60;
const clarifier = { firstUserIncludes: 'submit_brief' };
const submit = (input: Record<string, unknown>): SimItem => ({ type: 'tool_use', match: clarifier, name: 'mcp__human__submit_brief', input });
// acceptance as one string, boundaries empty, unknowns missing — and then the goal blank
const WRONG = { goal: 'a md2html script', acceptance: 'node md2html.mjs a.md prints html', boundaries: [] };
const BLANK = { goal: '  ', acceptance: ['node md2html.mjs a.md prints html'], boundaries: ['no dependencies'], unknowns: ['output on stdout'] };
const RIGHT = { goal: 'a md2html script', acceptance: ['node md2html.mjs a.md prints html'], boundaries: ['no dependencies'], unknowns: ['output on stdout'] };

const SAID = {
  en: {
    wrong: '~ brief not accepted: acceptance — expected a list; boundaries — needs at least one item; unknowns — required',
    blank: '~ brief not accepted: goal — empty',
    failed: /^x step '确认需求' failed: no complete brief.* — run `flower` here to continue$/,
  },
  zh: {
    wrong: '~ 需求确认书没收下:acceptance — 应为列表; boundaries — 至少要一条; unknowns — 缺了',
    blank: '~ 需求确认书没收下:goal — 不能为空',
    failed: /^x 步骤 '确认需求' 失败:no complete brief.* — 在这里再运行 `flower` 接着做$/,
  },
};

const run = (p: Project, lang: 'en' | 'zh') =>
  cli(['write a md2html script', '--clarify-only', '--timeout', '0', '-w', p.ws, '-r', p.runs], {
    cwd: p.dir,
    env: testEnv(p, sim.url, { FLOWER_LANG: lang, COLUMNS: String(COLUMNS) }),
    timeoutMs: 120_000,
  });

/**
 * The rejection lines as printed, re-joined where the screen wrapped them (a continuation line starts
 * with two spaces — so does the prose after it, hence each is cut back to the words expected of it).
 */
function refusals(out: string, expected: readonly string[]): string[] {
  const lines = out
    .replace(/\n {2}/g, ' ')
    .split('\n')
    .filter((l) => l.startsWith('~ '));
  return lines.map((l) => expected.find((x) => l === x || l.startsWith(`${x} `)) ?? l);
}

function assertReadable(out: string): void {
  assert.doesNotMatch(out, /\{"|MCP error|Input validation/, 'no JSON, no protocol error on screen');
  assert.doesNotMatch(out, /Not received; missing|没有收下,缺少/, "the model's explanation is not on screen");
  for (const l of out.split('\n')) assert.ok(width(l) <= COLUMNS, `wider than ${COLUMNS}: ${JSON.stringify(l)}`);
}

/** What the model was told in the tool results of its submit_brief calls, in order. */
function toldModel(): string[] {
  const last = sim
    .messageRequests()
    .filter((m) => JSON.stringify(m.body).includes('submit_brief'))
    .at(-1)!;
  const msgs = (last.body as { messages: { role: string; content: unknown }[] }).messages;
  return msgs
    .flatMap((m) => (Array.isArray(m.content) ? m.content : []))
    .flatMap((b: { type?: string; content?: unknown }) => (b.type === 'tool_result' ? [JSON.stringify(b.content)] : []));
}

for (const lang of ['en', 'zh'] as const) {
  test(`${lang}: wrong three times, then right — one named line per rejection, the brief kept, exit 0`, async () => {
    const p = project('brief-rej');
    sim.reset();
    sim.enqueue(submit(WRONG), submit(BLANK), submit(WRONG), submit(RIGHT), { type: 'text', match: clarifier, text: 'done' });
    const r = await run(p, lang);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assertReadable(r.stdout + r.stderr);
    const said = refusals(r.stdout, [SAID[lang].wrong, SAID[lang].blank]);
    assert.deepEqual(said, [SAID[lang].wrong, SAID[lang].blank, SAID[lang].wrong], r.stdout);
    assert.ok(fs.existsSync(path.join(p.ws, '.flower', 'notes', '需求.md')), 'the right brief was kept');
    const told = toldModel();
    assert.equal(told.length, 4);
    const explained = lang === 'zh' ? '没有收下,缺少或不合格的字段' : 'Not received; missing or invalid fields';
    for (const i of [0, 2]) {
      assert.ok(told[i]!.includes(explained), told[i]);
      assert.match(told[i]!, /- acceptance: Invalid input: expected array, received string/);
      assert.match(told[i]!, /- boundaries: give at least one boundary/);
      assert.match(told[i]!, /- unknowns: Invalid input: expected array, received undefined/);
    }
    assert.match(told[1]!, /- goal: goal must not be empty/);
    assert.doesNotMatch(told[3]!, /Not received|没有收下/);
    // the schema the model reads is the real one: types, limits and the required fields
    const tools = (sim.messageRequests().at(-1)!.body as { tools: { name: string; input_schema: Record<string, unknown> }[] }).tools;
    const schema = tools.find((x) => x.name === 'mcp__human__submit_brief')!.input_schema as { required: string[]; properties: Record<string, unknown> };
    assert.deepEqual(schema.required, ['goal', 'acceptance', 'boundaries', 'unknowns']);
    assert.deepEqual(schema.properties.acceptance, {
      ...(schema.properties.acceptance as object),
      type: 'array',
      minItems: 1,
      items: { type: 'string', minLength: 1 },
    });
    assert.deepEqual(schema.properties.goal, { ...(schema.properties.goal as object), type: 'string', minLength: 1 });
    sim.assertNoUnexpected();
  });

  test(`${lang}: never right — the step fails with one short line, the whole reason in the row`, async () => {
    const p = project('brief-fail');
    sim.reset();
    sim.enqueue(...Array.from({ length: 5 }, () => submit(WRONG)), { type: 'text', match: clarifier, text: 'I could not submit it.' });
    const r = await run(p, lang);
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assertReadable(r.stdout + r.stderr);
    assert.deepEqual(refusals(r.stdout, [SAID[lang].wrong]), Array(5).fill(SAID[lang].wrong), r.stdout);
    // one line, wrapped between words at this narrow width
    const err = r.stderr
      .trim()
      .replace(/\n {2}/g, ' ')
      .split('\n');
    assert.equal(err.length, 1, r.stderr);
    assert.match(err[0]!, SAID[lang].failed);
    const row = readJson<{ step: string; ok: boolean; error: string | null; failure?: { kind: string; message: string } }[]>(
      path.join(p.runs, 'manifest.json'),
    ).find((x) => x.step === '确认需求')!;
    assert.equal(row.ok, false);
    const whole = 'submit_brief not accepted: acceptance: expected list; boundaries: empty list; unknowns: required';
    assert.ok(row.error?.endsWith(whole), row.error ?? '');
    sim.assertNoUnexpected();
  });
}
