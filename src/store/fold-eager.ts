// Importing the store as a whole (src/store/index.ts, the library) loads the SDK's fold at once, so a
// SqliteSessionStore made from there takes a synchronous appendSync from the start (src/store/fold.ts).
import { foldSessionSummary } from '@anthropic-ai/claude-agent-sdk';
import { useFold } from './fold.js';

useFold(foldSessionSummary);
