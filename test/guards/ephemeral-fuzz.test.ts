// A seeded fuzz of the classifier: a few thousand commands from a grammar of shell-ish pieces (verbs,
// options, quotes, globs, operators, jq/awk/sed program fragments, paths) plus random code units. The
// seed is fixed, so a failure replays. Every decision must come back without throwing, in < 250 ms, and
// an allowed rewrite must itself be a glance that needs no further rewrite.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { judgeTimed, type Timed } from './ephemeral-timing.js';
import { EPHEMERAL_VERBS, isEphemeral } from '../../src/glance/ephemeral.js';
import { judgeGlance, mayBeGlance } from '../../src/glance/index.js';
import { EVERYDAY, EVERYDAY_REFUSED, HOSTILE, HOSTILE_REWRITTEN } from './ephemeral-shell.fixtures.js';
import { mulberry32 } from '../../src/sim/index.js';

const SEED = 0x5eed_f10e;
const COUNT = 3000;
const LIMIT_MS = 250;

/** a small seeded PRNG (the one the fuzzing model and the chaos suite use) */
const rng = mulberry32;

const VERBS = [...EPHEMERAL_VERBS, 'env', 'rm', 'xargs', 'bash', 'ping', 'top', 'sleep', 'tee'];
const PIECES = [
  '-n',
  '-r',
  '-rn',
  '-R',
  '-E',
  '-tE',
  '--events',
  '--ev',
  '-uu',
  '--hidden',
  '--include=*.ts',
  "--include='*'",
  '--exclude=.env*',
  '-g',
  "'!*.env'",
  "'*'",
  '--arg',
  'a',
  'b',
  '--argjson',
  '--args',
  '--jsonargs',
  '--rawfile',
  '--slurpfile',
  '-f',
  '-o',
  '-i',
  '--in-place',
  '--output=x',
  '--',
  '-',
  '-e',
  '--type-add',
  '.env',
  '.env.local',
  'prod.env',
  'src',
  'sub',
  '.',
  '..',
  '../..',
  '~',
  '~/.ssh',
  '/',
  '/dev/zero',
  '/dev/null',
  '/proc/self/environ',
  '/proc/cpuinfo',
  '/etc/shadow',
  '*',
  '.*',
  '*.ts',
  '?',
  '[a]',
  '[',
  ']',
  '[!.]',
  '**',
  '{a,b}',
  '@{u}',
  '\\*',
  "'*'",
  '"*"',
  '$x',
  '${x}',
  '`id`',
  '$(id)',
  "$'x'",
  "'",
  '"',
  '\\',
  '(',
  ')',
  '{',
  '}',
  '<',
  '>',
  '2>&1',
  '>/dev/null',
  '2>/dev/null',
  '<f',
  '|',
  '|&',
  '||',
  '&&',
  ';',
  '&',
  '\n',
  '#',
  '=',
  'X=1',
  "'env'",
  "'$ENV'",
  "'.a'",
  "'repeat(1)'",
  "'range(infinite)'",
  '\'"\\(env)"\'',
  '\'test("(a+)+")\'',
  "'.[] | select(.x)'",
  "'..'",
  "'def f: f; f'",
  "'{print}'",
  "'BEGIN{while(1);}'",
  '\'{system("id")}\'',
  "':a;ba'",
  "'s/a/b/g'",
  "'1e id'",
  "'w x'",
  '"$HOME"',
  'HEAD:.env',
  'id_rsa',
  '.bash_history',
  '.config/gh',
];
const RANDOM_UNITS = () => String.fromCharCode(Math.floor(random() * 0x10000));
let random = rng(SEED);

function command(): string {
  const parts: string[] = [VERBS[Math.floor(random() * VERBS.length)]!];
  const n = 1 + Math.floor(random() * 12);
  for (let i = 0; i < n; i++) {
    const r = random();
    if (r < 0.7) parts.push(PIECES[Math.floor(random() * PIECES.length)]!);
    else if (r < 0.8) parts.push(Array.from({ length: 1 + Math.floor(random() * 8) }, RANDOM_UNITS).join(''));
    else if (r < 0.9) parts.push(VERBS[Math.floor(random() * VERBS.length)]!);
    else parts.push(PIECES[Math.floor(random() * PIECES.length)]!.repeat(1 + Math.floor(random() * 600)));
  }
  const glue = random() < 0.8 ? ' ' : '';
  return parts.join(glue);
}

random = rng(SEED);
const COMMANDS = Array.from({ length: COUNT }, command);

let results: Timed[] = [];
let again: Timed[] = [];
before(async () => {
  results = await judgeTimed(COMMANDS, { repeat: 1, watchdogMs: 60_000 });
  // a decision over the limit is measured twice more: only the classifier, not the box, should fail it
  const slow = results.map((r, i) => (r.ms >= LIMIT_MS ? i : -1)).filter((i) => i >= 0);
  if (slow.length > 0) {
    const re = await judgeTimed(
      slow.map((i) => COMMANDS[i]!),
      { repeat: 2, watchdogMs: 60_000 },
    );
    slow.forEach((i, k) => {
      results[i] = { ...results[i]!, ms: Math.min(results[i]!.ms, re[k]!.ms) };
    });
  }
  again = await judgeTimed(
    results.map((r) => r.command ?? 'true'),
    { repeat: 1, watchdogMs: 60_000 },
  );
});

test(`the fuzz generates ${COUNT} distinct-enough commands from a fixed seed`, () => {
  assert.ok(new Set(COMMANDS).size > COUNT * 0.9);
  assert.ok(
    COMMANDS.some((c) => c.length > 4096),
    'some commands exceed the length cap',
  );
});

test('no fuzzed command makes the classifier throw', () => {
  const threw = results.map((r, i) => (r.threw ? `${JSON.stringify(COMMANDS[i]!.slice(0, 80))}: ${r.threw}` : '')).filter(Boolean);
  assert.deepEqual(threw, []);
});

test(`every fuzzed command is decided in < ${LIMIT_MS} ms`, (t) => {
  const worst = results.reduce((w, r, i) => (r.ms > w.ms ? { ms: r.ms, i } : w), { ms: 0, i: 0 });
  t.diagnostic(`worst: ${worst.ms.toFixed(1)} ms for a ${COMMANDS[worst.i]!.length}-character command`);
  const slow = results.map((r, i) => (r.ms >= LIMIT_MS ? `${r.ms.toFixed(0)} ms: ${JSON.stringify(COMMANDS[i]!.slice(0, 80))}` : '')).filter(Boolean);
  assert.deepEqual(slow, []);
});

test('every refusal has a reason, and every rewrite is a glance that is not rewritten again', (t) => {
  const allowed = results.filter((r) => r.ok).length;
  const rewritten = results.filter((r) => r.command !== undefined).length;
  t.diagnostic(`${allowed} allowed (${rewritten} rewritten), ${results.length - allowed} refused`);
  assert.ok(allowed > 50 && rewritten > 5, 'the grammar reaches allowed and rewritten commands too');
  results.forEach((r, i) => {
    if (!r.ok) assert.ok((r.reason ?? '').length > 10, JSON.stringify(COMMANDS[i]));
    if (r.command === undefined) return;
    const a = again[i]!;
    assert.equal(a.ok, true, `${JSON.stringify(r.command)}: ${a.reason}`);
    assert.ok(a.command === undefined || a.command === r.command, `${r.command} → ${a.command}`);
  });
});

// isEphemeral asks mayBeGlance (the first word alone) before the lexer: that shortcut must never change a verdict.
const FIRST_WORD: ReadonlyArray<[string, boolean]> = [
  ['yarn test', false],
  ['  yarn test', false],
  ['yarn\ttest', false],
  ['yarn', false],
  ['yarn;ls', false],
  ['yarn&&ls', false],
  ['yarn|ls', false],
  ['yarn\nls', false],
  ['python3.12 -m x', false],
  ['g++ -o a a.c', true], // a verb with a table: the judge decides
  ['if ls; then :; fi', false],
  ['ls', true],
  ['ls -la', true],
  ['git status', true],
  ['test -f x', true],
  ["'ls' -la", true], // quoted: only the lexer knows the verb
  ['l\\s', true],
  ['ya"rn" test', true],
  ['FOO=1 ls', true],
  ['2>/dev/null ls', true],
  ['yarn>x', true],
  ['yarn#x', true],
  ['yarn(', true],
  ['$x ls', true],
  ['\nls', true],
  ['-la', true],
  ['', true],
  ['x'.repeat(5000), false],
];

test('the first-word check: a plain first word that is not a glance verb refuses, anything else goes to the judge', () => {
  for (const [command, may] of FIRST_WORD) {
    assert.equal(mayBeGlance(command), may, JSON.stringify(command));
    if (!may) assert.equal(judgeGlance(command).ok, false, JSON.stringify(command));
  }
});

test('isEphemeral (first-word check, then the judge) agrees with judgeGlance on every fuzzed and every table command', () => {
  const all = [...COMMANDS, ...HOSTILE, ...EVERYDAY, ...EVERYDAY_REFUSED, ...HOSTILE_REWRITTEN, ...FIRST_WORD.map(([c]) => c)];
  let shortcut = 0;
  for (const command of all) {
    const ok = judgeGlance(command).ok;
    if (!mayBeGlance(command)) {
      shortcut++;
      assert.equal(ok, false, `the first-word check refused a glance: ${JSON.stringify(command.slice(0, 120))}`);
    }
    assert.equal(isEphemeral(command), ok, JSON.stringify(command.slice(0, 120)));
  }
  assert.ok(shortcut > 100, `the check decided ${shortcut} commands alone: the fuzz must reach it`);
});
