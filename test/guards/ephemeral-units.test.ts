// The pieces of the glance classifier, table-tested: the glob matcher, the `.env` automaton, regex
// risk, jq's command line and filter allowlist, sed and awk loops, paths and devices, word offsets, and
// the exact rewrites of recursive searches.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileGlob, globMatch, canMatchEnvName } from '../../src/glance/glob.js';
import { regexRisk } from '../../src/glance/regex.js';
import { jqProgram } from '../../src/glance/jq.js';
import { jqCommand } from '../../src/glance/jq-cli.js';
import { sedProgram } from '../../src/glance/sed.js';
import { awkProgram } from '../../src/glance/awk.js';
import { shapeOf, deviceShape, WORKSPACE } from '../../src/glance/paths.js';
import { lex, madeUpWord } from '../../src/glance/lexer.js';
import { Budget, GLANCE_MAX_STEPS } from '../../src/glance/budget.js';
import { judgeEphemeral } from '../../src/glance/ephemeral.js';

// [pattern, name, bash's leading-dot rule, matches]
const GLOBS: [string, string, boolean, boolean][] = [
  ['*', 'a.ts', true, true],
  ['*', '.env', true, false],
  ['*', '.env', false, true],
  ['.*', '.env', true, true],
  ['*.ts', 'a.ts', true, true],
  ['*.ts', 'a.js', true, false],
  ['?', 'a', true, true],
  ['?', '', true, false],
  ['?env', '.env', true, false],
  ['?env', '.env', false, true],
  ['.?nv', '.env', true, true],
  ['[.]env', '.env', true, false],
  ['.[e]nv', '.env', true, true],
  ['.[!a]nv', '.env', true, true],
  ['.[^e]nv', '.env', true, false],
  ['[a-c]x', 'bx', true, true],
  ['[a-c]x', 'dx', true, false],
  ['[]]', ']', true, true],
  ['[!]]', 'a', true, true],
  ['[', '[', true, true],
  ['a[', 'a[', true, true],
  ['[[[', '[[[', true, true],
  ['\\*', '*', true, true],
  ['\\*', 'a', true, false],
  ['a\\[b]', 'a[b]', true, true],
  ['*a*a*a*b', 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', true, false],
  [`.${'*'.repeat(4000)}x`, '.envx', true, true],
  [`.${'*'.repeat(4000)}x`, '.env', true, false],
  ['**', '', true, true],
  ['*?*', 'ab', true, true],
];
for (const [p, name, period, want] of GLOBS) {
  test(`glob ${JSON.stringify(p.length > 20 ? `${p.slice(0, 12)}…` : p)} ${want ? 'matches' : 'does not match'} ${JSON.stringify(name)}${period ? '' : ' (no leading-dot rule)'}`, () => {
    assert.equal(globMatch(compileGlob(p), name, { period }), want);
  });
}

test('a class with [:alpha:] is exotic: callers refuse it rather than guess', () => {
  assert.equal(compileGlob('[[:alpha:]]env').exotic, true);
  assert.equal(compileGlob('[a-z]env').exotic, false);
});

test('the glob matcher takes at most pattern × name steps: 4,000 stars against a long name stay far within the budget', () => {
  const b = new Budget();
  globMatch(compileGlob(`${'*'.repeat(4000)}x`, b), 'a'.repeat(200), {}, b);
  assert.ok(b.steps < 4100 * 201, String(b.steps));
});

// [pattern, could match a `.env` name under bash's rule]
const ENV_GLOBS: [string, boolean][] = [
  ['.env', true],
  ['.e*', true],
  ['.env.q*', true],
  ['*.env', true],
  ['*env', true],
  ['.[e]nv', true],
  ['.?nv', true],
  ['x*', true],
  ['*', true],
  ['*.ts', false],
  ['.e', false],
  ['*.en', false],
  ['?env', false],
  ['src', false],
  ['.*.ts', true],
  ['[!.]*', true],
];
for (const [p, want] of ENV_GLOBS) {
  test(`the .env automaton: ${JSON.stringify(p)} ${want ? 'can' : 'cannot'} spell a .env name`, () => {
    assert.equal(canMatchEnvName(compileGlob(p), { period: true }), want);
  });
}

// [file-reading command with a glob, refused]: aimed at a credential, or a catch-all that also matches a harmless name
const AIMED: [string, boolean][] = [
  ['cat *', false],
  ['cat *.*', false],
  ['cat *.json', false],
  ['cat s*', false],
  ['cat src/*', false],
  ['cat id*', false],
  ['cat cert*', false],
  ['cat .*', true],
  ['cat .e*', true],
  ['cat .env.q*', true],
  ['cat *.env', true],
  ['cat *env*', true],
  ['cat *.e*', true],
  ['cat *.pem', true],
  ['cat cert*.pem', true],
  ['cat id_*', true],
  ['cat cred*', true],
  ['cat sec*', true],
  ['cat *_history', true],
  ['cat .?pmrc', true],
  ['cat ~/.config/*', true],
  ['cat /etc/*', true],
  ['cat [[:alpha:]]*', true],
];
for (const [command, refused] of AIMED) {
  test(`${command} is ${refused ? 'refused: the glob aims at a credential' : 'a glance: a catch-all glob'}`, () =>
    assert.equal(judgeEphemeral(command).ok, !refused));
}

// [regex, refused]
const REGEXES: [string, boolean][] = [
  ['^a+$', false],
  ['(a+)+', true],
  ['(a|aa)*', true],
  ['(\\w*)*x', true],
  ['(a+)?', false],
  ['(ab){2}', false],
  ['(a*){2,}', true],
  ['(?:a|b)+', true],
  ['\\1', true],
  ['(a)\\1', true],
  ['\\k<n>', true],
  ['\\g<1>', true],
  ['[(]+', false],
  ['[a-z]+\\.[a-z]+', false],
  ['^\\s*(\\w+)\\s*=\\s*(.*)$', false],
  ['((a)b)*', false],
  ['((a+)b)*', true],
  ['a{1,3}', false],
  ['(a{2})*', true],
];
for (const [re, refused] of REGEXES) {
  test(`regex ${JSON.stringify(re)} is ${refused ? 'refused' : 'allowed'}`, () => {
    assert.equal(regexRisk(re) !== null, refused, regexRisk(re) ?? '');
  });
}

// [jq filter, allowed]
const JQ: [string, boolean][] = [
  ['.', true],
  ['.env', true],
  ['."env"', true],
  ['{env}', true],
  ['{env: 1}', true],
  ['{if: 1}', true],
  ['.a.env', true],
  ['.[] | select(.ok) | .name', true],
  ['..', true],
  ['reduce .[] as $x (0; . + $x)', true],
  ['"\\(.a)-\\(.b)"', true],
  ['@base64', true],
  ['keys | map(ascii_downcase)', true],
  ['test("^a")', true],
  ['split(", ")', true],
  ['split(", "; null)', true],
  ['sub("a"; "b")', true],
  ['$ARGS.named', true],
  ['input_filename', true],
  ['getpath(["a"])', true],
  ['# env\n.', true],
  ['env', false],
  ['$ENV', false],
  ['. env', false],
  ['..env', false],
  ['{a: env}', false],
  ['{$ENV}', false],
  ['"\\(env)"', false],
  ['"\\("\\(env)")"', false],
  ['.[env]', false],
  ['recurse', true],
  ['recurse(.[])', false],
  ['repeat(.)', false],
  ['range(3)', false],
  ['def f: .; f', false],
  ['input', false],
  ['inputs', false],
  ['$__loc__', false],
  ['@base32x', false],
  ['a::b', false],
  ['test(.re)', false],
  ['test("(a+)+")', false],
  ['test("a\\(.x)")', false],
  ['split("(a+)+"; null)', false],
  ['"x" * 1e9', false],
  ['"x" * 3', true],
  ['[.,.]', true],
  [`${'[.,.]|'.repeat(25)}.`, false],
  ['"unterminated', false],
  ['# comment \\\nenv', false],
];
for (const [f, allowed] of JQ) {
  test(`jq filter ${JSON.stringify(f.length > 40 ? `${f.slice(0, 30)}…` : f)} is ${allowed ? 'allowed' : 'refused'}`, () => {
    assert.equal(jqProgram(f), allowed ? null : (jqProgram(f) ?? 'allowed'), f);
  });
}

const words = (...t: string[]) => t.map((x) => madeUpWord(x));
// [args, the filter jq runs (null: refused), its input files]
const JQ_ARGS: [string[], string | null, string[]][] = [
  [['.', 'f.json'], '.', ['f.json']],
  [['--arg', 'a', 'b', 'env'], null, []],
  [['--arg', 'a', 'b', '.', 'f'], '.', ['f']],
  [['-n', '--argjson', 'a', '1', '$a'], '$a', []],
  [['--args', '.', 'a', 'b'], '.', []],
  [['.', 'x', '--jsonargs', '1'], '.', ['x']],
  [['--slurpfile', 's', 'p.json', '-n', '$s'], '$s', ['p.json']],
  [['--rawfile', 'r', 'f.txt', '-n', '$r'], '$r', ['f.txt']],
  [['-nr', '1'], '1', []],
  [['.', '-r', 'f'], '.', ['f']],
  [['--', '.', 'f'], '.', ['f']],
  [['--arg', 'a', 'b', '--', 'env'], null, []],
  [['-f', 'p.jq'], null, []],
  [['-nf', 'p.jq'], null, []],
  [['--ar', 'a', 'b', '.'], null, []],
  [['--arg', 'a'], null, []],
];
for (const [args, filter, files] of JQ_ARGS) {
  test(`jq ${args.join(' ')}: ${filter === null ? 'refused' : `filter ${filter}, files ${files.join(' ') || 'none'}`}`, () => {
    const r = jqCommand(words(...args));
    if (filter === null) return assert.equal(typeof r, 'string');
    assert.ok(r !== null && typeof r === 'object', String(r));
    assert.deepEqual(
      r.paths.map((w) => w.text),
      files,
    );
  });
}

// [sed program, allowed]
const SED: [string, boolean][] = [
  [':a;N;$!ba;s/\\n/ /g', true],
  ['$!N;P;D', true],
  [':a;s/x/xx/;ta', false],
  [':a;ba', false],
  [':a;/x/N;ta', false],
  ['b end; :end', true],
  ['G;D', false],
  ['s/a/\\na/;D', false],
  ['s/a/b/;ta', true],
  [':a;n;ba', true],
  [':a;{N};ba', false],
];
for (const [p, allowed] of SED) {
  test(`sed ${JSON.stringify(p)} is ${allowed ? 'allowed' : 'refused'}`, () => assert.equal(sedProgram(p) === null, allowed, sedProgram(p) ?? ''));
}

// [awk program, allowed, reads input]
const AWK: [string, boolean, boolean][] = [
  ['BEGIN{print 1}', true, false],
  ['BEGIN { x = 1 } BEGIN { print x }', true, false],
  ['{print}', true, true],
  ['BEGIN{} END{}', true, true],
  ['NR==1', true, true],
  ['{for (k in a) print k}', true, true],
  ['{for (i=0;i<3;i++) print}', false, true],
  ['BEGIN{while(1);}', false, false],
  ['BEGIN{do x++; while(1)}', false, false],
  ['function f(){} BEGIN{}', false, true],
  ['/re/', true, true],
  ['"s"', true, true],
];
for (const [p, allowed, reads] of AWK) {
  test(`awk ${JSON.stringify(p)} is ${allowed ? 'allowed' : 'refused'}${allowed ? (reads ? ' and reads input' : ' and reads no input') : ''}`, () => {
    const info = { onlyBegin: false };
    assert.equal(awkProgram(p, new Budget(), info) === null, allowed);
    if (allowed) assert.equal(!info.onlyBegin, reads);
  });
}

// [path, a device or kernel file]
const DEVICES: [string, boolean][] = [
  ['/dev/null', false],
  ['/dev/zero', true],
  ['/dev/nul?', true],
  ['/d?v/zero', true],
  ['/*/zero', true],
  ['/proc/cpuinfo', false],
  ['/proc/cpuinfo/x', true],
  ['/proc/self/environ', true],
  ['/proc/*/environ', true],
  ['/sys/x', true],
  ['../../../../dev/zero', true],
  ['../README.md', false],
  ['dev/zero', false],
  ['/tmp/../dev/zero', true],
  ['src/../../proc/kmsg', true],
  ['~/../../dev/zero', true],
  ['//dev//zero', true],
  ['/devices', false],
  ['/etc/passwd', false],
];
for (const [p, device] of DEVICES) {
  test(`path ${p} is ${device ? '' : 'not '}a device or kernel file`, () => {
    const glob = /[*?[]/.test(p);
    const b = new Budget();
    assert.equal(deviceShape(shapeOf(p, glob ? p : undefined, WORKSPACE, b), b) !== null, device);
  });
}

test('the lexer records where each word is, quotes included, and the pattern bash matches', () => {
  const command = `grep  -n 'a b' "c"d src/*.ts '*'.e* x\\ y`;
  const l = lex(command);
  assert.ok(l.ok);
  if (!l.ok) return;
  const ws = l.commands[0]!.words;
  assert.deepEqual(
    ws.map((w) => command.slice(w.start, w.end)),
    ['grep', '-n', "'a b'", '"c"d', 'src/*.ts', "'*'.e*", 'x\\ y'],
  );
  assert.deepEqual(
    ws.map((w) => w.pattern),
    [undefined, undefined, undefined, undefined, 'src/*.ts', '\\*.e*', undefined],
  );
});

test('the step budget refuses instead of running on', () => {
  const b = new Budget(10);
  assert.throws(() => b.spend(11));
  assert.ok(GLANCE_MAX_STEPS >= 1_000_000);
});

// [command, the exact command to run instead]
const REWRITES: [string, string][] = [
  ['grep -rn KEY sub', "grep '--exclude=.env*' '--exclude=*.env' -rn KEY sub"],
  ['grep -rn TODO .', "grep '--exclude=.env*' '--exclude=*.env' -rn TODO ."],
  ['cd src && grep -rn foo .', "cd src && grep '--exclude=.env*' '--exclude=*.env' -rn foo ."],
  ['grep -r x src | grep -r y test', "grep '--exclude=.env*' '--exclude=*.env' -r x src | grep '--exclude=.env*' '--exclude=*.env' -r y test"],
  ["grep -r --exclude='*.md' x src", "grep '--exclude=.env*' '--exclude=*.env' -r --exclude='*.md' x src"],
  ['grep -r -- -x src', "grep '--exclude=.env*' '--exclude=*.env' -r -- -x src"],
  ['egrep -r x src', "egrep '--exclude=.env*' '--exclude=*.env' -r x src"],
  ['rg KEY sub', "rg -g '!.env*' -g '!*.env' KEY sub"],
  ['rg -uu KEY', "rg -g '!.env*' -g '!*.env' -uu KEY"],
  ["rg -g '*.ts' foo src", "rg -g '!.env*' -g '!*.env' -g '*.ts' foo src"],
  ['rg foo 2>/dev/null | head', "rg -g '!.env*' -g '!*.env' foo 2>/dev/null | head"],
  ['diff -r a b', "diff '--exclude=.env*' '--exclude=*.env' -r a b"],
  ['diff a b', "diff '--exclude=.env*' '--exclude=*.env' a b"],
];
for (const [command, rewritten] of REWRITES) {
  test(`rewritten: ${command}`, () => {
    assert.deepEqual(judgeEphemeral(command), { ok: true, command: rewritten });
    assert.deepEqual(judgeEphemeral(rewritten), { ok: true }, 'a fixed point');
  });
}

// recursive searches that need no rewrite: .env files are already out
const NO_REWRITE = [
  "grep -rn --include='*.ts' useState src", // a leading --include means "only these": inserting an --exclude first would widen it to every file
  "grep '--exclude=.env*' '--exclude=*.env' -rn x src",
  "rg -g '!.env*' -g '!*.env' x",
  'rg --files',
  'rg --files src | wc -l',
  'diff a.txt b.txt',
  'grep -n x f',
];
for (const command of NO_REWRITE) {
  test(`not rewritten (no .env can be read): ${command}`, () => assert.deepEqual(judgeEphemeral(command), { ok: true }));
}
