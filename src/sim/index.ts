/**
 * flower/sim — a scripted Anthropic Messages API on 127.0.0.1 for driving the real `claude`
 * binary offline: tests, the demo, and users' own offline CI. See docs/sim.md.
 */
export { startSim } from './sim.js';
export type { Sim, SimOptions } from './sim.js';
export { serveScenario, listeningLines, simEnv, SIM_API_KEY } from './serve.js';
export type { ServeScenarioOptions } from './serve.js';
export { loadScenario, parseScenario, parseItems } from './scenario.js';
export type { ParseOptions } from './scenario.js';
export { SimError } from './errors.js';
export type { SimErrorCode, SimErrorDetails } from './errors.js';
export {
  matches,
  toSimCall,
  contentText,
  firstUserText,
  lastUserText,
  systemText,
  offeredTools,
  toolResultsOf,
  summarizeItem,
} from './match.js';
export type { ToolResultSeen } from './match.js';
export { DEFAULT_ITEM } from './items.js';
export type {
  ApiContentBlock,
  ApiMessage,
  MessagesRequest,
  Needle,
  OnUnexpected,
  Scenario,
  SimAnswerFields,
  SimCall,
  SimDropItem,
  SimDropMidItem,
  SimErrorItem,
  SimHangItem,
  SimItem,
  SimItemBase,
  SimItemFn,
  SimItemType,
  SimMatch,
  SimMatchSpec,
  SimMessageRecord,
  SimPending,
  SimPredicate,
  SimRawItem,
  SimRequestRecord,
  SimScriptItem,
  SimShutdownItem,
  SimSource,
  SimSseEvent,
  SimSseItem,
  SimTextItem,
  SimToolCall,
  SimToolUseItem,
  SimUsage,
} from './items.js';
export { buildReply, replyEvents, replyMessage, frameEvent, estimateInputTokens } from './sse.js';
export type { Reply, ReplyBlock, SseEvent } from './sse.js';
export { fuzzModel, decide, fingerprintOf, parseFuzzOptions } from './fuzz/model.js';
export type { FuzzDecision, FuzzModel } from './fuzz/model.js';
export { FAULT_KINDS, FUZZ_ROLES } from './fuzz/options.js';
export type { FaultKind, FuzzOptions, FuzzRole } from './fuzz/options.js';
export { FAULTS, DEFAULT_LIMITS } from './fuzz/faults.js';
export type { FaultSpec, FuzzLimits } from './fuzz/faults.js';
export { roleOf as fuzzRoleOf } from './fuzz/read.js';
export { mulberry32 } from './fuzz/rng.js';
