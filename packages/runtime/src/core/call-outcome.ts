/**
 * How a call's failure reads on its binding, for logs and telemetry: the A2A
 * error type and the code the binding answers with at the definition's
 * version (a2a-error.ts does the mapping):
 *
 *   GRPC       the status code number (grpc/doc/statuscodes.md)
 *   HTTP+JSON  the HTTP status
 *   JSONRPC    the JSON-RPC error code
 *
 * serverFault: the server failed, not the caller (gRPC UNKNOWN,
 * DEADLINE_EXCEEDED, UNIMPLEMENTED, INTERNAL, UNAVAILABLE, DATA_LOSS; HTTP
 * 5xx; JSON-RPC -32603, or an error HTTP+JSON answers with a 5xx, such as
 * InvalidAgentResponseError: one error is a fault on every binding), which
 * is what makes a server span an error and a call log record level error.
 */
import { A2AError, grpcStatusOf, toJsonRpcError, toRestError } from "./a2a-error.js";
import type { A2aServiceDefinition, HandlerContext } from "./definition.js";

/** gRPC status codes by name. */
export const GRPC_STATUS_CODES: Readonly<Record<string, number>> = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  NOT_FOUND: 5,
  ALREADY_EXISTS: 6,
  PERMISSION_DENIED: 7,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  ABORTED: 10,
  OUT_OF_RANGE: 11,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  DATA_LOSS: 15,
  UNAUTHENTICATED: 16,
};

const GRPC_SERVER_FAULTS = new Set([2, 4, 12, 13, 14, 15]);

export interface CallFailure {
  /** The A2A error type; InternalError for anything that is no A2AError. */
  readonly type: string;
  /** The binding's code: gRPC status number, HTTP status or JSON-RPC code. */
  readonly code: number;
  readonly message: string;
  readonly serverFault: boolean;
}

/** The failure as the server answers it on `binding`, at the version of `definition`. */
export function callFailure(
  definition: A2aServiceDefinition,
  binding: HandlerContext["binding"],
  error: unknown,
): CallFailure {
  const type = error instanceof A2AError ? error.type : "InternalError";
  if (binding === "GRPC") {
    const status = grpcStatusOf(definition, error);
    const code = GRPC_STATUS_CODES[status.status] ?? 2;
    return { type, code, message: status.message, serverFault: GRPC_SERVER_FAULTS.has(code) };
  }
  if (binding === "HTTP+JSON") {
    const { status } = toRestError(definition, error);
    return {
      type,
      code: status,
      message: error instanceof A2AError ? error.message : type,
      serverFault: status >= 500,
    };
  }
  const { code, message } = toJsonRpcError(definition, error);
  return { type, code, message, serverFault: code === -32603 || toRestError(definition, error).status >= 500 };
}

/** How a call its signal ended reads: past its gRPC deadline, or its client left. */
export interface AbortedCall {
  /** "DEADLINE_EXCEEDED" (a server fault, as gRPC counts it), else "Canceled" (the client's doing). */
  readonly type: "DEADLINE_EXCEEDED" | "Canceled";
  /**
   * gRPC DEADLINE_EXCEEDED (4) or CANCELLED (1); on HTTP+JSON the status a stream already sent (200), none for a
   * unary call (nothing was sent); none on JSON-RPC.
   */
  readonly code: number | undefined;
  readonly serverFault: boolean;
}

/**
 * The ending of a call (a stream when `streaming`) whose signal aborted with `reason` before the call answered
 * or ended: the server's own gRPC deadline timer aborts it with
 * connect's DEADLINE_EXCEEDED error (grpc-limits.ts); any other abort is the client leaving. A client that
 * resets its stream when its own deadline passes (connect's clients do) often does so before the server's
 * timer fires: the server cannot tell that from leaving, and it reads as "Canceled".
 */
export function abortedCall(binding: HandlerContext["binding"], reason: unknown, streaming: boolean): AbortedCall {
  const { name, code } = (typeof reason === "object" && reason !== null ? reason : {}) as {
    name?: unknown;
    code?: unknown;
  };
  if (name === "ConnectError" && code === GRPC_STATUS_CODES["DEADLINE_EXCEEDED"]) {
    return { type: "DEADLINE_EXCEEDED", code: 4, serverFault: true };
  }
  const sent =
    binding === "GRPC" ? GRPC_STATUS_CODES["CANCELLED"] : binding === "HTTP+JSON" && streaming ? 200 : undefined;
  return { type: "Canceled", code: sent, serverFault: false };
}

/**
 * Whether the interceptors end a call's span and record when its signal aborts: a stream, or a unary gRPC call
 * (its deadline is the server's; connect makes its signal anyway). A unary HTTP call's signal is made only when
 * first asked for (node-listener.ts): watching it would cost every call one (a quarter of the tracing row's
 * throughput, measured), so a client that leaves one reads as the handler's answer.
 */
export function watchesAbort(binding: HandlerContext["binding"], streaming: boolean): boolean {
  return streaming || binding === "GRPC";
}

/** The code of a call that succeeded: gRPC OK (0), HTTP 200; none on JSON-RPC. */
export function successCode(binding: HandlerContext["binding"]): number | undefined {
  return binding === "GRPC" ? 0 : binding === "HTTP+JSON" ? 200 : undefined;
}
