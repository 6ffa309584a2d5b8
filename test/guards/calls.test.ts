/**
 * The allowlist wall and the repeat guard answer in one callback (guards/calls): what the model is told
 * for each sequence of calls is what the two hooks told it when they were apart, and a failure in either
 * part still refuses the call.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { guardHooks, PathWall, REPEAT_DENY, type FsView } from '../../src/guards/index.js';
import { coordinator } from '../../src/roles/index.js';
import { AgentSpec } from '../../src/runtime/index.js';
import { fire, pre, specific, SUB } from './helpers.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-calls-'));
const ws = path.join(tmp, 'ws');
fs.mkdirSync(ws);
const secret = path.join(tmp, 'home', '.env');
const paths = new PathWall({ writable: [ws], protected: [], unreadable: [secret], home: path.join(tmp, 'home') });
const plain = new AgentSpec({ name: 'p', allowedTools: ['Bash', 'Read'] });
const coord = coordinator('c', '', {}, { lang: 'en' });

type Call = [tool: string, input: Record<string, unknown>, agent?: string];
/** what each call is told: 'pass', 'rewrite' (allowed with another input), or the start of the refusal */
type Row = [behaviour: string, spec: AgentSpec, walls: { paths?: PathWall; wrapGlances?: boolean }, calls: Call[], told: string[]];

const times = (n: number, c: Call): Call[] => Array.from({ length: n }, () => c);
const again = `This exact Read call (same input) was already made ${REPEAT_DENY - 1} times in a row`;
const ROWS: Row[] = [
  [
    'a tool the wall never looks at is still counted: the repeat refuses its 6th identical call',
    plain,
    {},
    times(REPEAT_DENY, ['Read', { file_path: path.join(ws, 'a') }]),
    [...Array(REPEAT_DENY - 1).fill('pass'), again],
  ],
  [
    'a call the wall refuses is refused with the wall’s words, the 6th time too',
    plain,
    { paths },
    times(REPEAT_DENY, ['Read', { file_path: secret }]),
    Array(REPEAT_DENY).fill('Read may not read'),
  ],
  [
    'a tool nobody listed is refused by the wall, and the streak it made is the repeat’s: a different call runs',
    plain,
    {},
    [
      ['Write', { file_path: path.join(ws, 'a'), content: '' }],
      ['Read', { file_path: path.join(ws, 'a') }],
    ],
    ["Write is not one of this role's tools (Bash, Read)", 'pass'],
  ],
  [
    'a glance the wall rewrites runs rewritten until the repeat refuses it: a refusal wins over a rewrite',
    coord,
    { wrapGlances: true },
    times(REPEAT_DENY, ['Bash', { command: 'git status', description: 'd' }]),
    [...Array(REPEAT_DENY - 1).fill('rewrite'), 'This exact Bash call (same input) was already made'],
  ],
  [
    'each thread has its own streak: after five on the main thread, a worker’s first identical call runs',
    plain,
    {},
    [...times(REPEAT_DENY - 1, ['Read', { file_path: path.join(ws, 'a') }]), ['Read', { file_path: path.join(ws, 'a') }, 'general-purpose']],
    [...Array(REPEAT_DENY - 1).fill('pass'), 'pass'],
  ],
];

const told = (out: ReturnType<typeof specific>): string =>
  out === undefined ? 'pass' : out.permissionDecision === 'deny' ? (out.permissionDecisionReason ?? '') : out.updatedInput ? 'rewrite' : 'pass';

for (const [behaviour, spec, walls, calls, want] of ROWS) {
  test(`one callback for the wall and the repeat guard: ${behaviour}`, async () => {
    const [m, ...rest] = guardHooks(spec, { lang: 'en', ...walls }).PreToolUse!;
    assert.equal(rest.length, 0, 'one PreToolUse matcher');
    const got: string[] = [];
    for (const [tool, input, agent] of calls) {
      got.push(told(specific(await fire(m!, pre(tool, input, agent ? { agentId: SUB, agentType: agent, cwd: ws } : { cwd: ws })))));
    }
    assert.equal(got.length, want.length);
    for (const [i, g] of got.entries()) {
      assert.ok(g.startsWith(want[i]!), `call ${i + 1}: told ${JSON.stringify(g.slice(0, 120))}, want ${JSON.stringify(want[i])}…`);
    }
  });
}

test('one callback for the wall and the repeat guard: a wall that throws refuses the call (fails closed), and says why', async () => {
  const broken: FsView = {
    isLink: () => {
      throw new Error('EIO: the disk went away');
    },
    readlink: () => '',
  };
  const wall = new PathWall({ writable: [], protected: [], unreadable: [], home: '/nonexistent' }, broken);
  const failed: string[] = [];
  const [m] = guardHooks(plain, { lang: 'en', paths: wall, onHookFailure: (w) => failed.push(w) }).PreToolUse!;
  const out = specific(await fire(m!, pre('Read', { file_path: '/somewhere/a' })));
  assert.equal(out?.permissionDecision, 'deny');
  assert.match(out?.permissionDecisionReason ?? '', /EIO: the disk went away/);
  assert.equal(failed.length, 1);
});
