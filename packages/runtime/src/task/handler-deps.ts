/**
 * What the operations of createTaskHandler share: the store, its listeners and its writer,
 * the executor, push options, the id generator, the error reporter and the
 * authorize policy; and the rules every operation scopes its keys by: the
 * tenant is the call's (route or request, HandlerContext.tenant), else the
 * request's field, else ""; the owner is the policy's (access.ts).
 */
import type { HandlerContext } from "../core/definition.js";
import { callScope, type CallScope, type TaskAuthorizer } from "./access.js";
import type { StreamResponse, Task } from "./a2a-types.js";
import type { AgentExecutor } from "./executor.js";
import type { PushSender } from "./push-types.js";
import type { TaskStore } from "./store.js";
import type { TaskHub } from "./task-hub.js";
import type { TaskTelemetry } from "./telemetry.js";
import type { TaskWriter } from "./task-writer.js";

/** Writes one update as the JSON body of a push in one protocol version. */
export type PushPayload = (event: StreamResponse, task: Task) => unknown;

export interface PushOptions {
  readonly sender: PushSender;
  /**
   * The body of a push, per protocol version of the call that created the config. "1.0" defaults to the
   * ProtoJSON of the StreamResponse; give the generated a2a_compat's `olderPushPayloads` (its "0.3": the Task
   * in a2a.json) to deliver to configs made by v0.3 calls through the version bridge.
   */
  readonly payload?: Readonly<Record<string, PushPayload>>;
}

export interface HandlerDeps {
  readonly store: TaskStore;
  /** The handler's listeners on the store's task events. */
  readonly hub: TaskHub;
  readonly writer: TaskWriter;
  readonly executor: AgentExecutor;
  readonly push: PushOptions | undefined;
  readonly newId: () => string;
  /** Tells onError about a failure no caller sees, with the operation and the call it came from. */
  readonly report: (error: unknown, operation: string, context: HandlerContext) => void;
  /** The catalog error of a message sent to a task whose turn is running (the definition's api.taskTurns). */
  readonly busyError: string;
  /** Whose tasks a call sees and in whose name it creates them (access.ts). */
  readonly authorize: TaskAuthorizer;
  /** Follows turns, pushes and store operations (telemetry.ts); undefined: nothing is traced. */
  readonly telemetry: TaskTelemetry | undefined;
  /** The most estimated bytes a ListTasks page answers (TaskHandlerOptions.maxListBytes). */
  readonly maxListBytes: number;
}

export function tenantOf(context: HandlerContext, request: { readonly tenant: string }): string {
  return context.tenant ?? request.tenant;
}

/** The call's owner and the owner its reads are scoped by, from the authorize policy (which may refuse). */
export function scopeOf(deps: HandlerDeps, context: HandlerContext, operation: string): Promise<CallScope> {
  return callScope(deps.authorize, context, operation);
}
