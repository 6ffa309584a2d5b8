export { SqliteSessionStore, StoreOpenError, SCHEMA_VERSION, BUSY_TIMEOUT_MS } from './sqlite.js';
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
