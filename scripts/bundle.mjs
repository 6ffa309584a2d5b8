#!/usr/bin/env node
// The command's start as a few files (run after `tsc`, by `npm run build` and `prepare`): esbuild joins
// dist/cli/index.js and every flower module it reaches into dist/bundle/, one file for what every command
// loads and one chunk per group of lazily imported modules (each `import()` stays lazy). Packages stay
// outside (the SDK, commander, better-sqlite3, …: they load from node_modules as before). Why: Node 20
// resolves, reads and links each ES module on its own, and `flower once` loads ~145 of flower's; as ~20
// files its start needs ~10 % fewer instructions and, on a loaded machine, ~30 % less wall time before
// it spawns `claude` (README.md, "The start as a few files"). Once the bundle is written, this script ends
// dist/cli/index.js with BUILT, and bin/flower.js runs dist/bundle/ only when that line is there: a `tsc`
// run alone rewrites the file without it, so the bin falls back to dist/cli/ and never runs stale code.
//
// Two packages go inside, the ones the commands a person types to look load statically: valibot (only the
// functions the saved formats use: `flower status` ~35M instructions fewer than loading all of it) and
// commander (CommonJS: imported from ES modules it costs Node a parse of its exports; `flower --help` ~35M
// fewer). Every other package stays outside (the SDK above all: it must be the installed one), as do
// those loaded with createRequire at first use (better-sqlite3, pg, yaml, string-width, …).
//
// `flower status` and `flower log` (the commands a person types most to look) get one more file of their
// own, dist/bundle/look.js: the same CLI (commander, every command's flags, the same main()) with status.js
// and all it loads joined in, and without the other commands' modules. bin/flower.js runs it when the line
// starts with one of them. Why: Node 20 pays for each ES module file it loads (it resolves, reads — through
// its thread pool — and links each one), not only for its bytes: status reached ~35 files of the split
// bundle, and one file of the same code starts ~25 ms sooner (bench/start.ts). Only the `import()`s of
// src/cli/commands.ts stay out (every other command's action); each is a guard that fails loudly, as the bin
// never sends another command to this file (status and log take no subcommand, so commander can dispatch
// no other action from such a line). Every other `import()` that status's modules make is joined in and
// still runs only when reached.
//
// Every file lands in dist/bundle/ itself, two levels below the package root like dist/cli/: the modules
// that find package.json or bin/flower.js from import.meta.url (src/cli/program.ts, src/cli/self.ts,
// src/runtime/floor.ts) find the same files from either. dist/bundle/inputs.json says which of dist/'s
// modules each file holds (test/cli/start-modules.test.ts and bench/modules.ts name modules with it).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const INSIDE = ['valibot', 'commander'];
// the module of the commands look.js runs (src/cli/commands.ts imports it for both), and its guards' namespace
const LOOK_MODULE = './status.js';
const GUARD = 'other-command';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const outside = Object.keys(pkg.dependencies).filter((d) => !INSIDE.includes(d));
const out = path.join(root, 'dist', 'bundle');
const entry = path.join(root, 'dist', 'cli', 'index.js');
if (!fs.existsSync(entry)) {
  process.stderr.write('x dist/cli/index.js is missing: run tsc first (npm run build does both)\n');
  process.exit(1);
}
// bin/flower.js has the same text
const BUILT = '// dist/bundle/ was built from this compile (scripts/bundle.mjs)\n';
const compiled = fs.readFileSync(entry, 'utf8');
const plain = compiled.endsWith(BUILT) ? compiled.slice(0, -BUILT.length) : compiled;
// no line while there is no whole bundle (a failed build leaves the bin on dist/cli/)
if (plain !== compiled) fs.writeFileSync(entry, plain);
fs.rmSync(out, { recursive: true, force: true });
const common = {
  outdir: out,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: outside.flatMap((d) => [d, `${d}/*`]),
  // commander's own require('node:events') and the like, in an ES module
  banner: { js: "import { createRequire as __flowerRequire } from 'node:module'; const require = __flowerRequire(import.meta.url);" },
  metafile: true,
  logLevel: 'warning',
};
const split = await build({ ...common, entryPoints: { cli: entry }, splitting: true, chunkNames: '[name]-[hash]' });
const look = await build({ ...common, entryPoints: { look: entry }, splitting: false, plugins: [otherCommandsOut()] });
// chunk → the dist/ modules in it, paths relative to the package root (look.js's guards are no module)
const inputs = {};
for (const [file, o] of [...Object.entries(split.metafile.outputs), ...Object.entries(look.metafile.outputs)]) {
  inputs[path.basename(file)] = Object.keys(o.inputs)
    .filter((i) => !i.startsWith(`${GUARD}:`))
    .map((i) => path.relative(root, path.resolve(root, i)));
}
fs.writeFileSync(path.join(out, 'inputs.json'), `${JSON.stringify(inputs, null, 1)}\n`);
fs.writeFileSync(entry, plain + (plain.endsWith('\n') ? '' : '\n') + BUILT);

/**
 * look.js's esbuild plugin: each `import()` in dist/cli/commands.js but status.js's becomes a guard that
 * throws when imported, naming the module (the bin sends only `status` and `log` to look.js).
 */
function otherCommandsOut() {
  const commands = path.join(root, 'dist', 'cli', 'commands.js');
  return {
    name: 'other-commands-out',
    setup(b) {
      b.onResolve({ filter: /^\./ }, (a) =>
        a.kind === 'dynamic-import' && a.importer === commands && a.path !== LOOK_MODULE ? { path: a.path, namespace: GUARD } : undefined,
      );
      b.onLoad({ filter: /.*/, namespace: GUARD }, (a) => ({
        contents: `throw new Error(${JSON.stringify(`dist/bundle/look.js runs status and log only, yet ${a.path} was imported: bin/flower.js sent another command here`)});\n`,
        loader: 'js',
      }));
    },
  };
}
