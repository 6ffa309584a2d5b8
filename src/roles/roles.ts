/**
 * Role factories: coordinator, worker, clarifier, judge, oracle. A role is tools + rules + limits; the
 * walls that make the tools list mean something are hooks (guards/guardHooks), because `allowedTools`
 * only means "no approval needed".
 */
import type { AgentDefinition, McpServerConfig } from '@anthropic-ai/claude-agent-sdk';
import { detectLang, type Lang } from '../config/lang.js';
import { ConfigError } from '../errors.js';
import { isolated } from '../guards/isolate.js';
import { WEB_TOOLS, withWeb } from '../guards/web.js';
import { DEFAULT_WORKER_TOOLS } from '../guards/allowlist.js';
import { withSkills, type SkillSelection } from '../skills/index.js';
import { AgentSpec, type McpServerSource } from '../runtime/spec.js';
import { CLARIFIER_RULES, COORDINATOR_RULES, JUDGE_RULES, ORACLE_RULES, WORKER_RULES, type RuleText } from './rules.js';
import { sessionFields, workerFields, type SessionRoleOptions, type WorkerRoleOptions } from './options.js';

/** A question channel as roles see it (HumanChannel satisfies it). */
export interface RoleChannel {
  /** read once per spec: a HumanChannel hands out a new server instance per read */
  readonly server: McpServerConfig;
  /** full MCP tool names, e.g. `mcp__human__ask` */
  readonly toolNames: readonly string[];
}

export const READ_TOOLS: readonly string[] = Object.freeze(['Read', 'Glob', 'Grep']);
export { WEB_TOOLS };
/** A worker's tools when it names none: the allowlist's default (guards/allowlist.ts), one list. */
export const WORKER_TOOLS: readonly string[] = DEFAULT_WORKER_TOOLS;
/** Gone from the session entirely for roles that must not act: cheaper than a denial, and no temptation. */
const ACTING_TOOLS: readonly string[] = Object.freeze(['Write', 'Edit', 'NotebookEdit', 'Bash', 'Agent', 'TodoWrite']);
/**
 * The coordinator's own tools (its allowlist): dispatch and continue declared workers, read, plan. Its
 * workers' tools are pre-approved for the session by the Runtime (subagents ask the session's rules:
 * measured on 2.1.332, a worker's `node -e …` came back "requires approval" otherwise) and the
 * allowlist hook keeps each thread to its own list.
 */
const COORDINATOR_TOOLS: readonly string[] = Object.freeze(['Agent', 'SendMessage', 'TodoWrite', ...READ_TOOLS]);

const rules = (r: RuleText, lang: Lang, extra = ''): string => (extra.trim() ? `${r[lang]}\n\n${extra.trim()}` : r[lang]);

/** mcpServers entry + tool names for a channel; `keep` filters the tool names. */
function channelParts(
  channel: RoleChannel | undefined,
  keep: (name: string) => boolean = () => true,
): { mcpServers: Record<string, McpServerSource>; tools: string[] } {
  if (!channel) return { mcpServers: {}, tools: [] };
  const names = [...channel.toolNames];
  const servers = new Set(names.map((n) => /^mcp__(.+?)__./.exec(n)?.[1]));
  const key = servers.size === 1 ? [...servers][0] : undefined;
  if (!key) {
    throw new ConfigError('bad-channel', `a channel's toolNames must all be mcp__<server>__<tool> names of one server, got ${JSON.stringify(names)}.`);
  }
  // a factory: an in-process server serves one connection, and a role's spec runs many times
  return { mcpServers: { [key]: () => channel.server }, tools: names.filter(keep) };
}

const notInbox = (n: string): boolean => !n.endsWith('__inbox');

/** A document a role may submit through the channel (`submit_<kind>`). */
export type SubmitKind = 'brief' | 'goal' | 'verdict';

/**
 * Keep only the submit tools of these kinds. Each role submits its own document and no other: a fuzzing
 * model's clarifier called submit_verdict {achieved} and the judge gate took it — work passed that
 * nobody had built (issue 19).
 */
const submitsOnly =
  (kinds: readonly SubmitKind[]) =>
  (n: string): boolean => {
    const m = /__submit_([a-z]+)$/.exec(n);
    return !m || (kinds as readonly string[]).includes(m[1]!);
  };
const uniq = (xs: readonly string[]): string[] => [...new Set(xs)];

export interface CoordinatorOptions extends SessionRoleOptions {
  channel?: RoleChannel;
  /** read-only Bash on the main thread (default true) */
  glance?: boolean;
  lang?: Lang;
  model?: string;
}

/** Decides and dispatches; never does hands-on work itself (delegateOnly: the Runtime installs delegateGuard). */
export function coordinator(name: string, instructions: string, workers: Record<string, AgentDefinition>, o: CoordinatorOptions = {}): AgentSpec {
  const lang = o.lang ?? detectLang();
  const glance = o.glance ?? true;
  // the coordinator asks and reads mail; it submits no document (its handoff has its own tool)
  const ch = channelParts(o.channel, submitsOnly([]));
  return new AgentSpec({
    name,
    instructions: rules(COORDINATOR_RULES, lang, instructions),
    allowedTools: uniq([...COORDINATOR_TOOLS, ...(glance ? ['Bash'] : []), ...ch.tools]),
    delegateOnly: true,
    glance,
    agents: workers,
    mcpServers: ch.mcpServers,
    ...(o.model !== undefined ? { model: o.model } : {}),
    ...sessionFields('coordinator', o, { permissionMode: 'acceptEdits' }),
  });
}

export interface WorkerOptions extends WorkerRoleOptions {
  tools?: readonly string[];
  /** 'inherit' = the coordinator's model */
  model?: string;
  /** append the working rules and the report contract (default true) */
  discipline?: boolean;
  /** its own git worktree (isolateGuard injects `isolation: 'worktree'`) */
  isolate?: boolean;
  lang?: Lang;
  /** skills it may load (default `'all'`: the project's and the person's); `[]` for none */
  skills?: SkillSelection;
  /** plugins whose skills and MCP tools it may use, by `plugin.json` name or folder */
  plugins?: string[];
  /**
   * WebFetch and WebSearch when the run's network is on (`--net on`, the default); never with `--net off`
   * or a host list (guards/web.ts). Default true without `tools`, false with them.
   */
  web?: boolean;
}

/** A subagent definition. With discipline, its prompt ends with the four-section report contract. */
export function worker(description: string, prompt: string, o: WorkerOptions = {}): AgentDefinition {
  if (!description.trim()) throw new ConfigError('bad-spec', 'a worker needs a description: the coordinator picks workers by it.');
  const lang = o.lang ?? detectLang();
  const body = prompt.trim();
  const def: AgentDefinition = {
    description,
    prompt: (o.discipline ?? true) ? (body ? `${body}\n\n${WORKER_RULES[lang]}` : WORKER_RULES[lang]) : body,
    tools: [...(o.tools ?? WORKER_TOOLS)],
    model: o.model ?? 'inherit',
    ...workerFields(o),
  };
  if (o.skills !== undefined || o.plugins !== undefined)
    withSkills(def, { ...(o.skills !== undefined ? { skills: o.skills } : {}), ...(o.plugins ? { plugins: o.plugins } : {}) });
  if (o.web ?? o.tools === undefined) withWeb(def);
  return o.isolate ? isolated(def) : def;
}

export interface ClarifierOptions extends SessionRoleOptions {
  channel?: RoleChannel;
  /** Read/Glob/Grep/WebFetch/WebSearch (default true) */
  canRead?: boolean;
  lang?: Lang;
  instructions?: string;
  model?: string;
}

/** Asks until the request is clear; cannot write, run or dispatch anything. No turn cap: each question is a turn. */
export function clarifier(name: string, o: ClarifierOptions = {}): AgentSpec {
  const lang = o.lang ?? detectLang();
  const only = submitsOnly(['brief']);
  const ch = channelParts(o.channel, (n) => notInbox(n) && only(n));
  return new AgentSpec({
    name,
    instructions: rules(CLARIFIER_RULES, lang, o.instructions),
    allowedTools: uniq([...ch.tools, ...((o.canRead ?? true) ? [...READ_TOOLS, ...WEB_TOOLS] : [])]),
    disallowedTools: [...ACTING_TOOLS],
    mcpServers: ch.mcpServers,
    workbench: false,
    floor: 'read-only',
    ...(o.model !== undefined ? { model: o.model } : {}),
    ...sessionFields('clarifier', o),
  });
}

export interface JudgeOptions extends SessionRoleOptions {
  channel?: RoleChannel;
  /** may run the artifact with Bash (default false) */
  canRun?: boolean;
  lang?: Lang;
  instructions?: string;
  model?: string;
  /** skills it may read (default `'all'`: a skill that says how to check the work makes a better verdict; loading one is read-only) */
  skills?: SkillSelection;
  /** the documents it submits (default the goal and the verdict; the starter flow gives each judge its one) */
  submits?: readonly SubmitKind[];
}

/** Sets goals and gives verdicts; runs things only with canRun. */
export function judge(name: string, o: JudgeOptions = {}): AgentSpec {
  const lang = o.lang ?? detectLang();
  const canRun = o.canRun ?? false;
  const only = submitsOnly(o.submits ?? ['goal', 'verdict']);
  const ch = channelParts(o.channel, (n) => notInbox(n) && only(n));
  return new AgentSpec({
    name,
    instructions: rules(JUDGE_RULES, lang, o.instructions),
    allowedTools: uniq([...ch.tools, ...READ_TOOLS, ...(canRun ? ['Bash'] : [])]),
    disallowedTools: ACTING_TOOLS.filter((t) => !(canRun && t === 'Bash')),
    mcpServers: ch.mcpServers,
    workbench: false,
    skills: o.skills ?? 'all',
    // a fresh session every round: its context never passes to a successor that did not see the artifact
    handoff: false,
    // it may run the artifact, never change it: the workspace stays read-only under the judge's commands
    floor: 'read-only',
    ...(o.model !== undefined ? { model: o.model } : {}),
    ...sessionFields('judge', o),
  });
}

export interface OracleOptions extends SessionRoleOptions {
  /** the session's name (default 'oracle') */
  name?: string;
  /** appended after the oracle's rules */
  instructions?: string;
  lang?: Lang;
  model?: string;
}

/** The side-question answerer: read-only, capped (12 turns, $0.5 by default). */
export function oracle(o: OracleOptions = {}): AgentSpec {
  const lang = o.lang ?? detectLang();
  return new AgentSpec({
    name: o.name ?? 'oracle',
    instructions: rules(ORACLE_RULES, lang, o.instructions),
    allowedTools: [...READ_TOOLS],
    disallowedTools: [...ACTING_TOOLS],
    workbench: false,
    floor: 'read-only',
    ...(o.model !== undefined ? { model: o.model } : {}),
    ...sessionFields('oracle', o, { maxTurns: 12, maxBudgetUsd: 0.5 }),
  });
}
