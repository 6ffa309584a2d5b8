/**
 * starterFlow as a library: one call wires 确认需求 → 设定目标 → 干活 with its own human channel.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Runtime } from '../../src/runtime/index.js';

import { starterFlow } from '../../src/workflow/index.js';
import { project, testEnv } from '../helpers/e2e.js';
import { useSim } from '../helpers/sim.js';

const sim = useSim();

test('starterFlow(ask, { workspace, runDir, timeoutS: 0 }) runs clarify, goal, work and the verdict', async () => {
  const p = project('starter-lib');
  sim.enqueue(
    { type: 'text', text: '## 目标\n写脚本\n## 验收标准\n- 能跑\n## 边界\n- 无依赖\n## 未知与假设\n- 无' },
    { type: 'text', text: '# 目标\n能跑\n# 判定清单\n- node x.mjs 退出码 0' },
    { type: 'text', text: '写好了' },
    // the judge submits: every check of the goal, passed, with evidence (a prose "达成" proves no check)
    {
      type: 'tool_use',
      match: { firstUserIncludes: 'submit_verdict' },
      name: 'mcp__human__submit_verdict',
      input: { state: 'achieved', reason: '跑过了', checks: [{ item: 'node x.mjs 退出码 0', pass: true, evidence: 'exit 0' }] },
    },
    { type: 'text', text: '判定完毕' },
  );
  const rt = new Runtime({ workspace: p.ws, runDir: p.runs, env: testEnv(p, sim.url), onWarning: () => {} });
  try {
    const flow = await starterFlow('写个脚本', { workspace: p.ws, runDir: p.runs, timeoutS: 0, lang: 'zh' });
    const ctx = await flow.workflow.run(rt);
    assert.equal(ctx._failedAt, undefined);
    assert.deepEqual(Object.keys(ctx._results), ['确认需求', '设定目标', '干活']);
    assert.ok(fs.existsSync(path.join(p.ws, '.flower', 'notes', '目标.md')));
    assert.ok(flow.channel.toolNames.includes('mcp__human__ask'));
  } finally {
    rt.close();
  }
  assert.deepEqual(sim.unexpected(), []);
});
