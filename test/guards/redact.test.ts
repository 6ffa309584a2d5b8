/**
 * The output guard: known secret values never reach the model, a spill file or sessions.db — whatever
 * the tool, whatever the shape of its output — and a failure withholds the output instead of showing it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { OUTPUT_MATCHER, outputDecision, outputGuard, redactDeep, Workbench } from '../../src/guards/index.js';
import { fire, post, specific } from './helpers.js';

const KEY = 'sk-ant-e2e-REDACT-1234';
const PW = 'hunter2-db-pw';

test('redactDeep replaces secrets in every string of any shape, and leaves images alone', () => {
  const out = redactDeep({ stdout: `key=${KEY}`, nested: [{ text: `pw ${PW}` }, 3], image: { type: 'image', source: { data: KEY } } }, [KEY, PW]);
  assert.deepEqual(out.value, { stdout: 'key=[secret]', nested: [{ text: 'pw [secret]' }, 3], image: { type: 'image', source: { data: KEY } } });
  assert.equal(out.hits, 2);
  const same = { stdout: 'clean' };
  assert.equal(redactDeep(same, [KEY]).value, same, 'nothing to replace: the very same object');
});

test("the matcher covers readers, workers' reports and every MCP tool, and not writes", () => {
  const re = new RegExp(OUTPUT_MATCHER);
  for (const t of ['Bash', 'Read', 'Grep', 'Glob', 'WebFetch', 'Agent', 'mcp__plugin__query']) assert.ok(re.test(t), t);
  for (const t of ['Write', 'Edit', 'TodoWrite', 'Bashful']) assert.ok(!re.test(t), t);
});

test('redaction comes before spilling: the spill file holds no secret', () => {
  const wb = new Workbench(fs.mkdtempSync(path.join(os.tmpdir(), 'flower-redact-')), { lang: 'en' }).ensure();
  const long = `${'x'.repeat(5000)} ${KEY}`;
  const shown = outputDecision(
    { toolName: 'Bash', toolInput: { command: 'cat log' }, toolResponse: { stdout: long }, cwd: wb.workspace },
    { secrets: () => [KEY], spill: { target: wb, threshold: 4000 }, lang: 'en' },
  ) as { stdout: string };
  assert.match(shown.stdout, /output spilled/);
  const files = fs.readdirSync(wb.spill);
  assert.equal(files.length, 1);
  const text = fs.readFileSync(path.join(wb.spill, files[0]!), 'utf8');
  assert.ok(!text.includes(KEY) && text.endsWith('[secret]'));
});

test('the installed hook rewrites a report that quotes a secret, and withholds an output it cannot check', async () => {
  const guard = outputGuard({ secrets: () => [PW], lang: 'en' });
  const out = specific(await fire(guard, post('Agent', { prompt: 'p' }, { content: [{ type: 'text', text: `the DB password is ${PW}` }] })));
  assert.deepEqual(out?.updatedToolOutput, { content: [{ type: 'text', text: 'the DB password is [secret]' }] });
  assert.deepEqual(await fire(guard, post('Read', { file_path: 'a' }, { file: { content: 'clean' } })), [{}]);
  const broken = outputGuard({
    secrets: () => {
      throw new Error('scan failed');
    },
    lang: 'en',
  });
  const w = specific(await fire(broken, post('Bash', { command: 'x' }, { stdout: `maybe ${PW}`, stderr: '' })));
  assert.ok(w);
  assert.match((w.updatedToolOutput as { stdout: string }).stdout, /could not check this output for secrets/);
  assert.ok(!JSON.stringify(w).includes(PW));
});
