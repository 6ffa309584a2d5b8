import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { hasLongString, preview, readsSpill, replaceLongStrings, spillDecision, spillGuard, SPILL_TOOLS, Workbench } from '../../src/guards/index.js';
import { fire, post, specific, SUB } from './helpers.js';

function bench(): Workbench {
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-spill-'));
  return new Workbench(ws, { lang: 'en' }).ensure();
}
const sha16 = (s: string) => crypto.createHash('sha256').update(s).digest('hex').slice(0, 16);
const opts = { threshold: 4000, head: 400, lang: 'en' as const };
const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${String(i).padStart(5, '0')}`).join('\n');

test('a string output at the threshold is spilled; one char shorter is not', () => {
  const wb = bench();
  const at = 'a'.repeat(4000);
  const d = spillDecision(wb, { toolInput: { command: 'x' }, toolResponse: { stdout: at, stderr: '' }, cwd: wb.workspace }, opts);
  assert.ok(d);
  assert.equal(fs.readFileSync(path.join(wb.spill, `${sha16(at)}.txt`), 'utf8'), at);
  assert.equal(spillDecision(wb, { toolInput: { command: 'x' }, toolResponse: { stdout: 'a'.repeat(3999), stderr: '' }, cwd: wb.workspace }, opts), undefined);
});

test('the pointer names size and path, says Read/Grep, and keeps at most 400 chars with newlines as spaces', () => {
  const wb = bench();
  const text = lines(1000);
  const d = spillDecision(wb, { toolInput: { command: 'seq' }, toolResponse: { stdout: text, stderr: '', interrupted: false }, cwd: wb.workspace }, opts)!;
  const out = d.updatedToolOutput as { stdout: string; stderr: string; interrupted: boolean };
  assert.equal(out.stderr, '');
  assert.equal(out.interrupted, false, 'the tool structure is kept');
  const [head, ...rest] = out.stdout.split('\n');
  assert.match(head!, new RegExp(`${text.length} chars .*${sha16(text)}\\.txt.*use Read for the full text, Grep to search`));
  assert.equal(rest.length, 1, 'the preview is one line');
  assert.equal(rest[0], text.slice(0, 400).replace(/\n/g, ' '));
  assert.ok(rest[0]!.length <= 400);
  assert.deepEqual(d.files, [path.join(wb.spill, `${sha16(text)}.txt`)]);
});

test('a custom head and threshold are honoured; threshold 0 turns spilling off', () => {
  const wb = bench();
  const d = spillDecision(wb, { toolInput: {}, toolResponse: 'x'.repeat(150), cwd: wb.workspace }, { threshold: 100, head: 10, lang: 'en' })!;
  assert.equal((d.updatedToolOutput as string).split('\n')[1], 'x'.repeat(10));
  assert.equal(spillDecision(wb, { toolInput: {}, toolResponse: 'x'.repeat(99999), cwd: wb.workspace }, { threshold: 0, head: 10, lang: 'en' }), undefined);
});

test('the same output twice is one file, written once (content-addressed, never rewritten)', () => {
  const wb = bench();
  const text = lines(600);
  spillDecision(wb, { toolInput: {}, toolResponse: { stdout: text }, cwd: wb.workspace }, opts);
  const file = path.join(wb.spill, `${sha16(text)}.txt`);
  const before = fs.statSync(file).mtimeMs;
  fs.utimesSync(file, new Date(1000), new Date(1000));
  spillDecision(wb, { toolInput: {}, toolResponse: { stdout: text }, cwd: wb.workspace }, opts);
  assert.equal(fs.statSync(file).mtimeMs, 1000 * 1, `not rewritten (was ${before})`);
  assert.deepEqual(fs.readdirSync(wb.spill), [`${sha16(text)}.txt`], 'no temp files left behind');
});

test('nested string fields are replaced, short ones and numbers kept; a Read result keeps its shape', () => {
  const wb = bench();
  const big = lines(700);
  const read = { type: 'text', file: { filePath: '/x/big.log', content: big, numLines: 700, startLine: 1, totalLines: 700 } };
  const d = spillDecision(wb, { toolInput: { file_path: '/x/big.log' }, toolResponse: read, cwd: wb.workspace }, opts)!;
  const out = d.updatedToolOutput as typeof read;
  assert.equal(out.type, 'text');
  assert.equal(out.file.filePath, '/x/big.log');
  assert.equal(out.file.numLines, 700);
  assert.match(out.file.content, /^\[output spilled/);
  assert.equal(read.file.content, big, 'the input object is not mutated');
});

test('arrays holding images are never touched; arrays of strings are walked', () => {
  const big = 'z'.repeat(5000);
  const img = [
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: big } },
    { type: 'text', text: big },
  ];
  assert.equal(replaceLongStrings(img, 4000, () => 'P').replaced, 0);
  assert.deepEqual(
    replaceLongStrings({ content: img }, 4000, () => 'P'),
    { value: { content: img }, replaced: 0 },
  );
  const r = replaceLongStrings({ filenames: ['a', big] }, 4000, () => 'P');
  assert.deepEqual(r, { value: { filenames: ['a', 'P'] }, replaced: 1 });
});

// [behaviour, tool output]: hasLongString says "something to spill" exactly when replaceLongStrings replaces something
const LONG: Array<[string, unknown]> = [
  ['a short string', 'x'.repeat(3999)],
  ['a string at the threshold', 'x'.repeat(4000)],
  ['a long stdout among short fields', { stdout: 'x'.repeat(5000), stderr: '', interrupted: false }],
  ['only short fields', { stdout: 'ok', stderr: '', interrupted: false }],
  ['a long file name in a list', { filenames: ['a', 'b'.repeat(4001)] }],
  [
    'a long text beside an image in one array',
    [
      { type: 'image', source: { type: 'base64', data: 'z'.repeat(5000) } },
      { type: 'text', text: 'y'.repeat(5000) },
    ],
  ],
  ['a document block', { type: 'document', source: { type: 'base64', data: 'z'.repeat(5000) } }],
  ['a long string nested 16 levels deep', JSON.parse(`${'{"k":'.repeat(16)}"${'x'.repeat(4000)}"${'}'.repeat(16)}`)],
  ['a long string nested 17 levels deep (past the walk)', JSON.parse(`${'{"k":'.repeat(17)}"${'x'.repeat(4000)}"${'}'.repeat(17)}`)],
  ['numbers, nulls and booleans', { n: 1e30, z: null, b: true, list: [1, 2, 3] }],
];

for (const [name, output] of LONG) {
  test(`hasLongString agrees with replaceLongStrings: ${name}`, () => {
    assert.equal(hasLongString(output, 4000), replaceLongStrings(output, 4000, () => 'P').replaced > 0);
  });
}

test('a short output is left alone whatever the call read; a long read of the spill folder stays; any other long output spills', () => {
  const wb = bench();
  const reads = { command: `cat ${wb.spill}/x.txt` };
  assert.equal(spillDecision(wb, { toolInput: reads, toolResponse: { stdout: 'short' }, cwd: wb.workspace }, opts), undefined);
  assert.equal(spillDecision(wb, { toolInput: reads, toolResponse: { stdout: 'x'.repeat(5000) }, cwd: wb.workspace }, opts), undefined);
  assert.ok(spillDecision(wb, { toolInput: { command: 'seq 1 2000' }, toolResponse: { stdout: 'x'.repeat(5000) }, cwd: wb.workspace }, opts));
});

test('the preview never ends in half a surrogate pair', () => {
  const s = `${'a'.repeat(399)}😀tail`;
  assert.equal(preview(s, 400), 'a'.repeat(399));
  assert.equal(preview('a\r\nb\nc', 10), 'a b c');
});

// [behaviour, input, cwd relative to the workspace, reads spill?]
const READ_THROUGH: Array<[string, (wb: Workbench, f: string) => unknown, string, boolean]> = [
  ['Read with the absolute path', (_wb, f) => ({ file_path: f }), '.', true],
  ['Read with a path relative to the cwd', (_wb, f) => ({ file_path: `.flower/spill/${path.basename(f)}` }), '.', true],
  ['Read with ./ and .. in the path', (_wb, f) => ({ file_path: `./src/../.flower/spill/${path.basename(f)}` }), '.', true],
  ['Read from inside the workbench, relative', (_wb, f) => ({ file_path: `spill/${path.basename(f)}` }), '.flower', true],
  ['Grep with path = the spill folder', () => ({ pattern: 'line 00042', path: '.flower/spill' }), '.', true],
  ['Grep with a glob under the spill folder', () => ({ pattern: 'x', path: '.flower/spill/*.txt' }), '.', true],
  ['Bash cat of a relative spill path', (_wb, f) => ({ command: `cat .flower/spill/${path.basename(f)} | head -50` }), '.', true],
  ['Bash with the absolute path in quotes', (_wb, f) => ({ command: `grep -n foo "${f}"` }), '.', true],
  ['Read of another file', () => ({ file_path: 'README.md' }), '.', false],
  ['Read of a sibling folder whose name starts like spill', () => ({ file_path: '.flower/spillover/a.txt' }), '.', false],
  ['Bash that merely mentions the word spill', () => ({ command: 'echo spill' }), '.', false],
];

for (const [name, input, cwdRel, reads] of READ_THROUGH) {
  test(`read-through: ${name} → ${reads ? 'passes unchanged' : 'may spill'}`, () => {
    const wb = bench();
    const f = path.join(wb.spill, 'abcdef0123456789.txt');
    fs.writeFileSync(f, lines(800));
    const cwd = path.join(wb.workspace, cwdRel);
    assert.equal(readsSpill(input(wb, f), cwd, wb.spill), reads);
    const d = spillDecision(wb, { toolInput: input(wb, f), toolResponse: { stdout: lines(800) }, cwd }, opts);
    assert.equal(d === undefined, reads);
  });
}

test('the hook spills for subagents too, on the six reading tools only, returning updatedToolOutput', async () => {
  const wb = bench();
  const g = spillGuard(wb, { lang: 'en' });
  assert.deepEqual(g.matcher!.split('|').sort(), [...SPILL_TOOLS].sort());
  const big = lines(900);
  const main = specific(await fire(g, post('Bash', { command: 'seq' }, { stdout: big, stderr: '' }, { cwd: wb.workspace })));
  const sub = specific(await fire(g, post('Bash', { command: 'seq' }, { stdout: big, stderr: '' }, { cwd: wb.workspace, agentId: SUB })));
  assert.match((main!.updatedToolOutput as { stdout: string }).stdout, /^\[output spilled/);
  assert.deepEqual(sub!.updatedToolOutput, main!.updatedToolOutput);
  assert.deepEqual(await fire(g, post('Write', { file_path: 'x' }, { content: big }, { cwd: wb.workspace })), [], 'Write is not matched');
  assert.deepEqual(await fire(g, post('Bash', { command: 'ls' }, { stdout: 'short' }, { cwd: wb.workspace })), [{}], 'short output: no rewrite');
});
