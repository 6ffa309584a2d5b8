/**
 * guardHooks — which guards a spec gets. The one place that decides, so the Runtime only has to call it:
 *
 * - every role gets the allowlist wall (guards/allowlist): its own tools on the main thread, each declared
 *   worker's tools in that worker, `Agent` only to declared workers, a delegate-only role's Bash only as a
 *   read-only glance, and with a path wall (guards/paths) every write and read decided on the resolved
 *   path (HT002: without a wall a judge ran Bash 11 times it was never given; issue 10: a deny-list let
 *   EnterWorktree and CronCreate through; issue 18: Write reached ~/.ssh);
 * - every role: the repeat guard (guards/repeat) — the same call with the same input, again and again, is
 *   refused (issue 19: a model stuck in a loop); it shares the allowlist's callback (guards/calls), so a
 *   tool call costs one round trip to flower, not two;
 * - with workers marked isolated(): isolateGuard;
 * - the output guard (guards/redact) when there are secrets to keep out of outputs or a workbench to
 *   spill into: known secret values replaced, then long outputs spilled;
 * - with a workbench: indexGuard.
 *
 * Every PreToolUse decision fails closed (guards/failclosed): a throw, a rejection or a timeout denies.
 */
import type { AgentDefinition, HookCallbackMatcher, HookEvent } from '@anthropic-ai/claude-agent-sdk';
import type { Lang } from '../config/lang.js';
import { detectLang } from '../config/lang.js';
import { indexGuard } from './index-guard.js';
import { isolateGuard, wantsIsolation } from './isolate.js';
import { SPILL_THRESHOLD } from './spill.js';
import { toolPolicy } from './allowlist.js';
import { toolCallGuard } from './calls.js';
import { failClosed } from './failclosed.js';
import type { PathWall } from './paths.js';
import { outputGuard } from './redact.js';
import { glanceWrap } from './sandbox.js';
import type { Workbench } from './workbench.js';

/** SDK hook matchers by event: what a guard adds to a spec. Owned here, below the runtime; src/runtime/spec.ts re-exports it. */
export type Hooks = Partial<Record<HookEvent, HookCallbackMatcher[]>>;

/** The parts of an AgentSpec the dispatcher reads. */
export interface GuardedSpec {
  readonly allowedTools: readonly string[];
  readonly disallowedTools?: readonly string[];
  readonly delegateOnly: boolean;
  readonly glance: boolean;
  readonly agents?: Readonly<Record<string, AgentDefinition>> | undefined;
}

export interface GuardHooksOptions {
  /** the run's workbench, when it has one (spill + index) */
  workbench?: Workbench | undefined;
  lang?: Lang;
  /** spill threshold (default 4000); 0 turns spilling off */
  spillThreshold?: number;
  spillHead?: number;
  /** where tools may write and what they may read, decided on resolved paths */
  paths?: PathWall | undefined;
  /** MCP servers running inside flower (their arguments are not paths) */
  trustedServers?: readonly string[];
  /** secret values no tool output may show, for the main thread or a subagent (read on each call) */
  secrets?: (mainThread: boolean) => readonly string[];
  /** run the main thread's glances in a read-only bubblewrap of their own (the session's sandbox lets its workers write) */
  wrapGlances?: boolean;
  onIsolate?: (subagentType: string) => void;
  /** told when a decision failed and was turned into a denial */
  onHookFailure?: (why: string) => void;
}

/** The names of the guards guardHooks would install, in order (for logs and tests). */
export function guardPlan(spec: GuardedSpec, o: Pick<GuardHooksOptions, 'workbench' | 'spillThreshold' | 'secrets'> = {}): string[] {
  // every role: the same call again and again is refused, then cut (guards/repeat)
  const plan: string[] = ['allowlist', 'repeat'];
  if (spec.agents && Object.values(spec.agents).some(wantsIsolation)) plan.push('isolate');
  const spills = o.workbench !== undefined && (o.spillThreshold ?? SPILL_THRESHOLD) > 0;
  if (spills || o.secrets) plan.push('output');
  if (o.workbench) plan.push('index');
  return plan;
}

export function guardHooks(spec: GuardedSpec, o: GuardHooksOptions = {}): Hooks {
  const lang = o.lang ?? detectLang();
  const hooks: Hooks = {};
  const closed = { lang, ...(o.onHookFailure ? { onFailure: o.onHookFailure } : {}) };
  const add = (event: 'PreToolUse' | 'PostToolUse', m: NonNullable<Hooks['PreToolUse']>[number]) => {
    (hooks[event] ??= []).push(event === 'PreToolUse' ? failClosed(m, closed) : m);
  };
  const threshold = o.spillThreshold ?? SPILL_THRESHOLD;
  for (const g of guardPlan(spec, o)) {
    switch (g) {
      case 'allowlist':
        // the wall and the repeat guard answer in one callback: one round trip per tool call (guards/calls)
        add(
          'PreToolUse',
          toolCallGuard(
            toolPolicy(spec, {
              lang,
              paths: o.paths,
              ...(o.trustedServers ? { trustedServers: o.trustedServers } : {}),
              ...(o.wrapGlances ? { wrapGlance: glanceWrap } : {}),
            }),
            { lang },
          ),
        );
        break;
      case 'repeat':
        // installed with the allowlist, above: every role gets both
        break;
      case 'isolate':
        add('PreToolUse', isolateGuard(spec.agents ?? {}, o.onIsolate ? { onInject: o.onIsolate } : {}));
        break;
      case 'output':
        add(
          'PostToolUse',
          outputGuard({
            secrets: o.secrets ?? (() => []),
            lang,
            spill: o.workbench && threshold > 0 ? { target: o.workbench, threshold, ...(o.spillHead !== undefined ? { head: o.spillHead } : {}) } : undefined,
          }),
        );
        break;
      case 'index':
        add('PostToolUse', indexGuard(o.workbench!));
        break;
    }
  }
  return hooks;
}
