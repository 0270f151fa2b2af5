/**
 * @protoc-gen-a2a/runtime/protocol: what generated code imports beside the main entry, and what code that
 * builds on the bindings themselves needs: the protocol tables and route types the generator writes, path
 * matching and codecs, the generic handler and client factories the generated ones wrap, the bridge and the
 * dual-version handler, the conversion helpers, limits and errors' wire forms. An agent's or a client's code
 * is written against the main entry (@protoc-gen-a2a/runtime); these names may change with the generator.
 */
export type { Route, RouteOverlap, RouteQueryField, RouteSegment, RouteVariable } from "./core/route-types.js";
export {
  compilePathMatcher,
  expandPath,
  PathExpansionError,
  type MatchResult,
  type PathMatcher,
} from "./http/path-matcher.js";
export {
  decodeMultiSegmentValue,
  decodeSegmentValue,
  encodeMultiSegmentValue,
  encodeSegmentValue,
} from "./http/path-codec.js";
export { unmatchedResponse, type UnmatchedResponse } from "./http/unmatched.js";
export { defineA2aService, type OperationInfo } from "./core/definition.js";
export type {
  CapabilityRule,
  CapabilityTable,
  DualVersionRule,
  ErrorCatalogEntry,
  JsonRpcDialect,
  JsonRpcIds,
  JsonRpcRequestContentTypes,
  ProtocolTables,
  RestRequestContentTypes,
  StandardErrorEntry,
  StreamStart,
  StreamStartMode,
  TaskTurns,
} from "./core/protocol-tables.js";
export type { InputRule } from "./core/validate.js";
export {
  type A2AErrorOptions,
  A2A_DOMAIN,
  type ReceivedAnswer,
  toJsonRpcError,
  toRestError,
  type TransportErrorDetails,
} from "./core/a2a-error.js";
export { negotiateVersion, parseExtensions } from "./http/negotiation.js";
export type { A2aServerOptions, CoreRequest, CoreResponse, RestHandlerOptions } from "./core/server-types.js";
export {
  DEFAULT_MAX_BODY,
  MAX_DEADLINE_MS,
  MAX_EXTENSIONS_HEADER,
  MAX_JSON_DEPTH,
  MAX_RESULT_DEPTH,
} from "./core/limits.js";
export type { JsonRpcCalls, JsonRpcClient, JsonRpcOperation, JsonRpcOperations } from "./jsonrpc/json-operations.js";
export {
  createJsonRpcHandler,
  type JsonRpcHandlerOptions,
  type JsonRpcServerOptions,
} from "./jsonrpc/server-jsonrpc.js";
export { logError } from "./core/report-error.js";
export { chainInterceptors, type A2aStreamResult, type A2aUnaryResult } from "./core/interceptor.js";
export { createContextValues } from "./core/context-values.js";
export { createRestHandler } from "./rest/server-rest.js";
export {
  createA2aHttpHandler,
  AGENT_CARD_PATH,
  type StrictTransportSecurity,
  type A2aHttpOptions,
} from "./server/http-server.js";
export type { CorsOptions } from "./http/cors.js";
export { createJsonRpcClient } from "./jsonrpc/client-jsonrpc.js";
export { createRestClient } from "./rest/client-rest.js";
export {
  createGrpcClient,
  grpcRoutes,
  toConnectError,
  fromConnectError,
  type GrpcRoutes,
  type GrpcRoutesOptions,
} from "./grpc/grpc.js";
export type { GrpcFallbackRequest, GrpcFallbackResponse } from "./grpc/grpc-fallback.js";
export { ErrorInfoSchema, ERROR_INFO_TYPE_URL } from "./core/error-info.js";
export { encodeSseEvent, decodeSse, SseEventTooLongError } from "./http/sse.js";
export { cardInterfaces, type InterfaceNeeds, type OriginCheck, selectInterface } from "./card/select-interface.js";
export type { OlderVersionFallback } from "./client/client-for-card.js";
export type { ResubscribeOptions } from "./http/resubscribe.js";
export { chainClientInterceptors } from "./core/client-interceptor.js";
export type { CardCredentials } from "./client/credentials.js";
export type { Direction } from "./core/conversion-types.js";
export {
  eachAt,
  enumLost,
  enumRefused,
  named,
  pairConverter,
  refused,
  type MessageConversion,
  type PairConversion,
  type WrappedConversion,
} from "./compat/compat-proto.js";
export {
  createBridgeHandler,
  createClientBridge,
  type BridgedHandler,
  type BridgeOptions,
  type ClientBridgeOptions,
  type OperationPair,
} from "./compat/bridge.js";
export {
  createDualVersionHttpHandler,
  type DualVersionOptions,
  type DualVersionSharedOptions,
  type VersionSide,
} from "./server/dual-version.js";
export { MergedCardError } from "./card/dual-card.js";
export { operationCorrespondence, type OperationCorrespondence, type OperationNames } from "./compat/operation-map.js";
export type {
  DialectCodec,
  JsonRpcCodec,
  JsonRpcNames,
  OnDrop,
  ResourceNamePattern,
} from "./core/conversion-types.js";
export { CompatJsonError, type At } from "./compat/compat-json.js";
export {
  agentCardUrl,
  type AgentCardResolver,
  type AgentCardResolverOptions,
  type ResolvedAgentCard,
} from "./card/card-resolver.js";
export { DEFAULT_MAX_RESPONSE_BYTES } from "./http/client-http.js";
