/**
 * Reading a request the way the fuzzing model needs it: which role is asking, where it works, what it
 * has already done, and what it was asked to produce. Everything comes from the request itself — the
 * model keeps no state between calls, so a replayed or concurrent call is answered the same way.
 */
import { contentText } from '../match.js';
import type { ApiContentBlock, SimCall } from '../items.js';

import type { FuzzRole } from './options.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The offered tool whose name ends in `submit_<kind>` (`mcp__human__submit_brief`, …), if any. */
export function submitTool(call: SimCall, kind: 'brief' | 'goal' | 'verdict' | 'handoff'): string | undefined {
  return call.tools.find((t) => t === `submit_${kind}` || t.endsWith(`__submit_${kind}`));
}

/**
 * The role from what flower sends it: a subagent is marked by the harness (`cc_is_subagent`), a
 * handoff round by its prompt, the submitting roles by the tool their first prompt names (the tools
 * offered are the same for all of them), the coordinator by the Agent tool.
 */
export function roleOf(call: SimCall): FuzzRole {
  if (submitTool(call, 'handoff') && call.lastUser.includes('submit_handoff')) return 'handoff';
  if (call.system.includes('cc_is_subagent=true')) return 'worker';
  if (call.firstUser.includes('submit_verdict')) return 'judge';
  if (call.firstUser.includes('submit_goal')) return 'goal';
  if (call.firstUser.includes('submit_brief')) return 'clarify';
  if (call.tools.includes('Agent')) return 'coordinator';
  if (call.tools.includes('Write') || call.tools.includes('Bash')) return 'worker';
  return 'other';
}

/** A tool call the conversation already made, with the result the model was shown (if any yet). */
export interface SeenCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
  result?: { text: string; isError: boolean };
  /** Index of the assistant message that made it. */
  at: number;
}

type Message = { role?: unknown; content?: unknown };
const messagesOf = (call: SimCall): Message[] => (Array.isArray(call.body.messages) ? call.body.messages.filter(isRecord) : []);
const blocksOf = (m: Message): ApiContentBlock[] => (Array.isArray(m.content) ? (m.content.filter(isRecord) as ApiContentBlock[]) : []);
const hasToolResult = (m: Message): boolean => blocksOf(m).some((b) => b.type === 'tool_result');

/** Every tool call in the conversation, oldest first, each with its result. */
export function callsOf(call: SimCall): SeenCall[] {
  const out: SeenCall[] = [];
  const byId = new Map<string, SeenCall>();
  messagesOf(call).forEach((m, at) => {
    for (const b of blocksOf(m)) {
      if (m.role === 'assistant' && b.type === 'tool_use') {
        const seen: SeenCall = { id: String(b.id ?? ''), name: String(b.name ?? ''), input: isRecord(b.input) ? b.input : {}, at };
        out.push(seen);
        byId.set(seen.id, seen);
      } else if (m.role === 'user' && b.type === 'tool_result') {
        const seen = byId.get(String(b.tool_use_id ?? ''));
        if (seen) seen.result = { text: contentText(b.content), isError: b.is_error === true };
      }
    }
  });
  return out;
}

/** Index of the last user message that is a prompt (not tool results): where the current turn began. */
export function turnStart(call: SimCall): number {
  const ms = messagesOf(call);
  for (let i = ms.length - 1; i >= 0; i--) if (ms[i]!.role === 'user' && !hasToolResult(ms[i]!)) return i;
  return 0;
}

/** How many prompts (user messages that are not tool results) the conversation has had: its rounds. */
export const promptCount = (call: SimCall): number => messagesOf(call).filter((m) => m.role === 'user' && !hasToolResult(m)).length;

/** The text of the prompt that began the current turn. */
export const turnPrompt = (call: SimCall): string => contentText(messagesOf(call)[turnStart(call)]?.content);

/** The calls of the current turn (made after the latest prompt). */
export const turnCalls = (call: SimCall): SeenCall[] => {
  const start = turnStart(call);
  return callsOf(call).filter((c) => c.at > start);
};

/** Does the request end with tool results (the model is being shown what its calls returned)? */
export function endsWithToolResult(call: SimCall): boolean {
  const last = messagesOf(call).at(-1);
  return last !== undefined && last.role === 'user' && hasToolResult(last);
}

export const messageCount = (call: SimCall): number => messagesOf(call).length;

/** The folder the harness says the agent works in ("Primary working directory: …"). */
export function workspaceOf(call: SimCall): string | undefined {
  const m = /Primary working directory: ([^\s"\\]+)/.exec(call.raw) ?? /Primary working directory: (\S+)/.exec(call.system);
  return m?.[1];
}

const CHECKLIST_HEADINGS = /^#{1,4}\s*(判定清单|判定条件|验收清单|检查项|判定|checklist|checks)\s*$/i;

/** The checklist items a judge's prompt shows (the lines under the checklist heading). */
export function checklistOf(text: string): string[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => CHECKLIST_HEADINGS.test(l.trim()));
  if (start < 0) return [];
  const items: string[] = [];
  for (const raw of lines.slice(start + 1)) {
    const l = raw.trim();
    if (l.startsWith('#') || l === '---') break;
    const m = /^(?:[-*+]|\d+[.)])\s+(.+)$/.exec(l);
    if (m) items.push(m[1]!.trim());
  }
  return items;
}

/** The notes flower writes itself: never an artifact a worker is asked for. */
const NOTES = new Set(['需求.md', '目标.md', '问答记录.md', 'INDEX.md', 'SKILL.md', 'CLAUDE.md']);
// a name starts at a boundary (space, quote, bracket, colon…): `交接-干活-20261201.md` or `干活#round3.md`
// are pieces of flower's own file names, not names of their own
const FILE_NAME = /(?<![^\s"'`([{<:,;*])((?:[\w-]+\/)*[A-Za-z0-9_][\w-]*\.(?:md|mjs|cjs|js|ts|py|sh|html|txt|json|csv))(?![\w])/g;

/** File names mentioned in a text, in order, without flower's own notes. */
export function filesNamedIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(FILE_NAME)) {
    const name = m[1]!;
    if (!NOTES.has(name.split('/').at(-1)!) && !out.includes(name)) out.push(name);
  }
  return out;
}

/** Agent types the harness lists for the Agent tool; the harness's own come first, flower's last. */
export interface AgentType {
  name: string;
  /** The tools the listing gives it (`*` = all). */
  tools: string[];
}

const BUILTIN_AGENTS = new Set(['claude', 'Explore', 'general-purpose', 'Plan', 'statusline-setup', 'output-style-setup', 'claude-code-guide', 'fork']);

/** The agent types declared by the workflow (not the harness's built-in ones), in listed order. */
export function declaredAgents(call: SimCall): AgentType[] {
  const text = messagesOf(call)
    .map((m) => contentText(m.content))
    .join('\n');
  const at = text.indexOf('Available agent types for the Agent tool:');
  if (at < 0) return [];
  const out: AgentType[] = [];
  for (const line of text.slice(at).split('\n').slice(1)) {
    const m = /^- ([\w.-]+): .*?(?:\(Tools: ([^)]*)\))?$/.exec(line.trim());
    if (!m) break;
    if (BUILTIN_AGENTS.has(m[1]!)) continue;
    out.push({
      name: m[1]!,
      tools: (m[2] ?? '*')
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
    });
  }
  return out;
}

/**
 * A request's text with what changes from run to run taken out — paths (temp folders), anything
 * with a digit (ids, sizes, durations, times) — so that the same conversation hashes the same in
 * every replay of a seed.
 */
export function stableText(text: string): string {
  return text
    .split(/\s+/)
    .filter((w) => w !== '' && !w.includes('/') && !/\d/.test(w))
    .join(' ');
}

/** The `x-stainless-retry-count` the harness sends: a retry of the same request must draw anew. */
export function retryCount(call: SimCall): number {
  const v = call.headers['x-stainless-retry-count'];
  const n = Number(Array.isArray(v) ? v[0] : v);
  return Number.isFinite(n) && n >= 0 ? n : 0;
}
