/** Step names as a person reads them: the seed's translated with the name beside it in English, as they are in Chinese. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { judgeStepName, SEED_STEPS, stepLabel } from '../../src/state/index.js';

test('stepLabel: the seed names and their judged, retried and later rounds, in both languages', () => {
  const table: Array<[string, string, string]> = [
    // name, en, zh
    ['确认需求', 'clarify (确认需求)', '确认需求'],
    ['设定目标', 'set the goal (设定目标)', '设定目标'],
    ['干活', 'work (干活)', '干活'],
    ['旁路问答', 'aside (旁路问答)', '旁路问答'],
    ['干活·判定#1', 'work · judge #1 (干活·判定#1)', '干活·判定#1'],
    ['干活·判定#12', 'work · judge #12 (干活·判定#12)', '干活·判定#12'],
    ['干活#round2', 'work round 2 (干活#round2)', '干活#round2'],
    ['确认需求#retry1', 'clarify retry 1 (确认需求#retry1)', '确认需求#retry1'],
    ['干活#2', 'work #2 (干活#2)', '干活#2'],
    // a workflow's own names stay as they are; only a judge's turn of one is translated
    ['review', 'review', 'review'],
    ['取词', '取词', '取词'],
    ['review#round2', 'review#round2', 'review#round2'],
    ['review·判定#1', 'review · judge #1 (review·判定#1)', 'review·判定#1'],
    ['干活干活', '干活干活', '干活干活'],
    ['', '', ''],
  ];
  for (const [name, en, zh] of table) {
    assert.equal(stepLabel(name, 'en'), en, name);
    assert.equal(stepLabel(name, 'zh'), zh, name);
  }
});

test('judgeStepName builds what stepLabel reads', () => {
  assert.equal(judgeStepName(SEED_STEPS.work, 3), '干活·判定#3');
  assert.equal(stepLabel(judgeStepName(SEED_STEPS.work, 3), 'en'), 'work · judge #3 (干活·判定#3)');
});
