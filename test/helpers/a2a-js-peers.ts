/**
 * Reusable @a2a-js/sdk peers for interop tests.
 *
 * Two reference agents (servers) and two client wrappers, built from the two
 * installed versions of the official JavaScript SDK:
 *
 *   - `@a2a-js/sdk`   1.3.0  → A2A protocol v1.0 (`startA2aJsV10Agent`, `a2aJsV10Client*`)
 *   - `a2a-js-v03`    (npm alias of `@a2a-js/sdk@0.3.14`) → A2A protocol v0.3
 *                              (`startA2aJsV03Agent`, `a2aJsV03Client*`)
 *
 * Both agents serve all three bindings (JSON-RPC, HTTP+JSON/REST, gRPC): 0.3.14
 * does ship an Express REST handler and a gRPC service, so nothing is missing.
 * Everything binds 127.0.0.1 only, on ephemeral ports.
 *
 * URL layout of a started agent (PORT = HTTP port, GPORT = gRPC port):
 *
 *   cardUrl    http://127.0.0.1:PORT/.well-known/agent-card.json
 *   jsonrpcUrl http://127.0.0.1:PORT/a2a/jsonrpc        (every JSON-RPC call is a POST to exactly this URL)
 *   restUrl    http://127.0.0.1:PORT/a2a/rest           (base URL, no trailing slash)
 *                v1.0 (1.3.0): routes sit directly under it, no version prefix:
 *                  POST {restUrl}/message:send, POST {restUrl}/message:stream,
 *                  GET {restUrl}/tasks/{id}?historyLength=N, GET {restUrl}/tasks?…,
 *                  POST {restUrl}/tasks/{id}:cancel, POST|GET {restUrl}/tasks/{id}:subscribe,
 *                  POST|GET {restUrl}/tasks/{id}/pushNotificationConfigs,
 *                  GET|DELETE {restUrl}/tasks/{id}/pushNotificationConfigs/{configId},
 *                  GET {restUrl}/extendedAgentCard
 *                  (and every route again under /{tenant}/…)
 *                v0.3 (0.3.14): routes are under a "/v1" prefix that the client adds itself:
 *                  POST {restUrl}/v1/message:send, GET {restUrl}/v1/card, GET {restUrl}/v1/tasks/{id}, …
 *   grpcUrl    127.0.0.1:GPORT   (plain "host:port", no scheme — that is what the SDK's
 *                gRPC transports hand to @grpc/grpc-js; insecure credentials)
 *                v1.0 service: /lf.a2a.v1.A2AService/*, v0.3 service: /a2a.v1.A2AService/*
 *
 * Executor behaviour (both agents): for a user message with text T it publishes
 * a Task (SUBMITTED), a status update WORKING, an artifact update with one
 * artifact whose single text part is T, and a final status update COMPLETED.
 * If T is exactly "wait", it stops after WORKING and keeps the task there until
 * it is canceled (CancelTask publishes the CANCELED status update). Send "wait"
 * with `{ blocking: false }`, otherwise a blocking send would hang until cancel.
 *
 * Client wrappers return the raw SDK objects (1.3.0: ts-proto objects such as
 * `{ payload: { $case: "statusUpdate", value } }`, numeric `TaskState`; 0.3.14:
 * v0.3 JSON objects with `kind`), and let SDK errors propagate unchanged. Use
 * `summarizeEvent`/`stateOf`/`artifactTexts` to compare across versions and
 * `describeA2aJsError` to read errors.
 */
import { createServer, type IncomingHttpHeaders, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import * as grpc from "@grpc/grpc-js";

// ---- @a2a-js/sdk 1.3.0 (protocol v1.0) ----
import { Role, TaskState, type AgentCard, type Message } from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";
import { A2AService, grpcService, UserBuilder as GrpcUserBuilder } from "@a2a-js/sdk/server/grpc";
import {
  ClientFactory,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type BeforeArgs,
  type Client,
} from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";

// ---- a2a-js-v03 = @a2a-js/sdk 0.3.14 (protocol v0.3) ----
import type {
  AgentCard as V03AgentCard,
  Message as V03Message,
  Task as V03Task,
  TaskArtifactUpdateEvent as V03ArtifactUpdate,
  TaskStatusUpdateEvent as V03StatusUpdate,
} from "a2a-js-v03";
import {
  DefaultRequestHandler as V03DefaultRequestHandler,
  InMemoryPushNotificationStore as V03InMemoryPushNotificationStore,
  InMemoryTaskStore as V03InMemoryTaskStore,
  type AgentExecutor as V03AgentExecutor,
  type ExecutionEventBus as V03ExecutionEventBus,
  type RequestContext as V03RequestContext,
} from "a2a-js-v03/server";
import {
  agentCardHandler as v03AgentCardHandler,
  jsonRpcHandler as v03JsonRpcHandler,
  restHandler as v03RestHandler,
  UserBuilder as V03UserBuilder,
} from "a2a-js-v03/server/express";
import {
  A2AService as V03A2AService,
  grpcService as v03GrpcService,
  UserBuilder as V03GrpcUserBuilder,
} from "a2a-js-v03/server/grpc";
import {
  ClientFactory as V03ClientFactory,
  JsonRpcTransportFactory as V03JsonRpcTransportFactory,
  RestTransportFactory as V03RestTransportFactory,
  type BeforeArgs as V03BeforeArgs,
  type Client as V03Client,
} from "a2a-js-v03/client";
import { GrpcTransportFactory as V03GrpcTransportFactory } from "a2a-js-v03/client/grpc";

// express 5 is installed without type declarations (no @types/express); load it untyped.
type ExpressApp = ((req: unknown, res: unknown) => void) & { use(...args: unknown[]): unknown };
type ExpressMiddleware = (
  req: { method: string; originalUrl: string; headers: IncomingHttpHeaders },
  res: unknown,
  next: () => void,
) => void;
const express = createRequire(import.meta.url)("express") as () => ExpressApp;

export type A2aBinding = "JSONRPC" | "HTTP+JSON" | "GRPC";
export const ALL_BINDINGS: readonly A2aBinding[] = ["JSONRPC", "HTTP+JSON", "GRPC"];

/** One HTTP request seen by a started agent (gRPC calls are not logged). */
export interface RecordedRequest {
  method: string;
  /** Path + query as received, e.g. "/a2a/rest/tasks/abc:cancel". */
  url: string;
  headers: IncomingHttpHeaders;
}

export interface A2aJsAgent {
  /** "1.0" for the 1.3.0 agent, "0.3" for the 0.3.14 agent. */
  version: "1.0" | "0.3";
  /** http://127.0.0.1:PORT (no trailing slash). */
  baseUrl: string;
  /** http://127.0.0.1:PORT/.well-known/agent-card.json */
  cardUrl: string;
  /** http://127.0.0.1:PORT/a2a/jsonrpc — POST every JSON-RPC request here. */
  jsonrpcUrl: string;
  /** http://127.0.0.1:PORT/a2a/rest — REST base URL (1.0 routes directly below, 0.3 routes below "/v1"). */
  restUrl: string;
  /** "127.0.0.1:GPORT" (no scheme). */
  grpcUrl?: string;
  /** The (public) agent card object as served at cardUrl. */
  card: unknown;
  /** The card returned by the extended/authenticated card operation. */
  extendedCard: unknown;
  /** Every HTTP request the agent received, in order (for header/route assertions). */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export const AGENT_NAME_V10 = "a2a-js 1.3.0 echo agent";
export const AGENT_NAME_V03 = "a2a-js 0.3.14 echo agent";
/** Suffix the extended card adds to the agent name (both versions). */
export const EXTENDED_SUFFIX = " (extended)";
/** Extra skill id that only the extended card has (both versions). */
export const EXTENDED_SKILL_ID = "extended-only";

const HOST = "127.0.0.1";

// ---------------------------------------------------------------------------
// Shared server plumbing
// ---------------------------------------------------------------------------

interface Listening {
  http: HttpServer;
  grpcServer: grpc.Server;
  port: number;
  grpcPort: number;
}

async function listen(app: ExpressApp, grpcServer: grpc.Server): Promise<Listening> {
  const http = createServer(app);
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(0, HOST, () => resolve());
  });
  const port = (http.address() as AddressInfo).port;
  const grpcPort = await new Promise<number>((resolve, reject) => {
    grpcServer.bindAsync(`${HOST}:0`, grpc.ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    );
  });
  return { http, grpcServer, port, grpcPort };
}

async function shutdown(l: Listening, beforeClose: () => void): Promise<void> {
  beforeClose();
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      l.grpcServer.forceShutdown();
      resolve();
    }, 2000);
    l.grpcServer.tryShutdown(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  await new Promise<void>((resolve) => {
    l.http.closeAllConnections();
    l.http.close(() => resolve());
  });
}

function recordRequests(requests: RecordedRequest[]): ExpressMiddleware {
  return (req, _res, next) => {
    requests.push({ method: req.method, url: req.originalUrl, headers: { ...req.headers } });
    next();
  };
}

/** Parked "wait" tasks: taskId → release function. */
class Waiters {
  private readonly map = new Map<string, () => void>();
  park(taskId: string): Promise<void> {
    return new Promise<void>((resolve) => this.map.set(taskId, resolve));
  }
  release(taskId: string): void {
    const r = this.map.get(taskId);
    this.map.delete(taskId);
    r?.();
  }
  releaseAll(): void {
    for (const id of [...this.map.keys()]) this.release(id);
  }
}

// ---------------------------------------------------------------------------
// v1.0 agent (@a2a-js/sdk 1.3.0)
// ---------------------------------------------------------------------------

function v10Text(message: Message | undefined): string {
  return (message?.parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");
}

function v10Status(state: TaskState) {
  return { state, message: undefined, timestamp: new Date().toISOString() };
}

class V10EchoExecutor implements AgentExecutor {
  readonly waiters = new Waiters();

  execute = async (ctx: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = ctx;
    const text = v10Text(ctx.userMessage);
    // The first event of every execute() call must be a Task (or a Message).
    bus.publish(
      AgentEvent.task({
        id: taskId,
        contextId,
        status: v10Status(TaskState.TASK_STATE_SUBMITTED),
        artifacts: [],
        history: ctx.task ? ctx.task.history : [ctx.userMessage],
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: v10Status(TaskState.TASK_STATE_WORKING),
        metadata: undefined,
      }),
    );
    if (text === "wait") {
      // cancelTask() publishes CANCELED and releases us; nothing more to publish.
      await this.waiters.park(taskId);
      return;
    }
    bus.publish(
      AgentEvent.artifactUpdate({
        taskId,
        contextId,
        artifact: {
          artifactId: `echo-${randomUUID()}`,
          name: "echo",
          description: "",
          parts: [
            { content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" },
          ],
          metadata: undefined,
          extensions: [],
        },
        append: false,
        lastChunk: true,
        metadata: undefined,
      }),
    );
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: v10Status(TaskState.TASK_STATE_COMPLETED),
        metadata: undefined,
      }),
    );
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    // contextId is not handed to cancelTask; the SDK merges the update into the stored task by taskId.
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId: "",
        status: v10Status(TaskState.TASK_STATE_CANCELED),
        metadata: undefined,
      }),
    );
    this.waiters.release(taskId);
  };
}

function v10Skill(id: string, name: string) {
  return {
    id,
    name,
    description: `${name} skill`,
    tags: [id],
    examples: [],
    inputModes: ["text/plain"],
    outputModes: ["text/plain"],
    securityRequirements: [],
  };
}

/**
 * Starts an @a2a-js/sdk 1.3.0 agent serving JSON-RPC, HTTP+JSON and gRPC on 127.0.0.1
 * (HTTP and gRPC on two ephemeral ports). In-memory task store, push notifications on
 * (in-memory config store, default sender), extended card configured. The v0.3 compat
 * layer is NOT enabled: the card declares only protocolVersion "1.0" interfaces, so a
 * request without `A2A-Version: 1.0` (the SDK defaults a missing header to "0.3") is
 * rejected with VersionNotSupportedError.
 */
export async function startA2aJsV10Agent(): Promise<A2aJsAgent> {
  const executor = new V10EchoExecutor();
  const requests: RecordedRequest[] = [];
  // URLs are filled in once the ports are known; the SDK keeps a reference to this object.
  const card: AgentCard = {
    name: AGENT_NAME_V10,
    description: "Echo agent built with @a2a-js/sdk 1.3.0 for interop tests",
    supportedInterfaces: [
      { url: "", protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
      { url: "", protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: "1.0" },
      { url: "", protocolBinding: "GRPC", tenant: "", protocolVersion: "1.0" },
    ],
    provider: { organization: "interop-tests", url: "https://example.invalid" },
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: true },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [v10Skill("echo", "Echo")],
    signatures: [],
  };
  const extendedCard = (): AgentCard => ({
    ...card,
    name: card.name + EXTENDED_SUFFIX,
    skills: [...card.skills, v10Skill(EXTENDED_SKILL_ID, "Extended only")],
  });
  const pushStore = new InMemoryPushNotificationStore();
  const requestHandler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    executor,
    undefined,
    pushStore,
    undefined, // DefaultPushNotificationSender over pushStore
    async () => extendedCard(),
  );

  const app = express();
  app.use(recordRequests(requests));
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: requestHandler }));
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));
  app.use("/a2a/rest", restHandler({ requestHandler, userBuilder: UserBuilder.noAuthentication }));

  const grpcServer = new grpc.Server();
  grpcServer.addService(A2AService, grpcService({ requestHandler, userBuilder: GrpcUserBuilder.noAuthentication }));

  const l = await listen(app, grpcServer);
  const baseUrl = `http://${HOST}:${l.port}`;
  const jsonrpcUrl = `${baseUrl}/a2a/jsonrpc`;
  const restUrl = `${baseUrl}/a2a/rest`;
  const grpcUrl = `${HOST}:${l.grpcPort}`;
  card.supportedInterfaces[0]!.url = jsonrpcUrl;
  card.supportedInterfaces[1]!.url = restUrl;
  card.supportedInterfaces[2]!.url = grpcUrl;

  return {
    version: "1.0",
    baseUrl,
    cardUrl: `${baseUrl}/.well-known/agent-card.json`,
    jsonrpcUrl,
    restUrl,
    grpcUrl,
    card,
    extendedCard: extendedCard(),
    requests,
    close: () => shutdown(l, () => executor.waiters.releaseAll()),
  };
}

// ---------------------------------------------------------------------------
// v0.3 agent (a2a-js-v03 = @a2a-js/sdk 0.3.14)
// ---------------------------------------------------------------------------

function v03Text(message: V03Message | undefined): string {
  return (message?.parts ?? []).map((p) => (p.kind === "text" ? p.text : "")).join("");
}

class V03EchoExecutor implements V03AgentExecutor {
  readonly waiters = new Waiters();

  execute = async (ctx: V03RequestContext, bus: V03ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = ctx;
    const text = v03Text(ctx.userMessage);
    const now = () => new Date().toISOString();
    const task: V03Task = {
      kind: "task",
      id: taskId,
      contextId,
      status: { state: "submitted", timestamp: now() },
      history: ctx.task?.history ?? [ctx.userMessage],
      artifacts: [],
    };
    bus.publish(task);
    const working: V03StatusUpdate = {
      kind: "status-update",
      taskId,
      contextId,
      status: { state: "working", timestamp: now() },
      final: false,
    };
    bus.publish(working);
    if (text === "wait") {
      await this.waiters.park(taskId);
      bus.finished();
      return;
    }
    const artifact: V03ArtifactUpdate = {
      kind: "artifact-update",
      taskId,
      contextId,
      artifact: { artifactId: `echo-${randomUUID()}`, name: "echo", parts: [{ kind: "text", text }] },
      append: false,
      lastChunk: true,
    };
    bus.publish(artifact);
    const completed: V03StatusUpdate = {
      kind: "status-update",
      taskId,
      contextId,
      status: { state: "completed", timestamp: now() },
      final: true,
    };
    bus.publish(completed);
    bus.finished();
  };

  cancelTask = async (taskId: string, bus: V03ExecutionEventBus): Promise<void> => {
    const canceled: V03StatusUpdate = {
      kind: "status-update",
      taskId,
      contextId: "",
      status: { state: "canceled", timestamp: new Date().toISOString() },
      final: true,
    };
    bus.publish(canceled);
    this.waiters.release(taskId);
  };
}

/**
 * Starts an a2a-js-v03 (@a2a-js/sdk 0.3.14) agent on 127.0.0.1 serving JSON-RPC, REST
 * (HTTP+JSON, routes under "{restUrl}/v1/…") and gRPC (service a2a.v1.A2AService).
 * 0.3.14 supports all three bindings, so none is missing. Card: v0.3 shape with
 * `url` (= jsonrpcUrl), `preferredTransport: "JSONRPC"`, `additionalInterfaces` listing
 * all three, `protocolVersion: "0.3.0"`, `supportsAuthenticatedExtendedCard: true`.
 */
export async function startA2aJsV03Agent(): Promise<A2aJsAgent> {
  const executor = new V03EchoExecutor();
  const requests: RecordedRequest[] = [];
  const skill = (id: string, name: string) => ({ id, name, description: `${name} skill`, tags: [id] });
  const card: V03AgentCard = {
    protocolVersion: "0.3.0",
    name: AGENT_NAME_V03,
    description: "Echo agent built with @a2a-js/sdk 0.3.14 for interop tests",
    url: "",
    preferredTransport: "JSONRPC",
    additionalInterfaces: [
      { url: "", transport: "JSONRPC" },
      { url: "", transport: "HTTP+JSON" },
      { url: "", transport: "GRPC" },
    ],
    provider: { organization: "interop-tests", url: "https://example.invalid" },
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [skill("echo", "Echo")],
    supportsAuthenticatedExtendedCard: true,
  };
  const extendedCard = (): V03AgentCard => ({
    ...card,
    name: card.name + EXTENDED_SUFFIX,
    skills: [...card.skills, skill(EXTENDED_SKILL_ID, "Extended only")],
  });
  const requestHandler = new V03DefaultRequestHandler(
    card,
    new V03InMemoryTaskStore(),
    executor,
    undefined,
    new V03InMemoryPushNotificationStore(),
    undefined,
    async () => extendedCard(),
  );

  const app = express();
  app.use(recordRequests(requests));
  app.use("/.well-known/agent-card.json", v03AgentCardHandler({ agentCardProvider: requestHandler }));
  app.use("/a2a/jsonrpc", v03JsonRpcHandler({ requestHandler, userBuilder: V03UserBuilder.noAuthentication }));
  app.use("/a2a/rest", v03RestHandler({ requestHandler, userBuilder: V03UserBuilder.noAuthentication }));

  const grpcServer = new grpc.Server();
  grpcServer.addService(
    V03A2AService,
    v03GrpcService({ requestHandler, userBuilder: V03GrpcUserBuilder.noAuthentication }),
  );

  const l = await listen(app, grpcServer);
  const baseUrl = `http://${HOST}:${l.port}`;
  const jsonrpcUrl = `${baseUrl}/a2a/jsonrpc`;
  const restUrl = `${baseUrl}/a2a/rest`;
  const grpcUrl = `${HOST}:${l.grpcPort}`;
  card.url = jsonrpcUrl;
  card.additionalInterfaces![0]!.url = jsonrpcUrl;
  card.additionalInterfaces![1]!.url = restUrl;
  card.additionalInterfaces![2]!.url = grpcUrl;

  return {
    version: "0.3",
    baseUrl,
    cardUrl: `${baseUrl}/.well-known/agent-card.json`,
    jsonrpcUrl,
    restUrl,
    grpcUrl,
    card,
    extendedCard: extendedCard(),
    requests,
    close: () => shutdown(l, () => executor.waiters.releaseAll()),
  };
}

// ---------------------------------------------------------------------------
// Uniform client wrapper
// ---------------------------------------------------------------------------

export interface SendTextOptions {
  taskId?: string;
  contextId?: string;
  /**
   * Default true (the SDK default). false → v1.0 `configuration.returnImmediately: true`,
   * v0.3 `configuration.blocking: false`: the server answers with the first Task snapshot.
   */
  blocking?: boolean;
}

export interface PushConfigInput {
  id: string;
  url: string;
  token?: string;
}

type Resolved<F> = F extends (...args: never[]) => Promise<infer T> ? T : never;
type Yielded<F> = F extends (...args: never[]) => AsyncGenerator<infer T, void, undefined> ? T : never;

/** What one SDK version's `Client` resolves with, per call (see {@link A2aJsClient}). */
export interface SdkResults {
  /** SendMessage: a Task or a Message. */
  send: unknown;
  /** One event of a stream or a subscription. */
  event: unknown;
  task: unknown;
  list: unknown;
  pushConfig: unknown;
  pushConfigs: unknown;
  card: unknown;
}

/** @a2a-js/sdk 1.3.0 (ts-proto objects). */
export interface V10Results extends SdkResults {
  send: Resolved<Client["sendMessage"]>;
  event: Yielded<Client["sendMessageStream"]>;
  task: Resolved<Client["getTask"]>;
  list: Resolved<Client["listTasks"]>;
  pushConfig: Resolved<Client["getTaskPushNotificationConfig"]>;
  pushConfigs: Resolved<Client["listTaskPushNotificationConfig"]>;
  card: Resolved<Client["getAgentCard"]>;
}

/** a2a-js-v03 = @a2a-js/sdk 0.3.14 (v0.3 JSON objects). ListTasks does not exist there. */
export interface V03Results extends SdkResults {
  send: Resolved<V03Client["sendMessage"]>;
  event: Yielded<V03Client["sendMessageStream"]>;
  task: Resolved<V03Client["getTask"]>;
  list: never;
  pushConfig: Resolved<V03Client["getTaskPushNotificationConfig"]>;
  pushConfigs: Resolved<V03Client["listTaskPushNotificationConfig"]>;
  card: Resolved<V03Client["getAgentCard"]>;
}

/** Either version's results: for code that runs against both SDKs. */
export type EitherResults = { [K in keyof SdkResults]: V10Results[K] | V03Results[K] };

/**
 * Uniform wrapper over one SDK `Client` bound to one transport. All results are the
 * raw SDK return values, typed by `R`; all SDK errors propagate unchanged.
 */
export interface A2aJsClient<R extends SdkResults = EitherResults> {
  readonly sdkVersion: "1.3.0" | "0.3.14";
  /** The transport actually selected ("JSONRPC" | "HTTP+JSON" | "GRPC"). */
  readonly binding: A2aBinding;
  /** The SDK Client (1.3.0 `Client` or 0.3.14 `Client`). */
  readonly sdkClient: Client | V03Client;
  /** SendMessage with one text part. Returns the SDK result (Task or Message; see {@link sentTask}). */
  sendText(text: string, opts?: SendTextOptions): Promise<R["send"]>;
  /** SendStreamingMessage with one text part; resolves with every event once the stream ends. */
  stream(text: string, opts?: Omit<SendTextOptions, "blocking">): Promise<R["event"][]>;
  /**
   * SendStreamingMessage with one text part, as the SDK's AsyncGenerator (sent on the first `next()`): for
   * reading a stream while it is open, e.g. to cancel its task half way.
   */
  openStream(text: string, opts?: Omit<SendTextOptions, "blocking">): AsyncGenerator<R["event"], void, undefined>;
  getTask(id: string, historyLength?: number): Promise<R["task"]>;
  /** v1.0 only. The v0.3 wrapper throws (ListTasks does not exist in v0.3). */
  listTasks(params?: Record<string, unknown>): Promise<R["list"]>;
  cancelTask(id: string): Promise<R["task"]>;
  /**
   * SubscribeToTask / tasks/resubscribe. Returns the SDK's AsyncGenerator as is; the
   * request is only sent on the first `next()`. Collect with `collectEvents`.
   */
  subscribe(id: string): AsyncGenerator<R["event"], void, undefined>;
  setPushConfig(taskId: string, config: PushConfigInput): Promise<R["pushConfig"]>;
  getPushConfig(taskId: string, configId: string): Promise<R["pushConfig"]>;
  listPushConfigs(taskId: string): Promise<R["pushConfigs"]>;
  deletePushConfig(taskId: string, configId: string): Promise<void>;
  /** GetExtendedAgentCard (v1.0) / agent/getAuthenticatedExtendedCard (v0.3), via `Client.getAgentCard()`. */
  getExtendedCard(): Promise<R["card"]>;
  /** Closes the gRPC channel if any (no-op for HTTP bindings). */
  close(): void;
}

export type ClientTarget =
  /** Fetch the agent card from cardUrl and pick `binding` from it (default: the card's preference). */
  | { cardUrl: string; binding?: A2aBinding }
  /**
   * No card fetch: the client is built from a synthesized card that has exactly this
   * one interface and claims streaming, push notifications and the extended card.
   * url forms: JSONRPC → the POST endpoint, HTTP+JSON → the REST base URL
   * (1.0: without "/v1"; 0.3: the client appends "/v1/…"), GRPC → "host:port".
   */
  | { url: string; binding: A2aBinding };

export interface A2aJsClientOptions {
  /**
   * Headers every call sends (gRPC: metadata), e.g. `{ "X-API-Key": key }` or `{ authorization: "Bearer …" }`.
   * Not sent when the agent card is fetched: the card is public.
   */
  headers?: Readonly<Record<string, string>>;
}

export interface V10ClientOptions extends A2aJsClientOptions {
  /** Enable the 1.3.0 client's v0.3 compat layer (card translation + legacy transports). */
  legacyCompat?: boolean;
}

/**
 * Both SDKs' own way to add headers to calls: a client call interceptor (`clientConfig.interceptors`) that adds
 * them to the call's service parameters, which their JSON-RPC and REST transports send as HTTP headers and their
 * gRPC transports as metadata.
 */
function headerInterceptor<A extends BeforeArgs | V03BeforeArgs>(headers: Readonly<Record<string, string>>) {
  return {
    before: async (args: A) => {
      args.options = { ...args.options, serviceParameters: { ...args.options?.serviceParameters, ...headers } };
    },
    after: async () => {},
  };
}

function clientConfigFor<A extends BeforeArgs | V03BeforeArgs>(options: A2aJsClientOptions) {
  return options.headers ? { clientConfig: { interceptors: [headerInterceptor<A>(options.headers)] } } : {};
}

function closeGrpc(client: { transport: unknown }): void {
  const t = client.transport as { grpcClient?: { close?: () => void }; base?: { grpcClient?: { close?: () => void } } };
  (t.grpcClient ?? t.base?.grpcClient)?.close?.();
}

function assertBinding(actual: string, wanted: A2aBinding | undefined): A2aBinding {
  if (wanted && actual.toUpperCase() !== wanted) {
    throw new Error(`a2a-js client picked transport ${actual}, wanted ${wanted} (not in the agent card?)`);
  }
  return actual.toUpperCase() as A2aBinding;
}

// ---- 1.3.0 client ----

function v10UserMessage(text: string, opts: SendTextOptions = {}): Message {
  return {
    messageId: randomUUID(),
    contextId: opts.contextId ?? "",
    taskId: opts.taskId ?? "",
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

function v10SendRequest(text: string, opts: SendTextOptions = {}) {
  return {
    tenant: "",
    message: v10UserMessage(text, opts),
    configuration: {
      acceptedOutputModes: [],
      taskPushNotificationConfig: undefined,
      returnImmediately: opts.blocking === false,
    },
    metadata: undefined,
  };
}

function v10SyntheticCard(url: string, binding: A2aBinding): AgentCard {
  return {
    name: "synthetic (no card fetched)",
    description: "",
    supportedInterfaces: [{ url, protocolBinding: binding, tenant: "", protocolVersion: "1.0" }],
    provider: undefined,
    version: "0",
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: true },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: [],
    defaultOutputModes: [],
    skills: [],
    signatures: [],
  };
}

/** 1.3.0 client for any server (ours too). See {@link ClientTarget}. */
export async function a2aJsV10ClientFor(
  target: ClientTarget,
  options: V10ClientOptions = {},
): Promise<A2aJsClient<V10Results>> {
  const compat = options.legacyCompat ? { legacyCompat: { enabled: true } } : {};
  const transports = [
    new JsonRpcTransportFactory(compat),
    new RestTransportFactory(compat),
    new GrpcTransportFactory(compat),
  ];
  const config = clientConfigFor<BeforeArgs>(options);
  let client: Client;
  let wanted: A2aBinding | undefined;
  if ("cardUrl" in target) {
    wanted = target.binding;
    const factory = new ClientFactory({
      transports,
      ...config,
      ...(wanted ? { preferredTransports: [wanted] } : {}),
      cardResolver: new DefaultAgentCardResolver(compat),
    });
    client = await factory.createFromUrl(target.cardUrl, "");
  } else {
    wanted = target.binding;
    const factory = new ClientFactory({ transports, ...config, preferredTransports: [wanted] });
    client = await factory.createFromAgentCard(v10SyntheticCard(target.url, target.binding));
  }
  const binding = assertBinding(client.transport.protocolName, wanted);

  return {
    sdkVersion: "1.3.0",
    binding,
    sdkClient: client,
    sendText: (text, opts) => client.sendMessage(v10SendRequest(text, opts)),
    stream: async (text, opts) => collectEvents(client.sendMessageStream(v10SendRequest(text, opts))),
    openStream: (text, opts) => client.sendMessageStream(v10SendRequest(text, opts)),
    getTask: (id, historyLength) => client.getTask({ tenant: "", id, historyLength }),
    listTasks: (params = {}) =>
      client.listTasks({
        tenant: "",
        contextId: "",
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageToken: "",
        statusTimestampAfter: undefined,
        ...params,
      }),
    cancelTask: (id) => client.cancelTask({ tenant: "", id, metadata: undefined }),
    subscribe: (id) => client.resubscribeTask({ tenant: "", id }),
    setPushConfig: (taskId, c) =>
      client.createTaskPushNotificationConfig({
        tenant: "",
        taskId,
        id: c.id,
        url: c.url,
        token: c.token ?? "",
        authentication: undefined,
      }),
    getPushConfig: (taskId, id) => client.getTaskPushNotificationConfig({ tenant: "", taskId, id }),
    listPushConfigs: (taskId) =>
      client.listTaskPushNotificationConfig({ tenant: "", taskId, pageSize: 0, pageToken: "" }),
    deletePushConfig: (taskId, id) => client.deleteTaskPushNotificationConfig({ tenant: "", taskId, id }),
    getExtendedCard: () => client.getAgentCard(),
    close: () => closeGrpc(client),
  };
}

/** 1.3.0 client for a started agent, selecting `binding` from its agent card. */
export function a2aJsV10Client(
  agent: A2aJsAgent,
  binding: A2aBinding,
  options?: V10ClientOptions,
): Promise<A2aJsClient<V10Results>> {
  return a2aJsV10ClientFor({ cardUrl: agent.cardUrl, binding }, options);
}

// ---- 0.3.14 client ----

function v03UserMessage(text: string, opts: SendTextOptions = {}): V03Message {
  return {
    kind: "message",
    messageId: randomUUID(),
    role: "user",
    parts: [{ kind: "text", text }],
    ...(opts.taskId ? { taskId: opts.taskId } : {}),
    ...(opts.contextId ? { contextId: opts.contextId } : {}),
  };
}

function v03SyntheticCard(url: string, binding: A2aBinding): V03AgentCard {
  return {
    protocolVersion: "0.3.0",
    name: "synthetic (no card fetched)",
    description: "",
    url,
    preferredTransport: binding,
    additionalInterfaces: [{ url, transport: binding }],
    version: "0",
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: [],
    defaultOutputModes: [],
    skills: [],
    supportsAuthenticatedExtendedCard: true,
  };
}

/** 0.3.14 transports do not expose their protocol name; infer it from the class. */
function v03BindingOf(client: V03Client): A2aBinding {
  const name = (client.transport as object).constructor.name;
  if (/grpc/i.test(name)) return "GRPC";
  if (/rest/i.test(name)) return "HTTP+JSON";
  return "JSONRPC";
}

/** 0.3.14 client for any server (ours too). See {@link ClientTarget}. */
export async function a2aJsV03ClientFor(
  target: ClientTarget,
  options: A2aJsClientOptions = {},
): Promise<A2aJsClient<V03Results>> {
  const transports = [new V03JsonRpcTransportFactory(), new V03RestTransportFactory(), new V03GrpcTransportFactory()];
  const config = clientConfigFor<V03BeforeArgs>(options);
  let client: V03Client;
  const wanted = target.binding;
  if ("cardUrl" in target) {
    const factory = new V03ClientFactory({
      transports,
      ...config,
      ...(wanted ? { preferredTransports: [wanted] } : {}),
    });
    client = await factory.createFromUrl(target.cardUrl, "");
  } else {
    const factory = new V03ClientFactory({ transports, ...config, preferredTransports: [target.binding] });
    client = await factory.createFromAgentCard(v03SyntheticCard(target.url, target.binding));
  }
  const binding = assertBinding(v03BindingOf(client), wanted);

  return {
    sdkVersion: "0.3.14",
    binding,
    sdkClient: client,
    sendText: (text, opts = {}) =>
      client.sendMessage({
        message: v03UserMessage(text, opts),
        ...(opts.blocking === false ? { configuration: { blocking: false } } : {}),
      }),
    stream: async (text, opts) => collectEvents(client.sendMessageStream({ message: v03UserMessage(text, opts) })),
    openStream: (text, opts) => client.sendMessageStream({ message: v03UserMessage(text, opts) }),
    getTask: (id, historyLength) => client.getTask(historyLength === undefined ? { id } : { id, historyLength }),
    listTasks: async () => {
      throw new Error("ListTasks does not exist in A2A v0.3 (a2a-js 0.3.14 has no client method for it)");
    },
    cancelTask: (id) => client.cancelTask({ id }),
    subscribe: (id) => client.resubscribeTask({ id }),
    setPushConfig: (taskId, c) =>
      client.setTaskPushNotificationConfig({
        taskId,
        pushNotificationConfig: { id: c.id, url: c.url, ...(c.token !== undefined ? { token: c.token } : {}) },
      }),
    // Client.getTaskPushNotificationConfig is typed TaskIdParams, but every transport reads
    // GetTaskPushNotificationConfigParams { id, pushNotificationConfigId }.
    getPushConfig: (taskId, configId) =>
      client.getTaskPushNotificationConfig({ id: taskId, pushNotificationConfigId: configId } as { id: string }),
    listPushConfigs: (taskId) => client.listTaskPushNotificationConfig({ id: taskId }),
    deletePushConfig: (taskId, configId) =>
      client.deleteTaskPushNotificationConfig({ id: taskId, pushNotificationConfigId: configId }),
    getExtendedCard: () => client.getAgentCard(),
    close: () => closeGrpc(client),
  };
}

/** 0.3.14 client for a started agent, selecting `binding` from its agent card. */
export function a2aJsV03Client(agent: A2aJsAgent, binding: A2aBinding): Promise<A2aJsClient<V03Results>> {
  return a2aJsV03ClientFor({ cardUrl: agent.cardUrl, binding });
}

// ---------------------------------------------------------------------------
// Helpers for tests
// ---------------------------------------------------------------------------

/** Drains an async iterable into an array (rejects with the SDK error if the stream fails). */
export async function collectEvents<T>(it: AsyncIterable<T>, timeoutMs = 10_000): Promise<T[]> {
  const out: T[] = [];
  const work = (async () => {
    for await (const e of it) out.push(e);
    return out;
  })();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`stream did not end within ${timeoutMs} ms; got ${out.length} events`)),
      timeoutMs,
    );
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const V10_STATE_NAMES: Record<number, string> = {
  [TaskState.TASK_STATE_UNSPECIFIED]: "unknown",
  [TaskState.TASK_STATE_SUBMITTED]: "submitted",
  [TaskState.TASK_STATE_WORKING]: "working",
  [TaskState.TASK_STATE_COMPLETED]: "completed",
  [TaskState.TASK_STATE_FAILED]: "failed",
  [TaskState.TASK_STATE_CANCELED]: "canceled",
  [TaskState.TASK_STATE_INPUT_REQUIRED]: "input-required",
  [TaskState.TASK_STATE_REJECTED]: "rejected",
  [TaskState.TASK_STATE_AUTH_REQUIRED]: "auth-required",
};

/*
 * The readers below take either SDK's objects (1.3.0 ts-proto objects, 0.3.14 v0.3 JSON
 * objects, or whatever a test has at hand) as `unknown` and look at their shape.
 */

/** `v[key]` when `v` is an object, else undefined. */
function prop(v: unknown, key: string): unknown {
  return typeof v === "object" && v !== null ? (v as Record<string, unknown>)[key] : undefined;
}

/** `v` when it is an array, else none. */
function items(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/**
 * The Task a SendMessage answered with (either SDK version). Throws when the agent
 * answered with a Message instead.
 */
export function sentTask<R extends object>(result: R): Exclude<R, { messageId: string }> {
  if ("messageId" in result) throw new Error(`expected a Task, got a Message: ${JSON.stringify(result)}`);
  return result as Exclude<R, { messageId: string }>;
}

/** Task state of a Task / status-update (either SDK version) as a v0.3-style name ("completed", …). */
export function stateOf(x: unknown): string | undefined {
  const s = prop(prop(x, "status"), "state");
  if (typeof s === "number") return V10_STATE_NAMES[s] ?? `unrecognized(${s})`;
  return typeof s === "string" ? s : undefined;
}

function partText(p: unknown): string {
  const content = prop(p, "content");
  if (prop(content, "$case") === "text") return prop(content, "value") as string; // 1.3.0
  if (prop(p, "kind") === "text") return prop(p, "text") as string; // 0.3.14
  return "";
}

/** Texts of all text parts of the parts array `parts`, joined. */
function partsText(parts: unknown): string {
  return items(parts).map(partText).join("");
}

/** Texts of all text parts of all artifacts of a Task (either SDK version). */
export function artifactTexts(task: unknown): string[] {
  return items(prop(task, "artifacts")).flatMap((a) => items(prop(a, "parts")).map(partText));
}

export interface EventSummary {
  kind: "task" | "message" | "status-update" | "artifact-update" | "unknown";
  taskId?: string | undefined;
  state?: string | undefined;
  /** Artifact text for artifact-update, message text for message. */
  text?: string | undefined;
}

/** Version-neutral view of one stream/subscribe event or one SendMessage result. */
export function summarizeEvent(e: unknown): EventSummary {
  // 1.3.0 StreamResponse
  if (e && typeof e === "object" && "payload" in e) {
    const p = e.payload;
    const v = prop(p, "value");
    switch (prop(p, "$case")) {
      case "task":
        return { kind: "task", taskId: str(prop(v, "id")), state: stateOf(v) };
      case "message":
        return { kind: "message", text: partsText(prop(v, "parts")) };
      case "statusUpdate":
        return { kind: "status-update", taskId: str(prop(v, "taskId")), state: stateOf(v) };
      case "artifactUpdate":
        return {
          kind: "artifact-update",
          taskId: str(prop(v, "taskId")),
          text: partsText(prop(prop(v, "artifact"), "parts")),
        };
      default:
        return { kind: "unknown" };
    }
  }
  // 0.3.14 events (kind-tagged)
  switch (prop(e, "kind")) {
    case "task":
      return { kind: "task", taskId: str(prop(e, "id")), state: stateOf(e) };
    case "message":
      return { kind: "message", text: partsText(prop(e, "parts")) };
    case "status-update":
      return { kind: "status-update", taskId: str(prop(e, "taskId")), state: stateOf(e) };
    case "artifact-update":
      return {
        kind: "artifact-update",
        taskId: str(prop(e, "taskId")),
        text: partsText(prop(prop(e, "artifact"), "parts")),
      };
  }
  // 1.3.0 SendMessage result (bare Task / Message, no kind)
  if (e && typeof e === "object" && "messageId" in e) return { kind: "message", text: partsText(prop(e, "parts")) };
  if (e && typeof e === "object" && "status" in e && "id" in e)
    return { kind: "task", taskId: str(e.id), state: stateOf(e) };
  return { kind: "unknown" };
}

// ---- errors ----

/** JSON-RPC / A2A error codes by 1.3.0 ErrorInfo reason. */
const CODE_BY_REASON: Record<string, number> = {
  TASK_NOT_FOUND: -32001,
  TASK_NOT_CANCELABLE: -32002,
  PUSH_NOTIFICATION_NOT_SUPPORTED: -32003,
  UNSUPPORTED_OPERATION: -32004,
  CONTENT_TYPE_NOT_SUPPORTED: -32005,
  INVALID_AGENT_RESPONSE: -32006,
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: -32007,
  EXTENSION_SUPPORT_REQUIRED: -32008,
  VERSION_NOT_SUPPORTED: -32009,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
};

/** A2A error codes by 0.3.14 client error class name (REST and gRPC lose the numeric code). */
const CODE_BY_V03_NAME: Record<string, number> = {
  TaskNotFoundError: -32001,
  TaskNotCancelableError: -32002,
  PushNotificationNotSupportedError: -32003,
  UnsupportedOperationError: -32004,
  ContentTypeNotSupportedError: -32005,
  InvalidAgentResponseError: -32006,
  AuthenticatedExtendedCardNotConfiguredError: -32007,
};

export interface A2aJsErrorDescription {
  /** A2A / JSON-RPC error code (-32001 = TaskNotFound, …) when it can be recovered. */
  code?: number | undefined;
  message: string;
  /** Error class name, e.g. "TaskNotFoundError". */
  name: string;
  /** 1.3.0 only: google.rpc.ErrorInfo reason, e.g. "TASK_NOT_FOUND". */
  reason?: string;
  /** 1.3.0 only: "jsonrpc" | "rest" | "grpc". */
  transport?: string;
  /** REST (1.3.0): HTTP status of the error response. */
  httpStatus?: number;
  /** gRPC: status code (5 = NOT_FOUND, …). */
  grpcStatus?: number;
  /** JSON-RPC `error.data` when present (1.3.0: [ErrorInfo]). */
  data?: unknown;
  /** REST (1.3.0): the WWW-Authenticate header of the error response, when it has one. */
  wwwAuthenticate?: string;
}

/** JSON-RPC error response carried by the SDKs' JSON-RPC errors. */
interface ErrorResponse {
  error?: { code: number; message: unknown; data?: unknown };
}

/** The fields `describeA2aJsError` reads from a thrown value; which ones are set depends on SDK and binding. */
interface ThrownFields {
  message?: unknown;
  name?: unknown;
  constructor?: { name?: string };
  reason?: unknown;
  errorResponse?: ErrorResponse;
  envelopeCode?: unknown;
  transport?: unknown;
  data?: unknown;
  statusCode?: unknown;
  /** 1.3.0 REST: the error response's headers, names lowercased. */
  headers?: Readonly<Record<string, unknown>>;
  status?: unknown;
  /** grpc-js ServiceError (0.3.14 gRPC) has `code` and `details`. */
  code?: unknown;
  cause?: ThrownFields;
}

/**
 * Normalizes whatever either SDK throws, for each binding:
 *  - 1.3.0 JSON-RPC: `JsonRpc<Name>Error` { reason, envelopeCode, data } (or JsonRpcTransportError
 *    { errorResponse }); inside a stream the SDK throws a plain Error whose `cause` is that error.
 *  - 1.3.0 REST: `Rest<Name>Error` { reason, statusCode, headers } (WWW-Authenticate kept as wwwAuthenticate).
 *  - 1.3.0 gRPC: `Grpc<Name>Error` { reason, status, statusDetailsBin } — only when the server sent an
 *    ErrorInfo in `grpc-status-details-bin`; otherwise a generic "A2AError" { status } (no code).
 *  - 1.3.0 REST without an ErrorInfo in `error.details`: generic "A2AError" { statusCode } (no code).
 *  - 0.3.14 JSON-RPC: `<Name>` subclass with `errorResponse` (message is the class default!)
 *    or JSONRPCTransportError { errorResponse }.
 *  - 0.3.14 REST: `<Name>Error` with the server message, no code; unmapped codes become a plain
 *    Error "REST error: <message> (Code: <code>)" (the code is parsed back out of the text).
 *  - 0.3.14 gRPC: `<Name>Error` for a few mapped statuses, else Error with `cause` = grpc ServiceError.
 *  - 1.3.0 / 0.3.14 client-side checks (e.g. PushNotificationNotSupportedError from the card).
 */
export function describeA2aJsError(e: unknown): A2aJsErrorDescription {
  if (!(e instanceof Error) && (typeof e !== "object" || e === null)) {
    return { message: String(e), name: typeof e };
  }
  const err = e as ThrownFields;
  // 1.3.0 JSON-RPC stream errors wrap the typed error in `cause`.
  if (
    !err.reason &&
    !err.errorResponse &&
    err.cause &&
    typeof err.cause === "object" &&
    (err.cause.reason || err.cause.errorResponse)
  ) {
    return describeA2aJsError(err.cause);
  }
  const out: A2aJsErrorDescription = {
    message: String(err.message ?? ""),
    name: String(err.name && err.name !== "Error" ? err.name : (err.constructor?.name ?? "Error")),
  };
  if (typeof err.reason === "string") {
    out.reason = err.reason;
    // The untyped 1.3.0 fallback (name "A2AError") always carries the default reason
    // INTERNAL_ERROR, e.g. a gRPC status without an ErrorInfo detail: no code for it.
    if (out.name !== "A2AError") out.code = CODE_BY_REASON[err.reason];
  }
  if (typeof err.transport === "string") out.transport = err.transport;
  if (typeof err.envelopeCode === "number") out.code = err.envelopeCode;
  if (err.errorResponse?.error) {
    out.code = err.errorResponse.error.code;
    if (err.errorResponse.error.data !== undefined) out.data = err.errorResponse.error.data;
    // The wire message (0.3.14 typed JSON-RPC errors otherwise carry only the class default message).
    out.message = String(err.errorResponse.error.message);
  }
  if (err.data !== undefined && out.data === undefined) out.data = err.data;
  if (err.transport === "rest" && typeof err.statusCode === "number") out.httpStatus = err.statusCode;
  const challenge = err.transport === "rest" ? err.headers?.["www-authenticate"] : undefined;
  if (typeof challenge === "string") out.wwwAuthenticate = challenge;
  if (err.transport === "grpc" && typeof err.status === "number") out.grpcStatus = err.status;
  if (out.code === undefined && CODE_BY_V03_NAME[out.name] !== undefined) out.code = CODE_BY_V03_NAME[out.name];
  // 0.3.14 REST/JSON-RPC fallbacks only keep the code in the text: "REST error: … (Code: -32602)".
  const inText = /\(Code: (-?\d+)\)/.exec(out.message);
  if (out.code === undefined && inText) out.code = Number(inText[1]);
  if (out.grpcStatus === undefined && err.cause && typeof err.cause.code === "number" && "details" in err.cause) {
    out.grpcStatus = err.cause.code;
  }
  return out;
}
