import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getopt, resolveLong, type OptionTable } from '../../src/glance/getopt.js';
import { lex, madeUpWord, type Word } from '../../src/glance/lexer.js';

const words = (...t: string[]): Word[] => t.map((text) => madeUpWord(text));
const SORT: OptionTable = {
  short: 'nrut:k:S:',
  long: ['numeric-sort', 'reverse', 'key=', 'buffer-size=', 'check=?', 'debug'],
  refused: { '-o': 'writes a file', '--output': 'writes a file' },
};

test('a value-taking short letter eats the rest of its cluster, so `-to` sets the separator to "o"', () => {
  const p = getopt(SORT, words('-nto', 'f'));
  assert.deepEqual(p, { ok: true, options: [{ name: '-n' }, { name: '-t', value: 'o', glob: false }], operands: words('f') });
});

test('a value-taking short letter at the end of a cluster takes the next word', () => {
  const p = getopt(SORT, words('-rk', '2,2', 'f'));
  assert.deepEqual(p, { ok: true, options: [{ name: '-r' }, { name: '-k', value: '2,2', glob: false }], operands: words('f') });
});

test('a refused letter inside a cluster is found (`-uo` is `-u -o`)', () => {
  const p = getopt(SORT, words('-uo', 'P', 'f'));
  assert.equal(p.ok, false);
  if (!p.ok) assert.match(p.reason, /`-o` \(in `-uo`\) writes a file/);
});

test('a long option takes `--opt=value` and `--opt value`; an optional value only with `=`', () => {
  assert.deepEqual(getopt(SORT, words('--key=2', '--buffer-size', '1M', '--check', 'f')), {
    ok: true,
    options: [{ name: '--key', value: '2', glob: false }, { name: '--buffer-size', value: '1M', glob: false }, { name: '--check' }],
    operands: words('f'),
  });
});

test('a unique prefix resolves like getopt_long: to a refused option it is refused by its full name', () => {
  assert.deepEqual(resolveLong(SORT, 'outp'), { name: 'output' });
  const p = getopt(SORT, words('--outp=P', 'f'));
  assert.equal(p.ok, false);
  if (!p.ok) assert.match(p.reason, /`--outp=P` is `--output`, which writes a file/);
});

test('an ambiguous or unknown prefix is refused, and an allowed one must be spelled in full', () => {
  const amb = getopt({ long: ['reverse', 'recursive'] }, words('--re'));
  assert.equal(amb.ok, false);
  if (!amb.ok) assert.match(amb.reason, /ambiguous abbreviation \(--reverse, --recursive\)/);
  const unknown = getopt(SORT, words('--compress-program=sh'));
  assert.equal(unknown.ok, false);
  const abbreviated = getopt(SORT, words('--num'));
  assert.equal(abbreviated.ok, false);
  if (!abbreviated.ok) assert.match(abbreviated.reason, /abbreviates `--numeric-sort`; write the option in full/);
});

test('`--` ends options: later words are operands even when they look like options', () => {
  assert.deepEqual(getopt(SORT, words('-n', '--', '-o', 'f')), { ok: true, options: [{ name: '-n' }], operands: words('-o', 'f') });
});

test('options after operands are still options (GNU permutation)', () => {
  const p = getopt(SORT, words('f', '-o', 'P'));
  assert.equal(p.ok, false);
});

test('-NUM is accepted only where the table says so', () => {
  assert.equal(getopt({ short: 'n:', numeric: true }, words('-20', 'f')).ok, true);
  assert.equal(getopt({ short: 'n:' }, words('-20', 'f')).ok, false);
});

test('a flag given a value with `=` is refused', () => {
  assert.equal(getopt(SORT, words('--debug=1')).ok, false);
});

test('the lexer removes quotes and marks globs that could expand to option names', () => {
  const l = lex(`grep -n 'a b' "c"d src/*.ts *.md -- x`);
  assert.equal(l.ok, true);
  if (!l.ok) return;
  const ws = l.commands[0]!.words;
  assert.deepEqual(
    ws.map((w) => w.text),
    ['grep', '-n', 'a b', 'cd', 'src/*.ts', '*.md', '--', 'x'],
  );
  assert.deepEqual(
    ws.map((w) => [w.glob, w.globLead]),
    [
      [false, false],
      [false, false],
      [false, false],
      [false, false],
      [true, false],
      [true, true],
      [false, false],
      [false, false],
    ],
  );
});

test('the lexer keeps `< file`, `2>/dev/null` and `2>&1` and refuses other redirections', () => {
  const l = lex('wc -c < f 2>/dev/null | head 2>&1');
  assert.deepEqual(l.ok && l.commands.map((c) => c.redirects.map((r) => r.kind)), [['in', 'null'], ['dup']]);
  for (const bad of ['ls > f', 'ls 2>f', 'ls &>f', 'ls >>f', 'cat <<E\nE', 'cat <<<x', 'ls >&3']) assert.equal(lex(bad).ok, false, bad);
});
