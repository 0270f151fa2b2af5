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
 * (InvalidParamsError, …) use the same class. The name is typed
 * (A2AErrorName), so a misspelt one does not compile; a name known only at
 * run time (a catalog entry, a peer's answer) goes through A2AError.named.
 * Anything else a handler throws becomes InternalError, without its message.
 *
 * Access errors (override api.accessErrors: UnauthenticatedError 401,
 * PermissionDeniedError 403) keep their HTTP status on JSON-RPC too
 * (jsonRpcHttpStatus), where every other error is HTTP 200; an error's
 * `headers` (WWW-Authenticate) go on the HTTP answer of both HTTP bindings.
 *
 * On gRPC every catalog error carries an ErrorInfo, also in a version whose
 * catalog gives no reason (v0.3 defines no gRPC error mapping): there the
 * reason is the one v1.0's rule gives the error's name (reasonOf), so that
 * errors sharing a status stay apart. Clients read errors in client-errors.ts.
 */
import type { A2aServiceDefinition } from "./definition.js";
import type { ErrorCatalogEntry, StandardErrorEntry } from "./protocol-tables.js";
import { ERROR_INFO_TYPE_URL } from "./error-info.js";
import { headerRecord } from "./records.js";
import { retryAfterOf } from "./retry-after.js";

/**
 * The names an A2AError takes: every error of the catalogs of v0.3.0 and v1.0.1 (each version's
 * `A2AServiceErrorName` in its generated `a2a_errors.ts`), the standard JSON-RPC and access errors (its
 * `A2AServiceStandardErrors`), and the runtime's own two: ServerError (a newer error an older version has no
 * name for, kept with its code) and UnknownError (a peer's error that its catalog does not name).
 * test/runtime/error-names.test.ts keeps this list equal to the generated catalogs.
 */
export type A2AErrorName =
  | "TaskNotFoundError"
  | "TaskNotCancelableError"
  | "PushNotificationNotSupportedError"
  | "UnsupportedOperationError"
  | "ContentTypeNotSupportedError"
  | "InvalidAgentResponseError"
  | "ExtendedAgentCardNotConfiguredError"
  | "AuthenticatedExtendedCardNotConfiguredError"
  | "ExtensionSupportRequiredError"
  | "VersionNotSupportedError"
  | "JSONParseError"
  | "InvalidRequestError"
  | "MethodNotFoundError"
  | "InvalidParamsError"
  | "InternalError"
  | "UnauthenticatedError"
  | "PermissionDeniedError"
  | "ServerError"
  | "UnknownError";

export interface A2AErrorOptions {
  readonly metadata?: Readonly<Record<string, string>>;
  /** v0.3 JSON-RPC free-form data; v1.0 carries ErrorInfo instead. */
  readonly data?: unknown;
  /** The wire code when it is known (errors read from a peer). */
  readonly code?: number;
  readonly reason?: string;
  readonly domain?: string;
  /** HTTP status to answer with instead of the catalog's (e.g. 413 for an oversized body). */
  readonly httpStatus?: number;
  /** Response headers for the HTTP bindings, e.g. WWW-Authenticate on UnauthenticatedError. */
  readonly headers?: Readonly<Record<string, string>>;
  /**
   * On an error a client read from a peer: the answer it came in. Only read; a handler that rethrows a peer's
   * error sends none of it (`headers` and `httpStatus` above are what a server sends).
   */
  readonly received?: ReceivedAnswer;
}

/** The answer a client read an A2A error from: a 401's WWW-Authenticate challenge, a Retry-After, … */
export interface ReceivedAnswer {
  /** The HTTP status (200 for a JSON-RPC error or a stream's error event); undefined on gRPC. */
  readonly status?: number;
  /** The answer's headers; on gRPC its metadata (headers and trailers). */
  readonly headers: Headers;
}

export class A2AError extends Error {
  override name = "A2AError";
  /** The error's name: an A2AErrorName, or the name a catalog or a peer gave (A2AError.named). */
  readonly type: string;

  constructor(
    /** Catalog name, e.g. "TaskNotFoundError", or a standard one such as "InvalidParamsError". */
    type: A2AErrorName,
    message?: string,
    readonly options: A2AErrorOptions = {},
  ) {
    super(message ?? type);
    this.type = type;
  }

  /**
   * An error by a name known only at run time: a catalog entry's, or one a peer answered with. The name is
   * kept as given; the bindings look it up in the catalog of the version they serve, as any other.
   */
  static named(type: string, message?: string, options: A2AErrorOptions = {}): A2AError {
    // The one name not checked at compile time: it comes from a table or from the wire.
    return new A2AError(type as A2AErrorName, message, options);
  }

  /** The JSON-RPC code: set on errors a client read from a peer; else the one given, if any. */
  get code(): number | undefined {
    return this.options.code;
  }
}

/** Where a transport error happened, and what caused it. */
export interface TransportErrorDetails {
  /** The operation, e.g. "GetTask". */
  readonly operation?: string;
  /** The URL the request went to (gRPC: the interface URL and the method path). */
  readonly url?: string;
  /** The gRPC status name, e.g. "UNAVAILABLE", when a gRPC call ended with one that is no A2A error. */
  readonly grpcStatus?: string;
  /** The underlying failure: fetch's TypeError, an AbortError or TimeoutError, a ConnectError, a parse error. */
  readonly cause?: unknown;
  /** The answer's headers (gRPC: its metadata), when an answer arrived. */
  readonly headers?: Headers;
}

/**
 * A failure that is not an A2A error: a refused connection, a DNS failure, an
 * abort or timeout, a bare HTTP status from a proxy or a wrong route, an
 * answer that is not the binding's. The message names the operation, the URL
 * and the status or cause.
 */
export class A2ATransportError extends Error {
  override name = "A2ATransportError";
  readonly operation: string | undefined;
  readonly url: string | undefined;
  readonly grpcStatus: string | undefined;
  /** The answer's headers (gRPC: its metadata), when an answer arrived: Retry-After, WWW-Authenticate, … */
  readonly headers: Headers | undefined;
  /**
   * The wait the answer asked for before another try, in ms, read when the error was made: its Retry-After
   * (seconds or an HTTP date) or gRPC's grpc-retry-pushback-ms; undefined when it named none.
   */
  readonly retryAfterMs: number | undefined;
  constructor(
    message: string,
    /** The HTTP status, when an HTTP answer arrived. */
    readonly status?: number,
    /** The answer's body, when one arrived. */
    readonly body?: string,
    details: TransportErrorDetails = {},
  ) {
    super(message, details.cause !== undefined ? { cause: details.cause } : undefined);
    this.operation = details.operation;
    this.url = details.url;
    this.grpcStatus = details.grpcStatus;
    this.headers = details.headers;
    this.retryAfterMs = retryAfterOf(details.headers, Date.now());
  }
}

export const A2A_DOMAIN = "a2a-protocol.org";

/**
 * The ErrorInfo reason of a catalog error: the catalog's, else v1.0's rule for the name (S10 §10.6: the
 * type without "Error" in UPPER_SNAKE_CASE, TaskNotFoundError → TASK_NOT_FOUND). Used on gRPC only.
 */
export function reasonOf(entry: ErrorCatalogEntry): string {
  return (
    entry.reason ??
    entry.name
      .replace(/Error$/, "")
      .replace(/([a-z0-9])([A-Z])/g, "$1_$2")
      .toUpperCase()
  );
}

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
    reason: r.catalog ? reasonOf(r.catalog) : undefined,
    domain: r.catalog?.domain ?? A2A_DOMAIN,
    metadata: r.error.options.metadata ? { ...r.error.options.metadata } : undefined,
  };
}

/** The HTTP status of a JSON-RPC error answer: 401 or 403 for an access error, else 200. */
export function jsonRpcHttpStatus(def: A2aServiceDefinition, e: unknown): number {
  if (!(e instanceof A2AError)) return 200;
  const status = def.standardErrors.find((x) => x.name === e.type)?.httpStatus;
  return status === 401 || status === 403 ? status : 200;
}

/** `headers` with the error's own response headers (A2AError options.headers) added, if it has any. */
export function withErrorHeaders(
  headers: Readonly<Record<string, string>>,
  e: unknown,
): Readonly<Record<string, string>> {
  const own = e instanceof A2AError ? e.options.headers : undefined;
  return own ? headerRecord(headers, own) : headers;
}
