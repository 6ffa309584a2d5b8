/**
 * node:crypto, loaded at its first use rather than with the modules that name it. Loading it costs Node
 * some fifteen internal modules, compiled on the spot (as much start-up work as the rest of `flower
 * status`'s builtins together: bench/start.ts), and the modules that need it — run ids, inbox ids, the
 * hashes of skill folders and of long project names — are on the path of every read-only command, which
 * makes no id and (in a folder without skills) no hash.
 */
import type Crypto from 'node:crypto';
import { createRequire } from 'node:module';

let loaded: typeof Crypto | undefined;

/** node:crypto itself (the same object `import crypto from 'node:crypto'` gives), loaded once. */
export function nodeCrypto(): typeof Crypto {
  loaded ??= createRequire(import.meta.url)('node:crypto') as typeof Crypto;
  return loaded;
}
