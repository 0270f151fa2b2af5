/**
 * createTaskHandler: an AgentExecutor and a TaskStore made into the typed
 * A2A v1.0 handler, which the servers of every binding serve as it is, and
 * v0.3 clients reach through the generated version bridge (bridgeToOlder).
 *
 *   operations  send-start.ts and send.ts (SendMessage, SendStreamingMessage),
 *               task-operations.ts (GetTask, ListTasks, CancelTask,
 *               SubscribeToTask), push-configs.ts (only with `push`),
 *               GetExtendedAgentCard (only with `extendedAgentCard`); an
 *               operation left out is answered by the servers with its
 *               capability's error
 *   access      `authorize(principal, context)` (access.ts) says, per call,
 *               in whose name it creates tasks and whose tasks it sees;
 *               default ownerOnly: the caller's own (owner
 *               ownerOf(principal), `scheme/id`, so a server without
 *               authentication sees the tasks of owner ""). To let an admin
 *               scope see all:
 *                 authorize: (p) => ({ owner: ownerOf(p),
 *                   seesAll: p?.scopes.includes("admin") ?? false })
 *               A policy refuses a call by throwing an A2AError (e.g.
 *               "PermissionDeniedError"). A task it does not show is
 *               TaskNotFoundError, as a missing one, on every operation
 *   card        GetExtendedAgentCard needs a caller (S1 §13.3): without a
 *               principal it is UnauthenticatedError; with one,
 *               `extendedAgentCard(principal, context)` answers the card for it
 *   types       the operations are written against the v1.0 shapes of
 *               a2a-types.ts; taskSchemas checks once, here, that the
 *               definition has them, which is what the one cast to
 *               A2aHandler<S> at the end rests on
 *   turns       a message to a task whose turn runs gets the error of the
 *               definition's task-turns rule (api.taskTurns; turns.ts)
 *   telemetry   `telemetry` follows turns, push attempts and store
 *               operations (telemetry.ts); the store is then timed
 *               (timed-store.ts)
 *   failures    what no caller sees (an executor's throw once its task
 *               exists, a push that could not be handed over) goes to onError
 *               (default: logError, stderr)
 */
import type { DescService } from "@bufbuild/protobuf";
import { A2AError } from "../core/a2a-error.js";
import type { Principal } from "../core/principal.js";
import type { A2aHandler, A2aServiceDefinition, HandlerContext } from "../core/definition.js";
import { logError, type OnError } from "../core/report-error.js";
import { ownerOnly, type TaskAuthorizer } from "./access.js";
import type { AgentExecutor } from "./executor.js";
import type { HandlerDeps, PushOptions } from "./handler-deps.js";
import { createMemoryTaskStore } from "./memory-store.js";
import { pushConfigOperations } from "./push-configs.js";
import { createPushDelivery } from "./push-delivery.js";
import { taskSchemas } from "./schemas.js";
import { sendMessage, sendStreamingMessage } from "./send.js";
import type { TaskStore } from "./store.js";
import { cancelTask, getTask, listTasks, subscribeToTask } from "./task-operations.js";
import { TaskHub } from "./task-hub.js";
import type { TaskTelemetry } from "./telemetry.js";
import { timedStore } from "./timed-store.js";
import { createTaskWriter } from "./task-writer.js";

/** The GetExtendedAgentCard method of the generated handler type. */
type ExtendedCardMethod<S> = A2aHandler<S> extends { getExtendedAgentCard?: infer F } ? F : never;

/** What GetExtendedAgentCard answers: the AgentCard's init shape of the definition. */
export type ExtendedCardInit<S> = ExtendedCardMethod<S> extends (...args: never[]) => Promise<infer C> ? C : never;

/** Answers GetExtendedAgentCard for an authenticated caller: the card this principal may see. */
export type ExtendedCardSource<S> = (
  principal: Principal,
  context: HandlerContext,
) => ExtendedCardInit<S> | Promise<ExtendedCardInit<S>>;

export interface TaskHandlerOptions<S extends DescService> {
  /** The A2A v1.0 definition (A2AServiceV1_0 of the generated code); another is refused at once. */
  readonly definition: A2aServiceDefinition<S>;
  readonly executor: AgentExecutor;
  /** Where tasks live; default: createMemoryTaskStore() (one instance). */
  readonly store?: TaskStore;
  /** Push notifications: without it, the push config operations answer PushNotificationNotSupportedError. */
  readonly push?: PushOptions;
  /** Failures no caller sees; default: logError (stderr). */
  readonly onError?: OnError;
  /**
   * Answers GetExtendedAgentCard for a caller with a principal (a call without one is UnauthenticatedError);
   * without the option, ExtendedAgentCardNotConfiguredError.
   */
  readonly extendedAgentCard?: ExtendedCardSource<S>;
  /**
   * Whose tasks a call sees and in whose name it creates them (access.ts); throws to refuse the call.
   * Default ownerOnly: `{ owner: ownerOf(principal), seesAll: false }`, the owner `scheme/id`.
   */
  readonly authorize?: TaskAuthorizer;
  /** New task, context, message and push config ids; default: crypto.randomUUID. */
  readonly idGenerator?: () => string;
  /**
   * Follows each turn (the executor's run), push delivery attempt and store operation (task/telemetry.ts);
   * `otelTaskTelemetry()` of @protoc-gen-a2a/runtime/otel gives one on OpenTelemetry. Default: none.
   */
  readonly telemetry?: TaskTelemetry;
  /**
   * The most bytes one ListTasks page answers, estimated over its tasks as returned (history and artifacts as
   * asked for; memory-size.ts): the page ends before the task that would pass it, the first task always
   * included, and its nextPageToken lists the rest. Bounds what one call holds in memory and writes.
   * Default 8 MiB (DEFAULT_MAX_LIST_BYTES).
   */
  readonly maxListBytes?: number;
}

/** TaskHandlerOptions.maxListBytes by default: 8 MiB. */
export const DEFAULT_MAX_LIST_BYTES = 8 * 1024 * 1024;

function maxListBytesOf(options: { readonly maxListBytes?: number }): number {
  const max = options.maxListBytes ?? DEFAULT_MAX_LIST_BYTES;
  if (!Number.isSafeInteger(max) || max < 1) {
    throw new RangeError(`createTaskHandler: maxListBytes must be a positive integer, got ${max}`);
  }
  return max;
}

/** The error of a message to a busy task, from the definition's task-turns rule (override target api.taskTurns). */
function busyErrorOf(definition: A2aServiceDefinition): string {
  const busyError = definition.taskTurns?.busyError;
  if (busyError === undefined) {
    throw new Error(
      `createTaskHandler: the definition of ${definition.service.typeName} has no task-turns rule ` +
        "(override target api.taskTurns, shipped as entry task-turns): generate it with the shipped overrides, " +
        "or give the target in your override file",
    );
  }
  return busyError;
}

/** GetExtendedAgentCard: refused without a principal (S1 §13.3), else the option's card for the caller. */
function extendedCardOperation<S>(card: ExtendedCardSource<S>) {
  return async (_req: unknown, context: HandlerContext): Promise<ExtendedCardInit<S>> => {
    if (context.principal === undefined) {
      throw new A2AError("UnauthenticatedError", "GetExtendedAgentCard requires authentication");
    }
    return card(context.principal, context);
  };
}

export function createTaskHandler<S extends DescService>(options: TaskHandlerOptions<S>): A2aHandler<S> {
  const schemas = taskSchemas(options.definition);
  const busyError = busyErrorOf(options.definition);
  const onError = options.onError ?? logError;
  const report = (error: unknown, operation: string, context: HandlerContext) => {
    try {
      onError(error, { binding: context.binding, operation, protocolVersion: context.protocolVersion });
    } catch {
      // A failing reporter must not change the task.
    }
  };
  const telemetry = options.telemetry;
  const given = options.store ?? createMemoryTaskStore();
  const store = telemetry ? timedStore(given, telemetry) : given;
  const push = options.push;
  const afterCommit = push
    ? createPushDelivery(store, push, schemas, {
        report: (e, origin) => report(e, origin.operation, origin.context),
        telemetry,
      })
    : () => undefined;
  const deps: HandlerDeps = {
    store,
    hub: new TaskHub(store),
    writer: createTaskWriter(store, afterCommit),
    executor: options.executor,
    push,
    newId: options.idGenerator ?? (() => crypto.randomUUID()),
    report,
    busyError,
    authorize: options.authorize ?? ownerOnly,
    telemetry,
    maxListBytes: maxListBytesOf(options),
  };
  const card = options.extendedAgentCard;
  const handler = {
    sendMessage: sendMessage.bind(undefined, deps),
    sendStreamingMessage: sendStreamingMessage.bind(undefined, deps),
    getTask: getTask.bind(undefined, deps),
    listTasks: listTasks.bind(undefined, deps),
    cancelTask: cancelTask.bind(undefined, deps),
    subscribeToTask: subscribeToTask.bind(undefined, deps),
    ...(push ? pushConfigOperations(deps, push) : {}),
    ...(card ? { getExtendedAgentCard: extendedCardOperation(card) } : {}),
  };
  // Sound by taskSchemas: the definition is lf.a2a.v1.A2AService with the methods and fields these shapes name.
  return handler as unknown as A2aHandler<S>;
}
