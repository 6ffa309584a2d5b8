/**
 * Skills and plugins end to end: the real claude binary through flower's Runtime, the sim on 127.0.0.1.
 * A project skill reaches the worker that has it and loads; a skill planted in the host's ~/.claude
 * never reaches any request; a plugin's MCP tool answers the worker that declares the plugin and is
 * denied to the coordinator; a broken SKILL.md is one warning and the run goes on.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { coordinator, worker } from '../../src/roles/index.js';
import { Manifest, Runtime } from '../../src/runtime/index.js';
import { toolResultsOf } from '../../src/sim/index.js';
import { project, ROOT, testEnv, type Project } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

function writeSkill(root: string, name: string, description: string, body: string): void {
  fs.mkdirSync(path.join(root, name), { recursive: true });
  fs.writeFileSync(path.join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`);
}

function plantHostSkills(p: Project): void {
  // what flower must never read: the host's Claude Code skills and the project's .claude/
  writeSkill(path.join(p.home, '.claude', 'skills'), 'host-secret', 'HOST-SKILL-DESC', 'HOST-SKILL-BODY');
  writeSkill(path.join(p.ws, '.claude', 'skills'), 'dotclaude', 'DOTCLAUDE-DESC', 'DOTCLAUDE-BODY');
}

const bodies = () => sim.messageRequests().map((r) => JSON.stringify(r.body));
const forWorker = () => sim.messageRequests().filter((r) => JSON.stringify(r.body.messages?.[0] ?? '').includes('WORKER BRIEF'));
const forMain = () => sim.messageRequests().filter((r) => !JSON.stringify(r.body.messages?.[0] ?? '').includes('WORKER BRIEF'));

test("a project skill reaches the worker that has it, loads on a Skill call, and is recorded; the host's skills reach no request", async () => {
  const p = project('skills');
  writeSkill(path.join(p.ws, '.flower', 'skills'), 'deploy-checklist', 'Use when deploying. DEPLOY-DESC', 'DEPLOY-BODY: run make deploy, then curl /health');
  fs.mkdirSync(path.join(p.ws, '.flower', 'skills', 'broken'), { recursive: true });
  fs.writeFileSync(path.join(p.ws, '.flower', 'skills', 'broken', 'SKILL.md'), '---\ndescription: BROKEN-SKILL-DESC (no name)\n---\nBROKEN-SKILL-BODY\n');
  plantHostSkills(p);
  const spec = coordinator(
    'lead',
    '',
    {
      builder: worker('builds things', 'You build.', { lang: 'en' }),
      reader: worker('reads things', 'You read.', { lang: 'en', tools: ['Read'], skills: [] }),
    },
    { lang: 'en' },
  );
  sim.reset();
  sim.enqueue(
    { type: 'tool_use', id: 'toolu_main_skill', name: 'Skill', input: { skill: 'deploy-checklist' }, match: { not: { firstUserIncludes: 'WORKER BRIEF' } } },
    {
      type: 'tool_use',
      id: 'toolu_agent',
      name: 'Agent',
      input: { subagent_type: 'builder', description: 'deploy', prompt: 'WORKER BRIEF deploy it', run_in_background: false },
      match: { not: { firstUserIncludes: 'WORKER BRIEF' } },
    },
    { type: 'tool_use', id: 'toolu_skill', name: 'Skill', input: { skill: 'deploy-checklist' }, match: { firstUserIncludes: 'WORKER BRIEF' } },
    { type: 'text', text: 'deployed per the checklist', match: { firstUserIncludes: 'WORKER BRIEF' } },
    { type: 'text', text: 'all done', match: { not: { firstUserIncludes: 'WORKER BRIEF' } } },
  );
  const warnings: string[] = [];
  const rt = new Runtime({ workspace: p.ws, runDir: p.runs, env: testEnv(p, sim.url), onWarning: (m) => warnings.push(m) });
  try {
    const r = await rt.run(spec, 'ship it');
    assert.equal(r.ok, true, r.error ?? '');
  } finally {
    rt.close();
  }
  sim.assertConsumed();
  sim.assertNoUnexpected();
  // one warning naming the broken file; the run went on
  assert.equal(warnings.filter((w) => w.includes(path.join('broken', 'SKILL.md'))).length, 1, warnings.join('\n'));
  // the worker was offered the skill and got its body after the Skill call
  const w = forWorker();
  assert.ok(w.length >= 2);
  assert.ok(
    (w[0]!.body.tools ?? []).some((t) => t.name === 'Skill'),
    'the worker has the Skill tool',
  );
  assert.ok(JSON.stringify(w[0]!.body).includes('DEPLOY-DESC'), 'the listing reached the worker');
  assert.ok(JSON.stringify(w.at(-1)!.body).includes('DEPLOY-BODY'), 'the skill body loaded');
  // the coordinator does not list skills itself (its rules name them for briefing) and its own Skill call was denied
  const main0 = JSON.stringify(forMain()[0]!.body.messages);
  assert.ok(!main0.includes('DEPLOY-DESC'), "no skill listing in the coordinator's messages");
  assert.ok(JSON.stringify(forMain()[0]!.body.system).includes('deploy-checklist (builder)'), 'the coordinator is told which worker has which skill');
  const denied = forMain()
    .flatMap((r) => toolResultsOf(r.body))
    .find((t) => t.tool_use_id === 'toolu_main_skill')!;
  assert.equal(denied.is_error, true);
  // the binary's own filter (the main thread's `skills` option) or flower's guard: either refuses
  assert.match(denied.content, /not in this session's skills allowlist|no skills are given to this role/);
  // nothing of the host's or the project's .claude reached any request
  for (const b of bodies()) {
    for (const marker of ['HOST-SKILL', 'DOTCLAUDE', 'BROKEN-SKILL']) assert.ok(!b.includes(marker), `${marker} leaked into a request`);
  }
  // the manifest row says which skills the step's agents could load, with a content hash
  const row = (await Manifest.read(p.runs)).at(-1)!;
  assert.deepEqual(
    row.skills?.map((s) => s.name),
    ['flower:deploy-checklist'],
  );
  assert.match(row.skills![0]!.hash, /^[0-9a-f]{12}$/);
});

test("a plugin's MCP tool answers the worker that declares the plugin, without the key in its env; the coordinator is denied it", async () => {
  const p = project('plugin');
  plantHostSkills(p);
  const plugin = path.join(p.dir, 'stamper');
  fs.mkdirSync(path.join(plugin, '.claude-plugin'), { recursive: true });
  fs.writeFileSync(path.join(plugin, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: 'stamper' }));
  fs.writeFileSync(
    path.join(plugin, '.mcp.json'),
    JSON.stringify({
      mcpServers: { stamp: { command: process.execPath, args: [path.join(ROOT, 'test', 'skills', 'keyprobe-server.mjs')] } },
    }),
  );
  const target = path.join(p.ws, 'stamped.txt');
  const byCoord = path.join(p.ws, 'by-coordinator.txt');
  const spec = coordinator(
    'lead',
    '',
    {
      stamper: worker('stamps files', 'You stamp.', { lang: 'en', tools: ['Read'], plugins: ['stamper'] }),
    },
    { lang: 'en' },
  );
  sim.reset();
  sim.enqueue(
    {
      type: 'tool_use',
      id: 'toolu_coord_stamp',
      name: 'mcp__plugin_stamper_stamp__stamp',
      input: { file: byCoord },
      match: { not: { firstUserIncludes: 'WORKER BRIEF' } },
    },
    {
      type: 'tool_use',
      id: 'toolu_agent',
      name: 'Agent',
      input: { subagent_type: 'stamper', description: 'stamp', prompt: 'WORKER BRIEF stamp it', run_in_background: false },
      match: { not: { firstUserIncludes: 'WORKER BRIEF' } },
    },
    { type: 'tool_use', id: 'toolu_stamp', name: 'mcp__plugin_stamper_stamp__stamp', input: { file: target }, match: { firstUserIncludes: 'WORKER BRIEF' } },
    { type: 'text', text: 'stamped', match: { firstUserIncludes: 'WORKER BRIEF' } },
    { type: 'text', text: 'done', match: { not: { firstUserIncludes: 'WORKER BRIEF' } } },
  );
  const rt = new Runtime({ workspace: p.ws, runDir: p.runs, env: testEnv(p, sim.url), plugins: [plugin], onWarning: () => {} });
  try {
    const r = await rt.run(spec, 'stamp the file');
    assert.equal(r.ok, true, r.error ?? '');
  } finally {
    rt.close();
  }
  sim.assertConsumed();
  // the declaring worker called the plugin tool, and the server the binary started could not see the key
  assert.equal(fs.readFileSync(target, 'utf8'), 'STAMPED\nkeys seen: none\n');
  assert.ok(!fs.existsSync(byCoord), 'the coordinator could not');
  const denied = forMain()
    .flatMap((r) => toolResultsOf(r.body))
    .find((t) => t.tool_use_id === 'toolu_coord_stamp')!;
  assert.equal(denied.is_error, true);
  for (const b of bodies()) assert.ok(!b.includes('HOST-SKILL'), 'the host skill leaked');
});
