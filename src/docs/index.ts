export {
  headingTable,
  matchHeading,
  outsideFences,
  stripFences,
  normalizeNewlines,
  isPlaceholder,
  cleanBody,
  splitSections,
  parseSections,
  bullets,
  headChars,
} from './sections.js';
export type { AliasSpec, Alias, HeadingTable, HeadingForm, HeadingMatch, Section, Split } from './sections.js';

export { readDocument, writeAtomic, replaceDocument, stamp, clock } from './io.js';
export type { DocumentRead, Written, ReplaceOptions } from './io.js';

export {
  Brief,
  BRIEF_SECTIONS,
  BRIEF_NAMES,
  BRIEF_HEADINGS,
  DEFAULT_AMEND_LABEL,
  WAKE_AMEND_LABEL,
  AMEND_FILE_HEADER,
  briefForeign,
} from './brief.js';
export type { BriefSection, BriefFields, Amendment } from './brief.js';

export { Goal, GOAL_NAMES, GOAL_HEADINGS, UNVERIFIABLE, unverifiableReason, markUnverifiable, goalForeign } from './goal.js';
export type { GoalSection, GoalFields } from './goal.js';

export {
  Verdict,
  VERDICT_NAMES,
  VERDICT_HEADINGS,
  AMBIGUOUS_REASON,
  NO_REASON,
  classifyVerdict,
} from './verdict.js';
export type { VerdictState, CheckResult, VerdictFields } from './verdict.js';
export { reviewVerdict, matchChecks, normalizeCheck } from './review.js';
export type { VerdictReview } from './review.js';

export {
  Handoff,
  HANDOFF_SECTIONS,
  HANDOFF_NAMES,
  HANDOFF_REQUIRED,
  HANDOFF_HEADINGS,
  DEGRADED,
  DEGRADED_SCENE_CHARS,
} from './handoff.js';
export type { HandoffSection, HandoffFields } from './handoff.js';

// the submission tools' zod schemas are in ./schemas.js, imported where a tool server is built: not here,
// so what imports this folder does not load zod (src/docs/schemas.ts says why)
export {
  briefFromSubmission,
  goalFromSubmission,
  verdictFromSubmission,
  handoffFromSubmission,
  fromSubmission,
  CONTRADICTORY_ACHIEVED,
} from './submitted.js';
export type { BriefSubmission, GoalSubmission, VerdictSubmission, HandoffSubmission } from './schemas.js';

export { BEQUEST_BEGIN, BEQUEST_END, REQUEST_CHARS, scanBlock, placeBlock, removeBlock, renderBequest, bequestWhen, lineEnding, oneLine } from './bequest.js';
export type { BlockScan, BlockDamage, Placed, Removed, BequestFacts } from './bequest.js';
