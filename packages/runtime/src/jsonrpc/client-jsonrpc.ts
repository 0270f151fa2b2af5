/**
 * JSON-RPC 2.0 binding, client side: POST {jsonrpc, id, method, params} to
 * the interface URL; unwrap `result`, or throw the A2AError that `error`
 * describes (code, ErrorInfo reason from `data[]`, data), whatever the HTTP
 * status. A non-2xx answer without a JSON-RPC error, or a 2xx answer that is
 * no JSON-RPC response, is an A2ATransportError (client-errors.ts). Streams
 * read text/event-stream and unwrap `result` from every `data:` line.
 *
 * The same calls on JSON (params in, result out) are the client's `jsonrpc`
 * property (JsonRpcClient), for the client-side version bridge's one-pass
 * conversions.
 */
import { fromJson, toJson, type DescService, type JsonValue, type Message } from "@bufbuild/protobuf";
import type { A2aServiceDefinition, CallOptions, OperationInfo } from "../definition.js";
import { A2ATransportError } from "../a2a-error.js";
import { errorFromJsonRpc } from "../client-errors.js";
import { buildClient, callSignal, fetchFor, serviceHeaders, type A2aClientOptions } from "../http/client-http.js";
import { decodeSse, sseStreamFromResponse } from "../http/sse.js";
import { messageJson } from "../protojson-write.js";
import type { JsonRpcCalls, JsonRpcClient } from "./json-operations.js";

const isEmptyObject = (v: unknown) =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;

export function createJsonRpcClient<S extends DescService>(
  def: A2aServiceDefinition<S>,
  options: A2aClientOptions,
): JsonRpcClient<S> {
  const fetchFn = options.fetch ?? globalThis.fetch;
  const codec = def.jsonrpcCodec ?? undefined;
  let nextId = 0;

  const paramsOf = (op: OperationInfo, request: Message): JsonValue => {
    return codec
      ? codec.encode(op.method.input, toJson(op.method.input, request as never), (path, reason) =>
          options.onLoss?.(op.name, { path, reason }),
        )
      : messageJson(def, op.method.input, request);
  };

  const post = async (op: OperationInfo, params: JsonValue, call: CallOptions | undefined, accept: string) => {
    const headers = serviceHeaders(def, options, call);
    headers.set("content-type", def.contentTypes.jsonrpc.request);
    headers.set("accept", accept);
    const id = ++nextId;
    // a2a.json defines no params for some methods (agent/getAuthenticatedExtendedCard); send none when empty.
    const envelope =
      codec && isEmptyObject(params)
        ? { jsonrpc: "2.0", id, method: op.jsonrpcMethod }
        : { jsonrpc: "2.0", id, method: op.jsonrpcMethod, params };
    const body = JSON.stringify(envelope);
    const signal = callSignal(options, call);
    const init = { method: "POST", headers, body, ...(signal ? { signal } : {}) };
    const res = await fetchFor(fetchFn, op.name, options.url, init);
    if (!res.ok) {
      const text = await res.text();
      throw errorEnvelope(text) ?? refusal(op, `answered HTTP ${res.status}`, res.status, text);
    }
    return res;
  };

  const refusal = (op: OperationInfo, what: string, status?: number, body?: string) =>
    new A2ATransportError(`${op.name}: POST ${options.url} (${op.jsonrpcMethod}) ${what}`, status, body, {
      operation: op.name,
      url: options.url,
    });

  /** The A2AError of a non-2xx answer that still carries a JSON-RPC error. */
  const errorEnvelope = (text: string) => {
    try {
      const env = JSON.parse(text) as { error?: unknown } | null;
      return typeof env?.error === "object" && env.error !== null
        ? errorFromJsonRpc(def, env.error as Record<string, unknown>)
        : undefined;
    } catch {
      return undefined;
    }
  };

  /** The `result` of a response envelope; its `error` thrown. */
  const resultOf = (op: OperationInfo, text: string): JsonValue => {
    let envelope: unknown;
    try {
      envelope = JSON.parse(text);
    } catch {
      throw refusal(op, "answered with no JSON-RPC response", 200, text);
    }
    const env = envelope as { error?: Record<string, unknown>; result?: unknown } | null;
    if (env?.error) throw errorFromJsonRpc(def, env.error);
    if (!env || !("result" in env)) throw refusal(op, "answered with no JSON-RPC response", 200, text);
    return (env.result ?? null) as JsonValue;
  };

  const messageOf = (op: OperationInfo, result: JsonValue): Message => {
    const onDrop = (path: string, reason: string) => options.onLoss?.(op.name, { path, reason });
    return fromJson(op.method.output, codec ? codec.decode(op.method.output, result, onDrop) : (result ?? {}), {
      ignoreUnknownFields: true,
    });
  };

  const calls: JsonRpcCalls = {
    onLoss: options.onLoss,
    async call(op, params, call) {
      const res = await post(op, params, call, def.contentTypes.jsonrpc.response);
      return resultOf(op, await res.text());
    },
    async *stream(op, params, call) {
      const res = await post(op, params, call, def.contentTypes.jsonrpc.stream);
      if (!(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
        yield resultOf(op, await res.text()); // an error answered without a stream
        return;
      }
      for await (const ev of decodeSse(sseStreamFromResponse(res.body))) yield resultOf(op, ev.data);
    },
  };

  const client = buildClient<S>(
    def,
    async (op, request, call) => messageOf(op, await calls.call(op, paramsOf(op, request), call)),
    async function* (op, request, call) {
      for await (const result of calls.stream(op, paramsOf(op, request), call)) yield messageOf(op, result);
    },
    options,
  );
  return Object.assign(client, { jsonrpc: calls });
}
