// The SDK's session-summary fold, loaded with the first append rather than with the store's module:
// the SDK is large, and `flower status` / `flower log` open a store only to read it. The async appends
// (what the SDK, the Runtime and `flower store copy` call) load it themselves; the synchronous
// appendSync needs it loaded already — importing the store through src/store/index.ts does that
// (src/store/fold-eager.ts), and so does any earlier async append.
import type { foldSessionSummary } from '@anthropic-ai/claude-agent-sdk';
import { InternalError } from '../errors.js';

export type Fold = typeof foldSessionSummary;

let loaded: Fold | undefined;

/** Hand the fold over when the SDK is imported anyway (src/store/fold-eager.ts). */
export function useFold(f: Fold): void {
  loaded = f;
}

/** The fold, loading the SDK when nothing has yet. */
export async function loadFold(): Promise<Fold> {
  loaded ??= (await import('@anthropic-ai/claude-agent-sdk')).foldSessionSummary;
  return loaded;
}

/** The fold for a synchronous append: a bug when nothing loaded it first. */
export function foldNow(): Fold {
  if (!loaded)
    throw new InternalError(
      'store-fold-not-loaded',
      'appendSync ran before the SDK was loaded: import the store from src/store/index.ts, or await append() first; this is a bug in flower, please report it',
    );
  return loaded;
}
