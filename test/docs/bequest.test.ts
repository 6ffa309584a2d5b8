/**
 * The hand-over block's text logic (src/docs/bequest.ts), table-tested: the nine scenarios of the
 * original — no file, a file without the block, a file with it (updated), the person's text before
 * and after kept, a CRLF file, the block removed, a file that held only the block, damaged markers,
 * repeated runs — and what the block says.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  BEQUEST_BEGIN,
  BEQUEST_END,
  REQUEST_CHARS,
  bequestWhen,
  lineEnding,
  placeBlock,
  removeBlock,
  renderBequest,
  scanBlock,
  type BequestFacts,
} from '../../src/docs/index.js';

const BLOCK = ['<!-- flower:begin v1 -->', '## flower', 'did a thing', '<!-- flower:end -->'];
const NEWER = ['<!-- flower:begin v2 -->', '## flower', 'did another thing', 'and more', '<!-- flower:end -->'];
const lf = (lines: string[]) => lines.join('\n');
const crlf = (lines: string[]) => lines.join('\r\n');

const placed = (prev: string | null, block = BLOCK): string => {
  const r = placeBlock(prev, block);
  assert.ok(r.ok, `placed: ${JSON.stringify(r)}`);
  return r.text;
};

interface Case {
  name: string;
  before: string | null;
  block?: string[];
  after: string;
}

const PLACE: Case[] = [
  { name: '1. no file: a file with only the block', before: null, after: `${lf(BLOCK)}\n` },
  { name: '1b. an empty file: only the block', before: '', after: `${lf(BLOCK)}\n` },
  { name: '2. a file without the block: appended after one blank line', before: '# My project\nuse pnpm\n', after: `# My project\nuse pnpm\n\n${lf(BLOCK)}\n` },
  { name: '2b. no last newline: one is added, then the blank line', before: '# Mine', after: `# Mine\n\n${lf(BLOCK)}\n` },
  {
    name: '3. a file with the block: replaced where it stands',
    before: `# Mine\n\n${lf(BLOCK)}\n`,
    block: NEWER,
    after: `# Mine\n\n${lf(NEWER)}\n`,
  },
  {
    name: "4. the person's text before and after the block stays byte for byte",
    before: `top  \n\n\n${lf(BLOCK)}\n\n  after\ttabs \n<!-- mine -->\n`,
    block: NEWER,
    after: `top  \n\n\n${lf(NEWER)}\n\n  after\ttabs \n<!-- mine -->\n`,
  },
  { name: '4b. a block on the last line without a newline keeps having none', before: `x\n${lf(BLOCK)}`, block: NEWER, after: `x\n${lf(NEWER)}` },
  { name: '5. a CRLF file: the block is appended with CRLF', before: 'a\r\nb\r\n', after: `a\r\nb\r\n\r\n${crlf(BLOCK)}\r\n` },
  { name: '5b. a CRLF file with the block: replaced with CRLF', before: `a\r\n${crlf(BLOCK)}\r\nz\r\n`, block: NEWER, after: `a\r\n${crlf(NEWER)}\r\nz\r\n` },
  { name: '5c. blank lines only: no extra blank line', before: '\n', after: `\n${lf(BLOCK)}\n` },
];

for (const c of PLACE) {
  test(`place: ${c.name}`, () => {
    const r = placeBlock(c.before, c.block ?? BLOCK);
    assert.ok(r.ok);
    assert.equal(r.text, c.after);
    assert.equal(r.changed, r.text !== c.before);
    const scan = scanBlock(r.text);
    assert.equal(scan.kind, 'one', 'exactly one block after');
  });
}

const REMOVE: Array<{ name: string; before: string; after: string | null }> = [
  { name: '6. the block removed: the text as it was before it was added', before: placed('# Mine\nuse pnpm\n'), after: '# Mine\nuse pnpm\n' },
  { name: '6b. text after the block stays', before: `top\n${lf(BLOCK)}\nbottom\n`, after: 'top\nbottom\n' },
  { name: '6c. a CRLF file stays CRLF', before: placed('a\r\nb\r\n'), after: 'a\r\nb\r\n' },
  { name: '6d. the person wrote below a block flower created', before: `${lf(BLOCK)}\n\nmine\n`, after: 'mine\n' },
  { name: '7. a file that held only the block: nothing left (the file goes)', before: placed(null), after: null },
  { name: '7b. nothing to remove: the text is unchanged', before: '# Mine\n', after: '# Mine\n' },
];

for (const c of REMOVE) {
  test(`remove: ${c.name}`, () => {
    const r = removeBlock(c.before);
    assert.ok(r.ok);
    assert.equal(r.text, c.after);
    assert.equal(r.changed, c.after !== c.before);
  });
}

const DAMAGED: Array<[string, string, string, number[]]> = [
  ['two begin markers', `a\n<!-- flower:begin -->\nx\n<!-- flower:begin -->\ny\n<!-- flower:end -->\n`, 'two-begins', [2, 4]],
  ['a begin without an end', `mine\n<!-- flower:begin -->\nthe rest is mine\n`, 'begin-without-end', [2]],
  ['an end without a begin', `mine\n<!-- flower:end -->\n`, 'end-without-begin', [2]],
  ['two end markers', `<!-- flower:begin -->\n<!-- flower:end -->\nmine\n<!-- flower:end -->\n`, 'two-ends', [2, 4]],
  ['the end before the begin', `<!-- flower:end -->\nmine\n<!-- flower:begin -->\n`, 'end-before-begin', [3, 1]],
  ['both on one line', `<!-- flower:begin --> <!-- flower:end -->\n`, 'end-before-begin', [1, 1]],
];

for (const [name, text, damage, lines] of DAMAGED) {
  test(`8. damaged markers (${name}): neither placed nor removed, the reason and the lines named`, () => {
    assert.deepEqual(scanBlock(text), { kind: 'damaged', damage, lines });
    assert.deepEqual(placeBlock(text, BLOCK), { ok: false, damage, lines });
    assert.deepEqual(removeBlock(text), { ok: false, damage, lines });
  });
}

test('9. repeated runs are idempotent: one block, the same text, whatever came before', () => {
  for (const start of [null, '', '# Mine\n', '# Mine', 'a\r\nb\r\n', `top\n${lf(BLOCK)}\nbottom\n`]) {
    const once = placed(start, NEWER);
    const twice = placeBlock(once, NEWER);
    assert.ok(twice.ok);
    assert.equal(twice.text, once, JSON.stringify(start));
    assert.equal(twice.changed, false);
    // a run with other facts replaces the block, never adds one
    const other = placed(placed(once, BLOCK), NEWER);
    assert.equal(other, once);
    assert.equal(other.split(BEQUEST_BEGIN).length - 1, 1);
  }
});

test('line endings: CRLF only when most lines end so; LF for a file without any', () => {
  assert.equal(lineEnding('a\r\nb\r\nc\n'), '\r\n');
  assert.equal(lineEnding('a\nb\nc\r\n'), '\n');
  assert.equal(lineEnding('one line'), '\n');
  assert.equal(lineEnding(''), '\n');
});

// ---- what the block says ----

const FACTS: BequestFacts = {
  lang: 'en',
  request: 'write a markdown-to-html script',
  workflow: null,
  at: '2026-05-02 14:03',
  cost: '$0.0123',
  verdict: { outcome: 'achieved', passed: 3, total: 3 },
  stoppedAt: null,
  notes: '.flower/notes/',
  present: { brief: true, goal: true, qa: true, handoffs: false },
  names: { brief: '需求.md', goal: '目标.md', qa: '问答记录.md', handoffPrefix: '交接-' },
  flags: '',
};

test('the block says what flower did, where the notes are and how to continue — in English', () => {
  const lines = renderBequest(FACTS);
  assert.match(lines[0]!, /^<!-- flower:begin .* -->$/);
  assert.equal(lines.at(-1), `<!-- ${BEQUEST_END} -->`);
  const text = lines.join('\n');
  assert.match(text, /\*\*Asked:\*\* write a markdown-to-html script/);
  assert.match(text, /2026-05-02 14:03 · \$0\.0123 · verdict achieved 3\/3/);
  assert.match(text, /`\.flower\/notes\/`: `需求\.md` \(the brief\), `目标\.md` \(the goal and its checks\), `问答记录\.md`/);
  assert.doesNotMatch(text, /交接-/, 'no handoff notes: not listed');
  assert.match(text, /`flower` in this folder/);
  assert.match(text, /`flower status`/);
  assert.match(text, /`flower bequest --remove`/);
  assert.ok(lines.length <= 14, 'a handful of pointers, not content');
  assert.equal(scanBlock(`${text}\n`).kind, 'one');
});

test('in Chinese, with a stop, no verdict, handoffs and a run dir elsewhere', () => {
  const text = renderBequest({
    ...FACTS,
    lang: 'zh',
    verdict: null,
    stoppedAt: '干活',
    present: { ...FACTS.present, handoffs: true },
    flags: ' -r ../runs',
  }).join('\n');
  assert.match(text, /## flower 留下的交接/);
  assert.match(text, /\*\*需求:\*\* write a markdown-to-html script/);
  assert.match(text, /停在步骤 `干活` · 没有判定/);
  assert.match(text, /`交接-\*\.md`\(交接\)/);
  assert.match(text, /运行 `flower -r \.\.\/runs`/);
  assert.match(text, /`flower status -r \.\.\/runs`/);
  assert.match(renderBequest({ ...FACTS, lang: 'zh', verdict: { outcome: 'not_yet', passed: 1, total: 2 } }).join('\n'), /判定 未达成 1\/2/);
});

test('`flower run`: the workflow named, and the command to run it again', () => {
  const text = renderBequest({
    ...FACTS,
    workflow: 'examples/team.mjs',
    request: null,
    present: { brief: false, goal: false, qa: false, handoffs: false },
  }).join('\n');
  assert.match(text, /\*\*Ran:\*\* the workflow `examples\/team\.mjs`/);
  assert.doesNotMatch(text, /Asked/);
  assert.doesNotMatch(text, /\*\*Notes\*\*/, 'no notes: no notes line');
  assert.match(text, /`flower run examples\/team\.mjs` in this folder/);
});

test('no request known: the brief is pointed at, never a model-written goal quoted', () => {
  const text = renderBequest({ ...FACTS, request: null }).join('\n');
  assert.match(text, /\*\*Asked:\*\* see `\.flower\/notes\/需求\.md`/);
});

test('the request is one line, cut short, and cannot forge a marker: the block stays one block', () => {
  const nasty = `do it\n<!-- flower:end -->\n# Ignore\r\nFLOWER:BEGIN ${'x'.repeat(REQUEST_CHARS)}`;
  const lines = renderBequest({ ...FACTS, request: nasty, stoppedAt: 'a flower:end step' });
  const text = lines.join('\n');
  assert.equal(scanBlock(`mine\n${text}\n`).kind, 'one');
  const asked = lines.find((l) => l.includes('Asked'))!;
  assert.match(asked, /do it <!-- flower: end --> # Ignore FLOWER: BEGIN x+…$/);
  assert.ok([...asked].length < REQUEST_CHARS + 40);
});

test('the date is local time, to the minute', () => {
  assert.equal(bequestWhen(new Date(2026, 0, 5, 9, 7, 59)), '2026-01-05 09:07');
});
