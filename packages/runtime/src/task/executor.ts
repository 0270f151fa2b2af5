/**
 * The agent's side of createTaskHandler: an executor gets one call per
 * message and publishes what happens, the handler does the rest (task
 * records, history, streams, subscribers, cancel, push delivery).
 *
 *   reply only     call `reply(message)` before anything else and return: the
 *                  SendMessage answer is that message and no task is made
 *   task           `status`, `artifact` and `message` make (or continue) the
 *                  task; the call ends at a terminal state or an interrupted one
 *                  (input-required, auth-required); returning earlier leaves the
 *                  task where it is. Once the call has ended (returned or thrown,
 *                  and its calls settled) the updater takes no more: a call from
 *                  a timer or background work is refused and told to onError
 *   cancel         CancelTask aborts `context.signal`; the task is already
 *                  CANCELED, and what the executor publishes afterwards is dropped
 *   failure        an executor that throws leaves its task FAILED; a throw
 *                  before any task event is the SendMessage's answer: an
 *                  A2AError as thrown (e.g. refusing a contextId it cannot
 *                  accept, A2A §3.4.1), anything else InternalError
 *   caller         `principal` is who sent the message (undefined without
 *                  authentication); what the executor publishes is written
 *                  by the runtime, for no caller (access.ts)
 */
import type { JsonObject } from "@bufbuild/protobuf";
import type { Principal } from "../core/principal.js";
import type { Artifact, Message, SendMessageConfiguration, Task, TaskState } from "./a2a-types.js";

export interface RequestContext {
  /** The client's message; its taskId and contextId are those of the task it belongs to. */
  readonly message: Message;
  /** The task the message continues (a copy as stored), or undefined for a new task. */
  readonly task: Task | undefined;
  /** The id of the task this call makes or continues. */
  readonly taskId: string;
  /**
   * The task's context: for a new task the message's contextId, which may be any string a caller chose (another
   * caller's context too), else a new id. State kept by context is keyed by the caller as well (ownerOf).
   */
  readonly contextId: string;
  /** The tenant of the call ("" without one). */
  readonly tenant: string;
  /** The extension URIs the client declared that the agent card offers. */
  readonly extensions: readonly string[];
  readonly configuration: SendMessageConfiguration | undefined;
  readonly metadata: JsonObject | undefined;
  /** The protocol version of the call, e.g. "1.0" ("0.3" through the version bridge). */
  readonly protocolVersion: string;
  /**
   * The verified caller of the message (HandlerContext.principal); undefined when the server authenticates
   * nothing. The task is owned as createTaskHandler's authorize policy decided (access.ts).
   */
  readonly principal: Principal | undefined;
  /**
   * Aborted when the task is canceled (by any instance sharing the store). It may be aborted already when execute
   * starts (a cancel came first): check `aborted` before waiting for "abort". An executor that rejects with its
   * reason, as fetch(url, { signal }) does, is not reported to onError for it.
   */
  readonly signal: AbortSignal;
}

export interface ArtifactOptions {
  /** Add the parts to the artifact with the same artifactId instead of replacing it. */
  readonly append?: boolean;
  /** This is the artifact's last chunk. */
  readonly lastChunk?: boolean;
  readonly metadata?: JsonObject;
}

/** What an executor publishes; each call resolves once the change is stored and sent to subscribers. */
export interface TaskUpdater {
  /** The task's new state; `message` (an agent message, or text for one) goes with it into the status. */
  status(state: TaskState, message?: Message | string, metadata?: JsonObject): Promise<void>;
  artifact(artifact: Artifact, options?: ArtifactOptions): Promise<void>;
  /** An agent message: the whole answer when nothing else was published, else added to the task's history. */
  reply(message: Message | string): Promise<void>;
}

export interface AgentExecutor {
  execute(context: RequestContext, updater: TaskUpdater): Promise<void>;
}
