/**
 * A usage error reads like every other flower error — one `x …` line that names the help to read, in
 * the terminal's language, exit 2 — whether commander found it (an unknown option, a stray argument, a
 * bad value) or flower did (`flower ""`); with --json it is one `{"error":{…}}` object on stdout.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { main } from '../../src/cli/index.js';

async function run(argv: string[], lang: 'en' | 'zh' = 'en') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-usage-'));
  let out = '';
  let err = '';
  const env = { FLOWER_LANG: lang, HOME: dir, PATH: process.env.PATH, ANTHROPIC_API_KEY: 'sk-test', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' };
  const code = await main(argv, { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (err += s) }, env, cwd: dir });
  return { code, out, err };
}

test("commander's errors read as flower's: one `x` line naming the command's help, exit 2", async () => {
  const cases: Array<[string[], RegExp]> = [
    [['--nosuch'], /^x unknown option '--nosuch' — see flower --help\n$/],
    [['status', '--bogus'], /^x unknown option '--bogus' — see flower status --help\n$/],
    [['log', '--jsn'], /^x unknown option '--jsn' \(did you mean --json\?\) — see flower log --help\n$/],
    [['status', 'extra'], /^x too many arguments for 'status'\. Expected 0 arguments but got 1 — see flower status --help\n$/],
    [['--budget', 'abc', 'status'], /^x option '--budget <usd>' argument 'abc' is invalid\. .*abc.* — see flower --help\n$/],
  ];
  for (const [argv, want] of cases) {
    const r = await run(argv);
    assert.equal(r.code, 2, argv.join(' '));
    assert.match(r.err, want, argv.join(' '));
    assert.doesNotMatch(r.err, /^error:/m);
    assert.equal(r.out, '');
  }
  const zh = await run(['status', '--bogus'], 'zh');
  assert.equal(zh.code, 2);
  assert.match(zh.err, /^x 不认识的选项 '--bogus' —— 见 flower status --help\n$/);
});

test('`flower ""` is a usage error: exit 2, one line saying what to give', async () => {
  const r = await run(['']);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /^x nothing to do: give flower a sentence/m);
});

test('with --json an error is one JSON object on stdout: {"error":{code, message, exit}}', async () => {
  for (const argv of [
    ['--json', '--nosuch'],
    ['status', '--json', '--bogus'],
    ['--json', ''],
  ]) {
    const r = await run(argv);
    assert.equal(r.code, 2, argv.join(' '));
    const lines = r.out.trim().split('\n');
    assert.equal(lines.length, 1, r.out);
    const { error } = JSON.parse(lines[0]!) as { error: { code: string; message: string; exit: number } };
    assert.equal(error.exit, 2);
    assert.match(error.code, /^usage/);
    assert.ok(error.message.length > 0 && !error.message.startsWith('x '), error.message);
    assert.doesNotMatch(r.err, /^error:/m, 'nothing in commander style on stderr');
  }
});

test("`flower <cmd> --help` lists the global flags too, in the terminal's language", async () => {
  const en = await run(['status', '--help']);
  assert.equal(en.code, 0);
  assert.match(en.out, /^Global Options:\n(?:.*\n)*? {2}-w, --workspace <dir>/m);
  assert.match(en.out, /--json/);
  const zh = await run(['log', '--help'], 'zh');
  assert.match(zh.out, /^全局选项:\n(?:.*\n)*? {2}-w, --workspace <dir>/m);
});

test("`flower --help` ends with three examples a newcomer can type as they are, in the terminal's language", async () => {
  for (const lang of ['en', 'zh'] as const) {
    const r = await run(['--help'], lang);
    assert.equal(r.code, 0);
    const tail = r.out.slice(r.out.search(/^(Examples|例子):$/m));
    const lines = tail.split('\n').filter((l) => /^ {2}flower /.test(l));
    assert.equal(lines.length, 3, tail);
  }
});
