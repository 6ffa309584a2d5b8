/**
 * `flower store copy`: a local history (sessions.db, lineage.json, manifest.json) into PostgreSQL and
 * back; running it again copies nothing, uuid-less entries included.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import type { SessionStoreEntry } from '@anthropic-ai/claude-agent-sdk';
import { main } from '../../src/cli/index.js';
import { missingEntries } from '../../src/cli/store.js';
import { FileRunRecords, RunLayout, type ManifestRow } from '../../src/state/index.js';
import { SqliteSessionStore, projectKeyFor } from '../../src/store/index.js';
import { PostgresRunRecords, PostgresSessionStore } from '../../src/store/postgres/index.js';
import { PG_SKIP, dropDatabases, freshDatabase } from '../helpers/pg.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-copy-'));
after(async () => {
  fs.rmSync(root, { recursive: true, force: true });
  await dropDatabases();
});

async function flower(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (c: Buffer) => (out += c.toString()));
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  const code = await main(args, { stdout, stderr, env: { HOME: root, XDG_CONFIG_HOME: path.join(root, 'cfg'), ...env }, cwd: root });
  return { code, out, err };
}

describe('which entries a copy adds', () => {
  const u = (uuid: string): SessionStoreEntry => ({ type: 'user', uuid });
  const m = (i: number): SessionStoreEntry => ({ type: 'mode', i });
  const cases: Array<[string, SessionStoreEntry[], SessionStoreEntry[], SessionStoreEntry[]]> = [
    ['everything into an empty target', [u('a'), m(1)], [], [u('a'), m(1)]],
    ['nothing when the target has it all', [u('a'), m(1), m(1)], [m(1), u('a'), m(1)], []],
    ['uuid entries by uuid, the rest by content and count', [u('a'), u('b'), m(1), m(1), m(2)], [u('a'), m(1)], [u('b'), m(1), m(2)]],
    ['a uuid twice in the source is added once', [u('a'), u('a')], [], [u('a')]],
  ];
  for (const [behaviour, src, dst, want] of cases) test(behaviour, () => assert.deepEqual(missingEntries(src, dst), want));
});

describe('flower store copy', { skip: PG_SKIP }, () => {
  test('runs → PostgreSQL → another run dir: sessions, lineage and rows arrive; a second copy adds nothing', async () => {
    const ws = path.join(root, 'ws');
    fs.mkdirSync(ws, { recursive: true });
    const layout = RunLayout.of({ cwd: root, workspace: ws, runDir: path.join(root, 'runs') });
    const pk = projectKeyFor(ws);
    const main1 = { projectKey: pk, sessionId: 'sid-work' };
    const entries: SessionStoreEntry[] = [
      { type: 'user', uuid: 'u1', message: { role: 'user', content: 'hi' } },
      { type: 'mode', mode: 'x' },
      { type: 'assistant', uuid: 'u2' },
    ];
    const sqlite = new SqliteSessionStore(layout.sessionsDb);
    sqlite.appendSync(main1, entries);
    sqlite.appendSync({ ...main1, subpath: 'subagents/agent-1' }, [{ type: 'user', uuid: 's1' }]);
    sqlite.close();
    const files = new FileRunRecords(layout);
    await files.updateLineage(ws, (d) => {
      d.woke = 2;
      d.steps['干活'] = 'sid-work';
    });
    const row: ManifestRow = {
      step: '干活',
      session_id: 'sid-work',
      ok: true,
      cost_usd: 0.5,
      num_turns: 3,
      text: 'done',
      error: null,
      started_at: '2026-12-01T07:00:00.000Z',
      ended_at: '2026-12-01T07:01:00.000Z',
      attempts: 1,
      errors: [],
      resumed: false,
      retired: [],
      context: 100,
      duration_s: 60,
      run: 'run-1',
    };
    await files.upsertRows('run-1', [row]);

    const url = await freshDatabase('copy');
    const first = await flower(['store', 'copy', '--from', 'runs', '--to', url, '-w', ws]);
    assert.equal(first.code, 0, first.err);
    assert.match(first.out, /copied 4 transcript entries \(2 transcripts\), 1 lineage steps, 1 manifest rows/);
    assert.ok(!first.out.includes(new URL(url).password), 'the password is not printed');

    const pg = await new PostgresSessionStore(url).open();
    assert.deepEqual(await pg.load(main1), entries);
    assert.deepEqual(await pg.listSubkeys(main1), ['subagents/agent-1']);
    pg.close();
    const rec = await new PostgresRunRecords(url, ws).open();
    assert.deepEqual((await rec.readLineage(ws))?.steps, { 干活: 'sid-work' });
    assert.equal((await rec.readLineage(ws))?.woke, 2);
    assert.deepEqual(await rec.readRows(), [row]);
    rec.close();

    const again = await flower(['store', 'copy', '--from', 'runs', '--to', url, '-w', ws]);
    assert.equal(again.code, 0, again.err);
    assert.match(again.out, /copied 0 transcript entries \(0 transcripts\), 0 lineage steps, 0 manifest rows/);

    const back = await flower(['store', 'copy', '--from', url, '--to', path.join(root, 'runs-back'), '-w', ws]);
    assert.equal(back.code, 0, back.err);
    const local = new SqliteSessionStore(path.join(root, 'runs-back', 'sessions.db'));
    assert.deepEqual(await local.load(main1), entries);
    local.close();
    const localRec = new FileRunRecords(RunLayout.of({ cwd: root, workspace: ws, runDir: path.join(root, 'runs-back') }));
    assert.deepEqual(await localRec.readRows(), [row]);
    assert.equal((await localRec.readLineage(ws))?.woke, 2);
  });

  test("with FLOWER_PROJECT the workspace's transcripts move under the project's key", async () => {
    const ws = path.join(root, 'ws2');
    fs.mkdirSync(ws, { recursive: true });
    const layout = RunLayout.of({ cwd: root, workspace: ws, runDir: path.join(root, 'runs2') });
    const s = new SqliteSessionStore(layout.sessionsDb);
    s.appendSync({ projectKey: projectKeyFor(ws), sessionId: 'sid' }, [{ type: 'user', uuid: 'x' }]);
    s.close();
    const url = await freshDatabase('copyproj');
    const r = await flower(['store', 'copy', '--from', path.join(root, 'runs2'), '--to', url, '-w', ws], { FLOWER_PROJECT: 'team-md' });
    assert.equal(r.code, 0, r.err);
    const pg = await new PostgresSessionStore(url).open();
    assert.deepEqual(await pg.projects(), ['flower-team-md']);
    pg.close();
  });
});
