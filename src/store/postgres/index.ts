export { PostgresSessionStore, READ_WAIT_MS, END_GRACE_MS } from './sessions.js';
export type { PgLastContextOptions, PgStoreOptions } from './sessions.js';
export { PgStoreError, isConnectionLoss, asPgStoreError, targetText } from './errors.js';
export type { PgFailure, PgTarget } from './errors.js';
export { isPostgresUrl, targetOf, redactUrl, acquirePool, releasePool, withClient, inTransaction, CONNECT_TIMEOUT_MS } from './pool.js';
export type { SharedPool } from './pool.js';
export { ensureSchema, PG_SCHEMA_VERSION, PG_SCHEMA, PG_TABLES } from './schema.js';
export { PostgresRunRecords, RECORDS_WAIT_MS } from './records.js';
export { PostgresInbox, PG_INBOX_POLL_MS } from './inbox.js';
