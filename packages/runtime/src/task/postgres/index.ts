/**
 * @protoc-gen-a2a/runtime/postgres: the PostgreSQL TaskStore for
 * createTaskHandler, its migrations and event pruning. Needs the `pg` package.
 */
export { createPostgresTaskStore, DEFAULT_LEASE_MS, type PostgresTaskStoreOptions } from "./postgres-store.js";
export { LEASE_FAILURE_TEXT } from "./leases.js";
export { openPostgresTaskStore, type OpenPostgresTaskStoreOptions, StoreStartError } from "./open-store.js";
export { LATEST_MIGRATION, migrate, type MigrateOptions, type MigrateResult, type Queryable } from "./migrations.js";
export { pruneEvents, type PruneOptions } from "./prune.js";
export { DEFAULT_SCHEMA } from "./sql-names.js";
