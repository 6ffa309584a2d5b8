/**
 * The hand-over block for the next tool, end to end on the real binary and the scripted model: a
 * `flower "…"` leaves the block in CLAUDE.md and AGENTS.md with its verdict (the person's own text kept
 * byte for byte, no secret in it); a second run updates it in place, with the exit code the run made;
 * `flower bequest --remove` takes it out; `--no-bequest` writes nothing.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { SimItem } from '../../src/sim/index.js';
import { cli, project, testEnv, type Project } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

const clarifier = { firstUserIncludes: 'submit_brief' };
const goalSetter = { firstUserIncludes: 'submit_goal' };
const judge = { firstUserIncludes: 'submit_verdict' };
const coordinator = { toolsInclude: 'Agent' };

const brief = (): SimItem[] => [
  {
    type: 'tool_use',
    match: clarifier,
    name: 'mcp__human__submit_brief',
    input: { goal: 'a md2html script', acceptance: ['node md2html.mjs a.md prints html'], boundaries: ['no dependencies'], unknowns: ['output to stdout'] },
  },
  { type: 'text', match: clarifier, text: 'done' },
];
const goal = (): SimItem[] => [
  { type: 'tool_use', match: goalSetter, name: 'mcp__human__submit_goal', input: { statement: 'md becomes html', checks: [{ text: 'output has <h1>' }] } },
  { type: 'text', match: goalSetter, text: 'done' },
];
const work = (text: string): SimItem[] => [{ type: 'text', match: coordinator, text }];
const verdict = (state: string, reason = ''): SimItem[] => [
  {
    type: 'tool_use',
    match: judge,
    name: 'mcp__human__submit_verdict',
    input: { state, reason, checks: [{ item: 'output has <h1>', pass: state === 'achieved', evidence: 'read the output' }] },
  },
  { type: 'text', match: judge, text: 'judged' },
];

const SECRET = 'svc-7f3a9c0e5b1d4a8f';
const env = (p: Project, extra: Record<string, string> = {}) => testEnv(p, sim.url, { MY_SERVICE_TOKEN: SECRET, ...extra });
const flower = (p: Project, args: string[], extra: Record<string, string> = {}) =>
  cli([...args, '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: env(p, extra), timeoutMs: 120_000 });
const read = (p: Project, f: string) => fs.readFileSync(path.join(p.ws, f), 'utf8');
const count = (s: string, what: string) => s.split(what).length - 1;

const MINE = '# My project\r\n\r\nUse pnpm, never npm.\r\n';

test('a run leaves the block in CLAUDE.md and AGENTS.md; a second run updates it in place; --remove takes it out', async () => {
  const p = project('bequest');
  fs.writeFileSync(path.join(p.ws, 'CLAUDE.md'), MINE);
  sim.reset();
  sim.enqueue(...brief(), ...goal(), ...work('written'), ...verdict('achieved'));
  const first = await flower(p, [`write a markdown-to-html script (deploy key ${SECRET})`, '--timeout', '0']);
  assert.equal(first.code, 0, first.stderr + first.stdout);
  assert.match(first.stdout, /handed over to the next tool in CLAUDE\.md, AGENTS\.md/);

  const claude = read(p, 'CLAUDE.md');
  assert.ok(claude.startsWith(`${MINE}\r\n<!-- flower:begin`), "the person's text first, byte for byte, then the block (CRLF kept)");
  assert.match(claude, /\*\*Asked:\*\* write a markdown-to-html script \(deploy key \[secret\]\)\r\n/);
  assert.match(claude, /\*\*Last run:\*\* \d{4}-\d\d-\d\d \d\d:\d\d · \$[\d.]+ · verdict achieved 1\/1/);
  assert.match(claude, /`\.flower\/notes\/`: `需求\.md` \(the brief\), `目标\.md`/);
  assert.match(claude, /`flower -r \.\.\/runs` in this folder/);
  assert.match(claude, /`flower status -r \.\.\/runs`/);
  const agents = read(p, 'AGENTS.md');
  assert.ok(agents.startsWith('<!-- flower:begin'), 'a new AGENTS.md holds only the block');
  assert.match(agents, /verdict achieved 1\/1/);
  for (const text of [claude, agents]) {
    assert.doesNotMatch(text, new RegExp(SECRET), 'no secret value in the block');
    assert.doesNotMatch(text, /sk-test/);
  }

  // a second run (a silent wake whose round is not accepted): the block is replaced where it stands,
  // and the run's own exit code stands
  sim.reset();
  sim.enqueue(...work('tried again'), ...verdict('not_yet', 'no <h1> yet'));
  const second = await flower(p, ['--timeout', '0', '--rounds', '1']);
  assert.equal(second.code, 1, second.stderr + second.stdout);
  const updated = read(p, 'CLAUDE.md');
  assert.ok(updated.startsWith(`${MINE}\r\n<!-- flower:begin`));
  assert.equal(count(updated, 'flower:begin'), 1, 'exactly one block');
  assert.equal(count(updated, 'flower:end'), 1);
  assert.match(updated, /stopped at step `干活` · verdict not yet 0\/1/);
  assert.match(updated, /\*\*Asked:\*\* write a markdown-to-html script/, "the person's first sentence is still what was asked");
  assert.equal(count(read(p, 'AGENTS.md'), 'flower:begin'), 1);
  // flower's own agents do not load CLAUDE.md / AGENTS.md (settingSources: []): the block steers nothing
  const bodies = sim.messageRequests().map((m) => JSON.stringify(m.body));
  assert.ok(bodies.length > 0);
  assert.ok(
    bodies.every((b) => !b.includes('Handed over by flower') && !b.includes('flower:begin')),
    'no request of the next run carries the block',
  );

  // a third run with --no-bequest (or FLOWER_NO_BEQUEST=1) leaves both files as they are
  sim.reset();
  sim.enqueue(...work('once more'), ...verdict('achieved'));
  const off = await flower(p, ['--timeout', '0', '--no-bequest']);
  assert.equal(off.code, 0, off.stderr + off.stdout);
  assert.doesNotMatch(off.stdout, /handed over/);
  assert.equal(read(p, 'CLAUDE.md'), updated);

  const removed = await cli(['bequest', '--remove', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: env(p) });
  assert.equal(removed.code, 0, removed.stderr + removed.stdout);
  assert.equal(read(p, 'CLAUDE.md'), MINE, "the person's file exactly as it was");
  assert.equal(fs.existsSync(path.join(p.ws, 'AGENTS.md')), false, 'a file that held only the block is deleted');
  assert.match(removed.stdout, /took flower's block out of CLAUDE\.md/);
  assert.match(removed.stdout, /deleted AGENTS\.md/);

  // `flower bequest` writes it again from what the folder remembers: the newest verdict
  const again = await cli(['bequest', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: env(p, { FLOWER_NO_BEQUEST: '1' }) });
  assert.equal(again.code, 0, again.stderr + again.stdout);
  assert.match(read(p, 'CLAUDE.md'), /verdict achieved 1\/1/);
  assert.doesNotMatch(read(p, 'CLAUDE.md'), new RegExp(SECRET));
  assert.ok(read(p, 'AGENTS.md').startsWith('<!-- flower:begin'));
});

test('a damaged CLAUDE.md is left alone with one warning line; AGENTS.md still gets the block; the run exits 0', async () => {
  const p = project('bequest-damaged');
  const damaged = '# Mine\n<!-- flower:begin -->\nmy notes after a marker I pasted\n';
  fs.writeFileSync(path.join(p.ws, 'CLAUDE.md'), damaged);
  sim.reset();
  sim.enqueue(...brief(), ...goal(), ...work('written'), ...verdict('achieved'));
  const r = await flower(p, ['write a markdown-to-html script', '--timeout', '0'], { FLOWER_LANG: 'zh' });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  assert.equal(read(p, 'CLAUDE.md'), damaged, 'byte for byte');
  const warnings = r.stdout.split('\n').filter((l) => l.startsWith('! CLAUDE.md'));
  assert.equal(warnings.length, 1, r.stdout);
  assert.match(warnings[0]!, /原样保留:有 flower:begin 行却没有 flower:end 行\(第 2 行\)/);
  assert.match(read(p, 'AGENTS.md'), /## flower 留下的交接[\s\S]*判定 达成 1\/1/);
  assert.match(r.stdout, /已在 AGENTS\.md 里给下一个工具留了交接/);
});
