import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from '../../src/errors.js';
import { projectDirName, projectIdentity, storeSetting } from '../../src/config/index.js';

describe('which store', () => {
  const url = 'postgres://u:p@db.example:5433/flower';
  const cases: Array<[string, Record<string, string>, string | undefined, unknown]> = [
    ['nothing set: the files in the run dir', {}, undefined, { kind: 'files' }],
    ['FLOWER_STORE names PostgreSQL', { FLOWER_STORE: url }, undefined, { kind: 'postgres', url, from: 'FLOWER_STORE' }],
    [
      'postgresql:// is the same scheme',
      { FLOWER_STORE: ` postgresql://h/db ` },
      undefined,
      { kind: 'postgres', url: 'postgresql://h/db', from: 'FLOWER_STORE' },
    ],
    ['--store wins over FLOWER_STORE', { FLOWER_STORE: 'postgres://other/db' }, url, { kind: 'postgres', url, from: '--store' }],
    ['--store runs goes back to the files', { FLOWER_STORE: url }, 'runs', { kind: 'files' }],
    ['an empty flag leaves FLOWER_STORE in charge', { FLOWER_STORE: url }, '', { kind: 'postgres', url, from: 'FLOWER_STORE' }],
  ];
  for (const [behaviour, env, flag, want] of cases) test(behaviour, () => assert.deepEqual(storeSetting(env, flag), want));

  test('anything else is refused, naming the setting and never the password', () => {
    assert.throws(
      () => storeSetting({ FLOWER_STORE: 'mysql://root:hunter2@h/db' }),
      (e: unknown) => e instanceof ConfigError && e.message.startsWith('FLOWER_STORE is') && !e.message.includes('hunter2'),
    );
    assert.throws(
      () => storeSetting({}, '/some/folder'),
      (e: unknown) => e instanceof ConfigError && e.message.startsWith('--store is'),
    );
  });
});

describe('project identity', () => {
  test('FLOWER_PROJECT names the project; default is the absolute workspace path', () => {
    assert.deepEqual(projectIdentity({ FLOWER_PROJECT: ' team-md ' }, '/a/ws'), { name: 'team-md', named: true });
    assert.deepEqual(projectIdentity({}, '/a/b/../ws'), { name: '/a/ws', named: false });
    assert.deepEqual(projectIdentity({ FLOWER_PROJECT: '' }, '/x'), { name: '/x', named: false });
  });

  test('the SDK project key of a name is one safe segment, the same for the same name, distinct for distinct names', () => {
    const names = ['team-md', 'team md', 'team/md', 'team_md', '团队', 'con', 'x'.repeat(200), `${'x'.repeat(200)}y`];
    const keys = names.map(projectDirName);
    assert.equal(keys[0], 'flower-team-md', 'a plain name is kept readable');
    for (const k of keys) assert.match(k, /^[A-Za-z0-9_-]{1,64}$/);
    assert.equal(new Set(keys).size, names.length);
    assert.deepEqual(names.map(projectDirName), keys);
  });
});
