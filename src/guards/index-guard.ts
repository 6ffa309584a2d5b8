/**
 * indexGuard (PostToolUse Write|Edit, subagents too): a write that lands inside the workbench rebuilds
 * INDEX.md, so the next brief the coordinator writes can point at the new script or note. Writes made
 * through Bash are caught by the refresh the Runtime does before each step.
 */
import path from 'node:path';
import type { HookCallback, HookCallbackMatcher } from '@anthropic-ai/claude-agent-sdk';
import { pass, isWithin, matcherFor, toolCall } from './common.js';

export const INDEX_TOOLS: readonly string[] = Object.freeze(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

/** What indexGuard needs from a Workbench. */
export interface IndexTarget {
  readonly root: string;
  refresh(): unknown;
}

/** The file a write tool touched, from its input. */
export function writtenPath(toolInput: unknown): string | undefined {
  if (!toolInput || typeof toolInput !== 'object') return undefined;
  const i = toolInput as { file_path?: unknown; notebook_path?: unknown };
  const p = i.file_path ?? i.notebook_path;
  return typeof p === 'string' && p ? p : undefined;
}

/** Should this write rebuild the index? (pure) */
export function touchesWorkbench(target: { root: string }, toolInput: unknown, cwd: string): boolean {
  const p = writtenPath(toolInput);
  return p !== undefined && isWithin(path.resolve(cwd, p), target.root);
}

export function indexGuard(target: IndexTarget): HookCallbackMatcher {
  const hook: HookCallback = async (input) => {
    const call = toolCall(input);
    if (call?.event !== 'PostToolUse' || !INDEX_TOOLS.includes(call.toolName)) return pass();
    if (touchesWorkbench(target, call.toolInput, call.cwd)) target.refresh();
    return pass();
  };
  return { matcher: matcherFor(INDEX_TOOLS), hooks: [hook] };
}
