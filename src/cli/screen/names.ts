/**
 * Tool calls as people read them. flower's own tools (the `human` MCP server) get plain words —
 * "submitted the brief", "set the goal: 5 checks" — never `mcp__human__submit_brief`; a question is
 * shown by its ask event, so its call is silent. Other tools keep their name and main argument.
 * Pure: (tool, input) in, a mark, a role and words out; null = say nothing at this level.
 */
import type { Role } from './palette.js';
import type { ScreenTexts } from './texts.js';
import { width, wrapBlock } from './wrap.js';

export interface ToolLine {
  mark: string;
  role: Role;
  text: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

const HUMAN = /^mcp__human__(.+)$/;

/** `mcp__server__tool` → `server/tool`; other names unchanged. */
export function shortToolName(tool: string): string {
  const m = /^mcp__([^_]+(?:_[^_]+)*)__(.+)$/.exec(tool);
  return m ? `${m[1]}/${m[2]}` : tool;
}

/** flower's own tool named by `tool`, or null. */
export function humanTool(tool: string): string | null {
  return HUMAN.exec(tool)?.[1] ?? null;
}

export function toolLine(tool: string, input: unknown, text: string, t: ScreenTexts, o: { verbose: boolean }): ToolLine | null {
  const args = isObj(input) ? input : {};
  const own = humanTool(tool);
  if (own !== null && !o.verbose) {
    switch (own) {
      case 'ask':
        return null; // the question itself is printed by its ask event
      case 'inbox':
        return null;
      case 'submit_brief':
        return { mark: '+', role: 'answer', text: t.submittedBrief };
      case 'submit_goal':
        return { mark: '+', role: 'answer', text: t.submittedGoal(Array.isArray(args.checks) ? args.checks.length : 0) };
      case 'submit_verdict':
        return null; // the verdict line (with its pass count and cost) follows
      case 'submit_handoff':
        return { mark: '#', role: 'note', text: t.wroteHandoff };
      default:
        return { mark: '*', role: 'tool', text: own.replace(/_/g, ' ') };
    }
  }
  if (tool === 'Agent' || tool === 'Task') {
    return { mark: '>', role: 'dispatch', text: t.dispatch(str(args.subagent_type) || 'agent', str(args.description)) };
  }
  if (tool === 'TodoWrite' && Array.isArray(args.todos) && !o.verbose) return { mark: '*', role: 'tool', text: t.plan(args.todos.length) };
  const name = o.verbose ? tool : shortToolName(tool);
  return { mark: '*', role: 'tool', text: text ? `${name} ${text}` : name };
}

/** What a rejected call of flower's own submit tool is called ("the brief"), or null for other tools. */
export function submissionLabel(tool: string, t: ScreenTexts): string | null {
  const m = /^submit_(brief|goal|verdict|handoff)$/.exec(humanTool(tool) ?? '');
  return m ? t.docName[m[1] as 'brief' | 'goal' | 'verdict' | 'handoff'] : null;
}

/** How many lines of a shell command the screen shows before it says how many more there are. */
export const COMMAND_LINES = 6;

/**
 * A shell command as a person reads it (a judge running the work, the coordinator checking it): whole,
 * wrapped at `cols` (0: its own lines) under `first` (`* Bash `), continuation lines under the command's
 * start — never cut with `...`. A long one (a heredoc, a script) shows its first `max` lines and then
 * how many more there are.
 */
export function commandLines(first: string, command: string, cols: number, t: ScreenTexts, max = COMMAND_LINES): string[] {
  const pad = ' '.repeat(width(first));
  const lines = wrapBlock(command, cols, first, pad);
  if (lines.length <= max) return lines;
  return [...lines.slice(0, max), `${pad}${t.moreLines(lines.length - max)}`];
}
