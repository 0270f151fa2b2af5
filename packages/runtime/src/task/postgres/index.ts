/**
 * @protoc-gen-a2a/runtime/postgres: the PostgreSQL TaskStore for
 * createTaskHandler, its migrations and retention (pruning events and
 * terminal tasks). Needs the `pg` package.
 */
export {
  createPostgresTaskStore,
  DEFAULT_LEASE_MS,
  DEFAULT_LISTEN_IDLE_MS,
  DEFAULT_PIPELINE_CONNECTIONS,
  type PostgresTaskStoreOptions,
} from "./postgres-store.js";
export { LEASE_FAILURE_TEXT } from "./leases.js";
export { openPostgresTaskStore, type OpenPostgresTaskStoreOptions, StoreStartError } from "./open-store.js";
export { LATEST_MIGRATION, migrate, type MigrateOptions, type MigrateResult, type Queryable } from "./migrations.js";
export {
  DEFAULT_EVENTS_TTL_MS,
  DEFAULT_PRUNE_EVERY_MS,
  DEFAULT_TERMINAL_TTL_MS,
  prune,
  pruneEvents,
  type PruneOptions,
  type PruneResult,
  type RetentionOptions,
} from "./prune.js";
export { DEFAULT_SCHEMA } from "./sql-names.js";
