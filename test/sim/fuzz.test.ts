// The fuzzing model (src/sim/fuzz): plausible turns per role, a seeded catalogue of faults, no state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildReply,
  decide,
  DEFAULT_LIMITS,
  FAULT_KINDS,
  FAULTS,
  fuzzModel,
  fuzzRoleOf,
  parseFuzzOptions,
  parseItems,
  parseScenario,
  replyEvents,
  SimError,
  startSim,
  type FaultKind,
  type FuzzOptions,
  type SimCall,
  type SimItem,
} from '../../src/sim/index.js';
import { submitBriefSchema, submitGoalSchema, submitHandoffSchema, submitVerdictSchema } from '../../src/docs/schemas.js';
import { callOf, GOAL_BLOCK, round, withoutIds, WS, type Role } from './fuzz-calls.js';
import { exchange, parseSse } from './helpers.js';

const ROLES: Role[] = ['clarify', 'goal', 'coordinator', 'worker', 'judge', 'handoff'];
const calls = (item: SimItem): Array<{ name: string; input: Record<string, unknown> }> =>
  item.type === 'tool_use' ? (item.tools ?? [{ name: item.name!, input: item.input ?? {} }]).map((c) => ({ name: c.name, input: c.input ?? {} })) : [];
const plausible = (call: SimCall, seed = 1): SimItem => decide(call, { seed, rate: 0 }).item;

test('the role is read from the request: subagent mark, handoff prompt, the submit tool the first prompt names, the Agent tool', () => {
  const expected: Record<Role, string> = { clarify: 'clarify', goal: 'goal', coordinator: 'coordinator', worker: 'worker', judge: 'judge', handoff: 'handoff' };
  for (const role of ROLES) assert.equal(fuzzRoleOf(callOf(role)), expected[role], role);
});

test('same seed and same request give the same item; paths, ids and the request number do not enter the choice', () => {
  for (const role of ROLES) {
    for (const seed of [1, 2, 3, 'x']) {
      const o: FuzzOptions = { seed, rate: 0.7 };
      const a = decide(callOf(role, { n: 1 }), o);
      const b = decide(callOf(role, { n: 99 }), o);
      assert.equal(withoutIds(a.item), withoutIds(b.item), `${role} seed ${seed}`);
      const elsewhere = decide(callOf(role, { ws: '/tmp/other-folder-8x7Yq' }), o);
      assert.equal(elsewhere.decision.fault, a.decision.fault);
      assert.equal(elsewhere.decision.variant, a.decision.variant);
    }
  }
});

test('a retry of the same request (another x-stainless-retry-count) draws anew, and seeds differ', () => {
  const faultsOf = (o: (s: number) => SimCall): string =>
    Array.from({ length: 40 }, (_, s) => decide(o(s), { seed: s, rate: 0.5 }).decision.fault ?? '-').join(',');
  assert.notEqual(
    faultsOf(() => callOf('clarify')),
    faultsOf(() => callOf('clarify', { retry: 1 })),
  );
  const bySeed = new Set(Array.from({ length: 40 }, (_, s) => decide(callOf('worker'), { seed: s, rate: 0.5 }).decision.fault));
  assert.ok(bySeed.size > 3, `only ${[...bySeed].join(', ')}`);
});

test('a fuzzModel traces every decision and serves what decide() computes', () => {
  const m = fuzzModel({ seed: 5, rate: 0.5 });
  const call = callOf('judge');
  assert.equal(withoutIds(m(call)), withoutIds(decide(call, { seed: 5, rate: 0.5 }).item));
  assert.equal(m.trace.length, 1);
  assert.equal(m.trace[0]!.role, 'judge');
  assert.match(m.trace[0]!.fingerprint, /^judge\|m2\|r0\|s\|f[0-9a-f]{8}\|c[0-9a-f]{8}$/);
});

test('the plausible clarifier and goal setter submit documents the schemas accept', () => {
  for (let seed = 0; seed < 12; seed++) {
    let c = callOf('clarify');
    let item = plausible(c, seed);
    // it may look around or ask first; the next turn then submits
    if (calls(item)[0]?.name !== 'mcp__human__submit_brief') {
      c = callOf('clarify', { messages: round(calls(item), ['md2html.mjs is not there yet']) });
      item = plausible(c, seed);
    }
    const [brief] = calls(item);
    assert.equal(brief?.name, 'mcp__human__submit_brief', `seed ${seed}`);
    assert.ok(submitBriefSchema.safeParse(brief!.input).success, JSON.stringify(brief!.input));
    const done = plausible(callOf('clarify', { messages: [...(c.body.messages ?? []).slice(2), ...round([brief!], ['Brief received.'])] }), seed);
    assert.equal(done.type, 'text', 'an accepted submission ends the turn');
  }
  const [goal] = calls(plausible(callOf('goal')));
  assert.equal(goal?.name, 'mcp__human__submit_goal');
  assert.ok(submitGoalSchema.safeParse(goal!.input).success);
  assert.ok((goal!.input.checks as unknown[]).length >= 1);
  const [handoff] = calls(plausible(callOf('handoff')));
  assert.equal(handoff?.name, 'mcp__flower_handoff__submit_handoff');
  assert.ok(submitHandoffSchema.safeParse(handoff!.input).success);
});

test('a rejected submission is submitted again, fixed', () => {
  const bad = { name: 'mcp__human__submit_goal', input: { statement: 'x' } };
  const again = calls(
    plausible(callOf('goal', { messages: round([bad], [{ text: 'Not received; missing or invalid fields:\n- checks: Required', error: true }]) })),
  );
  assert.equal(again[0]?.name, 'mcp__human__submit_goal');
  assert.ok(submitGoalSchema.safeParse(again[0]!.input).success);
});

test('the coordinator dispatches a declared subagent_type with the artifact, then reports', () => {
  const [agent] = calls(plausible(callOf('coordinator')));
  assert.equal(agent?.name, 'Agent');
  assert.equal(agent!.input.subagent_type, 'worker', 'the declared type, not a built-in one');
  assert.match(String(agent!.input.prompt), new RegExp(`^Artifact: ${WS}/md2html.mjs$`, 'm'));
  const report = plausible(callOf('coordinator', { messages: round([agent!], ['Conclusion: done.\nEvidence: ran it']) }));
  assert.equal(report.type, 'text');
  const retry = calls(plausible(callOf('coordinator', { messages: round([agent!], [{ text: 'InputValidationError', error: true }]) })));
  assert.equal(retry[0]?.name, 'Agent', 'a refused dispatch is made again');
});

test('the worker writes the artifact (Write or Bash), runs it, then reports in the four sections', () => {
  const seen = new Set<string>();
  for (let seed = 0; seed < 8; seed++) {
    let messages: unknown[] = [];
    const made: string[] = [];
    for (let turn = 0; turn < 6; turn++) {
      const item = plausible(callOf('worker', { messages }), seed);
      if (item.type === 'text') {
        assert.match(item.text, /^Conclusion: .+\nEvidence: .+\nOutputs: .+\nUnverified: .+$/);
        break;
      }
      const [c] = calls(item);
      seen.add(c!.name);
      made.push(String(c!.input.file_path ?? c!.input.command));
      messages = [...messages, ...round([c!], ['ok'])];
    }
    assert.ok(
      made.some((m) => m.includes(`${WS}/md2html.mjs`)),
      made.join(' | '),
    );
    assert.ok(
      made.some((m) => m.includes('node md2html.mjs sample.md')),
      made.join(' | '),
    );
  }
  assert.deepEqual([...seen].sort(), ['Bash', 'Write']);
});

test('the judge reads what the checklist names, then judges every item with evidence', () => {
  const reads = calls(plausible(callOf('judge')));
  assert.deepEqual(reads.map((r) => r.input.file_path).sort(), [`${WS}/md2html.mjs`, `${WS}/sample.html`, `${WS}/sample.md`]);
  const results = reads.map((r) =>
    String(r.input.file_path).endsWith('.html') ? '     1\t<h1>Sample</h1>\n     2\t<ul><li>one</li></ul>' : '     1\tcontent',
  );
  const [verdict] = calls(plausible(callOf('judge', { messages: round(reads, results) })));
  assert.equal(verdict?.name, 'mcp__human__submit_verdict');
  const v = submitVerdictSchema.parse(verdict!.input);
  const items = GOAL_BLOCK.split('\n')
    .filter((l) => l.startsWith('- '))
    .map((l) => l.slice(2));
  assert.deepEqual(
    v.checks.map((c) => c.item),
    items,
  );
  assert.ok(v.checks.every((c) => c.pass === true && c.evidence.length > 0));
  assert.equal(v.state, 'achieved');
  const missing = reads.map((r) => (String(r.input.file_path).endsWith('.html') ? { text: 'File does not exist.', error: true as const } : 'content'));
  const failed = submitVerdictSchema.parse(calls(plausible(callOf('judge', { messages: round(reads, missing) })))[0]!.input);
  assert.equal(failed.state, 'not_yet');
  assert.match(failed.reason, /2 of 3 checks failed/);
});

/** A call of `role` on which `kind` can act (a tool-call turn when it needs one). */
function callFor(kind: FaultKind): SimCall {
  for (const role of ['goal', 'worker', 'judge', 'coordinator', 'clarify'] as Role[]) {
    for (const c of [callOf(role), callOf(role, { messages: round([{ name: 'Glob', input: { pattern: '**/*' } }], ['README.md']) })]) {
      if (decide(c, { seed: 1, rate: 1, only: kind }).decision.fault === kind) return c;
    }
  }
  throw new Error(`no role takes ${kind}`);
}

type Sse = Extract<SimItem, { type: 'sse' }>;
const dataOf = (item: Sse): Array<Record<string, unknown>> =>
  item.events.map((e) => (typeof e.data === 'string' ? JSON.parse(e.data) : e.data) as Record<string, unknown>);
const inputJson = (item: Sse): string =>
  dataOf(item)
    .map((d) => (d.delta as { partial_json?: string } | undefined)?.partial_json ?? '')
    .join('');
const stopOf = (item: SimItem): string | undefined =>
  item.type === 'sse'
    ? (dataOf(item).find((d) => d.type === 'message_delta')?.delta as { stop_reason?: string } | undefined)?.stop_reason
    : (item as { stop_reason?: string }).stop_reason;

/** What each fault must look like on the wire. */
const LOOKS: Record<FaultKind, (item: SimItem, call: SimCall) => void> = {
  prose: (item) => assert.equal(item.type, 'text'),
  bad_fields: (item) => {
    const [c] = calls(item);
    const schema = { mcp__human__submit_goal: submitGoalSchema, mcp__human__submit_verdict: submitVerdictSchema, mcp__human__submit_brief: submitBriefSchema }[
      c!.name as 'mcp__human__submit_goal'
    ];
    if (schema && !('confidence' in c!.input)) {
      const v = c!.input as { state?: string; checks?: Array<{ evidence?: string }> };
      const hollow = v.state === 'achieved' && (v.checks?.length === 0 || v.checks?.some((x) => x.evidence === '') || v.checks?.length === 1);
      assert.ok(hollow || !schema.safeParse(c!.input).success, JSON.stringify(c!.input));
    }
  },
  unknown_tool: (item, call) => {
    const [c] = calls(item);
    assert.ok(!call.tools.includes(c!.name) || /submit_(?!goal)/.test(c!.name), c!.name);
  },
  repeat: (item) => assert.ok(calls(item).length >= 1),
  bad_json: (item) => assert.throws(() => JSON.parse(inputJson(item as Sse))),
  max_tokens_cut: (item) => {
    assert.equal(stopOf(item), 'max_tokens');
    if (item.type === 'sse') assert.throws(() => JSON.parse(inputJson(item)));
  },
  empty: (item) => assert.ok(item.type === 'sse' ? !dataOf(item).some((d) => d.type === 'content_block_start') : (item as { text: string }).text.trim() === ''),
  refusal: (item) => assert.equal(stopOf(item), 'refusal'),
  huge: (item) => assert.ok(JSON.stringify(item).length >= DEFAULT_LIMITS.hugeBytes[0]),
  unknown_block: (item) =>
    assert.ok(
      dataOf(item as Sse).some(
        (d) => d.type === 'content_block_start' && !['text', 'tool_use', 'thinking'].includes((d.content_block as { type: string }).type),
      ),
    ),
  usage: (item) => {
    const u = (item as { usage?: Record<string, number> }).usage!;
    const values = Object.values(u);
    assert.ok(values.every((x) => x === 0) || values.some((x) => x >= 1e9) || u.input_tokens! < 150_000, JSON.stringify(u));
  },
  drop_mid: (item) => assert.equal(item.type, 'drop_mid'),
  sse_error: (item) => assert.equal((item as Sse).events.at(-1)!.event, 'error'),
  slow: (item) =>
    assert.ok(item.type === 'sse' ? item.events.some((e) => (e.delayMs ?? 0) >= 1000) : ((item as { chunkDelayMs?: number }).chunkDelayMs ?? 0) > 0),
  http_error: (item) => assert.equal(item.type, 'error'),
  stuck: (item) => assert.deepEqual(calls(item), [{ name: 'Glob', input: { pattern: '**/*' } }]),
};

test('every fault kind can be forced on its own, looks like itself on the wire, and is a valid sim item', () => {
  for (const kind of FAULT_KINDS) {
    const call = callFor(kind);
    const variants = new Set<string>();
    for (let seed = 0; seed < 30; seed++) {
      const { item, decision } = decide(call, { seed, rate: 1, only: kind, hugeBytes: [1_000_000, 1_000_100] });
      assert.equal(decision.fault, kind);
      variants.add(String(decision.variant).split(/[:@]/)[0]!);
      assert.doesNotThrow(() => parseItems([item]), `${kind}: ${withoutIds(item).slice(0, 200)}`);
      LOOKS[kind](item, call);
    }
    assert.ok(variants.size >= 1, kind);
  }
});

test('a stream-only fault never meets a stream:false request; no fault is drawn at rate 0', () => {
  for (let seed = 0; seed < 50; seed++) {
    const d = decide(callOf('worker', { stream: false }), { seed, rate: 1 }).decision;
    assert.ok(d.fault === null || !FAULTS[d.fault].streamOnly, `${d.fault}`);
    assert.equal(decide(callOf('worker'), { seed, rate: 0 }).decision.fault, null);
  }
});

/** The longest a client can wait on an item (before the headers, between events). */
function waitOf(item: SimItem, call: SimCall): number {
  const before = item.delayMs ?? 0;
  if (item.type === 'sse') return before + item.events.reduce((s, e, i) => s + (e.delayMs ?? (i > 0 ? (item.chunkDelayMs ?? 0) : 0)), 0);
  if (item.type === 'text' || item.type === 'tool_use' || item.type === 'drop_mid') {
    const n = replyEvents(buildReply(item, call.body), item.chunks ?? 1).length;
    return before + (item.chunkDelayMs ?? 0) * (n - 1);
  }
  return before;
}

test('no fault waits without bound: no hang, no stall, every delay within maxDelayMs', () => {
  for (const maxDelayMs of [DEFAULT_LIMITS.maxDelayMs, 2000]) {
    for (const role of ROLES) {
      for (let seed = 0; seed < 60; seed++) {
        const call = callOf(role);
        const { item } = decide(call, { seed, rate: 1, maxDelayMs, hugeBytes: [100, 200] });
        assert.notEqual(item.type, 'hang');
        assert.notEqual(item.type, 'shutdown');
        assert.ok(!(item.type === 'drop_mid' && item.stall), 'a stall waits for the client');
        assert.ok(waitOf(item, call) <= maxDelayMs, `${role} seed ${seed}: waits ${waitOf(item, call)} ms > ${maxDelayMs}`);
      }
    }
  }
});

test('the fuzz options are checked like a scenario, naming the field', () => {
  const bad: Array<[unknown, RegExp]> = [
    [{}, /field "seed" must be a number or a string/],
    [{ seed: 1, rate: 2 }, /field "rate" must be a number between 0 and 1/],
    [{ seed: 1, only: 'typo' }, /field "only" must be a fault kind/],
    [{ seed: 1, weights: { slow: -1 } }, /field "weights\.slow" must be a number ≥ 0/],
    [{ seed: 1, weights: { nope: 1 } }, /field "weights\.nope" is not a fault kind/],
    [{ seed: 1, roles: ['boss'] }, /field "roles" must be an array of/],
    [{ seed: 1, hugeBytes: [5, 1] }, /field "hugeBytes" must be \[min, max\]/],
    [{ seed: 1, color: 'red' }, /field "color" is unknown/],
  ];
  for (const [o, message] of bad)
    assert.throws(
      () => parseFuzzOptions(o),
      (e: unknown) => e instanceof SimError && message.test(e.message),
      JSON.stringify(o),
    );
  assert.deepEqual(parseFuzzOptions({ seed: 3, only: ['slow', 'empty'], weights: { slow: 2 }, roles: ['judge'] }), {
    seed: 3,
    only: ['slow', 'empty'],
    weights: { slow: 2 },
    roles: ['judge'],
  });
});

test('roles and weights narrow the faults; only wins over weights', () => {
  for (let seed = 0; seed < 30; seed++) {
    assert.equal(decide(callOf('worker'), { seed, rate: 1, roles: ['judge'] }).decision.fault, null);
    const d = decide(callOf('judge'), { seed, rate: 1, weights: Object.fromEntries(FAULT_KINDS.map((k) => [k, k === 'usage' ? 1 : 0])) }).decision;
    assert.equal(d.fault, 'usage');
    assert.equal(
      decide(callOf('judge'), { seed, rate: 1, only: 'empty', weights: { empty: 0, usage: 5 } }).decision.fault,
      null,
      'only empty, and empty is weighted 0',
    );
  }
});

test('a scenario\'s "fuzz" key makes the fuzzing model its default answer (flower sim --script fuzz.json)', async () => {
  const scenario = parseScenario({ items: [], fuzz: { seed: 1, rate: 0 } });
  assert.equal(typeof scenario.default, 'function');
  assert.throws(() => parseScenario({ items: [], fuzz: { seed: 1 }, default: { type: 'text', text: 'x' } }), /"fuzz" and "default" exclude each other/);
  assert.throws(() => parseScenario({ items: [], fuzz: { seed: 1, rate: 9 } }), /fuzz: field "rate" must be a number between 0 and 1/);
  const sim = await startSim({ script: { items: [], fuzz: { seed: 1, rate: 0 } } });
  try {
    const out = await exchange(sim.url, { body: callOf('goal').body });
    const start = parseSse(out.text).find((e) => e.event === 'content_block_start' && (e.data.content_block as { type: string }).type === 'tool_use');
    assert.ok(start);
    assert.equal((start.data.content_block as { name: string }).name, 'mcp__human__submit_goal');
  } finally {
    await sim.close();
  }
});

test('parallel tool results in another order (they come back as they finish) do not change the choice', () => {
  const reads = [
    { name: 'Read', input: { file_path: `${WS}/a.md` } },
    { name: 'Read', input: { file_path: `${WS}/b.md` } },
  ];
  const [asked, answered] = round(reads, ['one', 'two']) as [unknown, { role: string; content: unknown[] }];
  const swapped = { ...answered, content: [...answered.content].reverse() };
  for (let seed = 0; seed < 20; seed++) {
    const o = { seed, rate: 0.6 };
    const a = decide(callOf('judge', { messages: [asked, answered] }), o).decision;
    const b = decide(callOf('judge', { messages: [asked, swapped] }), o).decision;
    assert.deepEqual([b.fingerprint, b.fault, b.variant], [a.fingerprint, a.fault, a.variant]);
  }
});

test('a later round of the coordinator passes the feedback on and names the attempt, so its workers meet other draws', () => {
  const [first] = calls(plausible(callOf('coordinator')));
  const feedback = { role: 'user', content: [{ type: 'text', text: 'The judge says: sample.html is missing.' }] };
  const later = callOf('coordinator', {
    messages: [...round([first!], ['Conclusion: done.']), { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] }, feedback],
  });
  const [second] = calls(plausible(later));
  assert.doesNotMatch(String(first!.input.prompt), /attempt/);
  assert.match(String(second!.input.prompt), /This is attempt 2; the feedback on the last one: The judge says: sample\.html is missing\./);
});

test('a stuck conversation makes its last call again on every turn, refused or not; the others are never stuck', () => {
  const glob = { name: 'Glob', input: { pattern: '**/*' } };
  let messages = round([glob], ['README.md']);
  for (let turn = 0; turn < 15; turn++) {
    const { item, decision } = decide(callOf('worker', { messages }), { seed: 3, rate: 1, only: 'stuck' });
    assert.equal(decision.fault, 'stuck');
    assert.deepEqual(calls(item), [glob]);
    messages = [...messages, ...round([glob], [{ text: 'PreToolUse:Glob hook error: this exact call was made 5 times', error: true }])];
  }
  // drawn once per conversation: with a rate of 0.5, some conversations are stuck and the rest never are
  const stuckOnes = Array.from({ length: 40 }, (_, seed) => seed).filter((seed) => {
    const first = decide(callOf('worker', { messages: round([glob], ['a']) }), { seed, rate: 0.5, only: 'stuck' }).decision.fault;
    const later = decide(callOf('worker', { messages: [...round([glob], ['a']), ...round([glob], ['b'])] }), { seed, rate: 0.5, only: 'stuck' }).decision.fault;
    assert.equal(first, later, `seed ${seed}`);
    return first === 'stuck';
  });
  assert.ok(stuckOnes.length > 5 && stuckOnes.length < 35, String(stuckOnes.length));
});
