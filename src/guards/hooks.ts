/**
 * guardHooks — which guards a spec gets. The one place that decides, so the Runtime only has to call it:
 *
 * - a role that does its own work (not delegateOnly) gets whitelistGuard over its allowedTools, workbench
 *   or not (HT002: without it a judge ran Bash 11 times it was never given);
 * - a delegateOnly role gets delegateGuard — always. (The seed installed it only with a workbench, so a
 *   coordinator without one had no wall at all; that was an accident, not a feature.)
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
import { delegateGuard, whitelistGuard } from './wall.js';
import type { Workbench } from './workbench.js';

/** The parts of an AgentSpec the dispatcher reads. */
export interface GuardedSpec {
  readonly allowedTools: readonly string[];
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
  onIsolate?: (subagentType: string) => void;
}

/** The names of the guards guardHooks would install, in order (for logs and tests). */
export function guardPlan(spec: GuardedSpec, o: Pick<GuardHooksOptions, 'workbench' | 'spillThreshold'> = {}): string[] {
  const plan: string[] = [spec.delegateOnly ? 'delegate' : 'whitelist'];
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
      case 'whitelist': add('PreToolUse', whitelistGuard(spec.allowedTools, { lang })); break;
      case 'delegate': add('PreToolUse', delegateGuard({ glance: spec.glance, lang })); break;
      case 'isolate': add('PreToolUse', isolateGuard(spec.agents ?? {}, o.onIsolate ? { onInject: o.onIsolate } : {})); break;
      case 'spill': add('PostToolUse', spillGuard(o.workbench!, { threshold: o.spillThreshold ?? SPILL_THRESHOLD, ...(o.spillHead !== undefined ? { head: o.spillHead } : {}), lang })); break;
      case 'index': add('PostToolUse', indexGuard(o.workbench!)); break;
    }
  }
  return hooks;
}
