/**
 * guardHooks — which guards a spec gets. The one place that decides, so the Runtime only has to call it:
 *
 * - every role gets the allowlist wall (guards/allowlist): its own tools on the main thread, each declared
 *   worker's tools in that worker, `Agent` only to declared workers, a delegate-only role's Bash only as a
 *   read-only glance, no credential file through Read/Grep/Glob (HT002: without a wall a judge ran Bash
 *   11 times it was never given; issue 10: a deny-list let EnterWorktree and CronCreate through);
 * - with a workbench: spillGuard (unless the threshold is 0) and indexGuard;
 * - with workers marked isolated(): isolateGuard.
 */
import type { AgentDefinition } from '@anthropic-ai/claude-agent-sdk';
import type { Lang } from '../config/lang.js';
import { detectLang } from '../config/lang.js';
import type { Hooks } from '../runtime/spec.js';
import { indexGuard } from './index-guard.js';
import { isolateGuard, wantsIsolation } from './isolate.js';
import { spillGuard, SPILL_THRESHOLD } from './spill.js';
import { allowlistGuard, toolPolicy } from './allowlist.js';
import { glanceWrap } from './sandbox.js';
import type { Workbench } from './workbench.js';

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
  /** credential files no tool may read (absolute; the Runtime passes every .env flower looks in) */
  secretFiles?: readonly string[];
  /** run the main thread's glances in a read-only bubblewrap of their own (the session's sandbox lets its workers write) */
  wrapGlances?: boolean;
  onIsolate?: (subagentType: string) => void;
}

/** The names of the guards guardHooks would install, in order (for logs and tests). */
export function guardPlan(spec: GuardedSpec, o: Pick<GuardHooksOptions, 'workbench' | 'spillThreshold'> = {}): string[] {
  const plan: string[] = ['allowlist'];
  if (spec.agents && Object.values(spec.agents).some(wantsIsolation)) plan.push('isolate');
  if (o.workbench) {
    if ((o.spillThreshold ?? SPILL_THRESHOLD) > 0) plan.push('spill');
    plan.push('index');
  }
  return plan;
}

export function guardHooks(spec: GuardedSpec, o: GuardHooksOptions = {}): Hooks {
  const lang = o.lang ?? detectLang();
  const hooks: Hooks = {};
  const add = (event: 'PreToolUse' | 'PostToolUse', m: NonNullable<Hooks['PreToolUse']>[number]) => {
    (hooks[event] ??= []).push(m);
  };
  for (const g of guardPlan(spec, o)) {
    switch (g) {
      case 'allowlist': add('PreToolUse', allowlistGuard(toolPolicy(spec, { lang, ...(o.secretFiles ? { secretFiles: o.secretFiles } : {}), ...(o.wrapGlances ? { wrapGlance: glanceWrap } : {}) }))); break;
      case 'isolate': add('PreToolUse', isolateGuard(spec.agents ?? {}, o.onIsolate ? { onInject: o.onIsolate } : {})); break;
      case 'spill': add('PostToolUse', spillGuard(o.workbench!, { threshold: o.spillThreshold ?? SPILL_THRESHOLD, ...(o.spillHead !== undefined ? { head: o.spillHead } : {}), lang })); break;
      case 'index': add('PostToolUse', indexGuard(o.workbench!)); break;
    }
  }
  return hooks;
}
