import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { RunLayout, keepAside, keepCopy, safeStepName, writeFileAtomic } from '../../src/state/index.js';

test('the default layout: the run dir under the current directory, the workbench under the workspace', () => {
  const l = RunLayout.of({ cwd: '/c', workspace: 'ws' });
  assert.deepEqual(
    [l.workspace, l.runDir, l.sessionsDb, l.manifest, l.lineage, l.runLock, l.asideRunDir],
    ['/c/ws', '/c/runs', '/c/runs/sessions.db', '/c/runs/manifest.json', '/c/runs/lineage.json', '/c/runs/run.lock', '/c/runs/aside'],
  );
  assert.deepEqual(
    [l.root, l.notes, l.brief, l.goal, l.qa, l.archive, l.handoffArchive, l.scripts, l.artifacts, l.spill, l.index, l.viewSpill],
    [
      '/c/ws/.flower',
      '/c/ws/.flower/notes',
      '/c/ws/.flower/notes/需求.md',
      '/c/ws/.flower/notes/目标.md',
      '/c/ws/.flower/notes/问答记录.md',
      '/c/ws/.flower/notes/archive',
      '/c/ws/.flower/notes/archive/交接',
      '/c/ws/.flower/scripts',
      '/c/ws/.flower/artifacts',
      '/c/ws/.flower/spill',
      '/c/ws/.flower/INDEX.md',
      '/c/ws/.flower/spill',
    ],
  );
  assert.equal(l.externalWorkbench, false);
});

test('--isolate moves the workbench (and every note) to <parent>/.flower-<name>; the run dir stays', () => {
  const l = RunLayout.of({ cwd: '/c', workspace: '/repos/proj', isolate: true });
  assert.equal(l.root, '/repos/.flower-proj');
  assert.equal(l.brief, '/repos/.flower-proj/notes/需求.md');
  assert.equal(l.runDir, '/c/runs');
  assert.equal(l.externalWorkbench, true);
  assert.equal(l.viewSpill, '/repos/proj/.flower/spill', 'resume views spill inside the workspace, where Read reaches');
});

test('withWorkbench and aside keep the workspace; aside runs in <runDir>/aside with the same notes', () => {
  const l = RunLayout.of({ cwd: '/c', workspace: '/w', runDir: 'r' });
  const moved = l.withWorkbench('/elsewhere/wb');
  assert.deepEqual([moved.workspace, moved.runDir, moved.notes], ['/w', '/c/r', '/elsewhere/wb/notes']);
  const a = moved.aside();
  assert.deepEqual([a.runDir, a.manifest, a.notes], ['/c/r/aside', '/c/r/aside/manifest.json', '/elsewhere/wb/notes']);
});

test('handoff files: one per safe step name', () => {
  const l = RunLayout.of({ cwd: '/c', workspace: '/w' });
  const cases: Array<[string, string]> = [
    ['干活', '交接-干活.md'],
    ['a/b', '交接-ab.md'],
    ['  ', '交接-step.md'],
    ['x\u0007y:*?', '交接-xy.md'],
  ];
  for (const [step, name] of cases) assert.equal(l.handoff(step), path.join('/w/.flower/notes', name), step);
  assert.equal(safeStepName('..'), '..');
  assert.equal(RunLayout.isHandoffName('交接-干活.md'), true);
  assert.equal(RunLayout.isHandoffName('需求.md'), false);
});

test('atomic writes take a mode (0600 for files that may hold tool output) and leave no temp file', () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-atomic-'));
  const f = path.join(d, 'sub', 'x.txt');
  writeFileAtomic(f, 'secret-ish', 0o600);
  assert.equal(fs.statSync(f).mode & 0o777, 0o600);
  assert.equal(fs.readFileSync(f, 'utf8'), 'secret-ish');
  assert.deepEqual(fs.readdirSync(path.dirname(f)), ['x.txt']);
});

test('keepAside moves, keepCopy copies; names say why and never collide', () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-aside-'));
  const f = path.join(d, '需求.md');
  const now = new Date(2026, 11, 1, 7, 0, 0);
  fs.writeFileSync(f, 'one');
  const a = keepCopy(f, 'corrupt', now);
  const b = keepCopy(f, 'corrupt', now);
  assert.deepEqual([path.basename(a), path.basename(b)], ['需求.md.corrupt-20261201-070000', '需求.md.corrupt-20261201-070000-2']);
  const k = keepAside(f, 'kept', now);
  assert.equal(path.basename(k), '需求.md.kept-20261201-070000');
  assert.equal(fs.existsSync(f), false);
  assert.equal(fs.readFileSync(k, 'utf8'), 'one');
});
