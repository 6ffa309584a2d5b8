// What a command loads, and what that loading costs: the module side of the start bench (bench/start.ts).
//   trace    — run `node bin/flower.js …` once with a loader hook that writes every ES module's URL as it
//              loads, and the CommonJS modules (require.cache) at exit: the command's modules, in load order
//   loadTime — in a fresh node, import exactly those modules in that order, timed from the first import to
//              the last: the command's module loading without its own work (and without node's start), as
//              wall time and as the process's CPU time (steadier on a busy machine: other processes
//              stretch the wall time, hardly the CPU)
//   alone    — one package imported first in a fresh node: what it costs by itself (zod, string-width, …)
// Run on its own: node --import tsx bench/modules.ts [runs=5] — the packages of every command, and their cost.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fmtMs, isMain, median } from './measure.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'bin', 'flower.js');

/** The loader hook that lists every module a process loads into the file named by FLOWER_BENCH_LOADED (also test/cli/start-modules). */
export const HOOKS = `import fs from 'node:fs';
export async function load(url, ctx, next) { fs.appendFileSync(process.env.FLOWER_BENCH_LOADED, url + '\\n'); return next(url, ctx); }
`;
export const REGISTER = (hooks: string) => `import { register, createRequire } from 'node:module';
import fs from 'node:fs';
register(${JSON.stringify(hooks)});
const require = createRequire(import.meta.url);
process.on('exit', () => fs.appendFileSync(process.env.FLOWER_BENCH_LOADED, Object.keys(require.cache).join('\\n') + '\\n'));
`;
// imports the listed modules in order and prints the ms it took (a module both imported and required —
// CommonJS reached through import — is loaded once)
const REPLAY = `import { createRequire } from 'node:module';
import fs from 'node:fs';
const require = createRequire(import.meta.url);
const list = fs.readFileSync(process.argv[2], 'utf8').split('\\n').filter(Boolean);
const t0 = performance.now();
const c0 = process.cpuUsage();
for (const m of list) {
  if (m.startsWith('file:') || m.startsWith('node:')) await import(m);
  else if (!require.cache[m]) require(m);
}
const c = process.cpuUsage(c0);
process.stdout.write(JSON.stringify({ wall: performance.now() - t0, cpu: (c.user + c.system) / 1000 }));
`;

export interface Traced {
  /** ES module URLs and CommonJS paths, in load order, the bin itself left out */
  modules: string[];
  /** package name (or `flower` for this repository's dist/, `node` for built-ins) → modules loaded (a file of dist/bundle/ counts as the modules it holds) */
  packages: Map<string, number>;
}

const bundles = new Map<string, Record<string, string[]> | null>();
/**
 * The modules one file of dist/bundle/ holds (scripts/bundle.mjs lists them in dist/bundle/inputs.json),
 * as absolute paths; null for any other module. So what a command loaded can still be named module by
 * module when the bin runs the bundle (also test/cli/start-modules).
 */
export function bundledIn(m: string, root = ROOT): string[] | null {
  const p = m.startsWith('file:') ? fileURLToPath(m) : m;
  const dir = path.join(root, 'dist', 'bundle');
  if (path.dirname(p) !== dir) return null;
  if (!bundles.has(dir)) {
    try {
      bundles.set(dir, JSON.parse(fs.readFileSync(path.join(dir, 'inputs.json'), 'utf8')) as Record<string, string[]>);
    } catch {
      bundles.set(dir, null);
    }
  }
  const inputs = bundles.get(dir)?.[path.basename(p)];
  return inputs ? inputs.map((i) => path.resolve(root, i)) : null;
}

/** The package a module belongs to: `zod`, `@anthropic-ai/claude-agent-sdk`, `flower` (dist/), `node`. */
export function packageOf(m: string): string {
  if (m.startsWith('node:')) return 'node';
  const p = m.startsWith('file:') ? fileURLToPath(m) : m;
  const nm = /.*node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(p);
  if (nm) return nm[1]!;
  return /[\\/]dist[\\/]/.test(p) ? 'flower' : path.relative(ROOT, p);
}

let scratch: string | undefined;
/** The hook and replay scripts, written once per process into a temp folder removed at exit. */
function scripts(): { register: string; replay: string } {
  if (!scratch) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'flower-bench-modules-'));
    scratch = dir;
    process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
    fs.writeFileSync(path.join(dir, 'hooks.mjs'), HOOKS);
    fs.writeFileSync(path.join(dir, 'register.mjs'), REGISTER(pathToFileURL(path.join(dir, 'hooks.mjs')).href));
  }
  // the replay must resolve nothing itself (every entry is a URL or an absolute path), but its
  // createRequire needs a real file: it lives next to the hooks
  const replay = path.join(scratch, 'replay.mjs');
  if (!fs.existsSync(replay)) fs.writeFileSync(replay, REPLAY);
  return { register: path.join(scratch, 'register.mjs'), replay };
}

/**
 * One run of `node bin/flower.js …args` with the loader hook: what it loaded. A non-zero exit throws.
 * Asynchronous, so a sim in this process (`once`) can answer the child.
 */
export async function trace(args: readonly string[], o: { cwd: string; env: NodeJS.ProcessEnv; bin?: string }): Promise<Traced> {
  const bin = o.bin ?? BIN; // another build's bin/flower.js, to compare a change's before and after
  const s = scripts();
  const list = path.join(scratch!, `loaded-${process.hrtime.bigint()}.txt`);
  fs.writeFileSync(list, '');
  const child = spawn(process.execPath, ['--import', pathToFileURL(s.register).href, bin, ...args], {
    cwd: o.cwd,
    env: { ...o.env, FLOWER_BENCH_LOADED: list },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  const code = await new Promise<number | string | null>((resolve) => child.on('close', (c, sig) => resolve(c ?? sig)));
  clearTimeout(timer);
  if (code !== 0) throw new Error(`flower ${args.join(' ')} exited ${code}: ${stderr.slice(0, 400)}`);
  const seen = new Set<string>();
  const binUrl = pathToFileURL(bin).href;
  const modules: string[] = [];
  for (const m of fs.readFileSync(list, 'utf8').split('\n')) {
    if (!m || m === binUrl || m === s.register || m.startsWith(pathToFileURL(scratch!).href)) continue;
    // the same CommonJS file seen as a URL by the hook and as a path in require.cache counts once
    const key = m.startsWith('file:') ? fileURLToPath(m) : m;
    if (seen.has(key)) continue;
    seen.add(key);
    modules.push(m);
  }
  fs.rmSync(list, { force: true });
  const packages = new Map<string, number>();
  for (const m of modules)
    for (const one of bundledIn(m, path.resolve(path.dirname(bin), '..')) ?? [m]) packages.set(packageOf(one), (packages.get(packageOf(one)) ?? 0) + 1);
  return { modules, packages };
}

export interface LoadTime {
  /** ms from the first import to the last (median) */
  wall: number;
  /** ms of the process's CPU time over the same span (median) */
  cpu: number;
}

/** What importing `modules` in order costs in a fresh node (medians of `runs`), node's own start not counted. */
export function loadTime(modules: readonly string[], runs: number): LoadTime {
  const s = scripts();
  const list = path.join(scratch!, `replay-${process.hrtime.bigint()}.txt`);
  fs.writeFileSync(list, modules.join('\n'));
  const times: LoadTime[] = [];
  for (let i = 0; i < runs; i++) {
    const r = spawnSync(process.execPath, [s.replay, list], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
    if (r.status !== 0) throw new Error(`replaying ${modules.length} modules failed: ${r.stderr.slice(0, 400)}`);
    times.push(JSON.parse(r.stdout) as LoadTime);
  }
  fs.rmSync(list, { force: true });
  return { wall: median(times.map((t) => t.wall)), cpu: median(times.map((t) => t.cpu)) };
}

/** What importing one package (its main entry, resolved from this repository) first in a fresh node costs. */
export function alone(pkg: string, runs: number): LoadTime {
  const resolved = import.meta.resolve(pkg);
  return loadTime([resolved], runs);
}

/** `zod 95, commander 9, …`: a command's packages by modules loaded, most first. */
export function packageLine(t: Traced, o: { skip?: readonly string[] } = {}): string {
  return [...t.packages]
    .filter(([p]) => !(o.skip ?? []).includes(p))
    .sort((a, b) => b[1] - a[1])
    .map(([p, n]) => `${p} ${n}`)
    .join(', ');
}

if (isMain(import.meta.url)) {
  const runs = Number(process.argv[2] ?? 5);
  const pkgs = process.argv.slice(3).length
    ? process.argv.slice(3)
    : ['zod', 'commander', 'string-width', 'wrap-ansi', 'better-sqlite3', 'pg', 'pg-boss', 'yaml'];
  for (const p of pkgs) {
    const t = alone(p, runs);
    console.log(`${p.padEnd(32)} ${fmtMs(t.cpu)} cpu, ${fmtMs(t.wall)} wall, alone`);
  }
}
