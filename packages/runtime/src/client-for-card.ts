/**
 * A typed client for the interface an agent card offers: picks the first
 * interface this client can use (select-interface.ts), copies its tenant into
 * every request, and builds the JSON-RPC, HTTP+JSON or gRPC client for it (a JSON-RPC client
 * with its `jsonrpc` calls, which clientForOlder uses to stay on the wire JSON).
 * gRPC needs a transport factory (e.g. createGrpcTransport from
 * @connectrpc/connect-node), since transports are platform-specific.
 */
import type { DescService } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import type { A2aClient, A2aServiceDefinition } from "./definition.js";
import type { A2aClientOptions } from "./http/client-http.js";
import { createJsonRpcClient } from "./jsonrpc/client-jsonrpc.js";
import type { JsonRpcClient } from "./jsonrpc/json-operations.js";
import { createRestClient } from "./rest/client-rest.js";
import { createGrpcClient } from "./grpc/grpc.js";
import { selectInterface, type Binding, type CardInterface } from "./select-interface.js";

export interface ClientForCardOptions extends Omit<A2aClientOptions, "url" | "tenant"> {
  /** Bindings this client may use, in no particular order (the card's order decides). Default: all it can build. */
  readonly bindings?: readonly Binding[];
  /** Makes a gRPC transport for an interface URL such as "127.0.0.1:50051"; without it gRPC is not used. */
  readonly grpcTransport?: (baseUrl: string) => Transport;
}

export class NoUsableInterfaceError extends Error {
  override name = "NoUsableInterfaceError";
}

export function createClientForCard<S extends DescService>(
  def: A2aServiceDefinition<S>,
  card: unknown,
  options: ClientForCardOptions = {},
): { client: A2aClient<S> | JsonRpcClient<S>; selected: CardInterface } {
  const supported: Binding[] = ["JSONRPC", "HTTP+JSON", ...(options.grpcTransport ? (["GRPC"] as const) : [])];
  const bindings = options.bindings ? supported.filter((b) => options.bindings!.includes(b)) : supported;
  const selected = selectInterface(card, { bindings, versions: [def.protocolVersion] });
  if (!selected) {
    throw new NoUsableInterfaceError(
      `the agent card offers no ${bindings.join(", ")} interface at protocol version ${def.protocolVersion}`,
    );
  }
  const clientOptions = { ...options, url: selected.url, ...(selected.tenant ? { tenant: selected.tenant } : {}) };
  const client =
    selected.binding === "JSONRPC"
      ? createJsonRpcClient(def, clientOptions)
      : selected.binding === "HTTP+JSON"
        ? createRestClient(def, clientOptions)
        : createGrpcClient(
            def,
            options.grpcTransport!(
              /^[a-z][a-z0-9+.-]*:\/\//i.test(selected.url) ? selected.url : `http://${selected.url}`,
            ),
            clientOptions,
          );
  return { client, selected };
}
