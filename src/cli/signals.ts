/**
 * SIGHUP / SIGTERM: the in-flight step goes into the manifest as `killed-by-signal` (with its session
 * id), the children are ended, and the process dies of the same signal. Incident #6: a terminal crash
 * sent SIGHUP, whose default action runs no `finally` — the step was lost.
 */
import { removeConfigDir, type Runtime } from '../runtime/index.js';

export function rescueOnSignals(rt: Runtime): () => void {
  const handlers = new Map<NodeJS.Signals, () => void>();
  for (const sig of ['SIGHUP', 'SIGTERM'] as const) {
    const h = () => {
      rt.rescue('killed-by-signal');
      rt.close();
      removeConfigDir(); // dying of the signal runs no 'exit' handler
      for (const [s, fn] of handlers) process.removeListener(s, fn);
      process.kill(process.pid, sig);
    };
    handlers.set(sig, h);
    process.on(sig, h);
  }
  return () => {
    for (const [s, fn] of handlers) process.removeListener(s, fn);
  };
}
