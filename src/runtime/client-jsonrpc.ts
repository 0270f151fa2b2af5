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

export function createJsonRpcClient<S extends DescService>(def: A2aServiceDefinition<S>, options: A2aClientOptions): A2aClient<S> {
  const fetchFn = options.fetch ?? globalThis.fetch;
  let nextId = 0;

  const post = async (op: OperationInfo, request: Message, call: CallOptions | undefined, accept: string) => {
    const headers = serviceHeaders(def, options, call);
    headers.set("content-type", def.contentTypes.jsonrpc.request);
    headers.set("accept", accept);
    const id = ++nextId;
    const body = JSON.stringify({ jsonrpc: "2.0", id, method: op.jsonrpcMethod, params: toJson(op.method.input, request as never) });
    const signal = callSignal(options, call);
    const res = await fetchFn(options.url, { method: "POST", headers, body, ...(signal ? { signal } : {}) });
    if (!res.ok) throw new A2ATransportError(`${op.jsonrpcMethod}: HTTP ${res.status}`, res.status, await res.text());
    return res;
  };

  const unwrap = (op: OperationInfo, envelope: unknown): Message => {
    const env = envelope as { error?: Record<string, unknown>; result?: unknown } | null;
    if (env?.error) throw errorFromJsonRpc(def, env.error);
    if (!env || !("result" in env)) throw new A2ATransportError(`${op.jsonrpcMethod}: not a JSON-RPC response`);
    return fromJson(op.method.output, (env.result ?? {}) as JsonValue, { ignoreUnknownFields: true });
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
