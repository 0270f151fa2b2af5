/** The runtime that generated code imports as "protoc-gen-a2a/runtime". */
export type { Route, RouteOverlap, RouteQueryField, RouteSegment, RouteVariable } from "./route-types.js";
export { compilePathMatcher, expandPath, PathExpansionError, type MatchResult, type PathMatcher } from "./path-matcher.js";
export { decodeMultiSegmentValue, decodeSegmentValue, encodeMultiSegmentValue, encodeSegmentValue } from "./path-codec.js";
export { unmatchedResponse, type UnmatchedResponse } from "./unmatched.js";
export {
  defineA2aService,
  type A2aClient,
  type A2aHandler,
  type A2aServiceDefinition,
  type CallOptions,
  type ErrorCatalogEntry,
  type HandlerContext,
  type OperationInfo,
  type ProtocolTables,
  type StandardErrorEntry,
} from "./definition.js";
export { A2AError, A2ATransportError, A2A_DOMAIN, toJsonRpcError, toRestError } from "./a2a-error.js";
export { negotiateVersion, parseExtensions } from "./negotiation.js";
export type { A2aServerOptions, CoreHandler, CoreRequest, CoreResponse } from "./server-types.js";
export { JSONRPC_DIRECT, JSONRPC_RAW, jsonRpcDirect, jsonRpcRaw, type JsonRpcDirectOperation, type JsonRpcRaw } from "./jsonrpc-hooks.js";
export { createJsonRpcHandler } from "./server-jsonrpc.js";
export { createRestHandler } from "./server-rest.js";
export { createA2aHttpHandler, AGENT_CARD_PATH, type A2aHttpOptions } from "./http-server.js";
export { nodeHttpListener, fetchHandler } from "./http-adapters.js";
export type { A2aClientOptions } from "./client-http.js";
export { createJsonRpcClient } from "./client-jsonrpc.js";
export { createRestClient } from "./client-rest.js";
export { createGrpcClient, grpcRoutes, toConnectError, fromConnectError } from "./grpc.js";
export { ErrorInfoSchema, ERROR_INFO_TYPE_URL } from "./error-info.js";
export { encodeSseEvent, decodeSse } from "./sse.js";
export { cardInterfaces, selectInterface, type Binding, type CardInterface } from "./select-interface.js";
export { createClientForCard, NoUsableInterfaceError, type ClientForCardOptions } from "./client-for-card.js";
export { createConverter, type CompatPlanData, type Converter, type Direction, type Loss, type PlanStep } from "./compat-convert.js";
export { createBridgeHandler, createClientBridge, type BridgeOptions, type ClientBridgeOptions, type OperationPair } from "./bridge.js";
export { createDualVersionHttpHandler, type DualVersionOptions, type VersionSide } from "./dual-version.js";
export { operationCorrespondence, type OperationCorrespondence, type OperationNames } from "./operation-map.js";
export { createDialectCodec, dialectCodec, type DialectCodec, type OnDrop } from "./jsonrpc-dialect.js";
export { CompatJsonError, type At } from "./compat-json.js";
