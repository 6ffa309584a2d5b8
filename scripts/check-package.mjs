#!/usr/bin/env node
// Checks the package as it would be published (run after `npm run build`): packs it once, without
// re-running `prepare`, then publint (exports, types, files) and attw (are the types right for
// every entry point: ESM-only, so node10 and require() are out of scope).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';

const root = new URL('..', import.meta.url).pathname;
const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  if (r.status !== 0) process.exit(r.status ?? 1);
  return r;
};
const bin = (name) => join(root, 'node_modules', '.bin', name);
const dir = mkdtempSync(join(tmpdir(), 'flower-pack-'));
try {
  const packed = spawnSync('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: root, encoding: 'utf8' });
  if (packed.status !== 0) {
    process.stderr.write(packed.stderr);
    process.exit(packed.status ?? 1);
  }
  const tgz = join(dir, JSON.parse(packed.stdout)[0].filename);
  run(bin('publint'), ['run', '--strict', tgz]);
  run(bin('attw'), [tgz, '--profile', 'esm-only', '--format', 'table-flipped']);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
