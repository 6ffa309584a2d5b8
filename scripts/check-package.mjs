#!/usr/bin/env node
// Checks the package as it would be published (run after `npm run build`): packs it once, without
// re-running `prepare`, then publint (exports, types, files) and attw (are the types right for
// every entry point: ESM-only, so node10 and require() are out of scope).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
// each check's own output only when it fails: npm test's output should end in the tests' summary
const run = (name, cmd, args) => {
  const r = spawnSync(cmd, args, { cwd: root, encoding: 'utf8' });
  if (r.status === 0) return true;
  process.stderr.write(`x ${name} failed:\n${r.stdout ?? ''}${r.stderr ?? ''}\n`);
  return false;
};
const bin = (name) => join(root, 'node_modules', '.bin', name);
const dir = mkdtempSync(join(tmpdir(), 'flower-pack-'));
let ok = false;
try {
  const packed = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: root, encoding: 'utf8' });
  if (packed.status !== 0) process.stderr.write(`x npm pack failed:\n${packed.stderr}\n`);
  else {
    const tgz = join(dir, JSON.parse(packed.stdout)[0].filename);
    ok =
      run('publint --strict', bin('publint'), ['run', '--strict', tgz]) &&
      run('attw (esm-only)', bin('attw'), [tgz, '--profile', 'esm-only', '--format', 'table-flipped']);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (ok) process.stdout.write('package: publint --strict and attw (esm-only) clean\n');
process.exitCode = ok ? 0 : 1;
