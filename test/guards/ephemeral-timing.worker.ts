// Judges commands off the test's main thread, so a classifier that hangs (the old RegExp glob matcher
// backtracked for minutes) fails its test by a watchdog instead of freezing the test runner.
import { parentPort } from 'node:worker_threads';
import { judgeEphemeral } from '../../src/glance/ephemeral.js';

export interface Timed {
  /** the fastest of `repeat` runs, in milliseconds (scheduling noise only ever adds time) */
  ms: number;
  ok: boolean;
  command?: string;
  reason?: string;
  threw?: string;
}

judgeEphemeral('ls'); // load and compile before the first measured decision
parentPort!.on('message', ({ commands, repeat }: { commands: string[]; repeat: number }) => {
  const out: Timed[] = commands.map((c) => {
    let best = Infinity;
    let last: Timed = { ms: 0, ok: false };
    for (let k = 0; k < repeat; k++) {
      const t = performance.now();
      try {
        const v = judgeEphemeral(c);
        last = v.ok ? { ms: 0, ok: true, ...(v.command === undefined ? {} : { command: v.command }) } : { ms: 0, ok: false, reason: v.reason };
      } catch (e) {
        last = { ms: 0, ok: false, threw: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
      }
      best = Math.min(best, performance.now() - t);
    }
    return { ...last, ms: best };
  });
  parentPort!.postMessage(out);
});
