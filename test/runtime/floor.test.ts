/**
 * The floor a Runtime builds: what the binary is handed, what no tool may write or read, which values no
 * output shows — and the start refused when a base URL from a file an agent could write would receive
 * a credential from elsewhere.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { resolveEnv } from '../../src/config/index.js';
import { ConfigError } from '../../src/errors.js';
import { Floor, envFilesUnder } from '../../src/runtime/floor.js';
import { RunLayout } from '../../src/state/index.js';

function setup(files: Record<string, string>, env: Record<string, string> = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-floor-'));
  const ws = path.join(dir, 'ws');
  const home = path.join(dir, 'home');
  for (const [f, text] of Object.entries(files)) {
    const p = path.join(dir, f);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, text);
  }
  fs.mkdirSync(ws, { recursive: true });
  fs.mkdirSync(path.join(home, '.config', 'flower'), { recursive: true });
  const cfg = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-floor-cfg-'));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-floor-tmp-'));
  const layout = RunLayout.of({ cwd: ws, workspace: ws, runDir: path.join(ws, 'runs') });
  const resolved = resolveEnv({ HOME: home, PATH: '/usr/bin', ...env }, ws);
  const warnings: string[] = [];
  const make = (o: Partial<ConstructorParameters<typeof Floor>[0]> = {}) =>
    new Floor({
      layout,
      resolved,
      workbench: layout.root,
      tmpDir: tmp,
      configDir: cfg,
      allowWrite: [],
      passEnv: [],
      allowRead: [],
      denyRead: [],
      protect: [],
      warn: (m) => warnings.push(m),
      ...o,
    });
  return { dir, ws, home, make, warnings };
}

test('a base URL from a workspace .env with the key from ~/.config/flower/.env: the run is refused, naming both files', () => {
  const s = setup({ 'home/.config/flower/.env': 'ANTHROPIC_API_KEY=sk-ant-personal-123456\n', 'ws/.env': 'ANTHROPIC_BASE_URL=http://attacker.example\n' });
  assert.throws(
    () => s.make(),
    (e: unknown) =>
      ConfigError.is(e) && e.code === 'foreign-endpoint' && e.message.includes(path.join(s.ws, '.env')) && e.message.includes('.config/flower/.env'),
  );
});

test("a base URL from the environment, or beside its key in the same workspace file, is the person's choice", () => {
  const a = setup({ 'ws/.env': 'ANTHROPIC_BASE_URL=http://gw\nANTHROPIC_AUTH_TOKEN=tok-1234567890\n' });
  assert.doesNotThrow(() => a.make());
  const b = setup({ 'ws/.env': 'ANTHROPIC_API_KEY=sk-ant-local-1234567\n' }, { ANTHROPIC_BASE_URL: 'http://gw' });
  assert.doesNotThrow(() => b.make());
});

test('the binary gets the credential and the endpoint, never another secret; the scrub script is named and holds the names', () => {
  const s = setup(
    { 'home/.config/flower/.env': 'ANTHROPIC_API_KEY=sk-ant-personal-123456\n' },
    {
      DATABASE_URL: 'postgres://app:pw1234567@db/app',
      GITHUB_TOKEN: 'ghp_0123456789abcdefghijABCDEFGHIJ',
      EDITOR: 'vim',
      KEEP_TOKEN: 'passed-on-purpose',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:1',
      FLOWER_STORE: 'postgres://u:storepw99@h/db',
    },
  );
  const f = s.make({ passEnv: ['KEEP_TOKEN'] });
  const env = f.childBase();
  assert.equal(env.ANTHROPIC_API_KEY, 'sk-ant-personal-123456');
  assert.equal(env.ANTHROPIC_BASE_URL, 'http://127.0.0.1:1');
  assert.equal(env.EDITOR, 'vim');
  assert.equal(env.KEEP_TOKEN, 'passed-on-purpose');
  for (const k of ['DATABASE_URL', 'GITHUB_TOKEN', 'FLOWER_STORE']) assert.equal(env[k], undefined, k);
  const script = fs.readFileSync(env.CLAUDE_ENV_FILE!, 'utf8');
  assert.match(script, /unset .*ANTHROPIC_API_KEY.*DATABASE_URL.*GITHUB_TOKEN/);
  assert.doesNotMatch(script, /unset [^\n]*KEEP_TOKEN/);
  assert.ok(f.secretNames.includes('ANTHROPIC_API_KEY') && !f.secretNames.includes('KEEP_TOKEN'));
  const values = f.secretValues().all;
  for (const v of ['sk-ant-personal-123456', 'pw1234567', 'storepw99']) assert.ok(values.includes(v), v);
  f.close();
  assert.ok(!fs.existsSync(env.CLAUDE_ENV_FILE!));
});

test('no tool may write what flower reads at start: the run dir, ./.env before it exists, the goal, handoffs, skills, a workflow file', () => {
  const s = setup({ 'ws/flow.mjs': 'export default 1;\n' });
  const f = s.make({ protect: [path.join(s.ws, 'flow.mjs')] });
  for (const [p, kind] of [
    ['runs/sessions.db', 'protected'],
    ['.env', 'protected'],
    ['.flower/notes/目标.md', 'protected'],
    ['.flower/notes/需求.md', 'protected'],
    ['.flower/notes/交接-干活.md', 'protected'],
    ['.flower/skills/evil/SKILL.md', 'protected'],
    ['.flower/INDEX.md', 'protected'],
    ['flow.mjs', 'protected'],
    ['src/a.ts', null],
    ['.flower/notes/decision.md', null],
    ['.flower/scripts/x.sh', null],
    [path.join(s.home, '.config', 'flower', 'skills', 'x', 'SKILL.md'), 'outside'],
    [path.join(s.home, '.ssh', 'authorized_keys'), 'outside'],
  ] as const) {
    assert.equal(f.wall.write(p, s.ws)?.kind ?? null, kind, p);
  }
  const box = f.sandbox({ floor: 'workspace', net: 'off', nested: false, workbench: path.join(s.ws, '.flower') });
  assert.ok(box.filesystem?.denyWrite?.includes(path.join(s.ws, '.env')), 'the sandbox covers ./.env before it exists');
  assert.ok(box.filesystem?.denyWrite?.includes(path.join(s.ws, 'flow.mjs')));
});

test('a shell rc that exports the key is unreadable to every command; so is a host credential store; --allow-read opens one', () => {
  const s = setup(
    {
      'home/.bashrc': 'export ANTHROPIC_API_KEY=sk-ant-personal-123456\n',
      'home/.profile': 'export EDITOR=vim\n',
      'home/.ssh/id_ed25519': 'PRIVATE',
      'home/.aws/credentials': '[default]\n',
      'home/.npmrc': '//registry/:_authToken=x\n',
    },
    { ANTHROPIC_API_KEY: 'sk-ant-personal-123456' },
  );
  const f = s.make({ allowRead: [path.join(s.home, '.npmrc')] });
  const box = f.sandbox({ floor: 'workspace', net: 'off', nested: false });
  const denied = box.filesystem?.denyRead ?? [];
  for (const p of ['.bashrc', '.ssh', '.aws']) assert.ok(denied.includes(path.join(s.home, p)), p);
  assert.ok(!denied.includes(path.join(s.home, '.profile')), 'an rc without a secret stays readable');
  assert.ok(!denied.includes(path.join(s.home, '.npmrc')), 'opened on purpose');
  assert.equal(f.wall.read(path.join(s.home, '.aws', 'credentials'), s.ws)?.kind, 'credential');
  assert.equal(f.wall.read(path.join(s.home, '.npmrc'), s.ws), null);
});

test("a file in the home that holds the key (a note, a tool's config) is unreadable to every tool", () => {
  const s = setup(
    {
      'home/notes.txt': 'my key: sk-ant-personal-123456\n',
      'home/.config/sometool/config.yml': 'token: sk-ant-personal-123456\n',
      'home/todo.txt': 'nothing\n',
    },
    { ANTHROPIC_API_KEY: 'sk-ant-personal-123456' },
  );
  const f = s.make();
  assert.equal(f.wall.read(path.join(s.home, 'notes.txt'), s.ws)?.kind, 'credential');
  assert.equal(f.wall.read(path.join(s.home, '.config', 'sometool', 'config.yml'), s.ws)?.kind, 'credential');
  assert.equal(f.wall.read(path.join(s.home, 'todo.txt'), s.ws), null);
  const denied = f.sandbox({ floor: 'workspace', net: 'off', nested: false }).filesystem?.denyRead ?? [];
  assert.ok(denied.includes(path.join(s.home, 'notes.txt')));
});

test('the secrets of .env files below the workspace are known values (redacted from every output); FLOWER_PLUGINS from the workspace is ignored', () => {
  const s = setup({
    'ws/pkg/api/.env': 'API_SECRET=deep-secret-value-42\nPORT=3000\nNODE_ENV=development\nSHADE=blue-e2e-shade-77\n',
    'ws/node_modules/x/.env': 'X_SECRET=in-deps-ignored-1\n',
    'ws/.env': 'FLOWER_PLUGINS=/ws/evil\nANTHROPIC_API_KEY=sk-ant-local-1234567\n',
  });
  const f = s.make();
  const { all, main } = f.secretValues();
  assert.ok(all.includes('deep-secret-value-42'));
  assert.ok(!all.includes('development') && !all.includes('3000'), 'ordinary settings are not secrets');
  assert.ok(!all.includes('in-deps-ignored-1'), 'dependencies are not searched');
  assert.ok(!all.includes('blue-e2e-shade-77') && main.includes('blue-e2e-shade-77'), 'a coordinator never sees any .env value worth hiding');
  assert.ok(!main.includes('development') && !main.includes('3000'), 'a bare word or number is everywhere: not hidden');
  assert.equal(f.env.FLOWER_PLUGINS, undefined);
  assert.match(s.warnings.join('\n'), /FLOWER_PLUGINS .* ignored/);
  assert.deepEqual(
    envFilesUnder(s.ws)
      .map((p) => path.relative(s.ws, p))
      .sort(),
    ['.env', 'pkg/api/.env'],
  );
});
