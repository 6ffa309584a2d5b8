/**
 * Isolation: a worker marked `isolated()` works in its own git worktree. isolateGuard (PreToolUse on
 * Agent) adds `isolation: 'worktree'` to a call that dispatches such a worker when the call chose neither
 * `cwd` nor `isolation` itself. Merging or removing worktrees is left to the person.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import type { AgentDefinition, HookCallback, HookCallbackMatcher } from '@anthropic-ai/claude-agent-sdk';
import { ConfigError, errorText } from '../errors.js';
import { pass, toolCall } from './common.js';

/**
 * The mark lives on the definition object as a symbol-keyed property: object spread copies it, and JSON
 * (how the SDK hands agents to the binary) drops it, so the binary never sees an unknown field.
 */
export const ISOLATED: unique symbol = Symbol.for('flower.isolated') as never;
type Marked = AgentDefinition & { [ISOLATED]?: boolean };

/** Mark (or unmark) a worker definition as wanting its own worktree. Returns the same object. */
export function isolated<T extends AgentDefinition>(agent: T, flag = true): T {
  (agent as Marked)[ISOLATED] = flag;
  return agent;
}

export function wantsIsolation(agent: AgentDefinition | undefined): boolean {
  return agent !== undefined && (agent as Marked)[ISOLATED] === true;
}

/** The Agent call's input with `isolation: 'worktree'`, or undefined to leave it alone (pure). */
export function isolateDecision(agents: Readonly<Record<string, AgentDefinition>>, toolInput: unknown): Record<string, unknown> | undefined {
  if (!toolInput || typeof toolInput !== 'object') return undefined;
  const i = toolInput as Record<string, unknown>;
  const type = i.subagent_type;
  if (typeof type !== 'string' || !Object.hasOwn(agents, type) || !wantsIsolation(agents[type])) return undefined;
  if (i.cwd !== undefined || i.isolation !== undefined) return undefined;
  return { ...i, isolation: 'worktree' };
}

export interface IsolateOptions {
  /** told about each injection (for an event or a log line) */
  onInject?: (subagentType: string) => void;
}

export function isolateGuard(agents: Readonly<Record<string, AgentDefinition>>, o: IsolateOptions = {}): HookCallbackMatcher {
  const hook: HookCallback = async (input) => {
    const call = toolCall(input);
    if (call?.event !== 'PreToolUse' || call.toolName !== 'Agent') return pass();
    const updated = isolateDecision(agents, call.toolInput);
    if (!updated) return pass();
    o.onInject?.(String(updated.subagent_type));
    return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: updated } };
  };
  return { matcher: 'Agent', hooks: [hook] };
}

/** Throws a ConfigError naming the folder unless `ws` is inside a git work tree (worktrees need one). */
export function requireGitRepo(ws: string): void {
  if (!fs.existsSync(ws)) {
    throw new ConfigError('not-a-git-repo', `--isolate needs the workspace to be a git repository, but ${ws} does not exist.`, { path: ws });
  }
  let out = '';
  try {
    out = execFileSync('git', ['rev-parse', '--is-inside-work-tree'], { cwd: ws, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 }).trim();
  } catch (e) {
    const stderr = (e as { stderr?: unknown }).stderr;
    const why = typeof stderr === 'string' && stderr.trim() ? stderr.trim().split('\n')[0]! : errorText(e);
    throw new ConfigError(
      'not-a-git-repo',
      `--isolate gives each worker a git worktree, but ${ws} is not inside a git work tree (${why}). Run \`git init\` there (and commit), or drop --isolate.`,
      { path: ws, cause: e },
    );
  }
  if (out !== 'true') {
    throw new ConfigError(
      'not-a-git-repo',
      `--isolate gives each worker a git worktree, but ${ws} is not inside a git work tree (git says ${JSON.stringify(out)}). Run \`git init\` there (and commit), or drop --isolate.`,
      { path: ws },
    );
  }
}
