import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { listSessions } from '@anthropic-ai/claude-agent-sdk';
import type { SessionKey, SessionStore } from '@anthropic-ai/claude-agent-sdk';
import { PROJECT_KEY_MAX, StoreKeyError, parseStoreKey, projectKeyFor, sanitizeProjectPath, storeKeyOf } from '../../src/store/index.js';

const root = mkdtempSync(join(tmpdir(), 'flower-keys-test-'));
after(() => rmSync(root, { recursive: true, force: true }));

/** The projectKey the SDK itself derives for `dir`: captured from the store call listSessions() makes. */
async function sdkProjectKey(dir: string): Promise<string> {
  let seen: string | undefined;
  const spy: SessionStore = {
    append: async () => {},
    load: async () => null,
    listSessions: async (projectKey: string) => {
      seen = projectKey;
      return [];
    },
  };
  await listSessions({ dir, sessionStore: spy });
  assert.ok(seen !== undefined, 'the SDK did not call listSessions');
  return seen;
}

function withEnv<T>(vars: Record<string, string | undefined>, fn: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const set = (v: Record<string, string | undefined>) => {
    for (const [k, x] of Object.entries(v))
      if (x === undefined) delete process.env[k];
      else process.env[k] = x;
  };
  set(vars);
  return fn().finally(() => set(saved));
}

describe('projectKeyFor matches the SDK', () => {
  const real = join(root, 'my_proj.v2', 'sub dir');
  mkdirSync(real, { recursive: true });
  symlinkSync(real, join(root, 'link'));
  const long = join(root, 'x'.repeat(120), 'y'.repeat(120));
  mkdirSync(long, { recursive: true });
  const cases: Array<[string, () => string]> = [
    ['dots, underscores and spaces become dashes', () => real],
    ['a symlinked cwd is resolved to its target', () => join(root, 'link')],
    ['a path that does not exist is used as given', () => join(root, 'missing', 'ws')],
    ['a relative path is resolved against the process cwd', () => relative(process.cwd(), real)],
    ['non-ASCII characters become one dash per UTF-16 unit', () => join(root, 'café-😀')],
    ['a path over 200 characters is truncated with the SDK hash', () => long],
    ['a long path that does not exist is hashed the same way', () => join(root, 'z'.repeat(300))],
  ];
  for (const [behaviour, dir] of cases) {
    test(behaviour, () =>
      withEnv({ CLAUDE_CODE_PROJECT_DIR_NAME: undefined }, async () => {
        assert.equal(projectKeyFor(dir()), await sdkProjectKey(dir()));
      }),
    );
  }

  test('CLAUDE_CODE_PROJECT_DIR_NAME overrides the key only with CLAUDE_CONFIG_DIR set and a safe name', async () => {
    const cases: Array<[string | undefined, string | undefined]> = [
      [join(root, 'cfg'), 'my-project_1'],
      [undefined, 'my-project_1'],
      [join(root, 'cfg'), 'bad/name'],
      [join(root, 'cfg'), 'nul'],
    ];
    for (const [configDir, name] of cases) {
      await withEnv({ CLAUDE_CONFIG_DIR: configDir, CLAUDE_CODE_PROJECT_DIR_NAME: name }, async () => {
        const want = await sdkProjectKey(real);
        assert.equal(projectKeyFor(real), want, `process.env ${configDir} ${name}`);
        assert.equal(projectKeyFor(real, { CLAUDE_CONFIG_DIR: configDir, CLAUDE_CODE_PROJECT_DIR_NAME: name }), want, `env ${configDir} ${name}`);
      });
    }
  });
});

describe('sanitizeProjectPath', () => {
  const cases: Array<[string, string]> = [
    ['/home/me/proj', '-home-me-proj'],
    ['/a_b.c/d-e', '-a-b-c-d-e'],
    ['/Ab9', '-Ab9'],
    ['/é😀', '----'],
  ];
  for (const [input, want] of cases) test(`${input} → ${want}`, () => assert.equal(sanitizeProjectPath(input), want));

  test('exactly 200 characters stay as they are; 201 get truncated plus a hash', () => {
    const p200 = `/${'a'.repeat(199)}`;
    assert.equal(sanitizeProjectPath(p200), `-${'a'.repeat(199)}`);
    const k = sanitizeProjectPath(`${p200}b`);
    assert.equal(k.slice(0, PROJECT_KEY_MAX + 1), `-${'a'.repeat(199)}-`);
    assert.match(k.slice(PROJECT_KEY_MAX + 1), /^[0-9a-z]+$/);
    assert.notEqual(sanitizeProjectPath(`${p200}c`), k, 'different paths, different hashes');
  });
});

describe('store keys', () => {
  const cases: Array<[SessionKey, string]> = [
    [{ projectKey: '-w', sessionId: 's' }, '-w/s'],
    [{ projectKey: '-w', sessionId: 's', subpath: 'subagents/agent-a1' }, '-w/s/subagents/agent-a1'],
  ];
  for (const [key, sk] of cases) {
    test(`${JSON.stringify(key)} ↔ ${sk}`, () => {
      assert.equal(storeKeyOf(key), sk);
      assert.deepEqual(parseStoreKey(sk), key);
    });
  }
  const bad: Array<[string, SessionKey]> = [
    ['a projectKey with a slash', { projectKey: 'a/b', sessionId: 's' }],
    ['an empty projectKey', { projectKey: '', sessionId: 's' }],
    ['a sessionId with a slash', { projectKey: 'p', sessionId: 's/x' }],
    ['an empty subpath', { projectKey: 'p', sessionId: 's', subpath: '' }],
  ];
  for (const [what, key] of bad) test(`${what} is refused`, () => assert.throws(() => storeKeyOf(key), StoreKeyError));
  for (const sk of ['nokey', '/s', 'p//x']) test(`malformed store_key ${sk} is refused`, () => assert.throws(() => parseStoreKey(sk), StoreKeyError));
});
