import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  BUNDLE_PLUGIN,
  buildBundle,
  discover,
  folderHash,
  parseSkill,
  pluginDirsFromEnv,
  selectFor,
  sessionPlugins,
  skillAllowed,
  skillTemplate,
  skillsBriefing,
  badSkillName,
} from '../../src/skills/index.js';
import { ConfigError } from '../../src/errors.js';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'flower-skills-'));
function skill(root: string, folder: string, text: string): string {
  const dir = path.join(root, folder);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'SKILL.md'), text);
  return dir;
}
const ok = (name: string, desc = `Use when ${name}.`) => `---\nname: ${name}\ndescription: ${desc}\n---\nbody of ${name}\n`;

test('a SKILL.md front matter is read the way Claude Code reads it', () => {
  const cases: Array<[string, boolean, RegExp?]> = [
    [ok('deploy-checklist'), true],
    ['\uFEFF---\r\nname: crlf\r\ndescription: windows file\r\n---\r\nbody', true],
    ['---\nname: "quoted"\ndescription: >\n  folded\n  text\n---\n', true],
    ['no front matter at all', false, /no front matter/],
    ['---\nname: x\n', false, /no front matter/],
    ['---\ndescription: d\n---\n', false, /no `name:`/],
    ['---\nname: ok\n---\n', false, /no `description:`/],
    ['---\nname: Bad_Name\ndescription: d\n---\n', false, /lowercase/],
    ['---\nname: -lead\ndescription: d\n---\n', false, /lowercase/],
    [`---\nname: ${'a'.repeat(65)}\ndescription: d\n---\n`, false, /at most 64/],
    [`---\nname: long\ndescription: ${'d'.repeat(1025)}\n---\n`, false, /1025 characters/],
    ['---\nname: [a, b]\ndescription: d\n---\n', false, /no `name:`/],
    ['---\n- a list\n---\n', false, /not a `key: value` map/],
    ['---\nname: x\n  bad: : yaml\n---\n', false, /not valid YAML/],
  ];
  for (const [text, good, why] of cases) {
    const r = parseSkill(text);
    assert.equal(r.ok, good, text);
    if (!r.ok && why) assert.match(r.reason, why, text);
  }
});

test('project and personal skills are found, a broken one is skipped with a warning naming its file', () => {
  const root = tmp();
  const proj = path.join(root, 'ws', '.flower', 'skills');
  const user = path.join(root, 'home', 'skills');
  skill(proj, 'deploy', ok('deploy'));
  skill(proj, 'broken', '# forgot the front matter\n');
  fs.mkdirSync(path.join(proj, 'empty-folder'));
  skill(user, 'deploy', ok('deploy', 'the personal one'));
  skill(user, 'style', ok('style'));
  const d = discover({ projectDir: proj, userDir: user });
  assert.deepEqual(
    d.skills.map((s) => `${s.source}:${s.name}`),
    ['project:deploy', 'user:style'],
  );
  assert.equal(d.skills[0]!.plugin, BUNDLE_PLUGIN);
  assert.ok(d.warnings.some((w) => w.includes(path.join(proj, 'broken', 'SKILL.md')) && /skipped/.test(w)));
  assert.ok(d.warnings.some((w) => w.includes('empty-folder')));
  assert.ok(d.warnings.some((w) => /exists in the project/.test(w)));
});

test('missing skill folders are not an error; a missing plugin folder is', () => {
  const root = tmp();
  assert.deepEqual(discover({ projectDir: path.join(root, 'nope'), userDir: path.join(root, 'nope2') }).warnings, []);
  assert.throws(
    () => discover({ pluginDirs: [path.join(root, 'no-plugin')] }),
    (e: unknown) => ConfigError.is(e) && /no such folder/.test((e as Error).message),
  );
});

test('a plugin is named by its manifest, else its folder; its skills and MCP servers are listed', () => {
  const root = tmp();
  const a = path.join(root, 'stamper-dir');
  skill(path.join(a, 'skills'), 'stamp', ok('stamp'));
  fs.mkdirSync(path.join(a, '.claude-plugin'));
  fs.writeFileSync(path.join(a, '.claude-plugin', 'plugin.json'), '{"name":"stamper"}');
  fs.writeFileSync(path.join(a, '.mcp.json'), '{"mcpServers":{"stamp":{"command":"node"}}}');
  const b = path.join(root, 'plain');
  fs.mkdirSync(b);
  const d = discover({ pluginDirs: [a, b] });
  assert.deepEqual(
    d.plugins.map((p) => [p.name, p.mcpServers, p.skills.map((s) => s.name)]),
    [
      ['stamper', ['stamp'], ['stamp']],
      ['plain', [], []],
    ],
  );
  assert.throws(() => discover({ pluginDirs: [b, b] }), /two plugins are named 'plain'/);
});

test('the hash changes with any file of the skill, and only then', () => {
  const root = tmp();
  const dir = skill(root, 'h', ok('h'));
  const h1 = folderHash(dir);
  assert.match(h1, /^[0-9a-f]{12}$/);
  assert.equal(folderHash(dir), h1);
  fs.writeFileSync(path.join(dir, 'helper.sh'), 'echo hi\n');
  const h2 = folderHash(dir);
  assert.notEqual(h2, h1);
  fs.writeFileSync(path.join(dir, 'helper.sh'), 'echo ho\n');
  assert.notEqual(folderHash(dir), h2);
});

test('a role gets what it selects; unknown or ambiguous names fail loudly', () => {
  const root = tmp();
  const proj = path.join(root, 'p');
  skill(proj, 'deploy', ok('deploy'));
  skill(proj, 'style', ok('style'));
  const pl = path.join(root, 'stamper');
  skill(path.join(pl, 'skills'), 'deploy', ok('deploy', 'the plugin one'));
  fs.writeFileSync(path.join(pl, '.mcp.json'), '{"mcpServers":{"stamp":{"command":"node"}}}');
  const d = discover({ projectDir: proj, pluginDirs: [pl] });
  const all = selectFor(d, { skills: 'all' }, 'worker a');
  assert.deepEqual(
    all.skills.map((s) => `${s.plugin}:${s.name}`),
    ['flower:deploy', 'flower:style'],
  );
  assert.deepEqual(all.tools, ['Skill']);
  const none = selectFor(d, { skills: [] }, 'judge');
  assert.deepEqual([none.skills, none.tools, none.record], [[], [], []]);
  const withPlugin = selectFor(d, { skills: ['style', 'stamper:deploy'], plugins: ['stamper'] }, 'worker b');
  assert.deepEqual(
    withPlugin.record.map((r) => r.name),
    ['flower:style', 'stamper:deploy'],
  );
  assert.deepEqual(withPlugin.tools, ['Skill', 'mcp__plugin_stamper_stamp']);
  assert.throws(() => selectFor(d, { skills: ['deploy'], plugins: ['stamper'] }, 'worker c'), /several plugins define/);
  assert.throws(() => selectFor(d, { skills: ['nope'] }, 'worker d'), /worker d asks for skill 'nope'.*available: flower:deploy, flower:style/);
  assert.throws(() => selectFor(d, { plugins: ['ghost'] }, 'worker e'), /declares plugin 'ghost'.*loaded plugins: stamper/);
  // a plugin's skills are not anyone's unless the role declares the plugin
  assert.ok(!selectFor(d, { skills: 'all' }, 'w').skills.some((s) => s.plugin === 'stamper'));
});

test("the Skill call is checked against the role's own skills, by short or qualified name", () => {
  const root = tmp();
  skill(root, 'deploy', ok('deploy'));
  const d = discover({ projectDir: root });
  const rs = selectFor(d, { skills: 'all' }, 'w').skills;
  for (const [req, want] of [
    ['deploy', true],
    ['flower:deploy', true],
    ['/deploy', true],
    ['other', false],
    ['stamper:deploy', false],
  ] as const) {
    assert.equal(skillAllowed(rs, req), want, req);
  }
});

test('the bundle holds copies named after each skill, and the session loads only the plugins in use', () => {
  const root = tmp();
  const proj = path.join(root, 'p');
  skill(proj, 'folder-name', ok('real-name'));
  const d = discover({ projectDir: proj });
  const dir = buildBundle(d.skills, path.join(root, 'bundle'))!;
  assert.ok(fs.existsSync(path.join(dir, 'skills', 'real-name', 'SKILL.md')));
  assert.equal(JSON.parse(fs.readFileSync(path.join(dir, '.claude-plugin', 'plugin.json'), 'utf8')).name, 'flower');
  assert.equal(buildBundle([], path.join(root, 'b2')), null);
  const on = selectFor(d, { skills: 'all' }, 'w');
  const off = selectFor(d, { skills: [] }, 'j');
  assert.deepEqual(sessionPlugins([off], dir), []);
  assert.deepEqual(sessionPlugins([off, on], dir), [{ type: 'local', path: dir }]);
  assert.match(skillsBriefing({ builder: on }), /- real-name \(builder\): Use when real-name\./);
  assert.equal(skillsBriefing({ builder: off }), '');
});

test('FLOWER_PLUGINS is a path list; the template is a valid skill; names are checked', () => {
  assert.deepEqual(pluginDirsFromEnv(` /a${path.delimiter}${path.delimiter}/b `), ['/a', '/b']);
  assert.deepEqual(pluginDirsFromEnv(undefined), []);
  const r = parseSkill(skillTemplate('deploy-checklist'));
  assert.ok(r.ok && r.head.name === 'deploy-checklist');
  assert.equal(badSkillName('deploy-checklist'), null);
  assert.match(badSkillName('Deploy')!, /not a skill name/);
  assert.match(badSkillName('../x')!, /not a skill name/);
});
