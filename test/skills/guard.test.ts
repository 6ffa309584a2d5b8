import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pluginToolDecision, skillDecision, type SkillGuardPlan } from '../../src/guards/skill.js';
import type { SkillInfo } from '../../src/skills/index.js';

const s = (name: string, plugin = 'flower'): SkillInfo => ({
  name,
  plugin,
  description: '',
  source: plugin === 'flower' ? 'project' : 'plugin',
  dir: '/x',
  hash: '0'.repeat(12),
});
const plan: SkillGuardPlan = {
  main: [s('verify')],
  agents: { builder: [s('deploy'), s('lint', 'stamper')], reader: [] },
  mainTools: [],
  agentTools: { builder: ['mcp__plugin_stamper_stamp'], reader: [] },
};

test('a Skill call loads only a skill of the calling role', () => {
  const rows: Array<[string | undefined, unknown, boolean]> = [
    [undefined, 'verify', true],
    [undefined, 'flower:verify', true],
    [undefined, 'deploy', false],
    ['builder', 'deploy', true],
    ['builder', 'stamper:lint', true],
    ['builder', 'lint', true],
    ['builder', 'verify', false],
    ['reader', 'deploy', false],
    ['general-purpose', 'deploy', false],
    ['builder', 42, false],
    ['builder', '', false],
  ];
  for (const [who, req, want] of rows) {
    const d = skillDecision(plan, req, who);
    assert.equal(d.allow, want, `${who ?? 'main'} → ${String(req)}`);
    if (!want) assert.ok(d.reason && d.reason.length > 20);
  }
});

test('a plugin MCP tool answers only the roles that declare its plugin', () => {
  const rows: Array<[string | undefined, string, boolean]> = [
    [undefined, 'mcp__plugin_stamper_stamp__stamp', false],
    ['builder', 'mcp__plugin_stamper_stamp__stamp', true],
    ['builder', 'mcp__plugin_stamper_stampede__x', false],
    ['builder', 'mcp__plugin_stamper_stamp', false],
    ['reader', 'mcp__plugin_stamper_stamp__stamp', false],
    ['ghost', 'mcp__plugin_stamper_stamp__stamp', false],
  ];
  for (const [who, tool, want] of rows) assert.equal(pluginToolDecision(plan, tool, who).allow, want, `${who ?? 'main'} → ${tool}`);
});
