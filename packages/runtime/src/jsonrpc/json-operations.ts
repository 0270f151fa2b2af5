/**
 * JSON-RPC calls on the wire JSON, for serving or calling an older version's
 * JSON-RPC in one pass (a2a.json ↔ the newer messages, without the older
 * proto's messages). Both are named, typed values, never hidden on an object:
 *
 *   JsonRpcOperations  a server option (jsonrpcOperations), made by the
 *                      version bridge: operation name → JsonRpcOperation; the
 *                      JSON-RPC server hands it the params JSON instead of
 *                      decoding them for the handler
 *   JsonRpcCalls       the `jsonrpc` property of a JSON-RPC client
 *                      (JsonRpcClient): its calls on the wire JSON
 *
 * What a request (server) or a result (client) carries that the other version
 * cannot hold goes to the server's or client's own `onLoss` when it has one,
 * else to the bridge's; what a conversion toward the older version loses goes
 * to the bridge's.
 */
import type { JsonValue } from "@bufbuild/protobuf";
import type { A2aClient, CallOptions, HandlerContext, OperationInfo } from "../core/definition.js";
import type { Loss } from "../core/conversion-types.js";

/** One operation served on JSON: params JSON in, result JSON out. */
export interface JsonRpcOperation {
  /** The result JSON of a unary method; errors as the handler throws them (bad params: InvalidParamsError). */
  unary?(params: JsonValue, context: HandlerContext, onLoss?: (loss: Loss) => void): Promise<JsonValue>;
  /**
   * The result JSON of each stream event. Bad params throw here, before any event, so the server
   * can answer with an error instead of a stream.
   */
  stream?(params: JsonValue, context: HandlerContext, onLoss?: (loss: Loss) => void): AsyncIterable<JsonValue>;
}

/**
 * Operations the JSON-RPC server serves on JSON, by operation name (OperationInfo.name), in place of the
 * handler's methods; the others go through the handler.
 */
export type JsonRpcOperations = ReadonlyMap<string, JsonRpcOperation>;

/** A JSON-RPC client's calls on the wire JSON: params as sent, results as received (errors thrown as A2AError). */
export interface JsonRpcCalls {
  call(op: OperationInfo, params: JsonValue, call?: CallOptions): Promise<JsonValue>;
  stream(op: OperationInfo, params: JsonValue, call?: CallOptions): AsyncIterable<JsonValue>;
  /** The client's own loss callback, for what a result carries that the caller's types cannot hold. */
  readonly onLoss: ((operation: string, loss: Loss) => void) | undefined;
}

/** A JSON-RPC client (createJsonRpcClient): the typed client, and the same calls on JSON. */
export type JsonRpcClient<S> = A2aClient<S> & { readonly jsonrpc: JsonRpcCalls };
