/**
 * Servers and raw requests for the stream tests. The rule: one v1.0 handler is
 * served at A2A 1.0 and, through the generated bridge (bridgeToOlder), at 0.3
 * on the same URLs (createDualVersionHttpHandler: A2A-Version 1.0 or none),
 * over node:http on 127.0.0.1; requests are spelled out per version and HTTP
 * binding, so a test can send them with fetch or write them on a raw socket.
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { nodeHttpListener } from "@protoc-gen-a2a/runtime";
import { createDualVersionHttpHandler } from "@protoc-gen-a2a/runtime/protocol";
import { A2AServiceV1_0, type A2AServiceHandler } from "../../generated-samples/v1.0.1/a2a_a2a.js";
import { bridgeToOlder } from "../../generated-samples/a2a_compat.js";

export type Version = "1.0" | "0.3";
export type HttpBinding = "JSONRPC" | "HTTP+JSON";

export interface Side {
  readonly version: Version;
  readonly binding: HttpBinding;
}

/** Every version × HTTP binding, named "1.0 JSONRPC" and so on. */
export const SIDES: readonly (Side & { readonly name: string })[] = (["1.0", "0.3"] as const).flatMap((version) =>
  (["JSONRPC", "HTTP+JSON"] as const).map((binding) => ({ version, binding, name: `${version} ${binding}` })),
);

/** The JSON-RPC URL and the HTTP+JSON base URL of a server. */
export interface Urls {
  readonly jsonrpc: string;
  readonly rest: string;
}

export interface StreamServer {
  readonly urls: Urls;
  /** The responses still open, to see which wait for 'drain'. */
  readonly responses: ReadonlySet<ServerResponse>;
  close(): Promise<void>;
}

/** Serves `handler` at 1.0 and, bridged, at 0.3: JSON-RPC at /rpc, HTTP+JSON under /rest. */
export async function startStreamServer(
  handler: A2AServiceHandler,
  options: { readonly keepAliveMs?: number } = {},
): Promise<StreamServer> {
  const core = createDualVersionHttpHandler({
    newer: { definition: A2AServiceV1_0, handler },
    older: bridgeToOlder(handler),
    jsonrpcPath: "/rpc",
    restBasePath: "/rest",
    ...(options.keepAliveMs !== undefined ? { keepAliveMs: options.keepAliveMs } : {}),
  });
  const listener = nodeHttpListener(core);
  const responses = new Set<ServerResponse>();
  const server: Server = createServer((req, res) => {
    responses.add(res);
    res.on("close", () => responses.delete(res));
    listener(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    urls: { jsonrpc: `${base}/rpc`, rest: `${base}/rest` },
    responses,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface RawRequest {
  readonly url: string;
  readonly method: "GET" | "POST";
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

const versionHeader = (side: Side): Record<string, string> => (side.version === "1.0" ? { "A2A-Version": "1.0" } : {});

function jsonRpc(urls: Urls, side: Side, method: string, params: unknown, id: string | number): RawRequest {
  return {
    url: urls.jsonrpc,
    method: "POST",
    headers: { "content-type": "application/json", ...versionHeader(side) },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
  };
}

/** SubscribeToTask (1.0) / tasks/resubscribe, TaskSubscription (0.3) for task `id`. */
export function subscribeRequest(urls: Urls, side: Side, id: string, rpcId: string | number = 1): RawRequest {
  if (side.binding === "JSONRPC")
    return jsonRpc(urls, side, side.version === "1.0" ? "SubscribeToTask" : "tasks/resubscribe", { id }, rpcId);
  const path = side.version === "1.0" ? `/tasks/${id}:subscribe` : `/v1/tasks/${id}:subscribe`;
  return { url: urls.rest + path, method: "GET", headers: versionHeader(side) };
}

/** GetTask (1.0) / tasks/get, GetTask (0.3) for task `id`: the unary call the same errors come from. */
export function getTaskRequest(urls: Urls, side: Side, id: string, rpcId: string | number = 1): RawRequest {
  if (side.binding === "JSONRPC")
    return jsonRpc(urls, side, side.version === "1.0" ? "GetTask" : "tasks/get", { id }, rpcId);
  const path = side.version === "1.0" ? `/tasks/${id}` : `/v1/tasks/${id}`;
  return { url: urls.rest + path, method: "GET", headers: versionHeader(side) };
}

/** SendStreamingMessage (1.0) / message/stream, SendStreamingMessage (0.3): one user text, optionally on a task. */
export function streamRequest(
  urls: Urls,
  side: Side,
  text: string,
  options: { readonly taskId?: string; readonly rpcId?: string | number } = {},
): RawRequest {
  const messageId = crypto.randomUUID();
  const task = options.taskId ? { taskId: options.taskId } : {};
  if (side.binding === "JSONRPC") {
    const message =
      side.version === "1.0"
        ? { messageId, role: "ROLE_USER", parts: [{ text }], ...task }
        : { kind: "message", messageId, role: "user", parts: [{ kind: "text", text }], ...task };
    const method = side.version === "1.0" ? "SendStreamingMessage" : "message/stream";
    return jsonRpc(urls, side, method, { message }, options.rpcId ?? 1);
  }
  const body =
    side.version === "1.0"
      ? { message: { messageId, role: "ROLE_USER", parts: [{ text }], ...task } }
      : { message: { messageId, role: "ROLE_USER", content: [{ text }], ...task } };
  return {
    url: urls.rest + (side.version === "1.0" ? "/message:stream" : "/v1/message:stream"),
    method: "POST",
    headers: {
      "content-type": side.version === "1.0" ? "application/a2a+json" : "application/json",
      ...versionHeader(side),
    },
    body: JSON.stringify(body),
  };
}

/** Sends a request with fetch. */
export const send = (r: RawRequest): Promise<Response> =>
  fetch(r.url, { method: r.method, headers: r.headers, ...(r.body !== undefined ? { body: r.body } : {}) });

/** The request as HTTP/1.1 bytes, for a raw socket. */
export function rawHttp(r: RawRequest): string {
  const url = new URL(r.url);
  const body = r.body ?? "";
  const lines = [`${r.method} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`];
  for (const [k, v] of Object.entries(r.headers)) lines.push(`${k}: ${v}`);
  if (r.body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return lines.join("\r\n") + "\r\n\r\n" + body;
}

/** The `data:` lines of an event stream, parsed as JSON. */
export const dataLines = (text: string): unknown[] =>
  text
    .split("\n")
    .filter((l) => l.startsWith("data:"))
    .map((l) => JSON.parse(l.slice(5)) as unknown);
