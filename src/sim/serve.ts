/**
 * What `flower sim --script f.json [--port N]` needs: start a sim from a scenario file with the
 * control endpoints on, and the lines telling the user how to point `claude` at it.
 */
import type { OnUnexpected } from './items.js';
import { loadScenario } from './scenario.js';
import { startSim, type Sim } from './sim.js';

/** The dummy key the sim accepts (it checks no key at all). */
export const SIM_API_KEY = 'sk-sim';

export interface ServeScenarioOptions {
  /** Scenario file; without one the sim answers every call with the default item. */
  file?: string;
  /** Port on 127.0.0.1 (0 or absent = a free one). */
  port?: number;
  /** Overrides the scenario's own setting. */
  onUnexpected?: OnUnexpected;
  logFile?: string;
  verbose?: boolean;
}

/** Start a sim serving `file`, with the `/__sim/*` control endpoints enabled. */
export async function serveScenario(options: ServeScenarioOptions = {}): Promise<Sim> {
  const script = options.file === undefined ? [] : await loadScenario(options.file);
  return startSim({
    port: options.port ?? 0,
    script,
    ...(options.onUnexpected !== undefined && { onUnexpected: options.onUnexpected }),
    ...(options.logFile !== undefined && { logFile: options.logFile }),
    verbose: options.verbose ?? false,
    control: true,
  });
}

/**
 * Environment that points the `claude` binary (or the Agent SDK) at a sim. Non-essential
 * traffic is disabled so that the only calls made are model calls.
 */
export function simEnv(url: string): Record<string, string> {
  return {
    ANTHROPIC_BASE_URL: url,
    ANTHROPIC_API_KEY: SIM_API_KEY,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
}

/** The lines the CLI prints once the sim listens: the URL, the env to export, the control routes. */
export function listeningLines(sim: Pick<Sim, 'url' | 'pending'>, file?: string): string[] {
  const items = sim.pending().length;
  return [
    `flower sim listening on ${sim.url}${file ? ` (script ${file}, ${items} item${items === 1 ? '' : 's'})` : ''}`,
    ...Object.entries(simEnv(sim.url)).map(([k, v]) => `export ${k}=${v}`),
    `control: POST ${sim.url}/__sim/enqueue · GET /__sim/requests · GET /__sim/pending · POST /__sim/reset · POST /__sim/close`,
  ];
}
