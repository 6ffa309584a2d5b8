// the SDK's summary fold, loaded with the store as a whole (src/store/fold.ts)
import './fold-eager.js';

export { SqliteSessionStore, SqliteStoreError, StoreOpenError, SCHEMA_VERSION, BUSY_TIMEOUT_MS } from './sqlite.js';
export type { LastContextOptions, StoreOpenFailure } from './sqlite.js';
export {
  projectKeyFor,
  sanitizeProjectPath,
  storeKeyOf,
  parseStoreKey,
  assertKeySegment,
  childRange,
  StoreKeyError,
  PROJECT_KEY_MAX,
} from './keys.js';
export { ViewedStore, spillWriter, DEFAULT_VIEW_POLICY } from './viewed.js';
export type { ViewPolicy, TrimKnobs, ExpireKnobs } from './viewed.js';
export { views, expire, trim, prune, relink, trimReport, isDenialEntry } from './views/index.js';
export type { ViewOptions, ViewReport } from './views/index.js';
export { writeFileAtomic, writeJsonAtomic, readJsonOrKeepAside, keepAside, withFileLock, stamp } from '../state/index.js';
export { openStore } from './open.js';
export type { OpenedStore, OpenStoreOptions, StoreServer, BackendSessions } from './open.js';
export { chooseStore } from './choose.js';
export type { StoreChoice } from './choose.js';
