export { starterFlow } from './flow.js';
export type { StarterOptions, StarterFlow } from './flow.js';
export { clarifyStep, goalStep, BRIEF_KEY, MISSING_KEY, GOAL_KEY, VERDICT_KEY, ROUND_KEY } from './steps.js';
export type { FlowChannel, ClarifyStepOptions, GoalStepOptions, StarterStepOptions } from './steps.js';
export { withGoal } from './judge.js';
export type { WithGoalOptions } from './judge.js';
export { texts as starterTexts } from './prompts.js';
