#!/usr/bin/env node
// Runs every test/**/*.test.ts with node's own runner (tsx as the loader).
// Node 20's `--test` takes no globs, so the file list is collected here.
// Usage: node scripts/test.mjs [substring …]  — only files whose path contains one of them.
// The PostgreSQL half needs a server: FLOWER_TEST_PG_URL when set (.ci/run sets it), else a throwaway
// cluster started here when PostgreSQL's server binaries are installed, else it is skipped, loudly.
import { mkdirSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { startCluster, stopCluster } from './pg-cluster.mjs';

const root = new URL('..', import.meta.url).pathname;
const walk = (dir) =>
  readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.test.ts') ? [p] : [];
  });
const filters = process.argv.slice(2);
const files = walk(join(root, 'test'))
  .map((p) => relative(root, p))
  .filter((p) => filters.length === 0 || filters.some((f) => p.includes(f)))
  .sort();
if (files.length === 0) {
  console.error(`no test files matched ${filters.join(' ') || 'test/**/*.test.ts'}`);
  process.exit(1);
}
const concurrency = process.env.FLOWER_TEST_CONCURRENCY ?? '2';
const env = { ...process.env, FLOWER_TEST: '1' };
let cluster = null;
if (!env.FLOWER_TEST_PG_URL) {
  try {
    cluster = await startCluster();
  } catch (e) {
    console.error(`!!! could not start a PostgreSQL cluster: ${e instanceof Error ? e.message : e}`);
  }
  if (cluster) env.FLOWER_TEST_PG_URL = cluster.url;
  else console.error('!!! SKIPPED PostgreSQL half: no FLOWER_TEST_PG_URL and no usable PostgreSQL server binaries (install `postgresql`, or run .ci/run)');
}
let r;
try {
  // a short summary on screen (scripts/summary-reporter.mjs: failures first), the whole TAP stream in a file
  mkdirSync(join(root, 'test-artifacts'), { recursive: true });
  const reporters = [
    '--test-reporter',
    join(root, 'scripts', 'summary-reporter.mjs'),
    '--test-reporter-destination',
    'stdout',
    '--test-reporter',
    'tap',
    '--test-reporter-destination',
    join(root, 'test-artifacts', 'tests.tap'),
  ];
  r = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...reporters, ...files], {
    cwd: root,
    stdio: 'inherit',
    env,
  });
} finally {
  if (cluster) stopCluster(cluster.dir);
}
if (!env.FLOWER_TEST_PG_URL) console.error('!!! SKIPPED PostgreSQL half (see above)');
process.exit(r.status ?? 1);
