/**
 * The options of one attempt, assembled from everything the Runtime holds for its whole life (the
 * floor, the skills, the workbench, the sandbox policy) and what this attempt is (resume, fork, a new
 * session's id). Taken out of the Runtime so the attempt loop reads options → spawn → …, and so the
 * walls every role gets are built in one place with their inputs in plain sight.
 */
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import type { Lang } from '../config/index.js';
import { agentsForNet, sessionToolsForNet, guardHooks, type GuardedSpec, type NetPolicy, type Workbench } from '../guards/index.js';
import type { RunLayout } from '../state/index.js';
import { event, type EventSink } from './events.js';
import type { Floor } from './floor.js';
import { buildOptions, childEnv, compactEnv, mergeHooks } from './options.js';
import type { SkillKit } from './skills.js';
import type { AgentSpec, Hooks } from './spec.js';
import type { FlowerStore } from './setup.js';

/** What lives as long as the Runtime. */
export interface AttemptBase {
  floor: Floor;
  skills: SkillKit;
  store: FlowerStore;
  layout: RunLayout;
  workspace: string;
  workbench: Workbench | undefined;
  tmpDir: string;
  /** CLAUDE_CODE_MAX_RETRIES for the binary */
  cliRetries: number;
  /** the handoff policy is on: the child's auto-compact goes off unless the spec sets a policy */
  handoff: boolean;
  /** the SDK project key of a named project, for the child's env */
  projectEnv: Record<string, string>;
  sandboxed: boolean;
  net: NetPolicy;
  /** the spill guard's threshold (0 = off) and preview length */
  spill: { threshold: number; head: number };
  detachChildren: boolean;
  lang: Lang;
}

/** What this attempt is. */
export interface AttemptInput {
  spec: AgentSpec;
  prompt: string;
  step: string;
  resume?: string | undefined;
  fork?: boolean | undefined;
  resumeAt?: string | undefined;
  /** the id of a NEW session (chosen by flower, so lineage is written before the child starts) */
  sessionId?: string | undefined;
  hooks?: Hooks | undefined;
  onEvent?: EventSink | undefined;
  /** false for a handoff being written: a handoff in progress is allowed to finish (no budget, no deadline) */
  limited?: boolean | undefined;
  /** the skills this session is given (name and hash), told before the prompt is primed */
  onSkills?: ((record: Array<{ name: string; hash: string }>) => void) | undefined;
}

export interface Assembled {
  options: Options;
  /** the prompt to send: a new session of a workbench spec gets the index in front */
  prompt: string;
}

export function assembleAttempt(b: AttemptBase, a: AttemptInput): Assembled {
  const { step } = a;
  // the workers' web tools follow the run's network (guards/web.ts)
  const spec = forNet(a.spec, b.net);
  const secrets = b.floor.secretValues();
  const env = childEnv({
    base: b.floor.childBase(),
    spec,
    maxRetries: b.cliRetries,
    extra: { ...compactEnv(spec, b.handoff && spec.handoff), ...b.projectEnv },
    tmpDir: b.tmpDir,
    scrub: !b.sandboxed,
    secrets: { names: b.floor.secretNames, values: secrets.all },
  });
  const wb = b.workbench;
  const skills = b.skills.plan(spec);
  // the walls are hooks, never prompt wording: every role gets its guards, whatever the caller passed
  // the sandbox is per session: a coordinator whose workers write gets their floor, and its own glances a read-only one
  const nested = b.sandboxed && spec.delegateOnly && spec.glance && spec.floor === 'workspace';
  const onEvent = a.onEvent;
  const hooks = mergeHooks(
    guardHooks(walledSpec(spec, skills), {
      ...(wb ? { workbench: wb } : {}),
      spillThreshold: b.spill.threshold,
      spillHead: b.spill.head,
      lang: b.lang,
      paths: b.floor.wall,
      trustedServers: inProcessServers(spec),
      // no secret to replace (and no spill): no output hook, so no round trip to flower after every tool call
      ...(secrets.main.length || secrets.all.length ? { secrets: (main: boolean) => (main ? secrets.main : secrets.all) } : {}),
      wrapGlances: nested,
      ...(onEvent
        ? {
            onHookFailure: (why: string) =>
              onEvent({ ...event('error', `${step}: a guard failed and refused the call (${why})`, { step, guard_failed: true }), step }),
          }
        : {}),
    }),
    b.skills.hooks(skills),
    // a run's own hooks are the caller's code at full strength (they may install flower's guards themselves)
    a.hooks,
  );
  const sandbox = b.sandboxed
    ? b.floor.sandbox({
        floor: spec.floor,
        net: b.net,
        nested,
        workbench: wb?.root,
        handoff: (wb ? b.layout.withWorkbench(wb.root) : b.layout).handoff(step),
      })
    : undefined;
  const options = buildOptions({
    spec,
    cwd: b.workspace,
    store: b.store,
    env,
    abortController: new AbortController(),
    ...(a.resume ? { resume: a.resume } : {}),
    ...(a.fork ? { fork: true } : {}),
    ...(a.resumeAt ? { resumeAt: a.resumeAt } : {}),
    ...(a.sessionId ? { sessionId: a.sessionId } : {}),
    ...(hooks ? { hooks } : {}),
    ...(wb?.external ? { additionalDirectories: [wb.root] } : {}),
    ...(b.detachChildren ? { detached: true } : {}),
    ...(sandbox ? { sandbox } : {}),
    settings: b.floor.settings(),
    secretVars: b.floor.secretNames,
    lang: b.lang,
  });
  b.skills.apply(options, skills);
  a.onSkills?.(skills.record);
  let prompt = a.prompt;
  // the index goes into the FIRST user message of a NEW session only (issue #22: in the system
  // prompt it broke the prompt cache; repeated on resume it duplicates)
  if (wb && spec.workbench && !a.resume) {
    safely(() => wb.refresh());
    prompt = wb.prime(prompt);
  }
  return { options, prompt };
}

/** The allowlist knows the tools the skills plan adds (Skill, a plugin's MCP tools), per thread. */
function walledSpec(spec: AgentSpec, skills: ReturnType<SkillKit['plan']>): GuardedSpec {
  return {
    allowedTools: [...spec.allowedTools, ...skills.main.tools],
    disallowedTools: spec.disallowedTools,
    delegateOnly: spec.delegateOnly,
    glance: spec.glance,
    ...(spec.agents
      ? {
          agents: Object.fromEntries(
            Object.entries(spec.agents).map(([type, def]) => {
              const extra = skills.agents[type]?.tools ?? [];
              return [type, extra.length && def.tools ? { ...def, tools: [...def.tools, ...extra] } : def];
            }),
          ),
        }
      : {}),
  };
}

/** The MCP servers of a spec that run inside flower (the human channel, the handoff tool): their arguments are not paths. */
function inProcessServers(spec: AgentSpec): string[] {
  return Object.entries(spec.mcpServers)
    .filter(([, v]) => {
      try {
        return (typeof v === 'function' ? v() : v).type === 'sdk';
      } catch {
        return false;
      }
    })
    .map(([k]) => k);
}

function safely(fn: () => void): void {
  try {
    fn();
  } catch {
    /* the index is a convenience; a failure to refresh it must not stop the step */
  }
}

/** The spec as this run's network allows it: the workers' and the session's own web tools (guards/web.ts). */
function forNet(spec: AgentSpec, net: NetPolicy): AgentSpec {
  const withAgents = spec.agents ? spec.with({ agents: agentsForNet(spec.agents, net) }) : spec;
  const own = sessionToolsForNet(withAgents.allowedTools, withAgents.disallowedTools, net);
  return own ? withAgents.with({ allowedTools: own.allowed, disallowedTools: own.disallowed }) : withAgents;
}
