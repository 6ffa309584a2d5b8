export { coordinator, worker, clarifier, judge, oracle, READ_TOOLS, WEB_TOOLS, WORKER_TOOLS } from './roles.js';
export type { RoleChannel, CoordinatorOptions, WorkerOptions, ClarifierOptions, JudgeOptions, OracleOptions } from './roles.js';
export { COORDINATOR_RULES, WORKER_RULES, REPORT_CONTRACT, CLARIFIER_RULES, JUDGE_RULES, ORACLE_RULES } from './rules.js';
export type { RuleText } from './rules.js';
export { ROLE_PERMISSION_MODES } from './options.js';
export type { RolePermissionMode, SessionRoleOptions, WorkerRoleOptions, Effort } from './options.js';
