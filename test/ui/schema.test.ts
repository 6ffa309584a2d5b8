/**
 * The ui reads sessions.db on its own connection, read-only: it asks the store (src/store/read-only.ts)
 * whether this flower knows the file's schema before it runs a query, and says so when it does not.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { SCHEMA_VERSION, SqliteSessionStore } from '../../src/store/index.js';
import { SqliteReader } from '../../src/ui/sqlite.js';

const call = {
  type: 'assistant',
  uuid: 'u1',
  timestamp: '2026-01-01T00:00:00.000Z',
  message: { id: 'm1', model: 'm', content: [], usage: { input_tokens: 1, output_tokens: 1 } },
};

function storeWith(sid: string): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'flower-ui-schema-')), 'sessions.db');
  const store = new SqliteSessionStore(file);
  store.appendSync({ projectKey: 'p', sessionId: sid }, [call]);
  store.close();
  return file;
}

test('a sessions.db of the schema the store writes is read', async () => {
  const reader = new SqliteReader(storeWith('s1'));
  assert.equal(await reader.has('s1'), true);
  assert.equal((await reader.calls('s1')).length, 1);
  assert.equal(reader.problem, null);
  reader.close();
});

test('a sessions.db from a newer flower is not queried: the problem names the file and both versions', async () => {
  const file = storeWith('s1');
  const raw = new Database(file);
  raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
  raw.close();
  const reader = new SqliteReader(file);
  assert.equal(await reader.has('s1'), false);
  assert.deepEqual(await reader.calls('s1'), []);
  assert.equal(reader.problem?.file, file);
  assert.match(reader.problem?.message ?? '', new RegExp(`schema version ${SCHEMA_VERSION + 1}.*up to ${SCHEMA_VERSION}`));
  reader.close();
});
