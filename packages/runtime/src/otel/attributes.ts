/**
 * The attributes of A2A spans and metrics, after OpenTelemetry's semantic
 * conventions for RPC and HTTP, and A2A's own:
 *
 *   every call     rpc.system        "jsonrpc" (JSON-RPC), "grpc" (gRPC),
 *                                    "http" (HTTP+JSON)
 *                  rpc.service       the proto service, e.g. lf.a2a.v1.A2AService
 *                  rpc.method        the method as the binding names it:
 *                                    the JSON-RPC method ("message/send" in
 *                                    v0.3), else the RPC name
 *                  a2a.operation     the RPC name, e.g. SendMessage
 *                  a2a.protocol.version   "1.0", "0.3" (spans only: on
 *                                    metrics rpc.service tells the version)
 *   JSON-RPC       rpc.jsonrpc.version "2.0"; rpc.jsonrpc.error_code on error
 *   gRPC           rpc.grpc.status_code (0 when the call succeeds)
 *   HTTP+JSON      http.request.method, http.route (the operation's route
 *                  template), http.response.status_code
 *   the task       a2a.task.id, a2a.context.id, from the request or the answer
 *   errors         error.type: the A2A error type (TaskNotFoundError, …), or
 *                  InternalError for anything that is no A2AError; "Canceled"
 *                  for a server stream whose client left, "DEADLINE_EXCEEDED"
 *                  for one past its gRPC deadline
 *
 * Span names follow the RPC rule: "<rpc.service>/<rpc.method>". Durations
 * carry rpc.system, rpc.service, rpc.method, a2a.operation and, on failure,
 * error.type. What every call of an operation shares is made once
 * (callShapes), so a call allocates only what is its own.
 */
import type { Attributes } from "@opentelemetry/api";
import { A2AError, A2ATransportError } from "../core/a2a-error.js";
import { abortedCall, callFailure, GRPC_STATUS_CODES, successCode } from "../core/call-outcome.js";
import { taskIdsOf } from "../core/task-ids.js";
import type { A2aServiceDefinition, HandlerContext, OperationInfo } from "../core/definition.js";
import { withNames } from "../core/records.js";

export type BindingName = HandlerContext["binding"];

const RPC_SYSTEMS: Readonly<Record<BindingName, string>> = { JSONRPC: "jsonrpc", GRPC: "grpc", "HTTP+JSON": "http" };

function methodName(operation: OperationInfo, binding: BindingName): string {
  return binding === "JSONRPC" ? operation.jsonrpcMethod : operation.name;
}

/** The route template of an HTTP+JSON call: the tenant variant when the call has a tenant. */
function routeOf(operation: OperationInfo, tenant: boolean) {
  const withTenant = (template: string) => template.includes("{tenant");
  return operation.routes.find((r) => withTenant(r.template) === tenant) ?? operation.routes[0];
}

/**
 * What every call of one operation on one binding and version shares: its span name, the attributes its span
 * starts with, and the attributes of its duration by outcome. Made once per interceptor and shape
 * (callShapes), read-only: the SDK copies the attributes it is given.
 */
export interface CallShape {
  readonly name: string;
  readonly attributes: Attributes;
  /** The duration's attributes: of a success for undefined, else with error.type. */
  metric(failure: string | undefined): Attributes;
}

function makeShape(operation: OperationInfo, binding: BindingName, version: string, tenant: boolean): CallShape {
  const method = methodName(operation, binding);
  const service = operation.method.parent.typeName;
  const metricBase: Attributes = {
    "rpc.system": RPC_SYSTEMS[binding],
    "rpc.service": service,
    "rpc.method": method,
    "a2a.operation": operation.name,
  };
  const attributes: Attributes = withNames(metricBase, { "a2a.protocol.version": version });
  if (binding === "JSONRPC") attributes["rpc.jsonrpc.version"] = "2.0";
  const route = binding === "HTTP+JSON" ? routeOf(operation, tenant) : undefined;
  if (route !== undefined) {
    attributes["http.request.method"] = route.method;
    attributes["http.route"] = route.template;
  }
  const failures = new Map<string, Attributes>();
  return {
    name: `${service}/${method}`,
    attributes,
    metric(failure) {
      if (failure === undefined) return metricBase;
      let m = failures.get(failure);
      if (m === undefined) {
        m = withNames(metricBase, { "error.type": failure });
        failures.set(failure, m);
      }
      return m;
    },
  };
}

export type ShapeOf = (operation: OperationInfo, binding: BindingName, version: string, tenant: boolean) => CallShape;

/** The shapes of calls, made on first use: one cache per interceptor (never shared between them). */
export function callShapes(): ShapeOf {
  const cache = new WeakMap<OperationInfo, Map<string, CallShape>>();
  return (operation, binding, version, tenant) => {
    let byKey = cache.get(operation);
    if (byKey === undefined) {
      byKey = new Map();
      cache.set(operation, byKey);
    }
    const key = `${binding} ${version} ${tenant}`;
    let shape = byKey.get(key);
    if (shape === undefined) {
      shape = makeShape(operation, binding, version, tenant);
      byKey.set(key, shape);
    }
    return shape;
  };
}

const NO_ATTRIBUTES: Attributes = Object.freeze({});
const GRPC_OK: Attributes = Object.freeze({ "rpc.grpc.status_code": 0 });
const HTTP_OK: Attributes = Object.freeze({ "http.response.status_code": 200 });

/** The attributes of a call that succeeded. */
export function okAttributes(binding: BindingName): Attributes {
  const code = successCode(binding);
  if (code === undefined) return NO_ATTRIBUTES;
  return binding === "GRPC" ? GRPC_OK : HTTP_OK;
}

export interface ErrorOutcome {
  readonly attributes: Attributes;
  /** Whether the server failed (gRPC UNKNOWN/INTERNAL/…, HTTP 5xx, JSON-RPC -32603), not the caller. */
  readonly serverFault: boolean;
  readonly type: string;
  readonly message: string;
}

/** The attributes of an error a server answers, as the binding writes it at the definition's version. */
export function serverErrorOutcome(
  definition: A2aServiceDefinition,
  binding: BindingName,
  error: unknown,
): ErrorOutcome {
  const failure = callFailure(definition, binding, error);
  const codeName =
    binding === "GRPC"
      ? "rpc.grpc.status_code"
      : binding === "HTTP+JSON"
        ? "http.response.status_code"
        : "rpc.jsonrpc.error_code";
  const attributes = { "error.type": failure.type, [codeName]: failure.code };
  return { attributes, serverFault: failure.serverFault, type: failure.type, message: failure.message };
}

/**
 * A server call its signal ended (call-outcome.ts abortedCall): the client left ("Canceled", gRPC CANCELLED, the
 * HTTP status a stream's answer was sent with), or past its gRPC deadline ("DEADLINE_EXCEEDED", a server fault).
 */
export function abortedOutcome(binding: BindingName, reason: unknown, streaming: boolean): ErrorOutcome {
  const ended = abortedCall(binding, reason, streaming);
  const attributes: Attributes = { "error.type": ended.type };
  const codeName = binding === "GRPC" ? "rpc.grpc.status_code" : "http.response.status_code";
  if (ended.code !== undefined) attributes[codeName] = ended.code;
  const message = ended.serverFault ? "the call's deadline passed" : "the client went away";
  return { attributes, serverFault: ended.serverFault, type: ended.type, message };
}

/** The attributes of an error a client met: the A2A type and wire code it read, or the transport failure. */
export function clientErrorOutcome(binding: BindingName, error: unknown): ErrorOutcome {
  if (error instanceof A2AError) {
    const attributes: Attributes = { "error.type": error.type };
    if (binding === "JSONRPC" && error.code !== undefined) attributes["rpc.jsonrpc.error_code"] = error.code;
    return { attributes, serverFault: false, type: error.type, message: error.message };
  }
  const attributes: Attributes = { "error.type": "A2ATransportError" };
  if (error instanceof A2ATransportError) {
    if (error.status !== undefined) attributes["http.response.status_code"] = error.status;
    if (error.grpcStatus !== undefined) attributes["rpc.grpc.status_code"] = GRPC_STATUS_CODES[error.grpcStatus] ?? 2;
  }
  const message = error instanceof Error ? error.message : String(error);
  return { attributes, serverFault: true, type: "A2ATransportError", message };
}

/** The a2a.task.id / a2a.context.id attributes of a request or an answer. */
export function taskAttributes(message: unknown): Attributes {
  const { taskId, contextId } = taskIdsOf(message);
  const attributes: Attributes = {};
  if (taskId !== undefined) attributes["a2a.task.id"] = taskId;
  if (contextId !== undefined) attributes["a2a.context.id"] = contextId;
  return attributes;
}
