#!/usr/bin/env node
import { main } from '../dist/cli/index.js';

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

const code = await main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
});
process.exitCode = code;
