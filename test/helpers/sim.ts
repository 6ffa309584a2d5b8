/**
 * One scripted model for a test file: started before its tests, closed after them. The value stands for
 * the started sim (a method or property used before `before()` ran is a bug in the test, and says so).
 */
import { after, before } from 'node:test';
import { startSim, type Sim } from '../../src/sim/index.js';

export function useSim(o: Parameters<typeof startSim>[0] = { port: 0, onUnexpected: 'error' }): Sim {
  let sim: Sim | undefined;
  before(async () => {
    sim = await startSim(o);
  });
  after(async () => {
    await sim?.close();
  });
  return new Proxy({} as Sim, {
    get(_t, key) {
      if (!sim) throw new Error(`the scripted model is used before it started (sim.${String(key)}); use it inside a test`);
      const v = Reflect.get(sim, key, sim) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(sim) : v;
    },
  });
}
