#!/usr/bin/env node
import fs from 'node:fs';

// The reader went away (`flower log --json | head -1`): stop quietly, as a Unix filter does — no stack
// trace. A run in flight is recorded first: SIGTERM goes to the rescue handler that records the step
// (killed-by-signal) when one is installed; otherwise there is nothing to record and the exit is 0.
// stderr closing alone changes nothing: the run goes on and its record is on disk.
let gone = false;
const quiet = new Set(['EPIPE', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);
process.stdout.on('error', (e) => {
  if (!quiet.has(e?.code)) throw e;
  if (gone) return;
  gone = true;
  if (process.listenerCount('SIGTERM') > 0) process.kill(process.pid, 'SIGTERM');
  else process.exit(0);
});
process.stderr.on('error', (e) => {
  if (!quiet.has(e?.code)) throw e;
});

const argv = process.argv.slice(2);
// the line scripts/bundle.mjs ends dist/cli/index.js with (the same text there)
const BUILT = '// dist/bundle/ was built from this compile (scripts/bundle.mjs)\n';
// the commands dist/bundle/look.js runs (scripts/bundle.mjs joins their module, src/cli/status.ts, into it)
const LOOK = new Set(['status', 'log']);

// `flower --version` alone is package.json's version, printed before anything else loads: building the
// command line (commander, every command's flags, the usage texts) cost twice node's own start for it
// (bench/start.ts). Anything more on the line (`flower --version --json`, `flower -V status`) goes to
// commander as before.
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version}\n`);
} else {
  await run();
}

/**
 * dist/bundle/ (scripts/bundle.mjs: the CLI's modules joined into a few files, which start faster) when it
 * was built from the compile in dist/cli/, else dist/cli/. The bundle script ends dist/cli/index.js with
 * BUILT; a `tsc` run alone rewrites that file without it, so a stale bundle is never run. (Not file times:
 * npm stamps an installed package's files as it unpacks them, in no set order.)
 * A line that starts with `status` or `log` runs dist/bundle/look.js: the same CLI with those two commands'
 * modules in one file (each ES module file costs Node its own resolve, read and link). Either file runs such
 * a line alike; the choice is only speed. Their help (which loads none of their modules) stays with cli.js,
 * as does a line with a global flag before the command (`flower -w x status`).
 */
function entry() {
  const cli = new URL('../dist/cli/index.js', import.meta.url);
  try {
    if (fs.readFileSync(cli, 'utf8').endsWith(BUILT)) return new URL(`../dist/bundle/${looking() ? 'look' : 'cli'}.js`, import.meta.url).href;
  } catch {
    /* not built: importing dist/cli/ says so */
  }
  return cli.href;
}

/** `flower status …` or `flower log …`, not asking for help: dist/bundle/look.js's lines. */
function looking() {
  return LOOK.has(argv[0]) && !argv.includes('--help') && !argv.includes('-h');
}

async function run() {
  const { main } = await import(entry());
  process.exitCode = await main(argv, {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    env: process.env,
  });
}
