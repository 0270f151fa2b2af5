/**
 * One HTTP entry point for an A2A agent: the agent card at
 * /.well-known/agent-card.json, the JSON-RPC endpoint, and the HTTP+JSON
 * routes under a base path. Framework-agnostic: wrap it with
 * nodeHttpListener or fetchHandler (http-adapters.ts).
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
  const jsonrpcPath = options.jsonrpcPath ?? "/jsonrpc";
  const restBase = options.restBasePath ?? "/rest";
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
    if (req.path === jsonrpcPath) return jsonrpc(req);
    if (restBase === "" || req.path.startsWith(restBase + "/")) return rest(req);
    return { status: 404, headers: {}, body: "" };
  };
}
