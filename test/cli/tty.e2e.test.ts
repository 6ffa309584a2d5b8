/**
 * flower on a real terminal (a pseudo-terminal from util-linux `script`): the start prompt, answering
 * a question with a digit, and Ctrl-C with a remark that the same session continues with.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

import { BIN, project, readJson, testEnv, transcriptOf, until, type Project } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const hasScript = spawnSync('script', ['--version']).status === 0;
const sim = useSim();

/** Run flower inside a pty; `type` writes keystrokes to the terminal. */
function onTerminal(p: Project, args: string[]) {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replace(/'/g, "'\\''")}'`).join(' ');
  // exec: the shell script starts must not stay between the terminal and flower (it would die of Ctrl-C)
  const child = spawn('script', ['-qfec', `exec ${quoted}`, '/dev/null'], {
    cwd: p.dir,
    env: { ...testEnv(p, sim.url), TERM: 'dumb' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let screen = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (screen += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (screen += d));
  const done = new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  const kill = setTimeout(() => child.kill('SIGKILL'), 90_000);
  void done.then(() => clearTimeout(kill));
  return { type: (s: string) => child.stdin.write(s), screen: () => screen, done };
}

const agentReqs = () => sim.messageRequests().filter((m) => (m.body as { tools?: { name: string }[] }).tools?.some((t) => t.name === 'Agent'));

test('on a terminal with no request, flower asks what to do; a digit answers a question; `? …` asks a side question; Ctrl-C + a remark steers the same session', {
  skip: !hasScript && 'util-linux `script` is not installed',
}, async () => {
  const p = project('tty');
  const brief = { firstUserIncludes: 'submit_brief' };
  sim.reset();
  sim.enqueue(
    { type: 'tool_use', match: brief, name: 'mcp__human__ask', input: { question: 'Where should the output go?', options: ['stdout', 'a .html file'] } },
    {
      type: 'tool_use',
      match: { ...brief, lastUserIncludes: 'a .html file' },
      name: 'mcp__human__submit_brief',
      input: { goal: 'g', acceptance: ['a'], boundaries: ['b'], unknowns: ['u'] },
    },
    { type: 'text', match: brief, text: 'ok' },
    {
      type: 'text',
      match: { toolsInclude: 'Agent', not: { lastUserIncludes: 'PINEAPPLE' } },
      text: 'working slowly on it, chunk after chunk after chunk',
      chunks: 40,
      chunkDelayMs: 200,
    },
    { type: 'text', match: { lastUserIncludes: 'PINEAPPLE' }, text: 'adjusted to PINEAPPLE' },
    { type: 'text', match: { firstUserIncludes: 'what is it doing' }, text: 'It is writing slowly.' },
  );
  const t = onTerminal(p, ['-w', p.ws, '-r', p.runs, '--no-goal']);
  await until('the start prompt', () => /What should I do\?/.test(t.screen()));
  t.type('write a converter\r');
  await until('the question', () => /Where should the output go\?/.test(t.screen()));
  assert.match(t.screen(), /1\. stdout/);
  assert.match(t.screen(), /2\. a \.html file/);
  t.type('2\r');
  await until('the work step', () => agentReqs().length >= 1, 30_000);
  t.type('? what is it doing\r');
  await until('the side answer', () => /# aside: what is it doing[\s\S]*It is writing slowly/.test(t.screen()), 30_000);
  t.type('\x03');
  await until('the interrupt hint', () => /Interrupt\?/.test(t.screen()));
  t.type('PINEAPPLE please\r');
  const code = await t.done;
  assert.equal(code, 0, `exit ${code}: ${t.screen()}`);
  assert.match(t.screen(), /interrupted: PINEAPPLE please/);
  const rows = readJson<{ step: string; attempts: number; resumed: boolean; session_id: string }[]>(path.join(p.runs, 'manifest.json'));
  const work = rows.find((r) => r.step === '干活')!;
  assert.equal(work.attempts, 1, "Ctrl-C is not a failed attempt (the agent process is out of the terminal's reach)");
  assert.equal(work.resumed, true);
  const last = agentReqs().at(-1)!;
  assert.equal(last.headers['x-claude-code-session-id'], work.session_id);
  assert.match(transcriptOf(last.body).at(-1)!, /PINEAPPLE please/);
  assert.deepEqual(sim.unexpected(), []);
  const aside = readJson<{ step: string; ok: boolean }[]>(path.join(p.runs, 'aside', 'manifest.json'));
  assert.deepEqual(
    aside.map((r) => [r.step, r.ok]),
    [['旁路问答', true]],
    'the side question has its own manifest',
  );
  assert.ok(rows.every((r) => r.step !== '旁路问答'));
});
