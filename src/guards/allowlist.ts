/**
 * The allowlist wall (PreToolUse, every thread): each role declares the tools it may use, and each
 * declared worker its own (`AgentDefinition.tools`); a call to anything else is denied with a sentence
 * saying what to do instead. Tools the binary adds later are therefore denied by default — the
 * deny-list this replaces let a coordinator use EnterWorktree, CronCreate (durable) and a built-in
 * `general-purpose` agent (issue 10).
 *
 * The hook input says which thread calls: no `agent_id` = the main thread; a subagent's carries
 * `agent_id` and `agent_type` = the name it was dispatched under (verified on binary 2.1.332).
 *
 * Beyond the tool name: an `Agent` call may only name a declared agent; a delegate-only role's own Bash
 * must be a read-only glance (src/glance/ephemeral.ts); no Bash may ask to leave the sandbox; and, in every
 * thread, the path wall (guards/paths) decides what Write / Edit / NotebookEdit and an MCP tool that names
 * a path may write, and what Read / Grep / Glob may read.
 */
import path from 'node:path';
import type { AgentDefinition, HookCallback, HookCallbackMatcher } from '@anthropic-ai/claude-agent-sdk';
import { detectLang, type Lang } from '../config/lang.js';
import { judgeEphemeral } from '../glance/ephemeral.js';
import { deny, HANDS_ON_TOOLS, pass, ruleTool, toolCall } from './common.js';
import { GUARD_TEXT, pathRefusalText, textFor } from './messages.js';
import type { PathRefusal, PathWall } from './paths.js';

/** Harness plumbing every thread needs: loading a deferred tool's schema (MCP tools, Glob, Grep…) changes nothing. */
export const ALWAYS_ALLOWED: readonly string[] = Object.freeze(['ToolSearch']);

/** Tools a worker gets when its definition lists none (the SDK would give it everything). */
export const DEFAULT_WORKER_TOOLS: readonly string[] = Object.freeze(['Read', 'Write', 'Edit', 'Bash', 'Glob', 'Grep']);

/** A set of tool names plus `mcp__server` / `mcp__server__*` prefixes (the SDK's spelling for "all of a server's tools"). */
export interface ToolSet {
  readonly names: ReadonlySet<string>;
  readonly prefixes: readonly string[];
}

export function toolSet(list: readonly string[], minus: readonly string[] = []): ToolSet {
  const names = new Set<string>(ALWAYS_ALLOWED);
  const prefixes: string[] = [];
  for (const rule of list) {
    const t = ruleTool(rule);
    if (!t) continue;
    const rest = t.startsWith('mcp__') ? t.slice(5) : undefined;
    if (rest?.endsWith('__*')) prefixes.push(`mcp__${rest.slice(0, -3)}__`);
    else if (rest !== undefined && rest && !rest.includes('__')) prefixes.push(`mcp__${rest}__`);
    else names.add(t);
  }
  for (const m of minus) names.delete(ruleTool(m));
  return { names, prefixes };
}

export const hasTool = (s: ToolSet, tool: string): boolean => s.names.has(tool) || s.prefixes.some((p) => tool.startsWith(p));

/** Everything the wall decides from, computed once per spec (the hot path only looks things up). */
export interface ToolPolicy {
  /** the role's own tools (main thread) */
  readonly main: ToolSet;
  /** declared agents by name → their tools */
  readonly agents: ReadonlyMap<string, ToolSet>;
  /** the main thread delegates: hands-on tools are refused with "dispatch a worker" */
  readonly delegateOnly: boolean;
  /** the main thread's Bash must be a read-only glance */
  readonly glanceOnly: boolean;
  /** where tools may write and what they may read (absent: the hook decides by name only) */
  readonly paths?: PathWall | undefined;
  /** MCP servers that run inside flower (the human channel, the handoff tool): their arguments are not paths */
  readonly trustedServers: readonly string[];
  /** rewrites an allowed main-thread glance so it runs read-only (sandbox.glanceWrap), when the session's floor is writable */
  readonly wrapGlance?: ((command: string) => string) | undefined;
  readonly lang: Lang;
}

export interface PolicySpec {
  readonly allowedTools: readonly string[];
  readonly disallowedTools?: readonly string[];
  readonly delegateOnly: boolean;
  readonly glance: boolean;
  readonly agents?: Readonly<Record<string, AgentDefinition>> | undefined;
}

export interface PolicyOptions {
  paths?: PathWall | undefined;
  trustedServers?: readonly string[];
  lang?: Lang;
  wrapGlance?: (command: string) => string;
}

export function toolPolicy(spec: PolicySpec, o: PolicyOptions = {}): ToolPolicy {
  const agents = new Map<string, ToolSet>();
  for (const [name, def] of Object.entries(spec.agents ?? {})) {
    agents.set(name, toolSet(def.tools ?? DEFAULT_WORKER_TOOLS, [...(def.disallowedTools ?? []), ...(spec.disallowedTools ?? [])]));
  }
  const main = toolSet(spec.allowedTools, spec.disallowedTools ?? []);
  return {
    main,
    agents,
    delegateOnly: spec.delegateOnly,
    // a delegate-only role without Bash in its list never reaches the classifier: the name check denies first
    glanceOnly: spec.delegateOnly,
    ...(o.paths ? { paths: o.paths } : {}),
    trustedServers: [...(o.trustedServers ?? [])],
    ...(o.wrapGlance ? { wrapGlance: o.wrapGlance } : {}),
    lang: o.lang ?? detectLang(),
  };
}

/**
 * The tools the SDK should pre-approve for this session (`allowedTools`): the role's own plus every
 * declared worker's, because subagents ask the session's rules. The wall narrows each thread to its own.
 */
export function sessionTools(spec: PolicySpec): string[] {
  const out = new Set<string>([...spec.allowedTools, ...ALWAYS_ALLOWED]);
  for (const def of Object.values(spec.agents ?? {})) for (const t of def.tools ?? DEFAULT_WORKER_TOOLS) out.add(t);
  for (const t of spec.disallowedTools ?? []) out.delete(t);
  return [...out];
}

export interface Decision {
  allow: boolean;
  reason?: string;
  /** allowed with this input instead (a glance wrapped read-only) */
  updatedInput?: Record<string, unknown>;
}

const ALLOW: Decision = Object.freeze({ allow: true });
const str = (o: unknown, k: string): string | undefined => {
  const v = o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined;
  return typeof v === 'string' ? v : undefined;
};

/** How long a glance may run (the Bash tool's `timeout`, ms): one that blocks on a pipe or a device ends. */
export const GLANCE_TIMEOUT_MS = 60_000;

/** The tools that write the file their input names, and the field that names it. */
export const WRITE_TOOLS: readonly string[] = Object.freeze(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);
/** The tools that read, and the field that names what they read (Grep and Glob: the root of the search). */
export const READ_TOOLS: readonly string[] = Object.freeze(['Read', 'Grep', 'Glob']);

/** Why this Read / Grep / Glob may not read what it names, or null. A search's own glob is judged by its last segment. */
export function readRefusal(wall: PathWall, tool: string, input: unknown, cwd: string): PathRefusal | null {
  const target = tool === 'Read' ? str(input, 'file_path') : (str(input, 'path') ?? '.');
  if (target === undefined || target === '') return null;
  const r = wall.read(target, cwd);
  if (r) return r;
  const glob = tool === 'Grep' ? str(input, 'glob') : tool === 'Glob' ? str(input, 'pattern') : undefined;
  if (!glob) return null;
  // a literal file name as the glob (`glob: '.env'`) names the file itself
  if (!/[*?[{]/.test(glob)) return wall.read(path.resolve(cwd, target, glob), cwd);
  // a wildcard aimed at `.env` files (`.env*`, `.e*`, `*.env`, `*env*`); the binary's Read rules keep them out
  // of every other search and listing too
  const seg = glob.slice(glob.lastIndexOf('/') + 1);
  const stem = seg.split(/[*?[{]/)[0]!;
  if (/env/i.test(seg.replace(/[*?[\]{}!,]/g, '')) || (stem !== '' && '.env'.startsWith(stem))) {
    return { kind: 'credential', path: path.resolve(cwd, target, glob), place: seg };
  }
  return null;
}

/** The most paths one MCP call may name (each is resolved on disk). */
const MAX_MCP_PATHS = 256;

/** Keys of an MCP tool's arguments that name a path, and values that look like one. */
const PATH_KEY =
  /(^|_)(path|paths|file|files|filename|filepath|file_path|dir|dirs|directory|folder|dest|destination|target|output|out|cwd|root|location|src|source)$/i;
const PATH_VALUE = /^(\/|~\/|\.\.?\/|file:\/\/)/;

/** Every string of an MCP tool's input that names a path (bounded depth). */
export function mcpPaths(input: unknown, home: string, key = '', depth = 0, out: string[] = []): string[] {
  if (depth > 8) return out;
  if (typeof input === 'string') {
    if (PATH_KEY.test(key) || PATH_VALUE.test(input)) {
      const p = input.startsWith('file://') ? input.slice(7) : input.startsWith('~/') ? path.join(home, input.slice(2)) : input;
      if (p) out.push(p);
    }
  } else if (Array.isArray(input)) for (const x of input) mcpPaths(x, home, key, depth + 1, out);
  else if (input && typeof input === 'object') for (const [k, v] of Object.entries(input)) mcpPaths(v, home, k, depth + 1, out);
  return out;
}

/** A tool of an MCP server that runs inside flower (its arguments are not paths; it needs no round trip). */
const trusted = (p: ToolPolicy, tool: string): boolean => p.trustedServers.some((s) => tool.startsWith(`mcp__${s}__`));

const list = (s: ToolSet): string => [...s.names].filter((n) => !ALWAYS_ALLOWED.includes(n)).join(', ') || '(none)';

/** The wall's decision for one call (allocation-free when allowed; only a credential-file check touches the disk). */
export function allowlistDecision(p: ToolPolicy, tool: string, input: unknown, agentType: string | undefined, isSub: boolean, cwd: string): Decision {
  const t = GUARD_TEXT;
  let set = p.main;
  if (isSub) {
    const s = agentType !== undefined ? p.agents.get(agentType) : undefined;
    if (!s) return { allow: false, reason: textFor(t.undeclaredThread, p.lang)(agentType ?? '?') };
    set = s;
  }
  if (!hasTool(set, tool)) {
    if (!isSub && p.delegateOnly && (HANDS_ON_TOOLS.includes(tool) || tool === 'Write' || tool === 'Edit')) {
      return { allow: false, reason: textFor(t.delegate, p.lang)(tool) };
    }
    return { allow: false, reason: textFor(t.notListed, p.lang)(tool, list(set)) };
  }
  switch (tool) {
    case 'Agent': {
      const type = str(input, 'subagent_type') ?? 'general-purpose';
      if (!p.agents.has(type)) return { allow: false, reason: textFor(t.undeclaredAgent, p.lang)(type, [...p.agents.keys()]) };
      return ALLOW;
    }
    case 'Bash': {
      const i = input as { dangerouslyDisableSandbox?: unknown } | undefined;
      if (i && i.dangerouslyDisableSandbox === true) return { allow: false, reason: textFor(t.unsandboxed, p.lang) };
      if (isSub || !p.glanceOnly) return ALLOW;
      const command = str(input, 'command');
      if (command === undefined) return { allow: false, reason: textFor(t.delegate, p.lang)(tool) };
      const v = judgeEphemeral(command);
      if (!v.ok) return { allow: false, reason: textFor(t.delegate, p.lang)(tool) + textFor(t.glance, p.lang)(v.reason) };
      // a glance runs in the foreground, within a minute: a background one nobody reads would run on (`ss -E`)
      if ((input as { run_in_background?: unknown }).run_in_background === true) return { allow: false, reason: textFor(t.glanceBackground, p.lang) };
      // the classifier may have rewritten it (a recursive search with the .env files excluded): that is what runs
      const run = v.command ?? command;
      const wrapped = p.wrapGlance ? p.wrapGlance(run) : run;
      const given = (input as { timeout?: unknown }).timeout;
      const capped = typeof given !== 'number' || !(given > 0) || given > GLANCE_TIMEOUT_MS;
      if (wrapped === command && !capped) return ALLOW;
      return { allow: true, updatedInput: { ...(input as Record<string, unknown>), command: wrapped, ...(capped ? { timeout: GLANCE_TIMEOUT_MS } : {}) } };
    }
    case 'Read':
    case 'Grep':
    case 'Glob': {
      const r = p.paths ? readRefusal(p.paths, tool, input, cwd) : null;
      return r ? { allow: false, reason: pathRefusalText(tool, r, p.lang) } : ALLOW;
    }
    case 'Write':
    case 'Edit':
    case 'MultiEdit':
    case 'NotebookEdit': {
      if (!p.paths) return ALLOW;
      const f = str(input, 'file_path') ?? str(input, 'notebook_path');
      // no file named: the binary refuses the call itself; there is nothing to let through
      if (f === undefined || f === '') return { allow: false, reason: pathRefusalText(tool, { kind: 'unresolvable', path: '(none)' }, p.lang) };
      const r = p.paths.write(f, cwd);
      return r ? { allow: false, reason: pathRefusalText(tool, r, p.lang) } : ALLOW;
    }
    default: {
      if (!p.paths || !tool.startsWith('mcp__') || trusted(p, tool)) return ALLOW;
      const named = mcpPaths(input, p.paths.home);
      // every path is resolved on disk: an input naming thousands would hold the decision for seconds
      if (named.length > MAX_MCP_PATHS)
        return { allow: false, reason: pathRefusalText(tool, { kind: 'unresolvable', path: `${named.length} paths (at most ${MAX_MCP_PATHS})` }, p.lang) };
      for (const f of named) {
        const r = p.paths.write(f, cwd);
        if (r) return { allow: false, reason: pathRefusalText(tool, r, p.lang) };
      }
      return ALLOW;
    }
  }
}

/**
 * Tools the wall need not decide in this session: listed for EVERY thread and checked by nothing but
 * their name (allowlistMatcher leaves them out; under a Runtime the callback shared with the repeat
 * guard, guards/calls, skips them). `Agent` is always checked; `Bash` when the main thread may only
 * glance; with a path wall, every tool that reads or writes a path (the wall decides on the resolved
 * path, the binary's own rules are the second half).
 */
export function unwatchedTools(p: ToolPolicy): string[] {
  const threads = [p.main, ...p.agents.values()];
  const out: string[] = [];
  for (const name of p.main.names) {
    if (name === 'Agent' || (name === 'Bash' && p.glanceOnly)) continue;
    // the path wall looks at every write and every read, in every thread
    if (p.paths && (WRITE_TOOLS.includes(name) || READ_TOOLS.includes(name) || (name.startsWith('mcp__') && !trusted(p, name)))) continue;
    if (threads.every((s) => s.names.has(name))) out.push(name);
  }
  return out.sort();
}

const escapeRegExp = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The hook's matcher: every tool but the unwatched ones (a negative lookahead — a matcher with regex
 * characters is a regex to the binary; verified on 2.1.332 that `^(?!(?:Read|Glob)$)` fires for Bash and
 * not for Read or Glob). An allowlist must see the tools nobody listed, so this never lists names to watch.
 */
export function allowlistMatcher(p: ToolPolicy): string | undefined {
  const skip = unwatchedTools(p);
  return skip.length ? `^(?!(?:${skip.map(escapeRegExp).join('|')})$)` : undefined;
}

/** The wall's PreToolUse callback: it decides every call it is given (the matcher picks which). */
export function allowlistHook(p: ToolPolicy): HookCallback {
  return async (input) => {
    const call = toolCall(input);
    if (call?.event !== 'PreToolUse') return pass();
    const agentType = (input as { agent_type?: unknown }).agent_type;
    const d = allowlistDecision(p, call.toolName, call.toolInput, typeof agentType === 'string' ? agentType : undefined, call.agentId !== undefined, call.cwd);
    if (!d.allow) return deny(d.reason!);
    if (d.updatedInput) return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: d.updatedInput } };
    return pass();
  };
}

/** The PreToolUse hook, for every tool except the unwatched ones. */
export function allowlistGuard(p: ToolPolicy): HookCallbackMatcher {
  const hook = allowlistHook(p);
  const matcher = allowlistMatcher(p);
  return matcher ? { matcher, hooks: [hook] } : { hooks: [hook] };
}

/** A sentence-free check for tests and docs: would `tool` be denied by name alone for this thread? */
export function listedFor(p: ToolPolicy, tool: string, agentType?: string): boolean {
  const set = agentType === undefined ? p.main : p.agents.get(agentType);
  return set !== undefined && hasTool(set, tool);
}
