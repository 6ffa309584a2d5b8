/**
 * What the bin loads for the commands a person types to look: `--version` and `--help` load no schemas
 * (zod), no store and no SDK; `status` and `log` load no SDK (the store's summary fold loads with the
 * first append, src/store/fold.ts), no PostgreSQL driver, no YAML parser (in a folder without skills),
 * none of the flow's steps, no Runtime and no store views — with a sessions.db to read. The list of modules is what
 * the process loaded (ESM through a loader hook, CommonJS from require.cache); no timing is asserted
 * (the start's time is `npm run bench`'s row, bench/start.ts).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { projectKeyFor, SqliteSessionStore } from '../../src/store/index.js';
import { BIN, ROOT } from '../helpers/e2e.js';

const HOOKS = `import fs from 'node:fs';
export async function load(url, ctx, next) { fs.appendFileSync(process.env.FLOWER_TEST_LOADED, url + '\\n'); return next(url, ctx); }
`;
const REGISTER = (hooks: string) => `import { register, createRequire } from 'node:module';
import fs from 'node:fs';
register(${JSON.stringify(hooks)});
const require = createRequire(import.meta.url);
process.on('exit', () => fs.appendFileSync(process.env.FLOWER_TEST_LOADED, Object.keys(require.cache).join('\\n') + '\\n'));
`;

function loaded(args: string[]): { code: number | null; modules: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-start-'));
  const ws = path.join(dir, 'ws');
  fs.mkdirSync(path.join(ws, 'runs'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'home'));
  const ok = path.join(ROOT, 'test', 'fixtures', 'state', 'ok');
  fs.copyFileSync(path.join(ok, 'manifest-contract-fields.json'), path.join(ws, 'runs', 'manifest.json'));
  fs.copyFileSync(path.join(ok, 'lineage-v1.json'), path.join(ws, 'runs', 'lineage.json'));
  // a transcript of the lineage's step, so status reads its context from sessions.db
  const db = new SqliteSessionStore(path.join(ws, 'runs', 'sessions.db'));
  db.appendSync({ projectKey: projectKeyFor(ws), sessionId: 'c3a1b2d4-e5f6-4a7b-8c9d-0e1f2a3b4c03' }, [{ type: 'user', uuid: 'u1' }]);
  db.close();
  const hooks = path.join(dir, 'hooks.mjs');
  const reg = path.join(dir, 'register.mjs');
  fs.writeFileSync(hooks, HOOKS);
  fs.writeFileSync(reg, REGISTER(pathToFileURL(hooks).href));
  const list = path.join(dir, 'loaded.txt');
  fs.writeFileSync(list, '');
  const r = spawnSync(process.execPath, ['--import', pathToFileURL(reg).href, BIN, ...args], {
    cwd: ws,
    env: { PATH: process.env.PATH ?? '', HOME: path.join(dir, 'home'), FLOWER_LANG: 'en', FLOWER_TEST_LOADED: list },
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, `flower ${args.join(' ')}: ${r.stderr}`);
  const modules = fs.readFileSync(list, 'utf8').split('\n').filter(Boolean);
  fs.rmSync(dir, { recursive: true, force: true });
  return { code: r.status, modules };
}

/** The packages and flower modules a list names, as `pkg` or `dist/<path>`. */
function names(modules: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const m of modules) {
    const p = m.startsWith('file:') ? decodeURIComponent(new URL(m).pathname) : m;
    const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(p);
    if (nm) out.add(nm[1]!);
    const d = /\/dist\/(.+)$/.exec(p);
    if (d && p.startsWith(ROOT)) out.add(`dist/${d[1]}`);
  }
  return out;
}

const NEVER_TO_LOOK = ['pg', 'yaml', 'dist/runtime/runtime.js', 'dist/workflow/starter/index.js', 'dist/store/views/index.js', 'dist/cli/go.js'];

test('--version and --help load commander and the usage texts, no schemas, store or SDK', () => {
  for (const args of [['--version'], ['--help'], ['status', '--help']]) {
    const got = names(loaded(args).modules);
    assert.ok(got.has('commander') && got.has('dist/cli/usage.js'), `flower ${args.join(' ')} loaded the CLI (${[...got].join(', ')})`);
    for (const m of ['zod', 'better-sqlite3', '@anthropic-ai/claude-agent-sdk', 'dist/state/schemas.js', 'dist/config/index.js', ...NEVER_TO_LOOK])
      assert.ok(!got.has(m), `flower ${args.join(' ')} loaded ${m}`);
  }
});

test('status and log read the run dir and sessions.db without the SDK, the PostgreSQL driver, YAML, the flow, the Runtime or the views', () => {
  for (const args of [['status'], ['log'], ['status', '--json']]) {
    const got = names(loaded(args).modules);
    assert.ok(
      got.has('dist/cli/status.js') && got.has('dist/state/schemas.js') && got.has('better-sqlite3'),
      `flower ${args.join(' ')} read the run dir (${[...got].join(', ')})`,
    );
    for (const m of ['@anthropic-ai/claude-agent-sdk', ...NEVER_TO_LOOK]) assert.ok(!got.has(m), `flower ${args.join(' ')} loaded ${m}`);
  }
});
