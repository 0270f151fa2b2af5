/**
 * JSON-RPC 2.0 binding, client side: POST {jsonrpc, id, method, params} to
 * the interface URL; unwrap `result`, or throw the A2AError that `error`
 * describes (code, ErrorInfo reason from `data[]`, data). Streams read
 * text/event-stream and unwrap `result` from every `data:` line.
 *
 * The same calls on JSON (params in, result out) are offered under
 * JSONRPC_RAW, for the client-side version bridge's one-pass conversions.
 */
import { fromJson, toJson, type DescService, type JsonValue, type Message } from "@bufbuild/protobuf";
import type { A2aClient, A2aServiceDefinition, CallOptions, OperationInfo } from "./definition.js";
import { A2ATransportError, errorFromJsonRpc } from "./a2a-error.js";
import { buildClient, callSignal, serviceHeaders, type A2aClientOptions } from "./client-http.js";
import { decodeSse, sseStreamFromResponse } from "./sse.js";
import { dialectCodec } from "./jsonrpc-dialect.js";
import { messageJson } from "./protojson-write.js";
import { JSONRPC_RAW, type JsonRpcRaw } from "./jsonrpc-hooks.js";

const isEmptyObject = (v: unknown) =>
  typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;

export function createJsonRpcClient<S extends DescService>(
  def: A2aServiceDefinition<S>,
  options: A2aClientOptions,
): A2aClient<S> {
  const fetchFn = options.fetch ?? globalThis.fetch;
  const codec = def.jsonrpcDialect ? dialectCodec(def.jsonrpcDialect) : undefined;
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
    const res = await fetchFn(options.url, { method: "POST", headers, body, ...(signal ? { signal } : {}) });
    if (!res.ok) throw new A2ATransportError(`${op.jsonrpcMethod}: HTTP ${res.status}`, res.status, await res.text());
    return res;
  };

  /** The `result` of a response envelope; its `error` thrown. */
  const resultOf = (op: OperationInfo, envelope: unknown): JsonValue => {
    const env = envelope as { error?: Record<string, unknown>; result?: unknown } | null;
    if (env?.error) throw errorFromJsonRpc(def, env.error);
    if (!env || !("result" in env)) throw new A2ATransportError(`${op.jsonrpcMethod}: not a JSON-RPC response`);
    return (env.result ?? null) as JsonValue;
  };

  const messageOf = (op: OperationInfo, result: JsonValue): Message => {
    const onDrop = (path: string, reason: string) => options.onLoss?.(op.name, { path, reason });
    return fromJson(op.method.output, codec ? codec.decode(op.method.output, result, onDrop) : (result ?? {}), {
      ignoreUnknownFields: true,
    });
  };

  const raw: JsonRpcRaw = {
    onLoss: options.onLoss,
    async call(op, params, call) {
      const res = await post(op, params, call, def.contentTypes.jsonrpc.response);
      return resultOf(op, await res.json());
    },
    async *stream(op, params, call) {
      const res = await post(op, params, call, def.contentTypes.jsonrpc.stream);
      if (!(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
        yield resultOf(op, await res.json()); // an error answered without a stream
        return;
      }
      for await (const ev of decodeSse(sseStreamFromResponse(res.body))) yield resultOf(op, JSON.parse(ev.data));
    },
  };

  const client = buildClient<S>(
    def,
    async (op, request, call) => messageOf(op, await raw.call(op, paramsOf(op, request), call)),
    async function* (op, request, call) {
      for await (const result of raw.stream(op, paramsOf(op, request), call)) yield messageOf(op, result);
    },
    options,
  );
  Object.defineProperty(client, JSONRPC_RAW, { value: raw });
  return client;
}
