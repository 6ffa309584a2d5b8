/**
 * What the bin loads for the commands a person types to look: `--version` and `--help` load no schemas
 * (zod or valibot), no store and no SDK; `status` and `log` load no SDK (the store's summary fold loads with the
 * first append, src/store/fold.ts), no zod (the saved formats are valibot's, src/state/schemas.ts says why),
 * no PostgreSQL driver (nor pg-boss), no YAML parser (in a folder without skills), none of the flow's
 * steps, no Runtime, no store views, no ui and no sim — with a sessions.db to read — and, for an English
 * status in a pipe, not the terminal width tables (string-width, wrap-ansi: src/cli/term.ts); a folder
 * without a sessions.db does not load the SQLite driver. `once` loads the SDK but not zod, the ui or the
 * sim. The list of modules is what the process loaded (ESM through a loader hook, CommonJS from
 * require.cache); no timing is asserted (the start's time and module load are `npm run bench`'s rows,
 * bench/start.ts).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { startSim } from '../../src/sim/index.js';
import { projectKeyFor, SqliteSessionStore } from '../../src/store/index.js';
import { bundledIn, HOOKS, REGISTER } from '../../bench/modules.js';
import { BIN, ROOT } from '../helpers/e2e.js';

interface LoadedOptions {
  sessionsDb?: boolean;
  lang?: 'en' | 'zh';
  columns?: string;
  env?: Record<string, string>;
}

/** What `flower …args` loaded, run in a small project (asynchronously, so a sim in this process can answer it). */
async function loaded(args: string[], o: LoadedOptions = {}): Promise<{ code: number | null; modules: string[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-start-'));
  const ws = path.join(dir, 'ws');
  fs.mkdirSync(path.join(ws, 'runs'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'home'));
  const ok = path.join(ROOT, 'test', 'fixtures', 'state', 'ok');
  fs.copyFileSync(path.join(ok, 'manifest-contract-fields.json'), path.join(ws, 'runs', 'manifest.json'));
  fs.copyFileSync(path.join(ok, 'lineage-v1.json'), path.join(ws, 'runs', 'lineage.json'));
  // a transcript of the lineage's step, so status reads its context from sessions.db
  if (o.sessionsDb !== false) {
    const db = new SqliteSessionStore(path.join(ws, 'runs', 'sessions.db'));
    db.appendSync({ projectKey: projectKeyFor(ws), sessionId: 'c3a1b2d4-e5f6-4a7b-8c9d-0e1f2a3b4c03' }, [{ type: 'user', uuid: 'u1' }]);
    db.close();
  }
  const hooks = path.join(dir, 'hooks.mjs');
  const reg = path.join(dir, 'register.mjs');
  fs.writeFileSync(hooks, HOOKS);
  fs.writeFileSync(reg, REGISTER(pathToFileURL(hooks).href));
  const list = path.join(dir, 'loaded.txt');
  fs.writeFileSync(list, '');
  const env = { PATH: process.env.PATH ?? '', HOME: path.join(dir, 'home'), FLOWER_LANG: o.lang ?? 'en', FLOWER_BENCH_LOADED: list, ...o.env };
  const child = spawn(process.execPath, ['--import', pathToFileURL(reg).href, BIN, ...args], {
    cwd: ws,
    env: o.columns ? { ...env, COLUMNS: o.columns } : env,
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 60_000,
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const [code] = (await once(child, 'close')) as [number | null];
  assert.equal(code, 0, `flower ${args.join(' ')}: ${stderr}`);
  const modules = fs.readFileSync(list, 'utf8').split('\n').filter(Boolean);
  fs.rmSync(dir, { recursive: true, force: true });
  return { code, modules };
}

/** The packages and flower modules a list names, as `pkg` or `dist/<path>` (a file of dist/bundle/ names the modules it holds). */
function names(modules: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (const m of modules.flatMap((one) => bundledIn(one, ROOT) ?? [one])) {
    const p = m.startsWith('file:') ? decodeURIComponent(new URL(m).pathname) : m;
    const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(p);
    if (nm) out.add(nm[1]!);
    const d = /\/dist\/(.+)$/.exec(p);
    if (d && p.startsWith(ROOT)) out.add(`dist/${d[1]}`);
  }
  return out;
}

const NEVER_TO_LOOK = [
  'pg',
  'pg-boss',
  'yaml',
  'zod',
  'playwright-core',
  'dist/runtime/runtime.js',
  'dist/workflow/starter/index.js',
  'dist/store/views/index.js',
  'dist/cli/go.js',
  'dist/ui/index.js',
  'dist/sim/index.js',
  'dist/fleet/index.js',
];
const WIDTH_TABLES = ['string-width', 'wrap-ansi', 'get-east-asian-width'];

test('--version alone loads nothing but the bin (package.json is read as a file)', async () => {
  for (const args of [['--version'], ['-V']]) {
    const { modules } = await loaded(args);
    assert.deepEqual(
      modules.filter((m) => m !== pathToFileURL(BIN).href),
      [],
      `flower ${args.join(' ')} loaded more than the bin`,
    );
  }
});

test('--help (and --version with more on the line) load commander and the usage texts, no schemas, store or SDK', async () => {
  for (const args of [['--help'], ['status', '--help'], ['--version', '--json']]) {
    const got = names((await loaded(args)).modules);
    assert.ok(got.has('commander') && got.has('dist/cli/usage.js'), `flower ${args.join(' ')} loaded the CLI (${[...got].join(', ')})`);
    for (const m of [
      'valibot',
      'better-sqlite3',
      '@anthropic-ai/claude-agent-sdk',
      'dist/state/schemas.js',
      'dist/config/index.js',
      ...WIDTH_TABLES,
      ...NEVER_TO_LOOK,
    ])
      assert.ok(!got.has(m), `flower ${args.join(' ')} loaded ${m}`);
  }
});

test('status and log read the run dir and sessions.db without the SDK, zod, the PostgreSQL driver, YAML, the flow, the Runtime, the views, the ui or the sim', async () => {
  for (const args of [['status'], ['log'], ['status', '--json']]) {
    const { modules } = await loaded(args);
    // one file of flower's: each ES module file costs Node its own resolve, read and link (scripts/bundle.mjs)
    const files = modules.filter((m) => m.startsWith(pathToFileURL(path.join(ROOT, 'dist')).href));
    assert.deepEqual(files, [pathToFileURL(path.join(ROOT, 'dist', 'bundle', 'look.js')).href], `flower ${args.join(' ')} loaded one file of dist/`);
    const got = names(modules);
    assert.ok(
      got.has('dist/cli/status.js') && got.has('dist/state/schemas.js') && got.has('valibot') && got.has('better-sqlite3'),
      `flower ${args.join(' ')} read the run dir (${[...got].join(', ')})`,
    );
    for (const m of ['@anthropic-ai/claude-agent-sdk', 'dist/config/probe.js', ...WIDTH_TABLES, ...NEVER_TO_LOOK])
      assert.ok(!got.has(m), `flower ${args.join(' ')} loaded ${m}`);
  }
});

test('status in a folder without sessions.db does not load the SQLite driver; a Chinese status on a wide terminal loads the width tables', async () => {
  const bare = names((await loaded(['status'], { sessionsDb: false })).modules);
  assert.ok(bare.has('dist/cli/status.js'), `status ran (${[...bare].join(', ')})`);
  assert.ok(!bare.has('better-sqlite3'), 'no sessions.db, no driver');
  // the lazy load is real: the same command with lines that need measuring loads string-width (by require(esm))
  const zh = names((await loaded(['status'], { lang: 'zh', columns: '60' })).modules);
  assert.ok(zh.has('string-width'), `a zh status measured its lines with string-width (${[...zh].join(', ')})`);
});

test('once loads the SDK and the Runtime, not zod (its tool schemas load with a tool server), the ui, the sim or the PostgreSQL driver', async () => {
  const sim = await startSim({ port: 0, onUnexpected: 'error' });
  try {
    sim.enqueue([{ type: 'text', text: 'done' }]);
    const env = { ANTHROPIC_BASE_URL: sim.url, ANTHROPIC_API_KEY: 'sk-test', FLOWER_CLI_RETRIES: '0', FLOWER_WATCHDOG: '20' };
    const got = names((await loaded(['once', 'say done', '-t', 'Read'], { env })).modules);
    assert.equal(sim.messageRequests().length, 1, 'the agent reached the model');
    assert.ok(got.has('@anthropic-ai/claude-agent-sdk') && got.has('dist/runtime/runtime.js'), `once ran the Runtime (${[...got].join(', ')})`);
    for (const m of [
      'zod',
      'dist/docs/schemas.js',
      'dist/human/index.js',
      'pg',
      'pg-boss',
      'dist/ui/index.js',
      'dist/sim/index.js',
      'dist/workflow/starter/index.js',
    ])
      assert.ok(!got.has(m), `flower once loaded ${m}`);
  } finally {
    await sim.close();
  }
});

test('the bin runs dist/bundle/ (look.js for status and log) when the bundle script marked dist/cli/ as its source, else dist/cli/ (a tsc run alone never runs a stale bundle)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-bin-'));
  try {
    fs.mkdirSync(path.join(dir, 'bin'));
    fs.copyFileSync(BIN, path.join(dir, 'bin', 'flower.js'));
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ type: 'module', version: '9.8.7' }));
    const fake = (rel: string, says: string, tail = '') => {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), `export async function main(argv, io) { io.stdout.write('${says} ' + argv.join(' ')); return 3; }\n${tail}`);
    };
    const run = async (...args: string[]) => {
      const child = spawn(process.execPath, [path.join(dir, 'bin', 'flower.js'), ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
      const [code] = (await once(child, 'close')) as [number | null];
      return `${out.trim()} (exit ${code})`;
    };
    fake('dist/cli/index.js', 'cli');
    assert.equal(await run('status'), 'cli status (exit 3)', 'no bundle: dist/cli/');
    // what scripts/bundle.mjs leaves: the bundle, and its line at the end of dist/cli/index.js
    fake('dist/bundle/cli.js', 'bundle');
    fake('dist/bundle/look.js', 'look');
    const built = /^const BUILT = '(.*)\\n';$/m.exec(fs.readFileSync(BIN, 'utf8'))?.[1];
    assert.ok(built, 'bin/flower.js names the line');
    assert.ok(fs.readFileSync(path.join(ROOT, 'scripts', 'bundle.mjs'), 'utf8').includes(`'${built}\\n'`), 'scripts/bundle.mjs writes the same line');
    fake('dist/cli/index.js', 'cli', `${built}\n`);
    assert.equal(await run('report', '--json'), 'bundle report --json (exit 3)', 'bundled from this compile: the bundle');
    assert.equal(await run('status', '--json'), 'look status --json (exit 3)', 'status: its own file of the bundle');
    assert.equal(await run('log'), 'look log (exit 3)', 'log: the same file as status');
    assert.equal(await run('-w', '.', 'status'), 'bundle -w . status (exit 3)', 'a flag before the command: the whole CLI');
    assert.equal(await run('log', '--help'), 'bundle log --help (exit 3)', 'their help: the whole CLI (it loads none of their modules)');
    // file times do not count: npm stamps an installed package's files as it unpacks them
    fs.utimesSync(path.join(dir, 'dist', 'bundle', 'cli.js'), 1_000_000, 1_000_000);
    assert.equal(await run('stop'), 'bundle stop (exit 3)', 'an older bundle file of the same build: the bundle');
    fake('dist/cli/index.js', 'cli');
    assert.equal(await run('log'), 'cli log (exit 3)', 'compiled again (tsc writes the file without the line): dist/cli/');
    assert.equal(await run('--version'), '9.8.7 (exit 0)', "--version alone is package.json's, neither is loaded");
    assert.equal(await run('-V', 'x'), 'cli -V x (exit 3)', 'more on the line: the CLI');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
