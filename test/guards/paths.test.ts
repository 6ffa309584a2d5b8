/**
 * The path wall as tables: where a tool may write and what it may read, decided on the path the kernel
 * would open — `..` after a link, every existing ancestor's link followed (dangling ones too), a new
 * file by its nearest existing parent — and the binary's and the sandbox's halves of the same wall.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { PathWall, resolveReal, type FsView, type PathRefusal } from '../../src/guards/index.js';

/** A filesystem of links only: `links[p]` is where the link at p points; `dirs` exist; everything else is missing. */
function view(links: Record<string, string>, dirs: string[]): FsView {
  return {
    isLink: (p) => (p in links ? true : dirs.some((d) => d === p || d.startsWith(`${p}/`)) ? false : undefined),
    readlink: (p) => links[p]!,
  };
}

const FS = view(
  {
    '/ws/up': '..',
    '/ws/home': '/home/u',
    '/ws/dangling': '/home/u/.bashrc',
    '/ws/loop': '/ws/loop2',
    '/ws/loop2': '/ws/loop',
    '/ws/rel': 'src/../../etc',
    '/ws/ok': 'src',
  },
  ['/ws/src/lib', '/home/u/.ssh', '/etc', '/runs', '/ws/.flower/notes'],
);

const RESOLVE: Array<[string, string, string | undefined]> = [
  ['/ws/src/a.ts', 'a plain path', '/ws/src/a.ts'],
  ['src/../a.ts', 'relative, with ..', '/ws/a.ts'],
  ['/ws/up/x', 'a link to .. leaves the workspace', '/x'],
  ['/ws/home/.ssh/authorized_keys', 'an ancestor that is a link', '/home/u/.ssh/authorized_keys'],
  ['/ws/dangling', 'a dangling link: a write creates its target', '/home/u/.bashrc'],
  ['/ws/rel/passwd', 'a relative link whose .. applies after it', '/etc/passwd'],
  ['/ws/new/deep/../f', 'past the first missing folder, as spelled', '/ws/new/f'],
  ['/ws/ok/lib/../x', '.. after a link to a folder', '/ws/src/x'],
  ['/ws/loop/x', 'a link loop', undefined],
];
for (const [p, what, want] of RESOLVE) {
  test(`resolveReal: ${what} (${p} → ${want ?? 'refused'})`, () => {
    assert.equal(resolveReal(p, '/ws', FS), want);
  });
}

const wall = new PathWall(
  {
    writable: ['/ws', '/tmp/flower-tmp-1'],
    protected: [
      { at: '/ws/runs' },
      { at: '/ws/.env' },
      { at: '/ws/.flower/notes/目标.md' },
      { at: '/ws/.flower/notes', prefix: '交接-' },
      { at: '/ws/.flower/skills' },
    ],
    unreadable: ['/home/u/.ssh', '/home/u/.config/flower/.env'],
    allowRead: ['/home/u/.ssh/known_hosts'],
    home: '/home/u',
  },
  FS,
);

type Want = PathRefusal['kind'] | null;
const WRITES: Array<[string, string, Want]> = [
  ['src/a.ts', 'inside the workspace', null],
  ['/tmp/flower-tmp-1/scratch', 'inside the temp folder', null],
  ['/home/u/.ssh/authorized_keys', 'outside every writable folder', 'outside'],
  ['../escape.txt', 'outside by ..', 'outside'],
  ['/ws/home/.ssh/authorized_keys', 'outside through an ancestor link', 'outside'],
  ['/ws/dangling', 'outside through a dangling link', 'outside'],
  ['/ws/up/etc/x', 'outside through a link to ..', 'outside'],
  ['/ws/loop/x', 'a link loop', 'unresolvable'],
  ['runs/sessions.db', 'the run dir', 'protected'],
  ['.env', "the credential chain's ./.env, before it exists", 'protected'],
  ['.flower/notes/目标.md', "the goal, flower's own record", 'protected'],
  ['.flower/notes/交接-干活.md', 'a handoff', 'protected'],
  ['.flower/notes/decision.md', 'a worker note', null],
  ['.flower/skills/x/SKILL.md', 'a project skill (loaded at the next start)', 'protected'],
  ['sub/.env.local', 'a .env below the root', 'name'],
  ['deploy/prod.env', 'a NAME.env below the root', 'name'],
  ['.git/hooks/pre-commit', "git's hooks", 'name'],
  ['pkg/.git/config', "a nested repository's config", 'name'],
  ['.claude/agents/x.md', "the binary's project folder", 'name'],
  ['.claude/worktrees/agent-1/src/a.ts', "an isolated worker's git worktree", null],
  ['.claude/worktrees/agent-1/.git', "a worktree's own .git file", 'name'],
  ['.claude/worktrees/agent-1/.env', 'a .env inside a worktree', 'name'],
  ['.claude/worktrees/agent-1/.claude/agents/x.md', "a worktree's .claude folder", 'name'],
  ['.claude/worktrees', 'the worktrees folder itself', 'name'],
  ['tools/.mcp.json', 'an MCP server list', 'name'],
  ['.bashrc', 'a shell start-up file', 'name'],
  ['src/environment.ts', 'a name that only mentions env', null],
  ['~/.ssh/authorized_keys', '~ is the home, as the binary reads it', 'outside'],
  ['.npmrc', "npm's config (read by the person's next `npx flower`)", 'name'],
];
for (const [p, what, want] of WRITES) {
  test(`write wall: ${what} (${p}) → ${want ?? 'allowed'}`, () => {
    assert.equal(wall.write(p, '/ws')?.kind ?? null, want);
  });
}

const READS: Array<[string, string, Want]> = [
  ['src/a.ts', 'a source file', null],
  ['/home/u/.ssh/id_ed25519', 'a host credential store', 'credential'],
  ['/ws/home/.ssh/id_ed25519', 'the same through a link', 'credential'],
  ['/home/u/.ssh/known_hosts', 'opened on purpose (--allow-read)', null],
  ['/home/u/.config/flower/.env', "flower's own credential file", 'credential'],
  ['pkg/.env', 'a .env below the root', 'credential'],
  ['certs/server.pem', 'a key by its extension', 'credential'],
  ['.venv/lib/site.py', 'a file under a folder whose name is not a credential', null],
  ['/ws/loop', 'a link loop', 'unresolvable'],
];
for (const [p, what, want] of READS) {
  test(`read wall: ${what} (${p}) → ${want ?? 'allowed'}`, () => {
    assert.equal(wall.read(p, '/ws')?.kind ?? null, want);
  });
}

test("the binary's half: writes blocked outside the working directories, protected places excluded by every spelling, names denied under each writable folder, reads denied by place and by .env name", () => {
  const s = wall.permissionSettings();
  assert.equal(s.blockWritesOutsideWorkingDirectories, true);
  assert.ok(s.workingDirectoriesExclude.includes('/ws/runs'));
  assert.ok(s.workingDirectoriesExclude.includes('/ws/.flower/notes/目标.md'));
  assert.ok(s.deny.includes('Edit(//ws/.flower/notes/交接-*)'), 'a prefix place is a deny rule');
  for (const rule of [
    'Edit(//ws/**/.env*)',
    'Edit(//ws/**/*.env)',
    'Edit(//ws/**/.git/**)',
    'Edit(//ws/**/.bashrc)',
    'Edit(//ws/**/.claude/agents/**)',
    'Edit(//tmp/flower-tmp-1/**/.mcp.json)',
  ]) {
    assert.ok(s.deny.includes(rule), rule);
  }
  assert.ok(s.deny.includes('Read(//home/u/.config/flower/.env)'));
  assert.ok(!s.deny.includes('Read(//home/u/.ssh/**)'), 'a place with an opened file inside is left to the hook (a deny rule cannot be carved)');
  assert.ok(s.deny.includes('Read(//**/.env*)') && s.deny.includes('Read(//**/*.env)'));
  for (const e of s.workingDirectoriesExclude) assert.ok(path.isAbsolute(e) && !e.endsWith('/'), `${e} is spelled as the binary requires`);
});

test("the sandbox's half: protected places inside a writable folder, existing or not; unreadable places that exist and are not opened", () => {
  const real = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-paths-'));
  const ws = path.join(real, 'ws');
  const home = path.join(real, 'home');
  fs.mkdirSync(path.join(home, '.ssh'), { recursive: true });
  fs.mkdirSync(path.join(ws, 'runs'), { recursive: true });
  const w = new PathWall({
    writable: [ws],
    protected: [{ at: path.join(ws, 'runs') }, { at: path.join(ws, '.env') }, { at: path.join(real, 'elsewhere') }],
    unreadable: [path.join(home, '.ssh'), path.join(home, '.aws')],
    home,
  });
  const { denyWrite, denyRead } = w.sandboxLists([path.join(ws, '.flower', 'notes', '交接-x.md')]);
  assert.deepEqual(denyWrite.sort(), [path.join(ws, '.env'), path.join(ws, '.flower', 'notes', '交接-x.md'), path.join(ws, 'runs')].sort());
  assert.deepEqual(denyRead, [path.join(home, '.ssh')], 'a place that does not exist is not mounted');
});

test('a hard link in the workspace to a file elsewhere is not a way out: writing it is refused', () => {
  const real = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-paths-'));
  const ws = path.join(real, 'ws');
  fs.mkdirSync(ws);
  fs.writeFileSync(path.join(real, 'outside.txt'), 'x');
  fs.linkSync(path.join(real, 'outside.txt'), path.join(ws, 'inside.txt'));
  fs.writeFileSync(path.join(ws, 'plain.txt'), 'y');
  const w = new PathWall({ writable: [ws], protected: [], unreadable: [], home: real });
  assert.equal(w.write('inside.txt', ws)?.kind, 'unresolvable');
  assert.equal(w.write('plain.txt', ws), null);
  assert.equal(w.read('/proc/self/environ', ws)?.kind, 'credential', "the binary's own environment holds the key");
});

test('a wall decides in well under a millisecond per path on a real tree (it runs on every read and write)', () => {
  const real = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-paths-'));
  fs.mkdirSync(path.join(real, 'a', 'b', 'c', 'd'), { recursive: true });
  const w = new PathWall({
    writable: [real],
    protected: [{ at: path.join(real, 'runs') }],
    unreadable: [path.join(real, 'h', '.ssh')],
    home: path.join(real, 'h'),
  });
  const t = performance.now();
  for (let i = 0; i < 1000; i++) w.write(path.join(real, 'a', 'b', 'c', 'd', `f${i}.ts`), real);
  const per = (performance.now() - t) / 1000;
  assert.ok(per < 5, `${per.toFixed(3)} ms per decision`);
});
