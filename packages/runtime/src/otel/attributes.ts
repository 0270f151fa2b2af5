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
 *                  a2a.protocol.version   "1.0", "0.3"
 *                  a2a.binding       JSONRPC, HTTP+JSON, GRPC
 *   JSON-RPC       rpc.jsonrpc.version "2.0"; rpc.jsonrpc.error_code on error
 *   gRPC           rpc.grpc.status_code (0 when the call succeeds)
 *   HTTP+JSON      http.request.method, http.route (the operation's route
 *                  template), http.response.status_code
 *   the task       a2a.task.id, a2a.context.id, from the request or the answer
 *   errors         error.type: the A2A error type (TaskNotFoundError, …), or
 *                  InternalError for anything that is no A2AError
 *
 * Span names follow the RPC rule: "<rpc.service>/<rpc.method>".
 */
import type { Attributes } from "@opentelemetry/api";
import { A2AError, A2ATransportError } from "../a2a-error.js";
import { callFailure, GRPC_STATUS_CODES, successCode } from "../call-outcome.js";
import { taskIdsOf } from "../task-ids.js";
import type { A2aServiceDefinition, HandlerContext, OperationInfo } from "../definition.js";

export type BindingName = HandlerContext["binding"];

const RPC_SYSTEMS: Readonly<Record<BindingName, string>> = { JSONRPC: "jsonrpc", GRPC: "grpc", "HTTP+JSON": "http" };

/** "<service>/<method>", the span name of a call. */
export function spanName(operation: OperationInfo, binding: BindingName): string {
  return `${operation.method.parent.typeName}/${methodName(operation, binding)}`;
}

function methodName(operation: OperationInfo, binding: BindingName): string {
  return binding === "JSONRPC" ? operation.jsonrpcMethod : operation.name;
}

/** The route template of an HTTP+JSON call: the tenant variant when the call has a tenant. */
function routeOf(operation: OperationInfo, tenant: string | undefined) {
  const withTenant = (template: string) => template.includes("{tenant");
  return operation.routes.find((r) => withTenant(r.template) === (tenant !== undefined)) ?? operation.routes[0];
}

/** The attributes a call's span starts with. */
export function callAttributes(
  operation: OperationInfo,
  binding: BindingName,
  protocolVersion: string,
  tenant: string | undefined,
): Attributes {
  const attributes: Attributes = {
    "rpc.system": RPC_SYSTEMS[binding],
    "rpc.service": operation.method.parent.typeName,
    "rpc.method": methodName(operation, binding),
    "a2a.operation": operation.name,
    "a2a.protocol.version": protocolVersion,
    "a2a.binding": binding,
  };
  if (binding === "JSONRPC") attributes["rpc.jsonrpc.version"] = "2.0";
  if (binding === "HTTP+JSON") {
    const route = routeOf(operation, tenant);
    if (route !== undefined) {
      attributes["http.request.method"] = route.method;
      attributes["http.route"] = route.template;
    }
  }
  return attributes;
}

/** The attributes of a duration measurement: the call's, without the per-call ones, and error.type on failure. */
export function durationAttributes(start: Attributes, failure: string | undefined): Attributes {
  const attributes: Attributes = {
    "rpc.system": start["rpc.system"],
    "rpc.service": start["rpc.service"],
    "rpc.method": start["rpc.method"],
    "a2a.operation": start["a2a.operation"],
    "a2a.protocol.version": start["a2a.protocol.version"],
  };
  if (failure !== undefined) attributes["error.type"] = failure;
  return attributes;
}

/** The attributes of a call that succeeded. */
export function okAttributes(binding: BindingName): Attributes {
  const code = successCode(binding);
  if (code === undefined) return {};
  return binding === "GRPC" ? { "rpc.grpc.status_code": code } : { "http.response.status_code": code };
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
