/**
 * JSON-RPC 2.0 binding, server side. One POST endpoint:
 *
 *   body   {"jsonrpc":"2.0","id":<string|number|null>,"method":<name>,"params":<request JSON>}
 *   reply  {"jsonrpc":"2.0","id":…,"result":<response JSON>} or {…,"error":{code,message,data}}
 *   stream text/event-stream; each `data:` line is a whole JSON-RPC response
 *          whose result is one StreamResponse; a failure mid-stream is sent as
 *          one JSON-RPC error response, then the stream ends. Where it
 *          starts is the version's streamStart.jsonrpc: `first-event`
 *          (v1.0), only with its first event, a failure before it being the
 *          ordinary error reply (application/json), as for a unary method;
 *          `in-stream` (v0.3), every answer to a streaming method is a
 *          stream, a failure before the first event (params, card, input
 *          rules, handler) its one event. Failures before the method is
 *          known (Content-Type, envelope, version, method) are ordinary replies.
 *
 * Errors, in the order checked: a request whose Content-Type is missing or not
 * one the version accepts gets the version's refusal code
 * (jsonrpcRequestContentTypes: -32005, id null) before its body is read;
 * unparsable JSON -32700 (id null); a bad envelope -32600; a version the
 * interface does not speak VersionNotSupportedError, before the method is
 * looked up; an unknown method -32601; params that are no object, that do not decode, or
 * that break the JSON limits (limits.ts, checked before anything reads them)
 * or the version's input rules (json-request-check.ts, validate.ts), -32602;
 * anything else a handler throws that is not an A2AError -32603. Unknown
 * fields are ignored. HTTP status is 200 for every JSON-RPC answer, except 405
 * for a non-POST and 413 for a body over the limit.
 *
 * Ids (jsonrpcIds): a string, null, or an integer of at most maxIntegerId in
 * magnitude, so the answer echoes exactly what was sent; any other id is
 * -32600 with id null. A request without `id` is checked and served like one
 * with id null: A2A has no notifications, so it gets its method, params or
 * handler error, or its result, with id null.
 *
 * Before the handler: the agent card's capabilities and required
 * extensions (call-context.ts, card-rules.ts); every answer to a call that
 * passed them names the activated extensions in the extensions header.
 *
 * An operation named in `jsonrpcOperations` (the version bridge's one-pass
 * operations) is served on JSON: it gets the params JSON and gives the result
 * JSON; the handler's method for it is not called.
 */
import { fromJson, toJson, type DescMessage, type DescService, type JsonValue, type Message } from "@bufbuild/protobuf";
import type { OperationInfo } from "../core/definition.js";
import type { ProtocolTables } from "../core/protocol-tables.js";
import { messageJson } from "../core/protojson-write.js";
import { A2AError, jsonRpcHttpStatus, toJsonRpcError, withErrorHeaders } from "../core/a2a-error.js";
import { errorReporter } from "../core/report-error.js";
import {
  admitHttpCall,
  checkHttpVersion,
  echoingExtensions,
  lazyContext,
  tenantOf,
  type Admitted,
  type Seen,
} from "../http/call-context.js";
import { cardRulesOf } from "../card/card-rules.js";
import {
  BodyAbortedError,
  BodyTooLargeError,
  DEFAULT_MAX_BODY,
  type A2aServerOptions,
  type CoreRequest,
  type CoreResponse,
} from "../core/server-types.js";
import type { JsonRpcOperations } from "./json-operations.js";
import { encodeSseEvent } from "../http/sse.js";
import { DEFAULT_KEEP_ALIVE_MS, sseLines, startStream, withKeepAlive } from "../core/server-stream.js";
import { createInvoker, invalidRequest, type Invoker } from "../core/invoke.js";
import { jsonRequestProblem } from "../core/json-request-check.js";
import type { DialectCodec, OnDrop } from "../core/conversion-types.js";
import { jsonLimitProblem, MAX_JSONRPC_ID_CHARS } from "../core/limits.js";
import { contentTypeCheck, type ContentTypeCheck } from "../http/request-content-type.js";

type Id = string | number | null;

export interface JsonRpcServerOptions<S extends DescService = DescService> extends A2aServerOptions<S> {
  /**
   * Operations served on JSON, by operation name, in place of the handler's methods: the server hands them
   * the params JSON and sends the result JSON they return (the version bridge's one-pass operations,
   * bridgeToOlder). The Content-Type, envelope, limits, version, card rules and the JSON input checks
   * (json-request-check.ts) still come first; the operation reads and checks the params itself.
   */
  readonly jsonrpcOperations?: JsonRpcOperations;
}

/**
 * What a generated stub's JSON-RPC server takes (create<Service>JsonRpcHandler): the server's options but the
 * definition, which the stub gives.
 */
export type JsonRpcHandlerOptions<S extends DescService = DescService> = Omit<JsonRpcServerOptions<S>, "definition">;

/** A request envelope that passed the checks of the JSON-RPC 2.0 binding. */
interface Envelope {
  readonly id: Id;
  readonly method: string;
  readonly params: JsonValue;
}

/** Why an envelope is refused, with the id to answer with (and an HTTP status other than 200). */
interface Refusal {
  readonly id: Id;
  /** An A2AError, or what an adapter's body read threw (a server fault, reported). */
  readonly error: unknown;
  readonly status?: number;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
const MAX_SAFE_ID = Number.MAX_SAFE_INTEGER;

/** What serving a request needs, built once per server. */
interface ServerCtx {
  readonly def: JsonRpcServerOptions["definition"];
  readonly options: JsonRpcServerOptions;
  readonly codec: DialectCodec | undefined;
  readonly refuseContentType: ContentTypeCheck;
  readonly maxId: number;
  readonly cardRules: ReturnType<typeof cardRulesOf>;
  readonly keepAliveMs: number;
  readonly report: ReturnType<typeof errorReporter>;
  readonly headers: Readonly<Record<string, string>>;
  readonly streamHeaders: Readonly<Record<string, string>>;
  /** Whether a streaming method's errors before its first event go in the stream (streamStart.jsonrpc). */
  readonly inStream: boolean;
  readonly invoke: Invoker;
}

export function createJsonRpcHandler<S extends DescService>(
  options: JsonRpcServerOptions<S>,
): (req: CoreRequest) => Promise<CoreResponse> {
  const def = options.definition;
  const c: ServerCtx = {
    def,
    options: options as unknown as JsonRpcServerOptions,
    codec: def.jsonrpcCodec ?? undefined,
    refuseContentType: jsonRpcContentTypeCheck(def),
    invoke: createInvoker(options.handler, options.interceptors, def),
    maxId: def.jsonrpcIds?.maxIntegerId ?? MAX_SAFE_ID,
    cardRules: cardRulesOf(def, options),
    keepAliveMs: options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
    report: errorReporter(def, "JSONRPC", options.onError),
    headers: { "content-type": def.contentTypes.jsonrpc.response },
    streamHeaders: { "content-type": def.contentTypes.jsonrpc.stream, "cache-control": "no-cache" },
    inStream: def.streamStart?.jsonrpc === "in-stream",
  };
  return echoingExtensions(def, options, (req, seen) => serve(c, req, seen));
}

const reply = (c: ServerCtx, id: Id, payload: { result: unknown } | { error: unknown }): CoreResponse => {
  const member =
    "result" in payload ? `"result":${JSON.stringify(payload.result)}` : `"error":${JSON.stringify(payload.error)}`;
  return { status: 200, headers: c.headers, body: `{"jsonrpc":"2.0","id":${JSON.stringify(id)},${member}}` };
};

const fail = (c: ServerCtx, id: Id, e: unknown, operation?: string): CoreResponse => {
  c.report(e, operation);
  const answer = reply(c, id, { error: toJsonRpcError(c.def, e) });
  const status = jsonRpcHttpStatus(c.def, e);
  return status === 200 ? answer : { ...answer, status, headers: withErrorHeaders(answer.headers, e) };
};

/**
 * The error answer to a call of `op`: the ordinary reply, or, for a streaming operation of a version whose
 * JSON-RPC streams start in-stream (streamStart), a stream whose one event is the error response.
 */
const failCall = (c: ServerCtx, id: Id, op: OperationInfo, e: unknown): CoreResponse => {
  if (!(op.streaming && c.inStream)) return fail(c, id, e, op.name);
  c.report(e, op.name);
  const line = JSON.stringify({ jsonrpc: "2.0", id, error: toJsonRpcError(c.def, e) });
  return { status: 200, headers: c.streamHeaders, body: once(encodeSseEvent(line)) };
};

async function* once(chunk: string): AsyncIterable<string> {
  yield chunk;
}

/** The stream once its first result is ready; an error before that is answered by failCall. */
async function streamResponse(c: ServerCtx, id: Id, op: OperationInfo, results: AsyncIterable<JsonValue>) {
  let started: AsyncIterable<JsonValue>;
  try {
    started = await startStream(results);
  } catch (e) {
    return failCall(c, id, op, e);
  }
  const errorLine = (e: unknown) => {
    c.report(e, op.name);
    return JSON.stringify({ jsonrpc: "2.0", id, error: toJsonRpcError(c.def, e) });
  };
  return {
    status: 200,
    headers: c.streamHeaders,
    body: withKeepAlive(
      sseLines(
        started,
        (result) => encodeSseEvent(JSON.stringify({ jsonrpc: "2.0", id, result })),
        (e) => encodeSseEvent(errorLine(e)),
      ),
      c.keepAliveMs,
    ),
  };
}

/**
 * Serves one request; `seen.admitted` is set once the call passed admitCall. Order: Content-Type, envelope,
 * version (before the method is looked up, so a version the interface does not speak is never "Method not
 * found"), method, params, card and extensions, input rules.
 */
async function serve(c: ServerCtx, req: CoreRequest, seen: Seen): Promise<CoreResponse> {
  const { def, options } = c;
  if (req.method !== "POST") return { status: 405, headers: { allow: "POST" }, body: "" };
  const wrongType = c.refuseContentType(req.header("content-type"), req.header("content-encoding"));
  if (wrongType) return fail(c, null, wrongType);
  const env = await readEnvelope(req, options.maxBodyBytes ?? DEFAULT_MAX_BODY, c.maxId);
  if ("error" in env) {
    const answer = fail(c, env.id, env.error);
    return env.status === undefined ? answer : { ...answer, status: env.status };
  }
  const { id, params } = env;
  let version: string;
  try {
    version = checkHttpVersion(def, req);
  } catch (e) {
    return fail(c, id, e);
  }
  const op = def.byJsonRpcMethod.get(env.method);
  if (!op) return fail(c, id, new A2AError("MethodNotFoundError", `Method not found: ${env.method}`));
  if (typeof params !== "object" || params === null || Array.isArray(params))
    return failCall(c, id, op, new A2AError("InvalidParamsError", "params must be an object"));
  const overLimit = jsonLimitProblem(params, "params");
  if (overLimit)
    return failCall(c, id, op, new A2AError("InvalidParamsError", `Invalid params for ${env.method}: ${overLimit}`));

  let admitted: Admitted;
  try {
    admitted = admitHttpCall(def, op, req, c.cardRules, version);
  } catch (e) {
    return failCall(c, id, op, e);
  }
  seen.admitted = admitted;

  const wrong = jsonRequestProblem(op.method.input, params, def.jsonrpcCodec?.names);
  if (wrong) return failCall(c, id, op, invalidRequest(op, "JSONRPC", wrong));
  // With interceptors every call goes through the handler's messages, which the interceptors see.
  const direct = c.invoke.intercepted ? undefined : options.jsonrpcOperations?.get(op.name);
  if (direct && (op.streaming ? direct.stream : direct.unary)) return serveJson(c, req, admitted, id, op, params);
  return serveMessage(c, req, admitted, id, op, params);
}

/** An operation that reads the params and writes the results itself (a version bridge, in one pass). */
async function serveJson(
  c: ServerCtx,
  req: CoreRequest,
  admitted: Admitted,
  id: Id,
  op: OperationInfo,
  params: unknown,
) {
  const direct = c.options.jsonrpcOperations!.get(op.name)!;
  const context = lazyContext(req, admitted, "JSONRPC", undefined);
  const onLoss = c.options.onLoss;
  const told = onLoss ? (loss: { path: string; reason: string }) => onLoss(op.name, loss) : undefined;
  try {
    if (!op.streaming)
      return reply(c, id, { result: await direct.unary!.call(direct, params as JsonValue, context, told) });
    return streamResponse(c, id, op, direct.stream!.call(direct, params as JsonValue, context, told));
  } catch (e) {
    return failCall(c, id, op, e);
  }
}

/** An operation of the handler: params decoded to its request message, its answer encoded. */
async function serveMessage(
  c: ServerCtx,
  req: CoreRequest,
  admitted: Admitted,
  id: Id,
  op: OperationInfo,
  params: unknown,
): Promise<CoreResponse> {
  const { def, codec } = c;
  const onLoss = c.options.onLoss;
  const onDrop: OnDrop = onLoss ? (path, reason) => onLoss(op.name, { path, reason }) : ignoreDrop;
  let input: Message;
  try {
    input = fromJson(
      op.method.input,
      codec ? codec.decode(op.method.input, params as JsonValue, onDrop) : (params as JsonValue),
      { ignoreUnknownFields: true },
    );
  } catch (e) {
    const message = `Invalid params for ${op.jsonrpcMethod}: ${(e as Error).message}`;
    return failCall(c, id, op, new A2AError("InvalidParamsError", message));
  }
  const context = lazyContext(req, admitted, "JSONRPC", tenantOf(def, input, op.tenantLocalName));
  if (!op.streaming) {
    try {
      const out = await c.invoke.unary(op, input, context);
      return reply(c, id, {
        result: codec
          ? codec.encode(op.method.output, toJson(op.method.output, out as never), onDrop)
          : messageJson(def, op.method.output, out),
      });
    } catch (e) {
      return fail(c, id, e, op.name);
    }
  }
  const events = c.invoke.stream(op, input, context);
  return streamResponse(c, id, op, resultsOf(def, op, events, codec, onDrop));
}

/** What is dropped when nobody is told (no onLoss). */
const ignoreDrop: OnDrop = () => {};

/** The version's Content-Type check (request-content-type.ts): jsonrpcRequestContentTypes, else -32600. */
function jsonRpcContentTypeCheck(def: ProtocolTables): ContentTypeCheck {
  const rule = def.jsonrpcRequestContentTypes ?? { accept: [def.contentTypes.jsonrpc.request], errorCode: -32600 };
  const code = rule.errorCode;
  const name =
    def.errors.find((e) => e.jsonrpcCode === code)?.name ??
    def.standardErrors.find((e) => e.code === code)?.name ??
    "InvalidRequestError";
  return contentTypeCheck(rule.accept, name, code);
}

/** Reads and checks the envelope: JSON, a JSON-RPC 2.0 object, a usable id, a method name. */
async function readEnvelope(req: CoreRequest, limit: number, maxId: number): Promise<Envelope | Refusal> {
  let bytes: Uint8Array;
  try {
    bytes = await req.body(limit);
  } catch (e) {
    if (e instanceof BodyTooLargeError)
      return { id: null, error: new A2AError("InvalidRequestError", "Request body is too large"), status: 413 };
    // The client is gone: no fault of the server's, nobody to read the answer.
    if (e instanceof BodyAbortedError) return { id: null, error: new A2AError("InvalidRequestError", e.message) };
    return { id: null, error: e };
  }
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return { id: null, error: new A2AError("JSONParseError", "Request body is not UTF-8") };
  }
  let envelope: unknown;
  try {
    envelope = JSON.parse(text);
  } catch {
    return { id: null, error: new A2AError("JSONParseError") };
  }
  if (typeof envelope !== "object" || envelope === null || Array.isArray(envelope)) {
    return { id: null, error: new A2AError("InvalidRequestError", "The request must be a JSON-RPC 2.0 object") };
  }
  const env = envelope as Record<string, unknown>;
  const id = idOf(env["id"], maxId);
  if (id === undefined) {
    const message =
      typeof env["id"] === "string"
        ? `id must be at most ${MAX_JSONRPC_ID_CHARS} characters`
        : `id must be a string, null or an integer from -${maxId} to ${maxId}`;
    return { id: null, error: new A2AError("InvalidRequestError", message) };
  }
  if (env["jsonrpc"] !== "2.0" || typeof env["method"] !== "string") {
    return { id, error: new A2AError("InvalidRequestError", 'Expected {"jsonrpc":"2.0","id":…,"method":…}') };
  }
  // params that are not an object are refused once the method is known (serve).
  return { id, method: env["method"], params: ("params" in env ? env["params"] : {}) as JsonValue };
}

/**
 * The id to answer with, or undefined when it cannot be echoed as sent: not a string, number or null, a fraction,
 * or an integer a double does not hold exactly (1e400 parses as Infinity, 2^53+1 as 2^53). An absent id is null.
 * A string over MAX_JSONRPC_ID_CHARS is not echoed either (limits.ts).
 */
function idOf(raw: unknown, maxId: number): Id | undefined {
  if (raw === undefined || raw === null) return null;
  if (typeof raw === "string") return raw.length <= MAX_JSONRPC_ID_CHARS ? raw : undefined;
  if (typeof raw === "number" && Number.isInteger(raw) && Math.abs(raw) <= maxId) return raw;
  return undefined;
}

/** Each stream event as its result JSON. */
async function* resultsOf(
  def: ProtocolTables,
  op: OperationInfo,
  events: AsyncIterable<Message>,
  codec: DialectCodec | undefined,
  onDrop: OnDrop,
): AsyncIterable<JsonValue> {
  for await (const ev of events)
    yield codec
      ? codec.encode(op.method.output, toJson(op.method.output as DescMessage, ev as never), onDrop)
      : messageJson(def, op.method.output, ev);
}
