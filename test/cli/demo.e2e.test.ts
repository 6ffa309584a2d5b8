/**
 * `flower demo` as a newcomer meets it: started the way the README says (`npx flower demo`, which puts
 * a `node_modules/.bin` on PATH for itself only), its closing hints are then typed in a plain shell,
 * from another folder, with the person's own PATH — and they run. The question it asks (under
 * `--timeout 0`, so nobody can answer) is on screen with its options before "nobody answered".
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { before, test } from 'node:test';
import { BIN, cli, project, testEnv, type CliRun } from '../helpers/e2e.js';

/** What a shell says to `sh -c line`, from `cwd`. */
function shell(line: string, cwd: string, env: Record<string, string>): Promise<CliRun> {
  const child = spawn('/bin/sh', ['-c', line], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const t = setTimeout(() => child.kill('SIGKILL'), 60_000);
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      clearTimeout(t);
      resolve({ code, signal, stdout, stderr });
    }),
  );
}

let run: CliRun;
let dir: string;
let plainEnv: Record<string, string>;
let elsewhere: string;
before(async () => {
  const p = project('demo-hints');
  dir = path.join(p.dir, 'demo');
  elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-elsewhere-'));
  // what npx does: this package linked into a private node_modules/.bin, put first on PATH for itself
  const npxBin = path.join(p.dir, '_npx', 'node_modules', '.bin');
  fs.mkdirSync(npxBin, { recursive: true });
  fs.symlinkSync(BIN, path.join(npxBin, 'flower'));
  const base = testEnv(p, 'http://127.0.0.1:9');
  delete (base as Record<string, string | undefined>).ANTHROPIC_API_KEY;
  plainEnv = {
    ...base,
    PATH: (process.env.PATH ?? '')
      .split(path.delimiter)
      .filter((d) => !fs.existsSync(path.join(d, 'flower')))
      .join(path.delimiter),
  };
  run = await cli(['demo', '--dir', dir], { cwd: p.dir, env: { ...plainEnv, PATH: `${npxBin}${path.delimiter}${plainEnv.PATH}` }, timeoutMs: 240_000 });
  assert.equal(run.code, 0, run.stderr + run.stdout);
});

test('the closing hints run as printed in a plain shell from another folder, after `npx flower demo`', async () => {
  const hints = run.stdout
    .split('\n')
    .flatMap((l) => l.split('   ·   '))
    .map((l) =>
      l
        .replace(/^[^:]*:\s*/, '')
        .replace(/\s+#.*$/, '')
        .trim(),
    )
    .filter((l) => / (status|log) -w /.test(l));
  assert.equal(hints.length, 2, `a status and a log hint:\n${run.stdout}`);
  for (const h of hints) {
    const r = await shell(h, elsewhere, plainEnv);
    assert.equal(r.code, 0, `\`${h}\` runs from ${elsewhere}:\n${r.stderr}${r.stdout}`);
    assert.doesNotMatch(r.stderr, /not found/);
  }
  const status = await shell(hints[0]!, elsewhere, plainEnv);
  assert.ok(status.stdout.includes(dir), `status reads the demo's folder:\n${status.stdout}`);
  // the other hints use the very same command for flower
  const me = hints[0]!.replace(/ status -w .*$/, '');
  assert.match(run.stdout, new RegExp(`${me.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} ui -r `));
});

test('the question the demo asks is on screen with its options, then that nobody answered', () => {
  assert.match(run.stdout, /^\? \(q1\) \S.*\n {2}1\. \S.*\n {2}2\. \S.*\n! /m, run.stdout);
});

const dollarLines = (out: string) => out.split('\n').filter((l) => /\$\d/.test(l));

test('every amount the demo shows says it is simulated: step lines, verdicts, totals', () => {
  const lines = dollarLines(run.stdout);
  assert.ok(lines.some((l) => /^total \$/.test(l)) && lines.some((l) => /^= verdict/.test(l)), run.stdout);
  for (const l of lines) assert.match(l, /\$\d+\.\d+ \(simulated\)/, l);
});

test('flower demo -q is quiet as -q is on a run (no tool calls, no worker activity), in Chinese too, costs marked 模拟', async () => {
  const p = project('demo-quiet');
  const quiet = await cli(['demo', '-q', '--dir', path.join(p.dir, 'demo')], { cwd: p.dir, env: { ...plainEnv, FLOWER_LANG: 'zh' }, timeoutMs: 240_000 });
  assert.equal(quiet.code, 0, quiet.stderr + quiet.stdout);
  // the same run without -q shows tool calls and the worker's activity
  assert.match(run.stdout, /^\* Bash /m);
  assert.match(run.stdout, /^ {2}\| \* Write /m);
  assert.doesNotMatch(quiet.stdout, /^(?: {2}\| )?\* /m, quiet.stdout);
  assert.doesNotMatch(quiet.stdout, /^> /m, 'no worker dispatch lines');
  assert.match(quiet.stdout, /^\+ 完成 · /m, 'step lines stay');
  const lines = dollarLines(quiet.stdout);
  assert.ok(
    lines.some((l) => /^总花费 \$/.test(l)),
    quiet.stdout,
  );
  for (const l of lines) assert.match(l, /\$\d+\.\d+\(模拟\)/, l);
});
