export { PostgresSessionStore } from './sessions.js';
export type { PgLastContextOptions } from './sessions.js';
export { PgStoreError, isConnectionLoss, classify, targetText } from './errors.js';
export type { PgFailure, PgTarget } from './errors.js';
export { isPostgresUrl, targetOf, redactUrl, acquirePool, releasePool, withClient, inTransaction, CONNECT_TIMEOUT_MS } from './pool.js';
export type { SharedPool } from './pool.js';
export { ensureSchema, PG_SCHEMA_VERSION, PG_SCHEMA, PG_TABLES } from './schema.js';
