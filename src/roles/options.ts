/**
 * The options every role factory takes beyond its own (the Python original's `effort`, `max_turns`,
 * `permission_mode`, `compact`, `hooks`, `env`), checked once and turned into AgentSpec fields. The
 * Runtime is what makes them safe: a role's `env` goes through the floor's scrub (runtime/options.ts
 * childEnv), a role's `hooks` run after flower's guards and can neither allow nor rewrite a call
 * (runtime/options.ts buildOptions), and the permission mode is never `bypassPermissions`.
 */
import type { AgentDefinition, PermissionMode } from '@anthropic-ai/claude-agent-sdk';
import { ConfigError } from '../errors.js';
import type { AgentSpecOptions, CompactPolicy, Hooks } from '../runtime/spec.js';

/**
 * The modes a role may run in. `bypassPermissions` is refused: it skips the binary's permission rules,
 * which hold half of flower's path wall (src/runtime/floor.ts); `auto` lets a classifier approve calls.
 */
export type RolePermissionMode = Exclude<PermissionMode, 'bypassPermissions' | 'auto'>;
export const ROLE_PERMISSION_MODES: readonly RolePermissionMode[] = Object.freeze(['default', 'acceptEdits', 'plan', 'dontAsk']);

export type Effort = NonNullable<AgentSpecOptions['effort']>;
const EFFORTS: readonly Effort[] = ['low', 'medium', 'high', 'max'];

/** What a session-running role (coordinator, clarifier, judge, oracle) may also be given. */
export interface SessionRoleOptions {
  /** the model's effort level */
  effort?: Effort;
  /** the SDK's turn cap for one attempt */
  maxTurns?: number;
  /** the SDK's spending cap for one attempt, in US dollars */
  maxBudgetUsd?: number;
  /** never `bypassPermissions` or `auto` (see RolePermissionMode) */
  permissionMode?: RolePermissionMode;
  /** how the child compacts its own context */
  compact?: CompactPolicy;
  /** hooks run after flower's guards, in addition to them; a PreToolUse hook may deny or ask, never allow or rewrite */
  hooks?: Hooks;
  /** extra environment for the child; secrets (by name or value) are dropped by the Runtime unless `passEnv` names them */
  env?: Record<string, string>;
}

/** What a worker (an SDK AgentDefinition) can carry: no hooks, no env, no compaction mode (the session's apply). */
export interface WorkerRoleOptions {
  effort?: Effort;
  maxTurns?: number;
  permissionMode?: RolePermissionMode;
  /** the window at which the worker's own context auto-compacts (AgentDefinition.autoCompactWindow) */
  compact?: { window: number };
}

function checkMode(role: string, mode: unknown): void {
  if (mode !== undefined && !(ROLE_PERMISSION_MODES as readonly unknown[]).includes(mode)) {
    throw new ConfigError(
      'bad-spec',
      `${role}: permissionMode '${String(mode)}' is not one a role may use (${ROLE_PERMISSION_MODES.join(', ')}); flower's walls do not switch off.`,
      { field: 'permissionMode' },
    );
  }
}

function checkEffort(role: string, effort: unknown): void {
  if (effort !== undefined && !(EFFORTS as readonly unknown[]).includes(effort)) {
    throw new ConfigError('bad-spec', `${role}: effort '${String(effort)}' is not one of ${EFFORTS.join(', ')}.`, { field: 'effort' });
  }
}

function checkPositive(role: string, field: string, v: unknown): void {
  if (v !== undefined && !(typeof v === 'number' && v > 0 && Number.isFinite(v))) {
    throw new ConfigError('bad-spec', `${role}: ${field} must be a positive number, got ${String(v)}; leave it out for the default.`, { field });
  }
}

/** The AgentSpec fields for these options (only those given); `defaults` fill what the caller left out. */
export function sessionFields(role: string, o: SessionRoleOptions, defaults: Partial<SessionRoleOptions> = {}): Partial<AgentSpecOptions> {
  const m = { ...defaults, ...defined(o) };
  checkMode(role, m.permissionMode);
  checkEffort(role, m.effort);
  if (m.env !== undefined && !(typeof m.env === 'object' && Object.values(m.env).every((v) => typeof v === 'string'))) {
    throw new ConfigError('bad-spec', `${role}: env must map names to strings.`, { field: 'env' });
  }
  const out: Partial<AgentSpecOptions> = {};
  if (m.effort !== undefined) out.effort = m.effort;
  if (m.maxTurns !== undefined) out.maxTurns = m.maxTurns;
  if (m.maxBudgetUsd !== undefined) out.maxBudgetUsd = m.maxBudgetUsd;
  if (m.permissionMode !== undefined) out.permissionMode = m.permissionMode;
  if (m.compact !== undefined) out.compact = m.compact;
  if (m.hooks !== undefined) out.hooks = m.hooks;
  if (m.env !== undefined) out.env = { ...m.env };
  return out;
}

/** The AgentDefinition fields for a worker's options. */
export function workerFields(o: WorkerRoleOptions): Partial<AgentDefinition> {
  checkMode('worker', o.permissionMode);
  checkEffort('worker', o.effort);
  checkPositive('worker', 'maxTurns', o.maxTurns);
  checkPositive('worker', 'compact.window', o.compact?.window);
  const out: Partial<AgentDefinition> = {};
  if (o.effort !== undefined) out.effort = o.effort;
  if (o.maxTurns !== undefined) out.maxTurns = o.maxTurns;
  if (o.permissionMode !== undefined) out.permissionMode = o.permissionMode;
  if (o.compact !== undefined) out.autoCompactWindow = o.compact.window;
  return out;
}

const defined = <T extends object>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
