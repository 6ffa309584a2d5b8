/**
 * The sandbox at the command line: flower refuses to start without bubblewrap and says how to install it;
 * `--no-sandbox` runs loudly (one warning line) and still keeps the key out of commands; the manifest row
 * says whether the step ran sandboxed; `--net` takes on, off or hosts.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { toolResultsOf } from '../../src/sim/index.js';
import { cli, project, readJson, testEnv } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

const KEY = 'sk-ant-cli-KEY-0c41e2';
type Row = { step: string; ok: boolean; sandboxed?: boolean };

test('without bubblewrap on PATH, flower exits 1 naming the packages to install and --no-sandbox; nothing is asked of the model', async () => {
  const p = project('nobwrap');
  const empty = path.join(p.dir, 'empty-bin');
  fs.mkdirSync(empty);
  sim.reset();
  const r = await cli(['once', 'hi', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: { ...testEnv(p, sim.url), PATH: empty } });
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stderr, /bubblewrap \(bwrap\) and socat, not found on PATH/);
  assert.match(r.stderr, /apt-get install bubblewrap socat/);
  assert.match(r.stderr, /--no-sandbox/);
  assert.equal(sim.messageRequests().length, 0);
});

test('--no-sandbox runs with one warning line, records sandboxed:false, and a command still sees no key', async () => {
  const p = project('nosb');
  sim.reset();
  sim.enqueue(
    { type: 'tool_use', id: 'toolu_env', name: 'Bash', input: { command: 'echo "key=[$ANTHROPIC_API_KEY]"', description: 'env' } },
    { type: 'text', text: 'ran unsandboxed' },
  );
  const r = await cli(['once', 'go', '-t', 'Bash', '--no-sandbox', '-w', p.ws, '-r', p.runs], {
    cwd: p.dir,
    env: testEnv(p, sim.url, { ANTHROPIC_API_KEY: KEY }),
  });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stderr.split('\n').filter((l) => /sandbox OFF/.test(l)).length, 1, r.stderr);
  const seen = toolResultsOf(sim.messageRequests().at(-1)!.body).find((t) => t.tool_use_id === 'toolu_env')!;
  assert.equal(seen.content.split('\n')[0], 'key=[]');
  const rows = readJson<Row[]>(path.join(p.runs, 'manifest.json'));
  assert.equal(rows[0]!.sandboxed, false);
  const bodies = sim
    .messageRequests()
    .map((m) => JSON.stringify(m.body))
    .join('\n');
  assert.ok(!bodies.includes(KEY));
});

test("by default the step runs sandboxed: the manifest says so, and --net off keeps a writing role's commands off the network", async () => {
  const p = project('sb');
  sim.reset();
  sim.enqueue(
    {
      type: 'tool_use',
      id: 'toolu_net',
      name: 'Bash',
      input: { command: 'curl -sS -m 5 -o /dev/null https://registry.npmjs.org/ 2>&1; echo rc=$?; touch made-here && echo wrote', description: 'net' },
    },
    { type: 'text', text: 'done' },
  );
  const r = await cli(['once', 'go', '-t', 'Bash', '--net', 'off', '-w', p.ws, '-r', p.runs], { cwd: p.dir, env: testEnv(p, sim.url) });
  assert.equal(r.code, 0, r.stderr);
  const seen = toolResultsOf(sim.messageRequests().at(-1)!.body).find((t) => t.tool_use_id === 'toolu_net')!;
  assert.doesNotMatch(seen.content, /rc=0\b/, seen.content);
  assert.match(seen.content, /wrote/, 'the workspace is writable for a role with Bash');
  assert.ok(fs.existsSync(path.join(p.ws, 'made-here')));
  assert.equal(readJson<Row[]>(path.join(p.runs, 'manifest.json'))[0]!.sandboxed, true);
});

test('--net takes on, off or host names; anything else is a usage error (exit 2)', async () => {
  const p = project('netbad');
  const r = await cli(['once', 'go', '--net', 'http://x.com/'], { cwd: p.dir, env: testEnv(p, sim.url) });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--net takes on, off or a comma-separated list/);
});
