/**
 * The hand-over block's files (src/cli/bequest-files.ts, src/cli/bequest.ts), in-process on temp folders: links followed only to
 * a markdown file inside the workspace and outside every protected place, one link to the other written
 * once, the mode kept, a write failure a warning, --no-bequest / FLOWER_NO_BEQUEST, secrets scrubbed,
 * and `flower bequest` with nothing to hand over.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { handOverOf, outcomeLines, scrubbed } from '../../src/cli/bequest.js';
import { removeBlocks, writeBlocks } from '../../src/cli/bequest-files.js';
import { main } from '../../src/cli/index.js';
import type { GlobalOptions } from '../../src/cli/globals.js';
import { RunLayout } from '../../src/state/index.js';

const BLOCK = ['<!-- flower:begin -->', 'flower was here', '<!-- flower:end -->'];

function folder(): { dir: string; ws: string; layout: RunLayout } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-bequest-'));
  const ws = path.join(dir, 'ws');
  fs.mkdirSync(ws);
  return { dir, ws, layout: RunLayout.of({ cwd: ws, workspace: ws }) };
}

const g: GlobalOptions = { workspace: '.', runDir: 'runs', verbose: false };

test('a CLAUDE.md linking outside the workspace is not followed: one warning, the outside file untouched', () => {
  const { dir, ws, layout } = folder();
  const outside = path.join(dir, 'elsewhere.md');
  fs.writeFileSync(outside, 'not yours\n');
  fs.symlinkSync(outside, path.join(ws, 'CLAUDE.md'));
  const out = writeBlocks(layout, BLOCK, 'en');
  assert.equal(out[0]!.did, 'skipped');
  assert.match(out[0]!.warning!, /^! CLAUDE\.md is a link to .*elsewhere\.md, outside this folder or in a protected place: not followed/);
  assert.equal(fs.readFileSync(outside, 'utf8'), 'not yours\n');
  assert.ok(fs.lstatSync(path.join(ws, 'CLAUDE.md')).isSymbolicLink(), 'the link itself stays');
  assert.equal(out[1]!.did, 'written', 'AGENTS.md still gets the block');
  assert.deepEqual(
    removeBlocks(layout, 'en').map((o) => o.did),
    ['skipped', 'deleted'],
  );
});

test('a link into a protected place (.git, the workbench, a non-markdown file) is not followed either', () => {
  const { ws, layout } = folder();
  fs.mkdirSync(path.join(ws, '.git', 'hooks'), { recursive: true });
  fs.writeFileSync(path.join(ws, '.git', 'hooks', 'pre-commit.md'), '#!/bin/sh\n');
  fs.symlinkSync(path.join(ws, '.git', 'hooks', 'pre-commit.md'), path.join(ws, 'CLAUDE.md'));
  fs.mkdirSync(layout.notes, { recursive: true });
  fs.writeFileSync(layout.brief, '# 需求确认书\n');
  fs.symlinkSync(layout.brief, path.join(ws, 'AGENTS.md'));
  assert.deepEqual(
    writeBlocks(layout, BLOCK, 'en').map((o) => o.did),
    ['skipped', 'skipped'],
  );
  assert.equal(fs.readFileSync(path.join(ws, '.git', 'hooks', 'pre-commit.md'), 'utf8'), '#!/bin/sh\n');
  assert.equal(fs.readFileSync(layout.brief, 'utf8'), '# 需求确认书\n');
  const { ws: ws2, layout: l2 } = folder();
  fs.writeFileSync(path.join(ws2, 'notes.txt'), 'x\n');
  fs.symlinkSync(path.join(ws2, 'notes.txt'), path.join(ws2, 'CLAUDE.md'));
  assert.equal(writeBlocks(l2, BLOCK, 'en')[0]!.did, 'skipped');
});

test('AGENTS.md linking to CLAUDE.md: the target is written once, through the link, and the link stays a link', () => {
  const { ws, layout } = folder();
  fs.writeFileSync(path.join(ws, 'CLAUDE.md'), '# Mine\n');
  fs.symlinkSync('CLAUDE.md', path.join(ws, 'AGENTS.md'));
  const out = writeBlocks(layout, BLOCK, 'en');
  assert.deepEqual(
    out.map((o) => o.did),
    ['written', 'written'],
  );
  assert.ok(fs.lstatSync(path.join(ws, 'AGENTS.md')).isSymbolicLink());
  assert.equal(fs.readFileSync(path.join(ws, 'CLAUDE.md'), 'utf8'), `# Mine\n\n${BLOCK.join('\n')}\n`);
  assert.deepEqual(outcomeLines(out, 'en'), ['. handed over to the next tool in CLAUDE.md, AGENTS.md (`flower bequest --remove` takes it out)']);
  // a file a link reaches is emptied, not deleted, when it held only the block
  fs.writeFileSync(path.join(ws, 'CLAUDE.md'), `${BLOCK.join('\n')}\n`);
  assert.deepEqual(
    removeBlocks(layout, 'en').map((o) => o.did),
    ['removed', 'removed'],
  );
  assert.equal(fs.readFileSync(path.join(ws, 'AGENTS.md'), 'utf8'), '');
});

test("the file's mode is kept; a directory named CLAUDE.md is left alone", () => {
  const { ws, layout } = folder();
  fs.writeFileSync(path.join(ws, 'CLAUDE.md'), 'mine\n');
  fs.chmodSync(path.join(ws, 'CLAUDE.md'), 0o640);
  fs.mkdirSync(path.join(ws, 'AGENTS.md'));
  const out = writeBlocks(layout, BLOCK, 'zh');
  assert.equal(fs.statSync(path.join(ws, 'CLAUDE.md')).mode & 0o777, 0o640);
  assert.equal(out[1]!.did, 'skipped');
  assert.match(out[1]!.warning!, /AGENTS\.md 不是普通文件:原样保留/);
  assert.deepEqual(fs.readdirSync(ws).sort(), ['AGENTS.md', 'CLAUDE.md'], 'no temp file left behind');
});

test('a write that fails is a warning, not a throw; a file that is not UTF-8 text is left alone', () => {
  const { ws, layout } = folder();
  fs.writeFileSync(path.join(ws, 'AGENTS.md'), Buffer.from([0xff, 0xfe, 0x00, 0x41]));
  // a full disk at the rename (root passes every permission, so the failure is made here)
  const rename = fs.renameSync;
  fs.renameSync = () => {
    throw Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' });
  };
  try {
    const out = writeBlocks(layout, BLOCK, 'en');
    assert.equal(out[0]!.did, 'skipped');
    assert.match(out[0]!.warning!, /^! could not write the hand-over block in CLAUDE\.md: .*ENOSPC.*\(the run is not affected\)$/);
    assert.match(out[1]!.warning!, /^! AGENTS\.md is not text flower can edit safely \(not valid UTF-8\): left alone$/);
  } finally {
    fs.renameSync = rename;
  }
  assert.deepEqual(fs.readdirSync(ws), ['AGENTS.md'], 'no CLAUDE.md and no temp file left');
});

test('--no-bequest and FLOWER_NO_BEQUEST=1 turn the end-of-run write off; the workflow of `flower run` is named from the workspace', () => {
  const { ws } = folder();
  const io = { stdout: { write: () => true }, stderr: { write: () => true }, env: {}, cwd: ws };
  assert.equal(handOverOf({ ...g, bequest: false }, io, { lang: 'en' }), null);
  assert.equal(handOverOf(g, { ...io, env: { FLOWER_NO_BEQUEST: '1' } }, { lang: 'en' }), null);
  assert.notEqual(handOverOf(g, { ...io, env: { FLOWER_NO_BEQUEST: '0' } }, { lang: 'en' }), null);
  const h = handOverOf(g, io, { lang: 'en', run: { file: 'flows/my team.mjs', exportName: 'workflow', ask: ' go on ' } });
  assert.equal(h?.workflow, "'flows/my team.mjs:workflow'");
  assert.equal(h?.ask, 'go on');
});

test('the block is scrubbed of every secret value flower knows of', () => {
  const { layout } = folder();
  const lines = scrubbed(
    ['- **Asked:** use token svc-0123456789abcdef and ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
    { MY_API_TOKEN: 'svc-0123456789abcdef' },
    layout,
  );
  assert.doesNotMatch(lines[0]!, /svc-0123|ghp_/);
  assert.match(lines[0]!, /\[secret\].*\[secret\]/);
});

test('`flower bequest` where flower never ran: exit 1, nothing written; `--remove` with no block: exit 0, nothing touched', async () => {
  const { ws } = folder();
  fs.writeFileSync(path.join(ws, 'CLAUDE.md'), 'mine\n');
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, env: { FLOWER_LANG: 'en' }, cwd: ws };
  assert.equal(await main(['bequest'], io), 1);
  assert.match(err.join(''), /nothing to hand over here/);
  assert.equal(await main(['bequest', '--remove'], io), 0);
  assert.match(out.join(''), /no flower block in CLAUDE\.md or AGENTS\.md here/);
  assert.equal(await main(['bequest', '--remove', '--json'], io), 0);
  const json = JSON.parse(out.at(-1)!) as { kind: string; action: string; files: Array<{ did: string }> };
  assert.deepEqual([json.kind, json.action, json.files.map((f) => f.did)], ['bequest', 'remove', ['absent', 'absent']]);
  assert.deepEqual(fs.readdirSync(ws), ['CLAUDE.md']);
  assert.equal(fs.readFileSync(path.join(ws, 'CLAUDE.md'), 'utf8'), 'mine\n');
});
