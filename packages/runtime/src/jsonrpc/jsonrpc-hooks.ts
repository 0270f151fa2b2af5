/**
 * Hooks between the version bridge and the JSON-RPC server and client, for
 * serving or calling an older version's JSON-RPC in one pass (a2a.json ↔ the
 * newer messages, without the older proto's messages):
 *
 *   JSONRPC_DIRECT  on a handler: operation name → JsonRpcDirectOperation; the
 *                   JSON-RPC server hands it the params JSON instead of a message
 *   JSONRPC_RAW     on a JSON-RPC client: its calls on the wire JSON
 *
 * What a request (server) or a result (client) carries that the other version
 * cannot hold goes to the server's or client's own `onLoss` when it has one,
 * else to the bridge's; what a conversion toward the older version loses goes
 * to the bridge's.
 */
import type { JsonValue } from "@bufbuild/protobuf";
import type { CallOptions, HandlerContext, OperationInfo } from "../definition.js";
import type { Loss } from "../compat/conversion-types.js";

export const JSONRPC_DIRECT: unique symbol = Symbol.for("protoc-gen-a2a.jsonrpcDirect");

export interface JsonRpcDirectOperation {
  /** The result JSON of a unary method; errors as the handler throws them (bad params: InvalidParamsError). */
  unary?(params: JsonValue, context: HandlerContext, onLoss?: (loss: Loss) => void): Promise<JsonValue>;
  /**
   * The result JSON of each stream event. Bad params throw here, before any event, so the server
   * can answer with an error instead of a stream.
   */
  stream?(params: JsonValue, context: HandlerContext, onLoss?: (loss: Loss) => void): AsyncIterable<JsonValue>;
}

/** The direct JSON-RPC operations a handler offers, if any. */
export const jsonRpcDirect = (handler: unknown): ReadonlyMap<string, JsonRpcDirectOperation> | undefined =>
  (handler as { [JSONRPC_DIRECT]?: ReadonlyMap<string, JsonRpcDirectOperation> })[JSONRPC_DIRECT];

export const JSONRPC_RAW: unique symbol = Symbol.for("protoc-gen-a2a.jsonrpcRaw");

/** A JSON-RPC client's calls on the wire JSON: params as sent, results as received (errors thrown as A2AError). */
export interface JsonRpcRaw {
  call(op: OperationInfo, params: JsonValue, call?: CallOptions): Promise<JsonValue>;
  stream(op: OperationInfo, params: JsonValue, call?: CallOptions): AsyncIterable<JsonValue>;
  /** The client's own loss callback, for what a result carries that the caller's types cannot hold. */
  readonly onLoss: ((operation: string, loss: Loss) => void) | undefined;
}

/** The JSON calls of a client made by createJsonRpcClient, if it is one. */
export const jsonRpcRaw = (client: unknown): JsonRpcRaw | undefined =>
  (client as { [JSONRPC_RAW]?: JsonRpcRaw })[JSONRPC_RAW];
