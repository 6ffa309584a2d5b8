// The classifier under attack: inputs built to make it throw, backtrack exponentially or loop
// quadratically. An audit found a 31-character glob (`cat .*****…x`) froze flower's event loop through a
// RegExp built from the input, a 9,000-character one threw, and 120k `[` took 25 s. Every decision here
// must come back, without throwing, in well under a second (measured off the main thread, so a hang
// fails by the watchdog instead of freezing the runner; the fastest of three runs, because a loaded CI
// box only ever adds time).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { judgeTimed, type Timed } from './ephemeral-timing.js';
import { GLANCE_MAX_CHARS } from '../../src/glance/ephemeral.js';

const LIMIT_MS = 250;
const CAP = GLANCE_MAX_CHARS;
/** `prefix` + `unit` repeated to fill the length cap + `suffix` */
const fill = (prefix: string, unit: string, suffix = ''): string =>
  prefix + unit.repeat(Math.max(1, Math.floor((CAP - prefix.length - suffix.length) / unit.length))) + suffix;

/** [what, command, expected verdict: 'refused' | 'any'] */
const CASES: [string, string, 'refused' | 'any'][] = [
  // inputs that made the old classifier throw or freeze
  ['a 9,000-character glob', `cat .${'*'.repeat(9000)}x`, 'refused'],
  ['120k brackets', `cat .${'['.repeat(120_000)}`, 'refused'],
  ['100k pipes', `ls ${'|'.repeat(100_000)}`, 'refused'],
  ['a 100k-option cluster', `ls -${'l'.repeat(100_000)}`, 'refused'],
  ["a huge $'…'", `echo $'${'\\x41'.repeat(30_000)}'`, 'refused'],
  ['a million characters', 'a'.repeat(1_000_000), 'refused'],
  ...[1, 2, 4, 8, 16, 24, 29, 31, 32, 64, 256, 1024, CAP - 10].map((n): [string, string, 'refused' | 'any'] => [
    `cat . + ${n} stars + x`,
    `cat .${'*'.repeat(n)}x`,
    'refused',
  ]),
  ['stars up to the cap', fill('cat .', '*', 'x'), 'refused'],
  ['stars up to the cap, undotted', fill('cat a', '*', 'x'), 'any'],
  ['[[[[ up to the cap', fill('cat .', '['), 'any'],
  ['[[[[ then ]', fill('cat .', '[', ']'), 'any'],
  ['[a][a]… up to the cap', fill('cat ', '[a]'), 'any'],
  ['[!a]*… up to the cap', fill('cat ./', '[!a]*'), 'any'],
  ['[]… classes of `]`', fill('cat ', '[]]'), 'any'],
  ['*?*?… up to the cap', fill('cat ', '*?'), 'any'],
  ['.*?… up to the cap', fill('cat .', '*?'), 'refused'],
  ['backslashes', fill('cat ', '\\*'), 'any'],
  ['*/*/… components', fill('cat ', '*/', 'x'), 'any'],
  ['.*/.*/… components', fill('cat ', '.*/', 'x'), 'refused'],
  ['a/a/… components', fill('cat ', 'a/', 'x'), 'any'],
  ['../../… components', fill('cat ', '../', 'dev/zero'), 'refused'],
  ['~/.config/… repeated', fill('cat ~/', '.config/', 'x'), 'any'],
  ['.env*?… glob', fill('cat .env', '*?'), 'refused'],
  // lexer
  ['many &&', fill('ls', ' && ls'), 'any'],
  ['many |', fill('ls', ' | ls'), 'any'],
  ['many ;', fill('ls', ';ls'), 'any'],
  ['alternating quotes', fill('echo ', `'a'"b"`), 'any'],
  ['deep quotes "\'', fill('echo ', `"'`), 'any'],
  ['an unterminated quote at the cap', fill("echo '", 'a'), 'refused'],
  ['many redirections', fill('cat f', ' </dev/null'), 'any'],
  ['many 2>&1', fill('ls', ' 2>&1'), 'any'],
  ['many ~ words', fill('ls', ' ~'), 'any'],
  ['@{u}… braces', fill('echo ', '@{u}'), 'any'],
  ['{{{{', fill('echo ', '{'), 'refused'],
  ['comments', fill('ls #', '#'), 'any'],
  ['newlines', fill('ls', '\nls'), 'any'],
  // getopt
  ['a cluster up to the cap', fill('ls -', 'l'), 'any'],
  ['a cluster ending in a refused letter', fill('sort -', 'n', 'o'), 'refused'],
  ['many options', fill('ls', ' -l'), 'any'],
  ['many long options', fill('ls', ' --all'), 'any'],
  ['a long option abbreviation at the cap', fill('sort --', 'o'), 'refused'],
  ['a huge glued value', fill('grep -e', 'x', ' f'), 'any'],
  // program scanners
  ['jq ((((', fill("jq '", '(', "' f"), 'any'],
  ['jq nested interpolations', fill("jq '", '"\\(', "' f"), 'refused'],
  ['jq commas', fill("jq '", '.,', ".' f"), 'refused'],
  ['jq a long pipeline', fill("jq '", '.a|', ".' f"), 'any'],
  ['jq nested calls', fill("jq '", 'select(', "' f"), 'any'],
  ['jq a regex of groups', fill('jq \'test("', '(a', '")\' f'), 'any'],
  ['jq a regex of nested quantifiers', fill('jq \'test("', '(a+', '")\' f'), 'any'],
  ['jq --arg pairs', fill('jq', ' --arg a b', ' . f'), 'any'],
  ['awk {{{{', fill("awk '", '{', "' f"), 'any'],
  ['awk strings', fill("awk '", '"a"', "' f"), 'any'],
  ['awk for-in loops', fill("awk '", 'for (k in a) ', "' f"), 'any'],
  ['sed labels', fill("sed '", ':a;', "' f"), 'any'],
  ['sed loops', fill("sed ':a;N;", 'ba;', "' f"), 'any'],
  ['sed substitutions', fill("sed '", 's/a/b/;', "' f"), 'any'],
  // recursive searches and their filters
  ['grep --include=***', fill("grep -r --include='", '*', "' x ."), 'refused'],
  ['grep --include=////x', fill("grep -r --include='", '/', "x' k ."), 'any'],
  ['rg -g *?*?', fill("rg -g '", '*?', "' x"), 'refused'],
  ['many recursive greps', fill('grep -r x .', ' | grep -r x .'), 'any'],
  ['cd src && … deep', fill('cd src', ' && cd src', ' && cat x'), 'any'],
  ['cd .. && … deep', fill('cd ..', ' && cd ..', ' && cat x'), 'any'],
  ['find tests', fill('find .', ' -name x'), 'any'],
  ['git options', fill('git log', ' --oneline'), 'any'],
  // bytes and unicode
  ['NUL bytes', fill('cat ', '\u0000'), 'any'],
  ['a NUL in the verb', 'c\u0000at f', 'refused'],
  ['lone high surrogates', fill('cat ', '\ud800'), 'any'],
  ['lone low surrogates', fill('cat ', '\udc00'), 'any'],
  ['emoji pairs', fill('cat ', '😀'), 'any'],
  ['a byte-order mark before the verb', '\ufeffls', 'refused'],
  ['right-to-left override', 'cat \u202eenv.', 'any'],
  ['zero-width joiners', fill('ls ', '\u200d'), 'any'],
  ['combining marks', fill('ls a', '\u0301'), 'any'],
  ['no-break spaces are no separators', 'cat\u00a0.env', 'refused'],
  ['full-width ; and |', 'ls\uff1brm\uff5cx', 'refused'],
  ['line and paragraph separators', `ls\u2028rm x\u2029`, 'any'],
  ['NEL, vertical tab, form feed', 'ls\u0085\u000b\u000c', 'any'],
  ['escape sequences', 'echo \u001b[31mred', 'any'],
  ['only carriage returns', fill('ls', '\r'), 'any'],
  ['every code unit below 128', Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)).join(''), 'refused'],
];

let results: Timed[] = [];
before(async () => {
  results = await judgeTimed(
    CASES.map((c) => c[1]),
    { repeat: 3, watchdogMs: 30_000 },
  );
});

CASES.forEach(([what, command, expected], i) => {
  test(`adversarial input decides without throwing in < ${LIMIT_MS} ms: ${what} (${command.length} chars)`, () => {
    const r = results[i]!;
    assert.equal(r.threw, undefined, `threw: ${r.threw}`);
    assert.ok(r.ms < LIMIT_MS, `${what}: ${r.ms.toFixed(1)} ms`);
    if (expected === 'refused') assert.equal(r.ok, false, `${what} was allowed`);
    if (!r.ok) assert.match(r.reason ?? '', /a worker can run it|dispatch a worker|glances never read secrets/);
  });
});

test('the worst adversarial decision is reported', (t) => {
  const worst = results.reduce((w, r, i) => (r.ms > w.ms ? { ms: r.ms, what: CASES[i]![0] } : w), { ms: 0, what: '' });
  t.diagnostic(`worst: ${worst.ms.toFixed(1)} ms (${worst.what})`);
  assert.ok(worst.ms < LIMIT_MS);
});
