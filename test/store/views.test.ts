import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import {
  views,
  expire,
  trim,
  prune,
  relink,
  healOrphans,
  healUuid,
  trimReport,
  emptyReport,
  spillFileName,
  INTERRUPT_NOTE,
  ORPHAN_NOTE,
  STALE_PREFIX,
  ARCHIVED_PREFIX,
  type Entry,
  type ViewReport,
} from '../../src/store/views/index.js';

const FIXTURES = ['denials', 'api-errors', 'interrupted', 'glances', 'orphan-tail', 'orphan-middle'] as const;
type Fixture = (typeof FIXTURES)[number];

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/** A fixture, deep-frozen: any view that mutates its input throws (ESM is strict mode). */
const load = (name: Fixture): Entry[] =>
  deepFreeze(
    readFileSync(new URL(`../fixtures/transcripts/${name}.jsonl`, import.meta.url), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Entry),
  );

type B = { type: string; id?: string; tool_use_id?: string; content?: unknown; is_error?: boolean; text?: string };
const blocks = (e: Entry): B[] => {
  const m = e.message as { content?: unknown } | undefined;
  return Array.isArray(m?.content) ? (m.content as B[]) : [];
};
const resultOf = (es: readonly Entry[], id: string): B | undefined => es.flatMap(blocks).find((b) => b.type === 'tool_result' && b.tool_use_id === id);
const useOf = (es: readonly Entry[], id: string): B | undefined => es.flatMap(blocks).find((b) => b.type === 'tool_use' && b.id === id);
const entryWithResult = (es: readonly Entry[], id: string): Entry | undefined =>
  es.find((e) => blocks(e).some((b) => b.type === 'tool_result' && b.tool_use_id === id));
const text = (b: B | undefined): string => (typeof b?.content === 'string' ? b.content : JSON.stringify(b?.content));

/**
 * Walks the parentUuid chain back from the leaf (the last entry with a uuid: the binary resumes from the
 * latest leaf, docs/sdk-facts.md §4.6) and fails on a dangling pointer or a loop. Returns the uuids leaf → root.
 */
function chain(es: readonly Entry[]): string[] {
  const byUuid = new Map(es.filter((e) => typeof e.uuid === 'string').map((e) => [e.uuid as string, e]));
  let u: string | null = [...byUuid.keys()].pop() ?? null;
  const seen: string[] = [];
  while (u !== null) {
    const e = byUuid.get(u);
    assert.ok(e, `chain broken: ${u} is not in the view (after ${seen.length} steps)`);
    assert.ok(!seen.includes(u), `chain loops at ${u}`);
    seen.push(u);
    u = (e.parentUuid as string | null | undefined) ?? null;
  }
  return seen;
}

// ── expire ───────────────────────────────────────────────────────────────────────────────────
const GLANCES = ['toolu_g01', 'toolu_g02', 'toolu_g03', 'toolu_g04', 'toolu_g05', 'toolu_g06', 'toolu_g07', 'toolu_g08', 'toolu_g09', 'toolu_g10'];

const EXPIRE_KEEP: Array<[number, number]> = [
  [0, 10],
  [1, 9],
  [6, 4],
  [9, 1],
  [10, 0],
  [20, 0],
];
for (const [keepRecent, expired] of EXPIRE_KEEP) {
  test(`expire keeps the newest ${keepRecent} glance results and expires ${expired} older ones`, () => {
    const es = load('glances');
    const r = expire(es, { keepRecent });
    assert.equal(r.report.expired, expired);
    GLANCES.forEach((id, k) => {
      assert.equal(text(resultOf(r.entries, id)).startsWith(STALE_PREFIX), k < expired, id);
    });
  });
}

test('an expired result names its command, its recorded time and how many results came after it', () => {
  const r = expire(load('glances'));
  const note = text(resultOf(r.entries, 'toolu_g01'));
  assert.match(note, /^\[stale\] result of `pwd`, recorded at 2026-11-29 \d\d:\d\d UTC; 9 newer command results came after it\./);
  assert.match(note, /rerun it/);
  assert.match(text(resultOf(r.entries, 'toolu_g04')), /`cat notes\.md \| head -5`.*6 newer/);
});

test('expire leaves large, non-ephemeral and non-Bash results alone', () => {
  const es = load('glances');
  const r = expire(es, { keepRecent: 0 });
  for (const id of ['toolu_big1', 'toolu_mk01', 'toolu_read1']) assert.deepEqual(resultOf(r.entries, id), resultOf(es, id), id);
});

test('expire with a larger maxChars takes the big cat too', () => {
  const r = expire(load('glances'), { keepRecent: 0, maxChars: 5000 });
  assert.equal(r.report.expired, 11);
  assert.match(text(resultOf(r.entries, 'toolu_big1')), /^\[stale\] result of `cat big\.txt`/);
});

test('expire cuts the command to its first line, at most 60 characters', () => {
  const long = `grep -rn ${'x'.repeat(80)} src\necho second line`;
  const es = [
    asst('a1', null, [{ type: 'tool_use', id: 't1', name: 'Bash', input: { command: long } }]),
    user('u1', 'a1', [{ type: 'tool_result', tool_use_id: 't1', content: 'hit' }]),
  ];
  const note = text(resultOf(expire(es, { keepRecent: 0 }).entries, 't1'));
  const shown = /`([^`]*)`/.exec(note)![1]!;
  assert.ok(shown.length <= 60 && shown.startsWith('grep -rn xxx') && shown.endsWith('…'), shown);
  assert.doesNotMatch(note, /second line/);
});

test('expire never touches meta, compact-summary, image or denied results', () => {
  const es = [
    asst(
      'a1',
      null,
      [1, 2, 3, 4].map((n) => ({ type: 'tool_use', id: `t${n}`, name: 'Bash', input: { command: 'ls' } })),
    ),
    user('u1', 'a1', [{ type: 'tool_result', tool_use_id: 't1', content: 'x' }], { isMeta: true }),
    user('u2', 'u1', [{ type: 'tool_result', tool_use_id: 't2', content: 'x' }], { isCompactSummary: true }),
    user('u3', 'u2', [{ type: 'tool_result', tool_use_id: 't3', content: [{ type: 'image', source: {} }] }]),
    user('u4', 'u3', [{ type: 'tool_result', tool_use_id: 't4', content: 'no', is_error: true }], { toolDenialKind: 'permission-rule' }),
  ];
  assert.equal(expire(es, { keepRecent: 0 }).report.expired, 0);
});

test('expire is idempotent: a second pass expires nothing more', () => {
  const once = expire(load('glances'));
  const twice = expire(once.entries);
  assert.equal(twice.report.expired, 0);
  assert.deepEqual(twice.entries, once.entries);
});

// ── trim ─────────────────────────────────────────────────────────────────────────────────────
const TRIM_KEEP: Array<[number, string[]]> = [
  [20, []],
  [2, []],
  [1, ['toolu_big1']],
  [0, ['toolu_big1', 'toolu_read1']],
];
for (const [keepRecent, trimmed] of TRIM_KEEP) {
  test(`trim with keepRecent ${keepRecent} archives ${trimmed.join(', ') || 'nothing'}`, () => {
    const es = load('glances');
    const spilled: string[] = [];
    const r = trim(es, {
      keepRecent,
      spill: (t) => {
        spilled.push(t);
        return `.flower/spill/${spillFileName(t)}`;
      },
    });
    assert.equal(r.report.trimmed, trimmed.length);
    assert.deepEqual(
      spilled,
      trimmed.map((id) => text(resultOf(es, id))),
    );
    for (const id of trimmed) {
      const full = text(resultOf(es, id));
      assert.equal(
        text(resultOf(r.entries, id)),
        `${ARCHIVED_PREFIX} ${full.length} chars; full text at .flower/spill/${spillFileName(full)} — use Read to see it]`,
      );
    }
  });
}

const TRIM_SIZES: Array<[number, boolean]> = [
  [1999, false],
  [2000, true],
  [2001, true],
];
for (const [size, trimmed] of TRIM_SIZES) {
  test(`trim ${trimmed ? 'archives' : 'keeps'} a ${size}-char result (min 2000)`, () => {
    const es = [
      asst('a', null, [{ type: 'tool_use', id: 't', name: 'Read', input: {} }]),
      user('u', 'a', [{ type: 'tool_result', tool_use_id: 't', content: 'y'.repeat(size) }]),
    ];
    assert.equal(trim(es, { keepRecent: 0, spill: () => 'p' }).report.trimmed, trimmed ? 1 : 0);
  });
}

test('trim never rewrites images, documents, meta or compact summaries, and reads text arrays', () => {
  const big = 'z'.repeat(3000);
  const es = [
    user('u1', null, [
      {
        type: 'tool_result',
        tool_use_id: 't1',
        content: [
          { type: 'text', text: big },
          { type: 'image', source: {} },
        ],
      },
    ]),
    user('u2', 'u1', [{ type: 'tool_result', tool_use_id: 't2', content: [{ type: 'document', source: {} }] }]),
    user('u3', 'u2', [{ type: 'tool_result', tool_use_id: 't3', content: big }], { isMeta: true }),
    user('u4', 'u3', [{ type: 'tool_result', tool_use_id: 't4', content: big }], { isCompactSummary: true }),
    user('u5', 'u4', [{ type: 'tool_result', tool_use_id: 't5', content: [{ type: 'text', text: big }] }]),
  ];
  const r = trim(es, { keepRecent: 0, spill: () => 'p' });
  assert.equal(r.report.trimmed, 1);
  assert.match(text(resultOf(r.entries, 't5')), /^\[archived 3000 chars/);
  assert.equal(r.report.charsSaved, 3000 - text(resultOf(r.entries, 't5')).length);
});

test('a spill writer that throws leaves that result whole instead of failing the resume', () => {
  let calls = 0;
  const es = load('glances');
  const r = trim(es, {
    keepRecent: 0,
    spill: (t) => {
      calls++;
      if (t.startsWith('line 0000 of')) throw new Error('ENOSPC');
      return 'p';
    },
  });
  assert.equal(calls, 2);
  assert.equal(r.report.trimmed, 1);
  assert.deepEqual(resultOf(r.entries, 'toolu_big1'), resultOf(es, 'toolu_big1'));
  assert.match(text(resultOf(r.entries, 'toolu_read1')), /^\[archived/);
});

// ── prune: denials ───────────────────────────────────────────────────────────────────────────
const DENIALS = ['toolu_deny_01', 'toolu_deny_02', 'toolu_deny_03'];
const KEEP_DENIALS: Array<[number, string[]]> = [
  [0, []],
  [1, ['toolu_deny_03']],
  [2, ['toolu_deny_02', 'toolu_deny_03']],
  [5, DENIALS],
];
for (const [keepDenials, kept] of KEEP_DENIALS) {
  test(`keepDenials ${keepDenials} leaves ${kept.length} denied call(s), each with its pair, and the chain intact`, () => {
    const es = load('denials');
    const r = prune(es, { keepDenials });
    for (const id of DENIALS) {
      assert.equal(!!useOf(r.entries, id), kept.includes(id), `tool_use ${id}`);
      assert.equal(!!resultOf(r.entries, id), kept.includes(id), `tool_result ${id}`);
    }
    assert.equal(r.report.denials, 3 - kept.length);
    assert.ok(useOf(r.entries, 'toolu_ok_01') && resultOf(r.entries, 'toolu_ok_01'), 'the allowed call survives');
    const c = chain(r.entries);
    assert.equal(r.entries.find((e) => e.uuid === c[c.length - 1])?.type, 'user', 'the chain reaches the first prompt');
    assert.ok(
      r.entries.some((e) => blocks(e).some((b) => b.text === 'Let me look around first.')),
      'the preamble text survives',
    );
  });
}

test('a denial that shares its message with an allowed call loses only its own blocks and toolUseResult', () => {
  const es = [
    user('p', null, [{ type: 'text', text: 'go' }]),
    asst('a1', 'p', [
      { type: 'text', text: 'two calls' },
      { type: 'tool_use', id: 'd1', name: 'Bash', input: { command: 'rm x' } },
      { type: 'tool_use', id: 'ok', name: 'Bash', input: { command: 'ls' } },
    ]),
    user(
      'u1',
      'a1',
      [
        { type: 'tool_result', tool_use_id: 'd1', content: 'Denied', is_error: true },
        { type: 'tool_result', tool_use_id: 'ok', content: 'f' },
      ],
      { toolDenialKind: 'permission-rule', toolUseResult: 'Error: Denied' },
    ),
    asst('a2', 'u1', [{ type: 'tool_use', id: 'd2', name: 'Bash', input: { command: 'rm y' } }]),
    user('u2', 'a2', [{ type: 'tool_result', tool_use_id: 'd2', content: 'Denied', is_error: true }], { permissionDecision: { decision: 'reject' } }),
    asst('a3', 'u2', [{ type: 'text', text: 'done' }]),
  ];
  deepFreeze(es);
  const r = prune(es, { keepDenials: 1 });
  const a1 = r.entries.find((e) => e.uuid === 'a1')!;
  assert.deepEqual(
    blocks(a1).map((b) => b.id ?? b.text),
    ['two calls', 'ok'],
  );
  const u1 = r.entries.find((e) => e.uuid === 'u1')!;
  assert.deepEqual(
    blocks(u1).map((b) => b.tool_use_id),
    ['ok'],
  );
  assert.equal('toolUseResult' in u1, false);
  assert.ok(useOf(r.entries, 'd2') && resultOf(r.entries, 'd2'), 'the newest denial is kept');
});

test('a rejection before the run (interrupt deny) is a denial, not an interruption', () => {
  const es = [
    asst('a1', null, [{ type: 'tool_use', id: 'd1', name: 'Bash', input: { command: 'x' } }]),
    user('u1', 'a1', [{ type: 'tool_result', tool_use_id: 'd1', content: "The user doesn't want to proceed with this tool use.", is_error: true }], {
      toolUseResult: 'User rejected tool use',
      toolDenialKind: 'user-rejected',
      toolDenialBeforeRun: true,
    }),
  ];
  const r = prune(es, { keepDenials: 0 });
  assert.equal(r.report.denials, 1);
  assert.equal(r.report.interrupts, 0);
  assert.equal(r.entries.length, 0);
});

// ── prune: api errors ────────────────────────────────────────────────────────────────────────
test('api errors are dropped: the synthetic assistant and the system/api_error retry entry', () => {
  const es = load('api-errors');
  assert.ok(JSON.stringify(es).includes('API Error'));
  const r = prune(es);
  assert.equal(r.report.apiErrors, 2);
  assert.equal(r.report.pruned, 2);
  assert.ok(!JSON.stringify(r.entries).includes('API Error'));
  assert.ok(!r.entries.some((e) => e.type === 'system' && e.subtype === 'api_error'));
  const c = chain(r.entries);
  const leaf = r.entries.find((e) => e.uuid === c[0])!;
  assert.equal(leaf.type, 'attachment', 'the leaf moves back to the last real entry');
  assert.ok(resultOf(r.entries, 'toolu_ls_01'), 'the tool turn before the failure survives');
});

test('a <synthetic> model marks an api error even without isApiErrorMessage', () => {
  const es = [
    user('p', null, [{ type: 'text', text: 'q' }]),
    asst('s', 'p', [{ type: 'text', text: 'x' }], { message: { role: 'assistant', model: '<synthetic>', content: [{ type: 'text', text: 'x' }] } }),
    user('q', 's', [{ type: 'text', text: 'again' }]),
  ];
  const r = prune(es);
  assert.deepEqual(
    r.entries.map((e) => [e.uuid, e.parentUuid]),
    [
      ['p', null],
      ['q', 'p'],
    ],
  );
});

test('dropApiErrors false keeps them', () => {
  assert.equal(prune(load('api-errors'), { dropApiErrors: false }).entries.length, load('api-errors').length);
});

// ── prune: interruptions ─────────────────────────────────────────────────────────────────────
test('a tool killed while running gets a neutral note, is_error false, and loses its toolUseResult', () => {
  const es = load('interrupted');
  assert.match(text(resultOf(es, 'toolu_sleep_01')), /STOP what you are doing/);
  const r = prune(es);
  assert.equal(r.report.interrupts, 1);
  assert.equal(r.report.denials, 0, 'an interruption is not a denial');
  const b = resultOf(r.entries, 'toolu_sleep_01')!;
  assert.equal(b.content, INTERRUPT_NOTE);
  assert.equal(b.is_error, false);
  assert.equal('toolUseResult' in entryWithResult(r.entries, 'toolu_sleep_01')!, false);
  assert.ok(
    r.entries.some((e) => e.isAbortedMidStream === true),
    'the partial answer stays: it is real output',
  );
  assert.equal(r.entries.length, es.length);
  chain(r.entries);
});

const INTERRUPT_TEXTS: Array<[string, string, boolean, boolean]> = [
  ['a "[Request interrupted" result', '[Request interrupted by user for tool use]', true, true],
  ['a "stopped while running" result', 'Correction to the text above: this call was stopped while running, not refused.', true, true],
  ['an ordinary error', 'Exit code 1', true, false],
  // a command's output that quotes the markers (a grep of a log) is an outcome: the words of a tool never steer the view
  ['a successful result quoting "[Request interrupted"', 'log.txt:3: [Request interrupted by user for tool use]', false, false],
  ['a result without is_error quoting "stopped while running"', 'notes: this call was stopped while running', false, false],
];
for (const [what, content, failed, neutralised] of INTERRUPT_TEXTS) {
  test(`neutralizeInterrupts ${neutralised ? 'rewrites' : 'keeps'} ${what}`, () => {
    const result = { type: 'tool_result', tool_use_id: 't', content, ...(failed ? { is_error: true } : content.startsWith('log') ? { is_error: false } : {}) };
    const es = [asst('a', null, [{ type: 'tool_use', id: 't', name: 'Bash', input: { command: 'make' } }]), user('u', 'a', [result])];
    const r = prune(es);
    assert.equal(text(resultOf(r.entries, 't')) === INTERRUPT_NOTE, neutralised);
    assert.equal(prune(es, { neutralizeInterrupts: false }).report.interrupts, 0);
  });
}

// ── prune: orphans ───────────────────────────────────────────────────────────────────────────
test('a trailing orphan tool call is healed right after its assistant, and the leaf moves to the heal', () => {
  const es = load('orphan-tail');
  const r = prune(es);
  assert.equal(r.report.healed, 1);
  const i = r.entries.findIndex((e) => blocks(e).some((b) => b.id === 'toolu_mk01'));
  const heal = r.entries[i + 1]!;
  const a = r.entries[i]!;
  assert.equal(heal.uuid, healUuid(['toolu_mk01']));
  assert.match(heal.uuid as string, /^heal-[0-9a-f]{12}$/);
  assert.equal(heal.parentUuid, a.uuid);
  for (const k of ['sessionId', 'cwd', 'version', 'gitBranch', 'isSidechain', 'userType', 'entrypoint']) assert.equal(heal[k], a[k], k);
  assert.deepEqual(blocks(heal), [{ type: 'tool_result', tool_use_id: 'toolu_mk01', content: ORPHAN_NOTE, is_error: false }]);
  assert.equal(chain(r.entries)[0], heal.uuid);
});

test('a mid-chain orphan is healed and the child that pointed at the lost row is bridged to the heal', () => {
  const r = prune(load('orphan-middle'));
  assert.equal(r.report.healed, 1);
  const heal = r.entries.find((e) => e.uuid === healUuid(['toolu_g05']))!;
  assert.ok(heal);
  const c = chain(r.entries);
  assert.ok(c.includes(heal.uuid as string), 'the heal is on the chain');
  const root = r.entries.find((e) => e.uuid === c[c.length - 1])!;
  assert.equal(root.parentUuid, null);
  assert.equal(blocks(root).at(-1)?.text, 'Survey the workspace.', 'the whole history back to the prompt is reachable');
});

test('healing re-points every child of the assistant, not just the first', () => {
  const es = [
    user('p', null, [{ type: 'text', text: 'q' }]),
    asst('a', 'p', [{ type: 'tool_use', id: 'x', name: 'Bash', input: { command: 'sleep 9' } }]),
    user('c1', 'a', [{ type: 'text', text: 'child one' }]),
    user('c2', 'a', [{ type: 'text', text: 'child two' }]),
    { type: 'last-prompt', leafUuid: 'a' },
  ];
  const r = prune(deepFreeze(es));
  const h = healUuid(['x']);
  assert.deepEqual(
    r.entries.map((e) => e.uuid ?? e.leafUuid),
    ['p', 'a', h, 'c1', 'c2', h],
  );
  assert.deepEqual(
    r.entries.map((e) => e.parentUuid),
    [null, 'p', 'a', h, h, undefined],
  );
});

test('one heal entry answers every orphan of an assistant; nothing is added when none exist', () => {
  const es = [
    asst('a', null, [
      { type: 'tool_use', id: 'x', name: 'Bash', input: {} },
      { type: 'tool_use', id: 'y', name: 'Read', input: {} },
    ]),
  ];
  const h = healOrphans(es);
  assert.equal(h.healed, 2);
  assert.deepEqual(
    blocks(h.entries[1]!).map((b) => b.tool_use_id),
    ['x', 'y'],
  );
  assert.equal(h.entries[1]!.uuid, healUuid(['x', 'y']));
  assert.equal(healOrphans(load('glances')).entries.length, load('glances').length);
  assert.equal(prune(es, { healOrphans: false }).entries.length, 1);
});

// The views find a call's blocks through an index made once (src/store/views/work.ts): rows written
// twice, a result stored before its call and a denied call seen twice must come out as a scan of every entry gives them.
test('a duplicated row, a result before its call and a denial written twice are handled wherever they sit', () => {
  const call = (id: string, command = 'make') => ({ type: 'tool_use', id, name: 'Bash', input: { command } });
  const ok = (id: string, content = 'done') => ({ type: 'tool_result', tool_use_id: id, content, is_error: false });
  const denied = { toolDenialKind: 'permission-rule', permissionDecision: { decision: 'reject' } };
  const es = deepFreeze([
    user('r0', null, [ok('early')]), // stored before its call
    asst('a0', 'r0', [call('early')]),
    asst('a1', 'a0', [call('lost')]), // never answered, and its row written twice
    asst('a1', 'a0', [call('lost')]),
    asst('d1', 'a1', [call('den1', 'rm x')]),
    user('n1', 'd1', [{ type: 'tool_result', tool_use_id: 'den1', content: 'Denied', is_error: true }], denied),
    asst('d1', 'a1', [call('den1', 'rm x')]), // the denied call again
    asst('d2', 'n1', [call('den2', 'rm y')]),
    user('n2', 'd2', [{ type: 'tool_result', tool_use_id: 'den2', content: 'Denied', is_error: true }], denied),
    ...[1, 2, 3].flatMap((k) => [
      asst(`g${k}`, k === 1 ? 'n2' : `o${k - 1}`, [call(`g${k}`, 'git status')]),
      user(`o${k}`, `g${k}`, [ok(`g${k}`, `status ${k}`)]),
    ]),
    user('o1', 'g1', [ok('g1', 'status 1')]), // a glance result written twice
  ]);
  const r = views(es, { expire: { keepRecent: 1 }, prune: { keepDenials: 1 } });
  assert.equal(r.report.healed, 1, 'the twice-written orphan is healed once');
  assert.equal(r.entries.filter((e) => blocks(e).some((b) => b.tool_use_id === 'lost')).length, 1);
  assert.equal(r.entries.filter((e) => blocks(e).some((b) => b.tool_use_id === 'early')).length, 1, 'a result before its call still answers it: no heal');
  assert.equal(useOf(r.entries, 'den1'), undefined, 'both copies of the older denied call are gone');
  assert.equal(resultOf(r.entries, 'den1'), undefined);
  assert.ok(useOf(r.entries, 'den2') && resultOf(r.entries, 'den2'), 'the newest denial stays, with its pair');
  const stale = r.entries.flatMap(blocks).filter((b) => b.type === 'tool_result' && text(b).startsWith(STALE_PREFIX));
  assert.equal(stale.length, 3, 'every glance result but the newest in file order expires: the copy written last stays');
  assert.equal(text(blocks(r.entries.at(-1)!)[0]), 'status 1');
  const again = views(r.entries, { expire: { keepRecent: 1 }, prune: { keepDenials: 1 } });
  assert.deepEqual(again.report, emptyReport());
});

// ── relink ───────────────────────────────────────────────────────────────────────────────────
const line = (...ids: string[]): Entry[] => ids.map((id, k) => ({ type: 'user', uuid: id, parentUuid: k === 0 ? null : ids[k - 1]! }));
const RELINK: Array<[string, Entry[], string[], Array<[string, string | null]>]> = [
  [
    'dropping a middle entry joins its neighbours',
    line('a', 'b', 'c', 'd'),
    ['b'],
    [
      ['a', null],
      ['c', 'a'],
      ['d', 'c'],
    ],
  ],
  [
    'dropping a run of entries skips all of them',
    line('a', 'b', 'c', 'd'),
    ['b', 'c'],
    [
      ['a', null],
      ['d', 'a'],
    ],
  ],
  [
    'dropping the root makes the next entry a root',
    line('a', 'b', 'c'),
    ['a'],
    [
      ['b', null],
      ['c', 'b'],
    ],
  ],
  [
    'dropping the leaf leaves the rest alone',
    line('a', 'b', 'c'),
    ['c'],
    [
      ['a', null],
      ['b', 'a'],
    ],
  ],
  [
    'dropping nothing changes nothing',
    line('a', 'b'),
    [],
    [
      ['a', null],
      ['b', 'a'],
    ],
  ],
  [
    'a cycle among dropped entries keeps the original pointer',
    [
      { type: 'user', uuid: 'x', parentUuid: 'y' },
      { type: 'user', uuid: 'y', parentUuid: 'x' },
      { type: 'user', uuid: 'z', parentUuid: 'x' },
    ],
    ['x', 'y'],
    [['z', 'x']],
  ],
];
for (const [behaviour, es, drop, want] of RELINK) {
  test(`relink: ${behaviour}`, () => {
    const out = relink(deepFreeze(es), new Set(drop), { bridgeDangling: false });
    assert.deepEqual(
      out.map((e) => [e.uuid, e.parentUuid]),
      want,
    );
  });
}

test('relink on the full list fixes what filtering first would break (the Python incident)', () => {
  const es = line('a', 'b', 'c', 'd');
  const filteredFirst = es.filter((e) => e.uuid !== 'b');
  assert.equal(
    relink(filteredFirst, new Set(['b']), { bridgeDangling: false }).find((e) => e.uuid === 'c')!.parentUuid,
    'b',
    'filtering first leaves c dangling',
  );
  assert.equal(relink(es, new Set(['b'])).find((e) => e.uuid === 'c')!.parentUuid, 'a');
});

test('relink also moves last-prompt.leafUuid off a dropped entry', () => {
  const out = relink([...line('a', 'b'), { type: 'last-prompt', leafUuid: 'b' }], new Set(['b']));
  assert.equal(out[1]!.leafUuid, 'a');
});

// ── views ────────────────────────────────────────────────────────────────────────────────────
for (const name of FIXTURES) {
  test(`views on ${name}: input untouched, chain intact, every tool_use answered, second pass a no-op`, () => {
    const es = load(name);
    const before = JSON.stringify(es);
    const r = views(es, { trim: { keepRecent: 1, spill: (t) => `.flower/spill/${spillFileName(t)}` } });
    assert.equal(JSON.stringify(es), before);
    chain(r.entries);
    const answered = new Set(
      r.entries
        .flatMap(blocks)
        .filter((b) => b.type === 'tool_result')
        .map((b) => b.tool_use_id),
    );
    for (const b of r.entries.flatMap(blocks)) if (b.type === 'tool_use') assert.ok(answered.has(b.id), `${b.id} unanswered`);
    assert.ok(!JSON.stringify(r.entries).includes('API Error'));
    const again = views(r.entries, { trim: { keepRecent: 1, spill: () => assert.fail('nothing left to spill') } });
    assert.deepEqual(again.report, emptyReport());
    assert.deepEqual(again.entries, r.entries);
  });
}

const VIEW_REPORTS: Array<[Fixture, Partial<ViewReport>]> = [
  ['denials', { pruned: 4, denials: 2 }],
  ['api-errors', { pruned: 2, apiErrors: 2 }],
  ['interrupted', { interrupts: 1 }],
  ['glances', { expired: 4, trimmed: 1 }],
  ['orphan-tail', { healed: 1 }],
  ['orphan-middle', { expired: 3, trimmed: 1, healed: 1 }],
];
for (const [name, want] of VIEW_REPORTS) {
  test(`views on ${name} reports ${JSON.stringify(want)}`, () => {
    const { report } = views(load(name), { trim: { keepRecent: 1, spill: () => 'p' } });
    assert.deepEqual({ ...report, charsSaved: 0 }, { ...emptyReport(), ...want });
  });
}

test('views runs expire before trim: a small glance expires, a big one is archived', () => {
  const r = views(load('glances'), { expire: { keepRecent: 0 }, trim: { keepRecent: 0, spill: () => 's.txt' } });
  assert.match(text(resultOf(r.entries, 'toolu_g01')), /^\[stale\]/);
  assert.match(text(resultOf(r.entries, 'toolu_big1')), /^\[archived 4679 chars; full text at s\.txt/);
});

test('trim is off unless asked for, and every stage can be turned off', () => {
  assert.equal(views(load('glances')).report.trimmed, 0);
  const off = views(load('denials'), { expire: false, prune: false });
  assert.deepEqual(off.report, emptyReport());
  assert.deepEqual(off.entries, load('denials'));
});

test('views hold on a 100k-entry transcript (time is reported, measured in bench/views.ts, never asserted)', (t) => {
  const base = load('glances').filter((e) => typeof e.uuid === 'string');
  const es: Entry[] = [];
  let prev: string | null = null;
  for (let k = 0; es.length < 100_000; k++) {
    for (const e of base) {
      const uuid = `${k}-${e.uuid as string}`;
      const rename = (b: B): B => ({ ...b, ...(b.id ? { id: `${k}-${b.id}` } : {}), ...(b.tool_use_id ? { tool_use_id: `${k}-${b.tool_use_id}` } : {}) });
      const copy: Entry = { ...e, uuid, parentUuid: prev };
      if (Array.isArray((e.message as { content?: unknown })?.content)) copy.message = { ...(e.message as object), content: blocks(e).map(rename) };
      es.push(copy);
      prev = uuid;
    }
  }
  // debris for prune: an api-error retry entry every 50 entries
  for (let i = 50; i < es.length; i += 50) es[i] = { ...es[i]!, type: 'system', subtype: 'api_error', message: undefined };
  const t0 = performance.now();
  const r = views(es, { trim: { spill: () => 'p' } });
  t.diagnostic(`views over ${es.length} entries: ${(performance.now() - t0).toFixed(0)} ms`);
  assert.ok(r.report.expired > 1000 && r.report.apiErrors > 1000, JSON.stringify(r.report));
  // the chain survives at scale: every survivor's parent is a survivor (or the root)
  const alive = new Set(r.entries.map((e) => e.uuid).filter(Boolean));
  assert.ok(r.entries.every((e) => e.parentUuid == null || alive.has(e.parentUuid as string)));
});

// ── trimReport ───────────────────────────────────────────────────────────────────────────────
const REPORT_LINES: Array<[Partial<ViewReport>, string]> = [
  [{}, 'resume view: unchanged'],
  [{ expired: 3, charsSaved: 400 }, 'resume view: expired 3 · saved ≈100 tokens (400 chars)'],
  [{ trimmed: 2, charsSaved: 48_000 }, 'resume view: trimmed 2 · saved ≈12.0K tokens (48.0K chars)'],
  [{ pruned: 3, apiErrors: 1, denials: 2, charsSaved: 546 }, 'resume view: pruned 3 (1 api error, 2 denials) · saved ≈137 tokens (546 chars)'],
  [{ interrupts: 1, healed: 2, charsSaved: -120 }, 'resume view: neutralised 1 interrupted · healed 2 · added ≈30 tokens (120 chars)'],
  [{ pruned: 2, apiErrors: 2 }, 'resume view: pruned 2 (2 api errors)'],
];
for (const [r, want] of REPORT_LINES) {
  test(`trimReport says "${want}"`, () => assert.equal(trimReport({ ...emptyReport(), ...r }), want));
}

// ── builders ─────────────────────────────────────────────────────────────────────────────────
function asst(uuid: string, parentUuid: string | null, content: unknown[], extra: Record<string, unknown> = {}): Entry {
  return {
    type: 'assistant',
    uuid,
    parentUuid,
    sessionId: 's',
    cwd: '/w',
    version: '2.1.332',
    gitBranch: 'HEAD',
    isSidechain: false,
    userType: 'external',
    entrypoint: 'sdk-ts',
    message: { role: 'assistant', model: 'm', content },
    ...extra,
  };
}
function user(uuid: string, parentUuid: string | null, content: unknown[], extra: Record<string, unknown> = {}): Entry {
  return { type: 'user', uuid, parentUuid, message: { role: 'user', content }, ...extra };
}
