/**
 * The web tools of workers follow the run's network: a worker made by `worker()` gets WebFetch and
 * WebSearch when the run's `net` is 'on' (`--net on`, the default), and no worker has them otherwise —
 * not with `--net off`, and not with a host list either: the binary fetches for WebFetch itself, outside
 * the sandbox's proxy, so a host list would not hold for it. The same holds for a session's own tools
 * (the clarifier reads the web): without the network they are taken out and denied (`sessionToolsForNet`).
 */
import type { AgentDefinition } from '@anthropic-ai/claude-agent-sdk';
import { DEFAULT_WORKER_TOOLS as DEFAULT_TOOLS } from './allowlist.js';
import type { NetPolicy } from './sandbox.js';

export const WEB_TOOLS: readonly string[] = Object.freeze(['WebFetch', 'WebSearch']);

/** Like ISOLATED (guards/isolate.ts): a symbol-keyed mark, copied by spread, dropped by JSON. */
export const WEB: unique symbol = Symbol.for('flower.web') as never;
type Marked = AgentDefinition & { [WEB]?: boolean };

/** Mark (or unmark) a worker definition as wanting the web tools when the run has the network. Returns the same object. */
export function withWeb<T extends AgentDefinition>(agent: T, flag = true): T {
  (agent as Marked)[WEB] = flag;
  return agent;
}

export function wantsWeb(agent: AgentDefinition | undefined): boolean {
  return agent !== undefined && (agent as Marked)[WEB] === true;
}

const isWeb = (t: string): boolean => WEB_TOOLS.includes(t.split('(')[0]!.trim());

/** The agents as this run gives them: with the web tools (net 'on', marked agents) or without any (pure). */
export function agentsForNet(agents: Readonly<Record<string, AgentDefinition>>, net: NetPolicy): Record<string, AgentDefinition> {
  const out: Record<string, AgentDefinition> = {};
  for (const [type, def] of Object.entries(agents)) {
    const tools = def.tools ?? [...DEFAULT_TOOLS];
    const next = net === 'on' ? (wantsWeb(def) ? [...new Set([...tools, ...WEB_TOOLS])] : tools) : tools.filter((t) => !isWeb(t));
    const same = def.tools !== undefined && next.length === def.tools.length && next.every((t, i) => t === def.tools![i]);
    out[type] = same || (def.tools === undefined && next.length === DEFAULT_TOOLS.length) ? def : { ...def, tools: next };
  }
  return out;
}

/**
 * A session's own tool lists as this run gives them: unchanged with the network on; otherwise the web
 * tools are taken out of `allowed` and added to `disallowed`, so neither an allow rule nor a permission
 * mode can bring them back (pure).
 */
export function sessionToolsForNet(
  allowed: readonly string[],
  disallowed: readonly string[],
  net: NetPolicy,
): { allowed: string[]; disallowed: string[] } | null {
  if (net === 'on') return null;
  return { allowed: allowed.filter((t) => !isWeb(t)), disallowed: [...new Set([...disallowed, ...WEB_TOOLS])] };
}
