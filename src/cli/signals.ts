/**
 * SIGHUP / SIGTERM: the in-flight step goes into the manifest as `killed-by-signal` (with its session
 * id), the children are ended, and the process dies of the same signal. Incident #6: a terminal crash
 * sent SIGHUP, whose default action runs no `finally` — the step was lost. The store is closed only
 * once that row (and a session id on its way to it) has been written, at most 3 s later: with
 * PostgreSQL the write is a transaction, and closing the pool at once lost it (issue 25: a fleet
 * worker's killed task showed a work row without its session).
 */
import { removeConfigDir, type Runtime } from '../runtime/index.js';

/** How long a dying process waits for its last rows. */
export const LAST_WRITE_MS = 3000;

export function rescueOnSignals(rt: Runtime): () => void {
  const handlers = new Map<NodeJS.Signals, () => void>();
  let dying = false;
  for (const sig of ['SIGHUP', 'SIGTERM'] as const) {
    const h = () => {
      // a second signal while the last rows are written changes nothing: the first one's death follows
      if (dying) return;
      dying = true;
      const die = () => {
        removeConfigDir(); // dying of the signal runs no 'exit' handler
        for (const [s, fn] of handlers) process.removeListener(s, fn);
        process.kill(process.pid, sig);
      };
      rt.shutdown('killed-by-signal', LAST_WRITE_MS).then(die, die);
    };
    handlers.set(sig, h);
    process.on(sig, h);
  }
  return () => {
    for (const [s, fn] of handlers) process.removeListener(s, fn);
  };
}
