/**
 * @protoc-gen-a2a/runtime/task: the task runtime. An agent is an
 * AgentExecutor; createTaskHandler makes it the typed A2A v1.0 handler (and,
 * through the generated version bridge, v0.3) over a TaskStore: in memory
 * here, PostgreSQL in @protoc-gen-a2a/runtime/postgres. Transport-only users
 * never load this entry point.
 */
export {
  createTaskHandler,
  DEFAULT_MAX_LIST_BYTES,
  type ExtendedCardInit,
  type ExtendedCardSource,
  type TaskHandlerOptions,
} from "./task-handler.js";
export { ownerOf, ownerOnly, type TaskAccess, type TaskAuthorizer } from "./access.js";
export type { PushOptions, PushPayload } from "./handler-deps.js";
export {
  createMemoryTaskStore,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_PUSH_CONFIGS_PER_TASK,
  DEFAULT_MAX_TASKS,
  DEFAULT_MAX_TENANT_SHARE,
  type MemoryTaskStore,
  type MemoryTaskStoreOptions,
  type MemoryTaskStoreStats,
} from "./memory-store.js";
export type { AgentExecutor, ArtifactOptions, RequestContext, TaskUpdater } from "./executor.js";
export type { PushAttemptTrace, PushDelivery, PushOutcome, PushSender, PushTrace } from "./push-types.js";
export type { PushStart, TaskTelemetry, TurnStart, TurnTrace } from "./telemetry.js";
export {
  createPushSender,
  NOTIFICATION_TOKEN_HEADER,
  PushDeliveryError,
  pushHeaders,
  type PushFailure,
  type PushSenderOptions,
} from "./push.js";
export type { UrlScreenOptions } from "./url-screen.js";
export { MAX_PUSH_FIELD_LENGTH } from "./push-config-check.js";
export type {
  PushConfigPage,
  StoredPushConfig,
  StoredTask,
  TaskChange,
  TaskCommit,
  TaskEvent,
  TaskPage,
  TaskQuery,
  TaskStore,
  TaskUpdateResult,
  TaskView,
} from "./store.js";
export { DEFAULT_INTERRUPTED_TTL_MS, DEFAULT_TERMINAL_TTL_MS } from "./store.js";
export { INTERRUPTED_STATES, Role, TaskState, TERMINAL_STATES } from "./a2a-types.js";
export type * from "./a2a-types.js";
export { MAX_COMMIT_ATTEMPTS } from "./task-writer.js";
export { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./task-operations.js";
