/**
 * One HTTP entry point for an A2A agent: the agent card at
 * /.well-known/agent-card.json, the JSON-RPC endpoint, and the HTTP+JSON
 * routes under a base path. Framework-agnostic: wrap it with
 * nodeHttpListener or fetchHandler (http-adapters.ts).
 *
 * A trailing slash is accepted on both paths, so an agent card URL written
 * with one works: the JSON-RPC endpoint answers at "/jsonrpc" and
 * "/jsonrpc/", and a route under "/rest/" + "/tasks/1" (one "/" doubled right
 * after the base path) is routed as "/rest/tasks/1" (server-rest.ts). Paths
 * given in the options with a trailing slash are read without it.
 */
import type { DescService } from "@bufbuild/protobuf";
import { createJsonRpcHandler } from "./server-jsonrpc.js";
import { createRestHandler } from "./server-rest.js";
import type { A2aServerOptions, CoreHandler } from "./server-types.js";

export const AGENT_CARD_PATH = "/.well-known/agent-card.json";

export interface A2aHttpOptions<S extends DescService = DescService> extends A2aServerOptions<S> {
  /** Where JSON-RPC is served (POST). Default "/jsonrpc". */
  readonly jsonrpcPath?: string;
  /** Prefix of the HTTP+JSON routes. Default "/rest"; "" serves them at the root. */
  readonly restBasePath?: string;
  /** The agent card JSON, computed per request (so it can depend on headers). */
  readonly agentCard?: (headers: Headers) => unknown;
}

export function createA2aHttpHandler<S extends DescService>(options: A2aHttpOptions<S>): CoreHandler {
  const jsonrpcPath = withoutTrailingSlash(options.jsonrpcPath ?? "/jsonrpc");
  const jsonrpcSlash = jsonrpcPath + "/";
  const restBase = withoutTrailingSlash(options.restBasePath ?? "/rest");
  const jsonrpc = createJsonRpcHandler(options);
  const rest = createRestHandler(options, restBase);
  return async (req) => {
    if (req.path === AGENT_CARD_PATH && options.agentCard) {
      if (req.method !== "GET") return { status: 405, headers: { allow: "GET" }, body: "" };
      return {
        status: 200,
        headers: { "content-type": "application/json" },
        body: JSON.stringify(options.agentCard(req.headers)),
      };
    }
    if (req.path === jsonrpcPath || req.path === jsonrpcSlash) return jsonrpc(req);
    if (restBase === "" || req.path.startsWith(restBase + "/")) return rest(req);
    return { status: 404, headers: {}, body: "" };
  };
}

function withoutTrailingSlash(path: string): string {
  return path.replace(/\/+$/, "");
}
