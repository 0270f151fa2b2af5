/**
 * @protoc-gen-a2a/runtime: what an agent's or a client's code is written against. Errors (A2AError and its
 * typed names), the handler and client types of a generated definition, interceptors on both sides with their
 * context values (the caller's Principal, the call's trace), the call log, the server adapters (node:http,
 * fetch, gRPC's HTTP/1.1 fallback), clients made from an agent card with their credentials, and what crosses
 * versions (Loss, Converter, mergeAgentCards). The generated modules wrap the rest.
 *
 * What only generated code and the bindings need (protocol tables, route types, path matching, codecs, the
 * generic handler and client factories, the conversion helpers) is in @protoc-gen-a2a/runtime/protocol.
 */

// Errors
export { A2AError, type A2AErrorName, A2ATransportError } from "./core/a2a-error.js";

// A generated definition's handler and client
export type {
  A2aClient,
  A2aHandler,
  A2aServiceDefinition,
  Binding,
  CallOptions,
  HandlerContext,
} from "./core/definition.js";

// Interceptors and what they carry
export type { A2aCall, A2aNext, A2aResult, Interceptor } from "./core/interceptor.js";
export type { A2aClientCall, A2aClientNext, ClientInterceptor } from "./core/client-interceptor.js";
export { createContextKey, type ContextKey, type ContextValues } from "./core/context-values.js";
export { principalKey, type Principal } from "./core/principal.js";
export { callTraceKey, type CallTrace } from "./core/call-trace.js";
export { jsonLines, logCalls, type CallLogRecord, type CallLogSink } from "./core/log-interceptor.js";

// Serving
export type { CoreHandler } from "./core/server-types.js";
export type { HttpHandlerOptions } from "./server/http-server.js";
export { nodeHttpListener } from "./http/node-listener.js";
export { fetchHandler } from "./http/fetch-handler.js";
export { grpcFallback } from "./grpc/grpc-fallback.js";
export { guardGrpcListener } from "./grpc/grpc-node-guard.js";
export { grpcContextValues, type GrpcClientOptions } from "./grpc/grpc.js";
export type { ErrorContext, OnError } from "./core/report-error.js";

// Clients from an agent card, and their credentials
export type { A2aClientOptions } from "./http/client-http.js";
export type { CardInterface } from "./card/select-interface.js";
export {
  createClientForCard,
  createClientForCardOrOlder,
  NoUsableInterfaceError,
  type ClientForCardOptions,
} from "./client/client-for-card.js";
export { AgentCardVerificationError, createAgentCardResolver, resolveAgentCard } from "./card/card-resolver.js";
export { withResubscribe } from "./http/resubscribe.js";
export {
  credentialsForCard,
  credentialsInterceptor,
  NoCredentialsError,
  type Credentials,
} from "./client/credentials.js";
export type { BasicCredential, SchemeCredential, Secret } from "./client/credential-senders.js";
export type { ClientCredentialsGrant } from "./client/oauth-client-credentials.js";
export { mtlsFetch, mtlsGrpcTransport, type MutualTlsCredential } from "./client/mtls-fetch.js";

// Across versions
export type { Converter, Loss } from "./core/conversion-types.js";
export { mergeAgentCards } from "./card/dual-card.js";
