/**
 * What a client throws when a call fails: one model over JSON-RPC, HTTP+JSON
 * and gRPC. Exactly two classes reach the caller:
 *
 *   A2AError           an A2A or standard error the server sent, with its catalog
 *                      type, its JSON-RPC code and the server's message, and
 *                      the answer it came in (options.received: HTTP status
 *                      and headers; gRPC metadata)
 *   A2ATransportError  anything else, naming the operation, the URL and the
 *                      HTTP or gRPC status, or the cause (refused connection,
 *                      DNS, abort, timeout, an answer that is not the binding's)
 *
 * How each binding's answer is read:
 *
 *   JSON-RPC   the envelope's `error`: an A2A ErrorInfo in `data[]` (v1.0)
 *              names the catalog error by reason, else the code names a
 *              catalog or standard error, at any HTTP status
 *   HTTP+JSON  a google.rpc.Status body {error: {code, status, message,
 *              details}}: an A2A ErrorInfo in `details` names the catalog error
 *              by reason; without one, the standard-error rule below. A
 *              JSON-RPC-style {code, message} body (v0.3) names it by code
 *              (catalog, standard, or the server-error range -32099..-32000).
 *              Anything else is a transport error: a bare 404 is a wrong
 *              route, never TaskNotFoundError
 *   gRPC       a ConnectError with a status the server sent (a grpc-status
 *              trailer): an A2A ErrorInfo detail names the catalog error by
 *              reason; without one, the standard-error rule; a version whose
 *              catalog has no reasons (v0.3 peers send no details) also takes
 *              the catalog error that alone uses the status, or the one whose
 *              status and default message both match. Any other status
 *              (UNAVAILABLE, DEADLINE_EXCEEDED, UNIMPLEMENTED, …) and any
 *              status the client made up (an HTTP 502, a broken response) is
 *              a transport error, with the ConnectError as its cause
 *
 * Standard-error rule: the servers send a standard error (InvalidParamsError,
 * InternalError, and the JSON-RPC-only ones) on HTTP+JSON and gRPC without
 * ErrorInfo, as its canonical status: the catalog's grpcStatus, else INTERNAL
 * for -32603 and INVALID_ARGUMENT for the rest (a2a-error.ts). Among the
 * standard errors with the received status, the one whose default message is
 * the received message is taken; else the one whose grpcStatus is that status
 * (INVALID_ARGUMENT → InvalidParamsError, INTERNAL → InternalError). So a
 * JSON-RPC-only error keeps its type over HTTP+JSON and gRPC only with its
 * default message.
 *
 * An A2A error this catalog does not know (an ErrorInfo reason or a
 * server-error code of a newer version) is still an A2AError, of type
 * "UnknownError", with the reason or code it came with.
 */
import { Code, ConnectError } from "@connectrpc/connect";
import type { A2aServiceDefinition } from "./definition.js";
import type { StandardErrorEntry } from "./protocol-tables.js";
import { A2A_DOMAIN, A2AError, A2ATransportError, type ReceivedAnswer, reasonOf } from "./a2a-error.js";
import { ERROR_INFO_TYPE_URL, ErrorInfoSchema } from "./error-info.js";
import { definedNames, withNames } from "./records.js";

/** The call a failure belongs to: operation name and the URL it was sent to. */
export interface CallSite {
  readonly operation: string;
  readonly url: string;
}

interface WireError {
  readonly code?: number;
  readonly message?: string;
  readonly reason?: string;
  readonly domain?: string;
  readonly metadata?: Record<string, string>;
  readonly data?: unknown;
  readonly received?: ReceivedAnswer;
}

/** A catalog entry from an ErrorInfo reason, else a catalog or standard entry from a JSON-RPC code. */
export function errorFromWire(def: A2aServiceDefinition, wire: WireError): A2AError {
  const byReason =
    wire.reason && (wire.domain ?? A2A_DOMAIN) === A2A_DOMAIN
      ? def.errors.find((e) => reasonOf(e) === wire.reason)
      : undefined;
  const byCode =
    wire.code !== undefined
      ? (def.errors.find((e) => e.jsonrpcCode === wire.code) ?? def.standardErrors.find((e) => e.code === wire.code))
      : undefined;
  const type = byReason?.name ?? byCode?.name ?? "UnknownError";
  const code = byReason?.jsonrpcCode ?? wire.code;
  const { reason, domain, data, received } = wire;
  const metadata = wire.metadata ? wire.metadata : undefined;
  return A2AError.named(type, wire.message, definedNames({ code, reason, domain, metadata, data, received }));
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

/**
 * The ErrorInfo fields of a JSON `details` or `data` list, when it is of the A2A domain. A reason this
 * catalog lacks (an error of a newer version) still makes an A2AError, of type UnknownError.
 */
function a2aInfo(list: unknown): WireError | undefined {
  const info = findErrorInfo(list);
  if (typeof info?.reason !== "string") return undefined;
  const domain = typeof info.domain === "string" ? info.domain : A2A_DOMAIN;
  if (domain !== A2A_DOMAIN) return undefined;
  return {
    reason: info.reason,
    domain,
    ...(info.metadata && typeof info.metadata === "object"
      ? { metadata: info.metadata as Record<string, string> }
      : {}),
  };
}

export function errorFromJsonRpc(
  def: A2aServiceDefinition,
  error: { code?: unknown; message?: unknown; data?: unknown },
  received?: ReceivedAnswer,
): A2AError {
  const info = a2aInfo(error.data);
  return errorFromWire(
    def,
    definedNames({
      code: typeof error.code === "number" ? error.code : undefined,
      message: typeof error.message === "string" ? error.message : undefined,
      reason: info?.reason,
      domain: info?.domain,
      metadata: info?.metadata,
      data: error.data,
      received,
    }),
  );
}

/** The status a server sends a standard error with on HTTP+JSON and gRPC (a2a-error.ts). */
const canonicalStatus = (e: StandardErrorEntry) =>
  e.grpcStatus ?? (e.code === -32603 ? "INTERNAL" : "INVALID_ARGUMENT");

/** The standard error a canonical status and message stand for (the module's standard-error rule). */
export function standardErrorOf(
  def: A2aServiceDefinition,
  status: string,
  message: string | undefined,
): StandardErrorEntry | undefined {
  const candidates = def.standardErrors.filter((e) => canonicalStatus(e) === status);
  return candidates.find((e) => e.message === message) ?? candidates.find((e) => e.grpcStatus === status);
}

/** An HTTP answer the client reads an error from: its status, its body (or a stream's event data) and headers. */
export interface HttpAnswer {
  readonly status: number;
  readonly text: string;
  readonly headers: Headers;
}

/** An HTTP+JSON error answer (status and body, or a stream's `error` event) as the error the client throws. */
export function errorFromRest(
  def: A2aServiceDefinition,
  { status, text, headers }: HttpAnswer,
  site: CallSite & { readonly method: string },
  what = `answered HTTP ${status}`,
): A2AError | A2ATransportError {
  const transport = () =>
    new A2ATransportError(`${site.operation}: ${site.method} ${site.url} ${what}`, status, text, {
      operation: site.operation,
      url: site.url,
      headers,
    });
  const received: ReceivedAnswer = { status, headers };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return transport();
  }
  if (typeof body !== "object" || body === null) return transport();
  const rpcStatus = (body as { error?: unknown }).error;
  if (typeof rpcStatus === "object" && rpcStatus !== null) {
    const { message, status: name, details } = rpcStatus as { message?: unknown; status?: unknown; details?: unknown };
    const msg = typeof message === "string" ? message : undefined;
    const info = a2aInfo(details);
    if (info) return errorFromWire(def, withNames(info, definedNames({ message: msg, received })));
    const standard = typeof name === "string" ? standardErrorOf(def, name, msg) : undefined;
    if (standard) return errorFromWire(def, definedNames({ code: standard.code, message: msg, received }));
    return transport();
  }
  // A version without ErrorInfo (v0.3) answers with a JSON-RPC-style {code, message}: a code of this
  // catalog, a standard one, or one of the server-error range (an error of a newer version, bridged).
  const { code, message } = body as { code?: unknown; message?: unknown };
  if (
    typeof code === "number" &&
    (def.errors.some((e) => e.jsonrpcCode === code) ||
      def.standardErrors.some((e) => e.code === code) ||
      (code <= -32000 && code >= -32099))
  ) {
    return errorFromWire(def, { code, ...(typeof message === "string" ? { message } : {}), received });
  }
  return transport();
}

/** "FAILED_PRECONDITION" for Code.FailedPrecondition. */
export function grpcStatusName(code: Code): string {
  return (Code[code] ?? "Unknown").replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

/** A gRPC failure as the error the client throws; a failure that is no ConnectError is a transport error. */
export function errorFromConnect(def: A2aServiceDefinition, e: unknown, site: CallSite): A2AError | A2ATransportError {
  if (e instanceof A2AError || e instanceof A2ATransportError) return e;
  if (!(e instanceof ConnectError)) return transportFailure(site, e);
  const status = grpcStatusName(e.code);
  // The server's status only when it sent a valid one: connect makes up INTERNAL for "grpc-status: 99".
  const sent = e.metadata.get("grpc-status");
  const valid = sent !== null && /^(?:[0-9]|1[0-6])$/.test(sent.trim()) && Number(sent) === e.code;
  if (!valid && !e.metadata.has("grpc-status-details-bin")) return grpcTransport(e, status, site);
  const received: ReceivedAnswer = { headers: e.metadata };
  const info = e.findDetails(ErrorInfoSchema)[0] as unknown as
    | { reason?: string; domain?: string; metadata?: Record<string, string> }
    | undefined;
  if (info?.reason && (info.domain || A2A_DOMAIN) === A2A_DOMAIN) {
    const metadata = info.metadata && Object.keys(info.metadata).length > 0 ? info.metadata : undefined;
    return errorFromWire(def, {
      reason: info.reason,
      domain: info.domain || A2A_DOMAIN,
      message: e.rawMessage,
      ...(metadata ? { metadata } : {}),
      received,
    });
  }
  const standard = standardErrorOf(def, status, e.rawMessage);
  if (standard) return errorFromWire(def, { code: standard.code, message: e.rawMessage, received });
  if (!def.errors.some((x) => x.reason)) {
    const hits = def.errors.filter((x) => x.grpcStatus === status);
    const hit = hits.length === 1 ? hits[0] : hits.find((x) => x.message === e.rawMessage);
    if (hit) return errorFromWire(def, { code: hit.jsonrpcCode, message: e.rawMessage, received });
  }
  return grpcTransport(e, status, site);
}

const grpcTransport = (e: ConnectError, status: string, site: CallSite) =>
  new A2ATransportError(
    `${site.operation}: gRPC ${site.url} ended with ${status}: ${e.rawMessage}`,
    undefined,
    undefined,
    {
      operation: site.operation,
      url: site.url,
      grpcStatus: status,
      headers: e.metadata,
      cause: e,
    },
  );

/** What a failure's cause chain says, innermost first: "fetch failed (connect ECONNREFUSED 127.0.0.1:4)". */
function describeCause(e: unknown): string {
  const parts: string[] = [];
  for (let c: unknown = e, depth = 0; c !== undefined && c !== null && depth < 5; depth++) {
    const err = c as { message?: unknown; code?: unknown; cause?: unknown };
    const text = typeof err.message === "string" && err.message !== "" ? err.message : undefined;
    const part = text ?? (typeof err.code === "string" ? err.code : typeof c === "string" ? c : undefined);
    if (part && !parts.includes(part)) parts.push(part);
    c = typeof c === "object" ? err.cause : undefined;
  }
  if (parts.length === 0) return String(e);
  return parts.length === 1 ? parts[0]! : `${parts[0]} (${parts.slice(1).join(": ")})`;
}

/**
 * A failure with no A2A answer (fetch rejected, the body broke off, an answer that
 * does not parse) as a transport error naming the call; A2A and transport errors pass.
 */
export function transportFailure(
  site: CallSite & { readonly method?: string },
  e: unknown,
): A2AError | A2ATransportError {
  if (e instanceof A2AError || e instanceof A2ATransportError) return e;
  const how = site.method ? `${site.method} ${site.url}` : site.url;
  return new A2ATransportError(`${site.operation}: ${how} failed: ${describeCause(e)}`, undefined, undefined, {
    operation: site.operation,
    url: site.url,
    cause: e,
  });
}
