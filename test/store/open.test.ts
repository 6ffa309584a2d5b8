/** The one opener of backends (src/store/open.ts): the settings choose, the callers never name a class. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { ConfigError, StoreError } from '../../src/errors.js';
import { RunLayout } from '../../src/state/index.js';
import { chooseStore, openStore, projectKeyFor } from '../../src/store/index.js';
import { PG_SKIP, dropDatabases, freshDatabase, pgUrlWith } from '../helpers/pg.js';

const root = mkdtempSync(join(tmpdir(), 'flower-open-'));
after(async () => {
  rmSync(root, { recursive: true, force: true });
  if (!PG_SKIP) await dropDatabases();
});
const layoutIn = (name: string) => RunLayout.of({ cwd: root, workspace: join(root, name), runDir: join(root, name, 'runs') });

test('no FLOWER_STORE: the files in the run dir; a read-only command creates no sessions.db', async () => {
  const layout = layoutIn('files');
  const s = openStore({}, layout, { sessions: 'existing' });
  await s.ready();
  assert.equal(s.sessions, null);
  assert.equal(s.server, undefined);
  assert.equal(s.where, layout.sessionsDb);
  assert.equal(s.records.manifestAt, layout.manifest);
  assert.equal(s.choice.backend, 'files');
  assert.equal(s.choice.projectKey, projectKeyFor(layout.workspace));
  s.close();
  assert.equal(existsSync(layout.sessionsDb), false);
  const w = openStore({ FLOWER_STORE: 'runs' }, layout);
  assert.ok(w.sessions, 'sessions: create (the default) opens sessions.db');
  assert.equal(w.file, layout.sessionsDb);
  w.close();
  w.close();
  assert.equal(existsSync(layout.sessionsDb), true);
});

test('FLOWER_PROJECT names the project: the same SDK project key on every host', () => {
  const a = chooseStore({ FLOWER_PROJECT: 'shop' }, layoutIn('a'));
  const b = chooseStore({ FLOWER_PROJECT: 'shop' }, layoutIn('b'));
  assert.equal(a.named, true);
  assert.equal(a.project, 'shop');
  assert.equal(a.projectKey, b.projectKey);
});

test('a FLOWER_STORE that names no backend is a ConfigError, before anything is opened', () => {
  assert.throws(
    () => openStore({ FLOWER_STORE: 'mysql://x' }, layoutIn('bad')),
    (e: unknown) => ConfigError.is(e) && e.code === 'bad-store',
  );
});

describe('PostgreSQL', { skip: PG_SKIP }, () => {
  test('postgres://: sessions and records in the database, a server to wait for, ready() connects, nothing in the run dir', async () => {
    const url = await freshDatabase('open');
    const layout = layoutIn('pg');
    const s = openStore({ FLOWER_STORE: url, FLOWER_PROJECT: 'p' }, layout);
    await s.ready();
    assert.equal(s.choice.backend, 'postgres');
    assert.match(s.where, /^PostgreSQL 127\.0\.0\.1:\d+\/flower_open_\w+ \(project p\)$/);
    assert.equal(s.file, undefined);
    assert.ok(s.server);
    assert.equal(await s.server.waitOnline(0), true);
    assert.deepEqual(await s.records.readRows(), []);
    s.close();
    assert.equal(existsSync(layout.sessionsDb), false);
  });

  test('a database that does not exist fails ready() with one StoreError naming it', async () => {
    const s = openStore({ FLOWER_STORE: pgUrlWith({ database: 'flower_missing_db' }) }, layoutIn('pg-missing'));
    await assert.rejects(s.ready(), (e: unknown) => StoreError.is(e) && /flower_missing_db/.test((e as Error).message));
    s.close();
  });
});
