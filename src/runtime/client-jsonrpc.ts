/**
 * JSON-RPC 2.0 binding, client side: POST {jsonrpc, id, method, params} to
 * the interface URL; unwrap `result`, or throw the A2AError that `error`
 * describes (code, ErrorInfo reason from `data[]`, data). Streams read
 * text/event-stream and unwrap `result` from every `data:` line.
 */
import { fromJson, toJson, type DescService, type JsonValue, type Message } from "@bufbuild/protobuf";
import type { A2aClient, A2aServiceDefinition, CallOptions, OperationInfo } from "./definition.js";
import { A2ATransportError, errorFromJsonRpc } from "./a2a-error.js";
import { buildClient, callSignal, serviceHeaders, type A2aClientOptions } from "./client-http.js";
import { decodeSse, sseStreamFromResponse } from "./sse.js";
import { dialectCodec } from "./jsonrpc-dialect.js";

const isEmptyObject = (v: unknown) => typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0;

export function createJsonRpcClient<S extends DescService>(def: A2aServiceDefinition<S>, options: A2aClientOptions): A2aClient<S> {
  const fetchFn = options.fetch ?? globalThis.fetch;
  const codec = def.jsonrpcDialect ? dialectCodec(def.jsonrpcDialect) : undefined;
  let nextId = 0;

  const post = async (op: OperationInfo, request: Message, call: CallOptions | undefined, accept: string) => {
    const headers = serviceHeaders(def, options, call);
    headers.set("content-type", def.contentTypes.jsonrpc.request);
    headers.set("accept", accept);
    const id = ++nextId;
    const json = toJson(op.method.input, request as never);
    const params = codec ? codec.encode(op.method.input, json) : json;
    // a2a.json defines no params for some methods (agent/getAuthenticatedExtendedCard); send none when empty.
    const envelope = codec && isEmptyObject(params) ? { jsonrpc: "2.0", id, method: op.jsonrpcMethod } : { jsonrpc: "2.0", id, method: op.jsonrpcMethod, params };
    const body = JSON.stringify(envelope);
    const signal = callSignal(options, call);
    const res = await fetchFn(options.url, { method: "POST", headers, body, ...(signal ? { signal } : {}) });
    if (!res.ok) throw new A2ATransportError(`${op.jsonrpcMethod}: HTTP ${res.status}`, res.status, await res.text());
    return res;
  };

  const unwrap = (op: OperationInfo, envelope: unknown): Message => {
    const env = envelope as { error?: Record<string, unknown>; result?: unknown } | null;
    if (env?.error) throw errorFromJsonRpc(def, env.error);
    if (!env || !("result" in env)) throw new A2ATransportError(`${op.jsonrpcMethod}: not a JSON-RPC response`);
    const result = (env.result ?? null) as JsonValue;
    const onDrop = (path: string, reason: string) => options.onLoss?.(op.name, { path, reason });
    return fromJson(op.method.output, codec ? codec.decode(op.method.output, result, onDrop) : (result ?? {}), { ignoreUnknownFields: true });
  };

  return buildClient<S>(
    def,
    async (op, request, call) => {
      const res = await post(op, request, call, def.contentTypes.jsonrpc.response);
      return unwrap(op, await res.json());
    },
    async function* (op, request, call) {
      const res = await post(op, request, call, def.contentTypes.jsonrpc.stream);
      if (!(res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
        yield unwrap(op, await res.json()); // an error answered without a stream
        return;
      }
      for await (const ev of decodeSse(sseStreamFromResponse(res.body))) {
        yield unwrap(op, JSON.parse(ev.data));
      }
    },
    options,
  );
}
