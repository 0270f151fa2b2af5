/**
 * JSON-RPC 2.0 binding, client side: POST {jsonrpc, id, method, params} to
 * the interface URL; unwrap `result`, or throw the A2AError that `error`
 * describes (code, ErrorInfo reason from `data[]`, data), whatever the HTTP
 * status. A non-2xx answer without a JSON-RPC error, or a 2xx answer that is
 * no JSON-RPC response, is an A2ATransportError (client-errors.ts); so is a
 * result the servers' JSON limits would refuse (a lone surrogate in a string,
 * nesting deeper than MAX_RESULT_DEPTH; http/limits.ts). Streams read
 * text/event-stream and unwrap `result` from every `data:` line.
 *
 * The same calls on JSON (params in, result out) are the client's `jsonrpc`
 * property (JsonRpcClient), for the client-side version bridge's one-pass
 * conversions. A client with interceptors makes those calls through its
 * messages too (params decoded, the result encoded back), so that the
 * interceptors see every request, as the server does (server-jsonrpc.ts).
 */
import { fromJson, toJson, type DescService, type JsonValue, type Message } from "@bufbuild/protobuf";
import type { A2aServiceDefinition, CallOptions, OperationInfo } from "../core/definition.js";
import { A2ATransportError, type ReceivedAnswer } from "../core/a2a-error.js";
import { errorFromJsonRpc } from "../core/client-errors.js";
import {
  buildClient,
  DEFAULT_MAX_RESPONSE_BYTES,
  fetchFor,
  responseText,
  serviceHeaders,
  withQuery,
  type A2aClientOptions,
  type BindingCall,
  answersNothing,
} from "../http/client-http.js";
import { jsonLimitProblem, MAX_RESULT_DEPTH } from "../core/limits.js";
import { decodeSse, sseStreamFromResponse } from "../http/sse.js";
import { messageJson } from "../core/protojson-write.js";
import { isEventStream } from "../core/response-body.js";
import type { JsonRpcCalls, JsonRpcClient } from "./json-operations.js";
import type { DialectCodec } from "../core/conversion-types.js";

const isEmptyObject = (v: unknown) =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;

/** What every call of one client needs. */
interface ClientCtx {
  readonly def: A2aServiceDefinition;
  readonly options: A2aClientOptions;
  readonly codec: DialectCodec | undefined;
  readonly fetchFn: typeof fetch;
  /** The most bytes of a response body or of one stream event (A2aClientOptions.maxResponseBytes). */
  readonly maxBytes: number;
  nextId: number;
}

export function createJsonRpcClient<S extends DescService>(
  def: A2aServiceDefinition<S>,
  options: A2aClientOptions,
): JsonRpcClient<S> {
  const c: ClientCtx = {
    def: def as unknown as A2aServiceDefinition,
    options,
    codec: def.jsonrpcCodec ?? undefined,
    fetchFn: options.fetch ?? globalThis.fetch,
    maxBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
    nextId: 0,
  };
  const wire: JsonRpcCalls = {
    onLoss: options.onLoss,
    async call(op, params, call) {
      const { res, id } = await post(c, op, params, call, def.contentTypes.jsonrpc.response);
      return resultOf(c, op, await bodyOf(c, op, res), { id, res });
    },
    async *stream(op, params, call) {
      const { res, id } = await post(c, op, params, call, def.contentTypes.jsonrpc.stream);
      if (!isEventStream(res)) {
        yield resultOf(c, op, await bodyOf(c, op, res), { id, res }); // an error answered without a stream
        return;
      }
      const events = decodeSse(sseStreamFromResponse(res.body), { maxEventChars: c.maxBytes });
      for await (const ev of events) yield resultOf(c, op, ev.data, { id, res });
    },
  };
  const client = buildClient<S>(
    def,
    async (op, request, call) => messageOf(c, op, await wire.call(op, paramsOf(c, op, request), call)),
    async function* (op, request, call) {
      for await (const result of wire.stream(op, paramsOf(c, op, request), call)) yield messageOf(c, op, result);
    },
    options,
    "JSONRPC",
  );
  const calls = options.interceptors?.length ? throughMessages(c, client as unknown as MessageCalls, wire) : wire;
  return Object.assign(client, { jsonrpc: calls });
}

type MessageCalls = Record<string, (request: Message, call?: CallOptions) => unknown>;

/** The JSON calls made through the typed client's methods, so that its interceptors see them. */
function throughMessages(c: ClientCtx, client: MessageCalls, wire: JsonRpcCalls): JsonRpcCalls {
  return {
    onLoss: wire.onLoss,
    async call(op, params, call) {
      const response = (await client[op.localName]!(requestOf(c, op, params), call)) as Message;
      return resultJson(c, op, response);
    },
    async *stream(op, params, call) {
      const events = client[op.localName]!(requestOf(c, op, params), call) as AsyncIterable<Message>;
      for await (const event of events) yield resultJson(c, op, event);
    },
  };
}

/** Params as the operation's request message (through the codec when the version has one). */
function requestOf(c: ClientCtx, op: OperationInfo, params: JsonValue): Message {
  const onDrop = (path: string, reason: string) => c.options.onLoss?.(op.name, { path, reason });
  const json = c.codec ? c.codec.decode(op.method.input, params, onDrop) : params;
  return fromJson(op.method.input, json ?? {}, { ignoreUnknownFields: true });
}

/** A response message as the result JSON the wire would carry (a2a.json through the codec, else ProtoJSON). */
function resultJson(c: ClientCtx, op: OperationInfo, message: Message): JsonValue {
  if (!c.codec) return messageJson(c.def, op.method.output, message);
  const onDrop = (path: string, reason: string) => c.options.onLoss?.(op.name, { path, reason });
  return c.codec.encode(op.method.output, toJson(op.method.output, message as never), onDrop);
}

/** The params of a request: a2a.json through the codec, else ProtoJSON. */
function paramsOf(c: ClientCtx, op: OperationInfo, request: Message): JsonValue {
  if (!c.codec) return messageJson(c.def, op.method.input, request);
  const onDrop = (path: string, reason: string) => c.options.onLoss?.(op.name, { path, reason });
  return c.codec.encode(op.method.input, toJson(op.method.input, request as never), onDrop);
}

/** POSTs the envelope; a non-2xx answer is its JSON-RPC error, else a transport error. */
async function post(c: ClientCtx, op: OperationInfo, params: JsonValue, call: BindingCall | undefined, accept: string) {
  const { def, options } = c;
  const headers = serviceHeaders(def, options, call);
  headers.set("content-type", def.contentTypes.jsonrpc.request);
  headers.set("accept", accept);
  const id = ++c.nextId;
  // a2a.json defines no params for some methods (agent/getAuthenticatedExtendedCard); send none when empty.
  const envelope =
    c.codec && isEmptyObject(params)
      ? { jsonrpc: "2.0", id, method: op.jsonrpcMethod }
      : { jsonrpc: "2.0", id, method: op.jsonrpcMethod, params };
  const body = JSON.stringify(envelope);
  const signal = call?.signal;
  const init = { method: "POST", headers, body, redirect: "manual" as const, ...(signal ? { signal } : {}) };
  const res = await fetchFor(c.fetchFn, op.name, withQuery(options.url, call), init, options.url);
  if (!res.ok) {
    const text = await bodyOf(c, op, res);
    throw (
      errorEnvelope(c, text, { id, res }) ??
      refusal(c, op, `answered HTTP ${res.status}`, res.status, text, res.headers)
    );
  }
  return { res, id };
}

/** A response body as text, at most c.maxBytes. */
const bodyOf = (c: ClientCtx, op: OperationInfo, res: Response) =>
  responseText(res, c.maxBytes, { operation: op.name, url: c.options.url, method: "POST" });

const refusal = (c: ClientCtx, op: OperationInfo, what: string, status: number, body: string, headers?: Headers) =>
  new A2ATransportError(`${op.name}: POST ${c.options.url} (${op.jsonrpcMethod}) ${what}`, status, body, {
    operation: op.name,
    url: c.options.url,
    ...(headers !== undefined ? { headers } : {}),
  });

/**
 * The A2AError of a non-2xx answer that still carries a JSON-RPC error response to request `id`; undefined for
 * anything else (a proxy's JSON error page among them), which is a transport error with the status.
 */
function errorEnvelope(c: ClientCtx, text: string, { id, res }: Answered) {
  let env: unknown;
  try {
    env = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (responseProblem(env, id) !== undefined) return undefined;
  const { error } = env as { error?: Record<string, unknown> };
  return error === undefined ? undefined : errorFromJsonRpc(c.def, error, receivedOf(res));
}

/**
 * What makes `env` no JSON-RPC 2.0 response to request `id`, or undefined: it needs "jsonrpc": "2.0", exactly
 * one of result and error, an error with an integer code and a string message, and the request's id (an
 * error may carry null: the server could not read the request).
 */
function responseProblem(env: unknown, id: number): string | undefined {
  if (typeof env !== "object" || env === null || Array.isArray(env)) return "no JSON-RPC response";
  const e = env as Record<string, unknown>;
  if (e["jsonrpc"] !== "2.0") return 'a response without "jsonrpc": "2.0"';
  const hasError = "error" in e;
  if (hasError === "result" in e) return `a response with ${hasError ? "both a result and an error" : "no result"}`;
  const error = e["error"] as { code?: unknown; message?: unknown } | null | undefined;
  if (hasError && (!Number.isInteger(error?.code) || typeof error?.message !== "string")) {
    return "an error without an integer code and a message";
  }
  const sameId = e["id"] === id || (hasError && e["id"] === null);
  return sameId ? undefined : `a response to another request (id ${JSON.stringify(e["id"])}, not ${id})`;
}

/** The request a text answers (its id) and the response it came in. */
interface Answered {
  readonly id: number;
  readonly res: Response;
}

const receivedOf = (res: Response): ReceivedAnswer => ({ status: res.status, headers: res.headers });

/** The `result` of a response envelope to request `id`; its `error` thrown. */
function resultOf(c: ClientCtx, op: OperationInfo, text: string, { id, res }: Answered): JsonValue {
  let envelope: unknown;
  try {
    envelope = JSON.parse(text);
  } catch {
    throw refusal(c, op, "answered with no JSON-RPC response", 200, text);
  }
  const wrong = responseProblem(envelope, id);
  if (wrong !== undefined) throw refusal(c, op, `answered ${wrong}`, 200, text);
  const env = envelope as { error?: Record<string, unknown>; result?: unknown };
  if (env.error !== undefined) throw errorFromJsonRpc(c.def, env.error, receivedOf(res));
  const result = (env.result ?? null) as JsonValue;
  const problem = jsonLimitProblem(result, "result", MAX_RESULT_DEPTH);
  if (problem) throw refusal(c, op, `answered a result that cannot be read: ${problem}`, 200, text);
  return result;
}

/** A result as the operation's response message (through the codec when the version has one). */
function messageOf(c: ClientCtx, op: OperationInfo, result: JsonValue): Message {
  // A null result (or none) is an answer only where the operation answers nothing (google.protobuf.Empty).
  if (result === null && !answersNothing(op)) throw refusal(c, op, "answered a null result", 200, "null");
  const onDrop = (path: string, reason: string) => c.options.onLoss?.(op.name, { path, reason });
  const json = c.codec ? c.codec.decode(op.method.output, result, onDrop) : (result ?? {});
  return fromJson(op.method.output, json, { ignoreUnknownFields: true });
}
