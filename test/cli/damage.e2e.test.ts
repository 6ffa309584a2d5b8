/**
 * Read-only commands report damage instead of showing an empty folder: `flower status` and `flower log`
 * on a damaged or unreadable manifest.json or lineage.json exit 1 with one line naming the file, and
 * leave the run dir exactly as it was; a path that cannot be used is refused (a file where a folder
 * should be: exit 2; a run dir it may not read: exit 1). With --json the refusal is also JSON on stdout.
 * The real binary; no model is called (the endpoint is never reached).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { cli, project, testEnv, type Project } from '../helpers/e2e.js';

// chmod 000 does not stop root from reading (CI runs as root): only those rows are skipped there
const ROOT_USER = process.getuid?.() === 0;
const NO_MODEL = 'http://127.0.0.1:9';

/** Every path under `dir` with its kind, mode and contents: what "nothing changed" is compared on. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const n of fs.readdirSync(d).sort()) {
      const p = path.join(d, n);
      const st = fs.lstatSync(p);
      const rel = path.relative(dir, p);
      if (st.isDirectory()) {
        out.push(`${rel}/ ${st.mode.toString(8)}`);
        if (st.mode & 0o500) walk(p);
      } else {
        let body = '';
        try {
          body = fs.readFileSync(p, 'utf8');
        } catch {
          body = '(unreadable)';
        }
        out.push(`${rel} ${st.mode.toString(8)} ${body}`);
      }
    }
  };
  walk(dir);
  return out;
}

const GOOD_LINEAGE = (ws: string) => JSON.stringify({ version: 1, workspace: ws, woke: 1, steps: {} });

interface Damage {
  name: string;
  /** which file is damaged */
  file: 'manifest.json' | 'lineage.json';
  /** make the damage in the run dir */
  make: (file: string) => void;
  /** a row only meaningful when not root */
  needsNonRoot?: boolean;
}

const write = (text: string) => (f: string) => fs.writeFileSync(f, text);
const KINDS: Array<Omit<Damage, 'file'>> = [
  { name: 'truncated JSON', make: write('[{"step": "干活", "run": ') },
  { name: 'an empty file', make: write('') },
  { name: 'a __proto__ key', make: write('{"__proto__": {"x": 1}, "workspace": "/", "woke": 0, "steps": {}}') },
  { name: 'version 99 (a newer flower)', make: write('{"version": 99, "workspace": "/", "woke": 0, "steps": {}}') },
  { name: 'a directory in its place', make: (f) => fs.mkdirSync(f) },
  { name: 'no read permission (chmod 000)', make: (f) => fs.writeFileSync(f, '[]', { mode: 0o000 }), needsNonRoot: true },
];
const SHAPES: Damage[] = [
  { name: 'an object where the list of rows should be', file: 'manifest.json', make: write('{"rows": []}') },
  { name: 'a row of the wrong shape', file: 'manifest.json', make: write('[{"step": 1}]') },
  { name: 'a list where the record should be', file: 'lineage.json', make: write('[]') },
  { name: 'a record missing its fields', file: 'lineage.json', make: write('{"version": 1}') },
];
const TABLE: Damage[] = [...KINDS.flatMap((k) => (['manifest.json', 'lineage.json'] as const).map((file) => ({ ...k, file }))), ...SHAPES];

function damaged(d: Damage): Project {
  const p = project('damage');
  fs.mkdirSync(p.runs);
  // the other file is good, so what is reported is the damage, not an empty folder
  if (d.file === 'manifest.json') fs.writeFileSync(path.join(p.runs, 'lineage.json'), GOOD_LINEAGE(p.ws));
  else fs.writeFileSync(path.join(p.runs, 'manifest.json'), '[]');
  d.make(path.join(p.runs, d.file));
  return p;
}

for (const d of TABLE) {
  for (const cmd of ['status', 'log'] as const) {
    test(`flower ${cmd} on a ${d.file} with ${d.name}: exit 1, one line naming the file, nothing in runs/ changed`, {
      skip: d.needsNonRoot && ROOT_USER ? 'running as root: chmod 000 does not stop root reading' : false,
    }, async () => {
      const p = damaged(d);
      const before = snapshot(p.runs);
      const r = await cli(['-w', p.ws, '-r', p.runs, cmd], { cwd: p.dir, env: testEnv(p, NO_MODEL) });
      assert.equal(r.code, 1, r.stdout + r.stderr);
      const lines = r.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, r.stderr);
      assert.ok(lines[0]!.includes(path.join(p.runs, d.file)), r.stderr);
      assert.doesNotMatch(r.stdout, /no steps recorded|has not run here/);
      assert.deepEqual(snapshot(p.runs), before);
    });
  }
}

test('with --json the damage is one JSON error on stdout, the human line on stderr, exit 1', async () => {
  const p = damaged({ name: 'truncated', file: 'manifest.json', make: write('[{') });
  const file = path.join(p.runs, 'manifest.json');
  for (const cmd of ['status', 'log']) {
    const r = await cli(['-w', p.ws, '-r', p.runs, '--json', cmd], { cwd: p.dir, env: testEnv(p, NO_MODEL) });
    assert.equal(r.code, 1, r.stderr);
    const out = JSON.parse(r.stdout) as { error: { code: string; message: string; path: string } };
    assert.equal(out.error.code, 'state-corrupt');
    assert.equal(out.error.path, file);
    assert.ok(out.error.message.includes(file));
    assert.ok(r.stderr.startsWith(`x ${file}`), r.stderr);
  }
});

test('an empty list is a manifest with no rows, not damage: log says so and exits 0', async () => {
  const p = project('damage');
  fs.mkdirSync(p.runs);
  fs.writeFileSync(path.join(p.runs, 'manifest.json'), '[]');
  const r = await cli(['-w', p.ws, '-r', p.runs, 'log'], { cwd: p.dir, env: testEnv(p, NO_MODEL) });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /no steps recorded yet/);
});

interface PathCase {
  name: string;
  /** arguments and cwd, given the project; the path the line must name */
  setup: (p: Project) => { args: string[]; cwd: string; names: string; exit: number; code: string };
  needsNonRoot?: boolean;
}

const PATHS: PathCase[] = [
  {
    name: '-w names a file',
    setup: (p) => {
      const f = path.join(p.dir, 'notes.txt');
      fs.writeFileSync(f, 'x');
      return { args: ['-w', f], cwd: p.dir, names: `${f} is a file`, exit: 2, code: 'not-a-folder' };
    },
  },
  {
    name: '-r names a file',
    setup: (p) => {
      fs.writeFileSync(p.runs, 'x');
      return { args: ['-w', p.ws, '-r', p.runs], cwd: p.dir, names: `${p.runs} is a file`, exit: 2, code: 'not-a-folder' };
    },
  },
  {
    name: 'the runs/ found in the workspace is a file',
    setup: (p) => {
      const runs = path.join(p.ws, 'runs');
      fs.writeFileSync(runs, 'x');
      return { args: [], cwd: p.ws, names: `${runs} is a file`, exit: 2, code: 'not-a-folder' };
    },
  },
  {
    name: '-w names no folder',
    setup: (p) => ({ args: ['-w', path.join(p.dir, 'gone')], cwd: p.dir, names: path.join(p.dir, 'gone'), exit: 1, code: 'no-such-folder' }),
  },
  {
    name: 'runs/ cannot be read (chmod 000)',
    needsNonRoot: true,
    setup: (p) => {
      const runs = path.join(p.ws, 'runs');
      fs.mkdirSync(runs);
      fs.writeFileSync(path.join(runs, 'manifest.json'), '[]');
      fs.chmodSync(runs, 0o000);
      return { args: [], cwd: p.ws, names: `cannot read the run dir ${runs}`, exit: 1, code: 'run-dir-unreadable' };
    },
  },
];

for (const c of PATHS) {
  for (const cmd of ['status', 'log'] as const) {
    test(`flower ${cmd} when ${c.name}: refused with one line naming it, also as JSON`, {
      skip: c.needsNonRoot && ROOT_USER ? 'running as root: chmod 000 does not stop root reading' : false,
    }, async () => {
      const p = project('damage-path');
      const s = c.setup(p);
      const r = await cli([...s.args, cmd], { cwd: s.cwd, env: testEnv(p, NO_MODEL) });
      assert.equal(r.code, s.exit, r.stdout + r.stderr);
      assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
      assert.ok(r.stderr.includes(s.names), r.stderr);
      assert.doesNotMatch(r.stdout, /has not run here|no steps recorded/);
      const j = await cli([...s.args, '--json', cmd], { cwd: s.cwd, env: testEnv(p, NO_MODEL) });
      assert.equal(j.code, s.exit, j.stderr);
      assert.equal((JSON.parse(j.stdout) as { error: { code: string } }).error.code, s.code);
      for (const d of [path.join(p.ws, 'runs'), p.runs]) if (fs.existsSync(d) && fs.statSync(d).isDirectory()) fs.chmodSync(d, 0o755);
    });
  }
}

// `flower ui` on a path it cannot show refuses at start instead of serving "No runs recorded yet" forever
const UI_CASES: Array<{ name: string; runDir: (p: Project) => string; exit: number; code: string; says: string }> = [
  { name: 'a run dir that is not there', runDir: (p) => path.join(p.dir, 'nonexistent', 'runs'), exit: 2, code: 'no-run-dir', says: 'no run dir at' },
  {
    name: 'a run dir that is a file',
    runDir: (p) => {
      fs.writeFileSync(p.runs, 'x');
      return p.runs;
    },
    exit: 2,
    code: 'not-a-folder',
    says: 'is a file, not a folder',
  },
];
for (const c of UI_CASES) {
  test(`flower ui -r on ${c.name}: refused at start with one line naming it (JSON with --json)`, async () => {
    const p = project('damage-ui');
    const dir = c.runDir(p);
    // a ui that serves would run until killed: the timeout is that failure, far above the ~1 s a refusal takes
    const r = await cli(['ui', '-r', dir, '--port', '0'], { cwd: p.dir, env: testEnv(p, NO_MODEL), timeoutMs: 20_000 });
    assert.equal(r.code, c.exit, r.stdout + r.stderr);
    assert.equal(r.stdout, '');
    assert.equal(r.stderr.trimEnd().split('\n').length, 1, r.stderr);
    assert.ok(r.stderr.includes(dir) && r.stderr.includes(c.says), r.stderr);
    const j = await cli(['ui', '-r', dir, '--port', '0', '--json'], { cwd: p.dir, env: testEnv(p, NO_MODEL), timeoutMs: 20_000 });
    assert.equal(j.code, c.exit, j.stderr);
    assert.deepEqual((JSON.parse(j.stdout) as { error: { code: string; path: string } }).error, {
      code: c.code,
      path: dir,
      message: r.stderr.trimEnd().slice(2),
    });
  });
}
