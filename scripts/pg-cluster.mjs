#!/usr/bin/env node
// A throwaway PostgreSQL cluster for the tests: `start` initialises one in a fresh temp folder, on a
// free loopback port, and prints shell lines to eval (FLOWER_TEST_PG_URL, FLOWER_TEST_PG_DIR);
// `stop DIR` stops it and removes the folder. initdb refuses to run as root (CI runs as root), so as
// root the cluster belongs to an unprivileged user: `postgres` when it exists (Debian's package makes
// it), else `flower-ci`, created on the spot. Password auth on TCP (scram), so the tests can check a
// wrong password; the superuser is `flower`.
//   node scripts/pg-cluster.mjs start            → eval "$(node scripts/pg-cluster.mjs start)"
//   node scripts/pg-cluster.mjs stop "$FLOWER_TEST_PG_DIR"
// Exit 3 from `start` means: no PostgreSQL server binaries on this machine.
import { execFileSync, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const NO_SERVER = 3;

/** The newest installed server's bin folder (PG_BIN wins), or null. */
export function serverBin() {
  const cands = [];
  if (process.env.PG_BIN) cands.push(process.env.PG_BIN);
  try {
    const versions = fs
      .readdirSync('/usr/lib/postgresql')
      .filter((v) => /^\d+$/.test(v))
      .sort((a, b) => Number(b) - Number(a));
    cands.push(...versions.map((v) => `/usr/lib/postgresql/${v}/bin`));
  } catch {
    /* not Debian's layout */
  }
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) if (dir) cands.push(dir);
  return cands.find((d) => fs.existsSync(path.join(d, 'initdb')) && fs.existsSync(path.join(d, 'pg_ctl'))) ?? null;
}

function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function userExists(name) {
  return spawnSync('id', ['-u', name], { stdio: 'ignore' }).status === 0;
}

/** As root: the unprivileged owner of the cluster. */
function clusterUser() {
  if (userExists('postgres')) return 'postgres';
  if (!userExists('flower-ci')) execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', 'flower-ci'], { stdio: 'inherit' });
  return 'flower-ci';
}

function runAs(user, cmd, args) {
  const [file, argv] = user ? ['runuser', ['-u', user, '--', cmd, ...args]] : [cmd, args];
  const r = spawnSync(file, argv, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** Start a cluster; resolves to { url, dir, port, password }. */
export async function startCluster() {
  const bin = serverBin();
  if (!bin) return null;
  const user = isRoot() ? clusterUser() : null;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-pg-'));
  const password = crypto.randomBytes(12).toString('hex');
  fs.writeFileSync(path.join(dir, 'pwfile'), `${password}\n`, { mode: 0o600 });
  fs.mkdirSync(path.join(dir, 'sock'));
  if (user) execFileSync('chown', ['-R', user, dir]);
  const data = path.join(dir, 'data');
  runAs(user, path.join(bin, 'initdb'), [
    '-D',
    data,
    '-U',
    'flower',
    `--pwfile=${path.join(dir, 'pwfile')}`,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '-E',
    'UTF8',
    '--locale=C',
    '--no-sync',
  ]);
  // a port can be taken between the probe and the server's bind: try a few
  for (let attempt = 0; ; attempt++) {
    const port = await freePort();
    const opts = `-c listen_addresses=127.0.0.1 -p ${port} -k ${path.join(dir, 'sock')} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300`;
    try {
      runAs(user, path.join(bin, 'pg_ctl'), ['-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '120', '-o', opts, 'start']);
    } catch (e) {
      if (attempt < 4) continue;
      throw e;
    }
    const url = `postgres://flower:${password}@127.0.0.1:${port}/flower`;
    runAs(user, path.join(bin, 'createdb'), ['-h', path.join(dir, 'sock'), '-p', String(port), '-U', 'flower', 'flower']);
    fs.writeFileSync(path.join(dir, 'url'), `${url}\n`, { mode: 0o644 });
    fs.writeFileSync(path.join(dir, 'owner'), `${user ?? ''}\n`);
    return { url, dir, port, password };
  }
}

export function stopCluster(dir) {
  if (!dir || !fs.existsSync(path.join(dir, 'data'))) return;
  const bin = serverBin();
  const owner = fs.readFileSync(path.join(dir, 'owner'), 'utf8').trim() || null;
  try {
    if (bin) runAs(owner, path.join(bin, 'pg_ctl'), ['-D', path.join(dir, 'data'), '-m', 'immediate', '-w', 'stop']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  const [cmd, arg] = process.argv.slice(2);
  if (cmd === 'start') {
    const c = await startCluster();
    if (!c) {
      console.error('no PostgreSQL server binaries (initdb, pg_ctl) found: install the `postgresql` package or set PG_BIN');
      process.exit(NO_SERVER);
    }
    process.stdout.write(`FLOWER_TEST_PG_URL='${c.url}'\nFLOWER_TEST_PG_DIR='${c.dir}'\n`);
  } else if (cmd === 'stop') {
    stopCluster(arg);
  } else {
    console.error('usage: pg-cluster.mjs start | stop DIR');
    process.exit(2);
  }
}
