// Runs commands through ephemeral-timing.worker.ts with a watchdog: a batch that does not answer in time
// means the classifier hung, and the worker is terminated.
import { Worker } from 'node:worker_threads';
import type { Timed } from './ephemeral-timing.worker.js';

export type { Timed };

export async function judgeTimed(commands: string[], o: { repeat?: number; watchdogMs?: number } = {}): Promise<Timed[]> {
  // a worker does not inherit tsx's loader: register it, then load the TypeScript worker
  const url = new URL('./ephemeral-timing.worker.ts', import.meta.url).href;
  const boot = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(url)}); })`;
  const worker = new Worker(boot, { eval: true });
  try {
    return await new Promise<Timed[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no verdict within ${o.watchdogMs ?? 20_000} ms: the classifier hangs`)), o.watchdogMs ?? 20_000);
      worker.once('message', (m: Timed[]) => {
        clearTimeout(timer);
        resolve(m);
      });
      worker.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
      worker.postMessage({ commands, repeat: o.repeat ?? 3 });
    });
  } finally {
    await worker.terminate();
  }
}
