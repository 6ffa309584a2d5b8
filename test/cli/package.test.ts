/**
 * Installable anywhere: the package has a name of its own on the registry (`flower` belongs to someone
 * else), the command stays `flower`, the documented imports resolve, and the tarball carries what the
 * command needs.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/e2e.js';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  name: string;
  bin: Record<string, string>;
  scripts: Record<string, string>;
  files: string[];
};

test('the package is flower-agent and its command is flower', () => {
  assert.equal(pkg.name, 'flower-agent');
  assert.deepEqual(pkg.bin, { flower: 'bin/flower.js' });
  assert.match(pkg.scripts.prepare ?? '', /tsc/, 'installing from a checkout or a git URL builds dist/');
});

test('the imports the docs show resolve by the package name', async () => {
  const lib = (await import('flower-agent')) as Record<string, unknown>;
  const sim = (await import('flower-agent/sim')) as Record<string, unknown>;
  assert.equal(typeof lib.Runtime, 'function');
  assert.equal(typeof sim.startSim, 'function');
  const docs = [
    'README.md',
    ...fs
      .readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => path.join('docs', f)),
  ];
  for (const doc of docs) {
    const text = fs.readFileSync(path.join(ROOT, doc), 'utf8');
    for (const m of text.matchAll(/from '(flower[^']*)'/g)) assert.match(m[1]!, /^flower-agent(\/sim)?$/, `${doc}: import from '${m[1]}'`);
    assert.doesNotMatch(text, /npm i(nstall)? (-g )?flower(\s|$)/, `${doc} installs the registry's unrelated 'flower'`);
  }
});

test('the tarball carries the command, the built code and the docs', async () => {
  const { stdout } = await promisify(execFile)('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, maxBuffer: 32 * 1024 * 1024 });
  const files = new Set((JSON.parse(stdout) as Array<{ files: Array<{ path: string }> }>)[0]!.files.map((f) => f.path));
  for (const f of ['bin/flower.js', 'dist/cli/index.js', 'dist/index.js', 'dist/sim/index.js', 'README.md', 'package.json']) assert.ok(files.has(f), f);
  assert.ok(![...files].some((f) => f.startsWith('test/') || f.startsWith('src/')), 'no sources or tests in the tarball');
});

test("flower --version is package.json's version (one place says it)", async () => {
  const { version } = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
  const { stdout } = await promisify(execFile)(process.execPath, [path.join(ROOT, 'bin', 'flower.js'), '--version'], { cwd: ROOT });
  assert.equal(stdout.trim(), version);
  assert.doesNotMatch(fs.readFileSync(path.join(ROOT, 'src', 'cli', 'program.ts'), 'utf8'), /VERSION = '\d/, 'no version written in the code');
});
