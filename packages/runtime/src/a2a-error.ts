/**
 * A2A errors and their forms on each binding, driven by the version's error
 * catalog (generated from the override files):
 *
 *   JSON-RPC   {code, message, data}; data = [ErrorInfo with "@type"] when the
 *              catalog gives a reason (v1.0), else the error's own data (v0.3)
 *   HTTP+JSON  HTTP status + {"error": {code, status, message, details: [ErrorInfo]}}
 *   gRPC       status code + ErrorInfo in status details
 *
 * A handler throws `new A2AError("TaskNotFoundError")`; the binding looks the
 * name up in the catalog of the version it serves. Standard JSON-RPC errors
 * (InvalidParamsError, …) use the same class. Anything else a handler throws
 * becomes InternalError, without its message.
 */
import type { A2aServiceDefinition, ErrorCatalogEntry, StandardErrorEntry } from "./definition.js";
import { ERROR_INFO_TYPE_URL } from "./error-info.js";

export class A2AError extends Error {
  override name = "A2AError";
  constructor(
    /** Catalog name, e.g. "TaskNotFoundError", or a standard one such as "InvalidParamsError". */
    readonly type: string,
    message?: string,
    readonly options: {
      readonly metadata?: Readonly<Record<string, string>>;
      /** v0.3 JSON-RPC free-form data; v1.0 carries ErrorInfo instead. */
      readonly data?: unknown;
      /** The wire code when it is known (errors read from a peer). */
      readonly code?: number;
      readonly reason?: string;
      readonly domain?: string;
      /** HTTP status to answer with instead of the catalog's (e.g. 413 for an oversized body). */
      readonly httpStatus?: number;
    } = {},
  ) {
    super(message ?? type);
  }
}

/** A failure that is not an A2A error: a bare HTTP status from a proxy or a wrong route, a broken stream, … */
export class A2ATransportError extends Error {
  override name = "A2ATransportError";
  constructor(
    message: string,
    readonly status?: number,
    readonly body?: string,
  ) {
    super(message);
  }
}

export const A2A_DOMAIN = "a2a-protocol.org";

export interface ResolvedError {
  readonly code: number;
  readonly message: string;
  readonly catalog: ErrorCatalogEntry | undefined;
  readonly standard: StandardErrorEntry | undefined;
  readonly error: A2AError;
}

/** Finds the catalog entry of an error for the version `def` serves. */
export function resolveError(def: A2aServiceDefinition, e: unknown): ResolvedError {
  const error = e instanceof A2AError ? e : new A2AError("InternalError");
  const catalog =
    def.errors.find((x) => x.name === error.type) ??
    (error.options.code !== undefined ? def.errors.find((x) => x.jsonrpcCode === error.options.code) : undefined);
  const standard = catalog
    ? undefined
    : def.standardErrors.find((x) => x.name === error.type || x.code === error.options.code);
  const fallback = def.standardErrors.find((x) => x.code === -32603);
  // A code of the server-error range that this version's catalog lacks (a newer error bridged to v0.3) keeps its code.
  const serverError =
    !catalog &&
    !standard &&
    error.options.code !== undefined &&
    error.options.code <= -32000 &&
    error.options.code >= -32099;
  const entry = catalog ?? standard ?? (serverError ? undefined : fallback);
  const code = catalog?.jsonrpcCode ?? standard?.code ?? (serverError ? error.options.code! : -32603);
  const message = error.message !== error.type ? error.message : (entry?.message ?? error.message);
  const known = catalog || standard || serverError;
  return {
    code,
    message,
    catalog,
    standard: catalog ? undefined : (standard ?? (serverError ? undefined : fallback)),
    error: known ? error : new A2AError("InternalError"),
  };
}

function errorInfo(r: ResolvedError): Record<string, unknown> | undefined {
  if (!r.catalog?.reason) return undefined;
  const info: Record<string, unknown> = {
    "@type": ERROR_INFO_TYPE_URL,
    reason: r.catalog.reason,
    domain: r.catalog.domain ?? A2A_DOMAIN,
  };
  if (r.error.options.metadata) info["metadata"] = r.error.options.metadata;
  return info;
}

export function toJsonRpcError(
  def: A2aServiceDefinition,
  e: unknown,
): { code: number; message: string; data?: unknown } {
  const r = resolveError(def, e);
  const info = errorInfo(r);
  if (info) return { code: r.code, message: r.message, data: [info] };
  return r.error.options.data !== undefined
    ? { code: r.code, message: r.message, data: r.error.options.data }
    : { code: r.code, message: r.message };
}

export function toRestError(def: A2aServiceDefinition, e: unknown): { status: number; body: unknown } {
  const r = resolveError(def, e);
  const status =
    r.error.options.httpStatus ?? r.catalog?.httpStatus ?? r.standard?.httpStatus ?? (r.code === -32603 ? 500 : 400);
  const grpc = r.catalog?.grpcStatus ?? r.standard?.grpcStatus ?? (status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT");
  const info = errorInfo(r);
  // A version without ErrorInfo (v0.3 defines no REST error format): the JSON-RPC-style body v0.3 peers read.
  if (!def.errors.some((x) => x.reason)) {
    return {
      status,
      body:
        r.error.options.data !== undefined
          ? { code: r.code, message: r.message, data: r.error.options.data }
          : { code: r.code, message: r.message },
    };
  }
  return { status, body: { error: { code: status, status: grpc, message: r.message, details: info ? [info] : [] } } };
}

export function grpcStatusOf(
  def: A2aServiceDefinition,
  e: unknown,
): {
  status: string;
  message: string;
  reason: string | undefined;
  domain: string;
  metadata: Record<string, string> | undefined;
} {
  const r = resolveError(def, e);
  return {
    status: r.catalog?.grpcStatus ?? r.standard?.grpcStatus ?? (r.code === -32603 ? "INTERNAL" : "INVALID_ARGUMENT"),
    message: r.message,
    reason: r.catalog?.reason ?? undefined,
    domain: r.catalog?.domain ?? A2A_DOMAIN,
    metadata: r.error.options.metadata ? { ...r.error.options.metadata } : undefined,
  };
}

interface ErrorInfoJson {
  "@type"?: unknown;
  reason?: unknown;
  domain?: unknown;
  metadata?: unknown;
}

function findErrorInfo(list: unknown): ErrorInfoJson | undefined {
  if (!Array.isArray(list)) return undefined;
  return list.find(
    (d): d is ErrorInfoJson =>
      typeof d === "object" && d !== null && (d as ErrorInfoJson)["@type"] === ERROR_INFO_TYPE_URL,
  );
}

/** Client side: a catalog entry from an ErrorInfo reason (v1.0) or a JSON-RPC code. */
export function errorFromWire(
  def: A2aServiceDefinition,
  wire: {
    code?: number;
    message?: string;
    reason?: string;
    domain?: string;
    metadata?: Record<string, string>;
    data?: unknown;
  },
): A2AError {
  const byReason =
    wire.reason && (wire.domain ?? A2A_DOMAIN) === A2A_DOMAIN
      ? def.errors.find((e) => e.reason === wire.reason)
      : undefined;
  const byCode =
    wire.code !== undefined
      ? (def.errors.find((e) => e.jsonrpcCode === wire.code) ?? def.standardErrors.find((e) => e.code === wire.code))
      : undefined;
  const type = byReason?.name ?? byCode?.name ?? "UnknownError";
  const code = byReason?.jsonrpcCode ?? wire.code;
  return new A2AError(type, wire.message, {
    ...(code !== undefined ? { code } : {}),
    ...(wire.reason !== undefined ? { reason: wire.reason } : {}),
    ...(wire.domain !== undefined ? { domain: wire.domain } : {}),
    ...(wire.metadata ? { metadata: wire.metadata } : {}),
    ...(wire.data !== undefined ? { data: wire.data } : {}),
  });
}

export function errorFromJsonRpc(
  def: A2aServiceDefinition,
  error: { code?: unknown; message?: unknown; data?: unknown },
): A2AError {
  const info = findErrorInfo(error.data);
  return errorFromWire(def, {
    ...(typeof error.code === "number" ? { code: error.code } : {}),
    ...(typeof error.message === "string" ? { message: error.message } : {}),
    ...(typeof info?.reason === "string" ? { reason: info.reason } : {}),
    ...(typeof info?.domain === "string" ? { domain: info.domain } : {}),
    ...(info?.metadata && typeof info.metadata === "object"
      ? { metadata: info.metadata as Record<string, string> }
      : {}),
    ...(error.data !== undefined ? { data: error.data } : {}),
  });
}

/**
 * An HTTP+JSON error: an A2A error only when the body carries an ErrorInfo of
 * the A2A domain (v1.0), or, for a version without ErrorInfo, a JSON-RPC-style
 * code. A bare status is a transport error, never TaskNotFoundError.
 */
export function errorFromRest(def: A2aServiceDefinition, status: number, text: string): Error {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new A2ATransportError(`HTTP ${status}`, status, text);
  }
  const err =
    (body as { error?: { message?: unknown; details?: unknown; code?: unknown } } | null)?.error ??
    (body as { code?: unknown; message?: unknown } | null);
  const info = findErrorInfo((err as { details?: unknown } | null)?.details);
  if (
    info &&
    typeof info.reason === "string" &&
    (info.domain ?? A2A_DOMAIN) === A2A_DOMAIN &&
    def.errors.some((e) => e.reason === info.reason)
  ) {
    return errorFromWire(def, {
      reason: info.reason,
      domain: typeof info.domain === "string" ? info.domain : A2A_DOMAIN,
      ...(typeof err?.message === "string" ? { message: err.message } : {}),
      ...(info.metadata && typeof info.metadata === "object"
        ? { metadata: info.metadata as Record<string, string> }
        : {}),
    });
  }
  // v0.3 servers (which have no ErrorInfo) answer with a JSON-RPC-style {code, message}.
  const code = (err as { code?: unknown } | null)?.code;
  if (
    typeof code === "number" &&
    code < 0 &&
    (def.errors.some((e) => e.jsonrpcCode === code) || def.standardErrors.some((e) => e.code === code))
  ) {
    return errorFromWire(def, { code, ...(typeof err?.message === "string" ? { message: err.message } : {}) });
  }
  return new A2ATransportError(`HTTP ${status}`, status, text);
}
