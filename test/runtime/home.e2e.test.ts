/**
 * Issue 22 end to end: the real claude binary through `flower once`, the sim on 127.0.0.1.
 * - a run leaves the person's HOME exactly as it was (here: empty), sandboxed and with --no-sandbox,
 *   and a command still sees the person's git identity (their ~/.gitconfig, outside that HOME);
 * - two sandboxed runs in one workspace at once, with different run dirs, each run commands while the
 *   other is running and after it ended, and every command succeeds.
 * Runs synchronise on files the commands write and wait for, and on the end of a process, never on sleeps.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { toolResultsOf } from '../../src/sim/index.js';
import { cli, project, testEnv, until, type Project } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

/** Every entry under `dir`, with each file's bytes: what "unchanged" is checked against. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const n of fs.readdirSync(d).sort()) {
      const p = path.join(d, n);
      const st = fs.lstatSync(p);
      const rel = path.relative(dir, p);
      if (st.isDirectory()) {
        out.push(`${rel}/`);
        walk(p);
      } else out.push(`${rel} ${st.isFile() ? fs.readFileSync(p, 'base64') : `mode ${st.mode}`}`);
    }
  };
  walk(dir);
  return out;
}

function results(): Map<string, string> {
  const seen = new Map<string, string>();
  for (const r of sim.messageRequests()) for (const t of toolResultsOf(r.body)) seen.set(t.tool_use_id, `${t.is_error ? 'ERROR ' : ''}${t.content}`);
  return seen;
}

const bash = (id: string, tag: string, command: string) => ({
  type: 'tool_use' as const,
  id,
  name: 'Bash',
  match: { firstUserIncludes: tag },
  input: { command, description: id },
});

/** The person's git identity lives outside the HOME the run gets, as GIT_CONFIG_GLOBAL says (so HOME can start empty). */
function identity(p: Project): Record<string, string> {
  const file = path.join(p.dir, 'person.gitconfig');
  fs.writeFileSync(file, '[user]\n\tname = Ada Person\n\temail = ada@example.com\n');
  return { GIT_CONFIG_GLOBAL: file };
}

for (const sandboxed of [true, false]) {
  test(`a run ${sandboxed ? 'in the sandbox' : 'with --no-sandbox'} leaves HOME byte for byte as it was, and a command still sees the person's git identity`, {
    timeout: 120_000,
  }, async () => {
    const p = project('home');
    const env = testEnv(p, sim.url, identity(p));
    const before = snapshot(p.home);
    assert.deepEqual(before, []);
    const tag = `HOME-${sandboxed ? 'SB' : 'NS'}`;
    sim.reset();
    sim.enqueue(bash('toolu_git', tag, 'git config user.name; echo "home=$HOME"'), { type: 'text', text: 'done', match: { firstUserIncludes: tag } });
    const args = ['once', `${tag}: who am I`, '-t', 'Bash', '-w', p.ws, '-r', p.runs, ...(sandboxed ? [] : ['--no-sandbox'])];
    const r = await cli(args, { cwd: p.dir, env });
    assert.equal(r.code, 0, r.stderr);
    const out = results().get('toolu_git') ?? '';
    assert.match(out, /^Ada Person$/m, out);
    assert.doesNotMatch(out, new RegExp(`home=${p.home}`), out);
    assert.deepEqual(snapshot(p.home), before);
  });
}

test('two sandboxed runs in one workspace, with different run dirs, at once: every command of both succeeds, during and after the other', {
  timeout: 180_000,
}, async () => {
  const p = project('home2');
  const env = testEnv(p, sim.url);
  // a git repository, as a person's project usually is: the sandbox write-protects .git/hooks and .git/config too
  fs.mkdirSync(path.join(p.ws, '.git', 'hooks'), { recursive: true });
  fs.writeFileSync(path.join(p.ws, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  const sync = path.join(p.ws, 'sync');
  fs.mkdirSync(sync);
  const wait = (f: string) => `while [ ! -e ${path.join(sync, f)} ]; do sleep 0.05; done`;
  const mark = (f: string) => `touch ${path.join(sync, f)}`;
  // What the binary guarantees, and so what this test orders (docs/sdk-facts.md, Sandbox): each command
  // makes 0-byte placeholders at the missing write-denied paths of the workspace and removes them when its
  // process has no command left; another process that saw them there binds them as they are. So a command
  // of B is prepared only while A is inside a command that cannot end before B's is running (A1), or once
  // A has ended — never while a command of A is ending (the binary's own race, which flower can only report).
  let aEnded!: () => void;
  const aGone = new Promise<void>((resolve) => {
    aEnded = resolve;
  });
  sim.reset();
  sim.enqueue(
    // A starts, waits for B to be running a command, and ends while B is still in its run
    bash('toolu_a1', 'RUN-A', `${mark('a1')}; ${wait('b1')}; echo A1`),
    bash('toolu_a2', 'RUN-A', 'echo A2'),
    { type: 'text', text: 'A done', match: { firstUserIncludes: 'RUN-A' } },
    bash('toolu_b1', 'RUN-B', `${wait('a1')}; ${mark('b1')}; echo B1`),
    // B's later commands reach it only once A's process is gone
    { ...bash('toolu_b2', 'RUN-B', `test -e ${path.join(sync, 'a-ended')} && echo B2`), holdStart: () => aGone },
    bash('toolu_b3', 'RUN-B', `ls -a ${path.join(p.ws, '.claude')}; echo B3`),
    { type: 'text', text: 'B done', match: { firstUserIncludes: 'RUN-B' } },
  );
  const runA = cli(['once', 'RUN-A: work', '-t', 'Bash', '-w', p.ws, '-r', path.join(p.dir, 'runs-a')], { cwd: p.dir, env, timeoutMs: 150_000 }).then((r) => {
    fs.writeFileSync(path.join(sync, 'a-ended'), '');
    aEnded();
    return r;
  });
  // B starts only once A is inside its first command (A's sandbox is up)
  await until('run A in its first command', () => fs.existsSync(path.join(sync, 'a1')), 60_000);
  const runB = cli(['once', 'RUN-B: work', '-t', 'Bash', '-w', p.ws, '-r', path.join(p.dir, 'runs-b')], { cwd: p.dir, env, timeoutMs: 150_000 });
  const [a, b] = await Promise.all([runA, runB]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(b.code, 0, b.stderr);
  const seen = results();
  for (const [id, want] of [
    ['toolu_a1', 'A1'],
    ['toolu_a2', 'A2'],
    ['toolu_b1', 'B1'],
    ['toolu_b2', 'B2'],
    ['toolu_b3', 'B3'],
  ] as const) {
    assert.match(seen.get(id) ?? '', new RegExp(`^${want}$`, 'm'), `${id}: ${seen.get(id)}`);
    assert.doesNotMatch(seen.get(id) ?? '', /bwrap|ERROR/, `${id}: ${seen.get(id)}`);
  }
});
