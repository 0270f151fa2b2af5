/**
 * A2A service definition, the user-facing side: the protoc-gen-es service
 * descriptor joined with the generated tables (protocol-tables.ts), its
 * operations, and the handler and client types derived from it. Generated code
 * calls defineA2aService once per proto service; every client and server
 * adapter reads only this object.
 */
import type { DescMethod, DescService, MessageInitShape, MessageShape } from "@bufbuild/protobuf";
import type { GenService, GenServiceMethods } from "@bufbuild/protobuf/codegenv2";
import type { Route } from "./route-types.js";
import type { CapabilityRule, ProtocolTables } from "./protocol-tables.js";
import { requestCheck, type RequestCheck } from "./validate.js";
import type { ContextValues } from "./context-values.js";
import type { Principal } from "./principal.js";
import type { ClientCertificate } from "./client-certificate.js";

export interface OperationInfo {
  /** RPC name, e.g. "SendMessage". */
  readonly name: string;
  /** The method's localName on clients and handlers, e.g. "sendMessage". */
  readonly localName: string;
  readonly jsonrpcMethod: string;
  readonly method: DescMethod;
  readonly streaming: boolean;
  readonly routes: readonly Route[];
  /** localName of the request's tenant field, when the version has one. */
  readonly tenantLocalName: string | undefined;
  /** Checks a request against the version's input rules (validate.ts); undefined when it has none. */
  readonly checkRequest: RequestCheck | undefined;
  /** The capability the operation needs, when the version's tables name one. */
  readonly capability: CapabilityRule | undefined;
}

export interface A2aServiceDefinition<S extends DescService = DescService> extends ProtocolTables {
  readonly service: S;
  readonly operations: readonly OperationInfo[];
  readonly byJsonRpcMethod: ReadonlyMap<string, OperationInfo>;
  readonly byName: ReadonlyMap<string, OperationInfo>;
}

export function defineA2aService<S extends DescService>(service: S, tables: ProtocolTables): A2aServiceDefinition<S> {
  const operations = service.methods.map((method) => ({
    name: method.name,
    localName: method.localName,
    jsonrpcMethod: tables.jsonrpcMethods[method.name] ?? method.name,
    method,
    streaming: method.methodKind === "server_streaming",
    routes: [...tables.routes, ...tables.aliases].filter((r) => r.operation === method.name),
    tenantLocalName: method.input.fields.find((f) => f.name === tables.tenantField)?.localName,
    checkRequest: requestCheck(tables.inputRules, tables.jsonrpcCodec?.names, method.input),
    capability: tables.capabilities?.rules.find((r) => r.operations.includes(method.name)),
  }));
  return {
    ...tables,
    service,
    operations,
    byJsonRpcMethod: new Map(operations.map((o) => [o.jsonrpcMethod, o])),
    byName: new Map(operations.map((o) => [o.name, o])),
  };
}

/** The three A2A protocol bindings, as agent cards name them. */
export type Binding = "JSONRPC" | "HTTP+JSON" | "GRPC";

/** What a handler learns about the call besides its request message. */
export interface HandlerContext {
  /** Aborted when the client goes away or the call is cancelled. */
  readonly signal: AbortSignal;
  /** Request headers (HTTP) or metadata (gRPC), names lowercased. */
  readonly headers: Headers;
  /** One request header or metadata entry, case-insensitive, without building `headers`; null when absent. */
  header(name: string): string | null;
  /** The protocol version the call was negotiated at, e.g. "1.0". */
  readonly protocolVersion: string;
  /** Extension URIs the client declared. */
  readonly extensions: readonly string[];
  /** Which binding carried the call. */
  readonly binding: Binding;
  /** The tenant from the route or the request, when the version has one. */
  readonly tenant: string | undefined;
  /** The URL's query parameters (HTTP bindings; empty on gRPC). */
  readonly query: URLSearchParams;
  /** The verified client certificate of a mutual-TLS connection, if any (client-certificate.ts). */
  readonly clientCertificate: ClientCertificate | undefined;
  /** Typed values of this call, set by interceptors (context-values.ts). */
  readonly values: ContextValues;
  /** The verified caller (values.get(principalKey)); undefined when the server authenticates nothing. */
  readonly principal: Principal | undefined;
}

type Methods<S> = S extends GenService<infer M> ? M : GenServiceMethods;

/**
 * A server implementation: one method per RPC. Unary methods return a
 * promise of the response; server-streaming methods return an async
 * iterable of responses. A method left out answers the error its capability
 * defines (PushNotificationNotSupportedError for push configs, …), else
 * UnsupportedOperationError.
 */
export type A2aHandler<S> = {
  [K in keyof Methods<S>]?: Methods<S>[K] extends { methodKind: "server_streaming"; input: infer I; output: infer O }
    ? (
        request: MessageShape<I & DescMessageLike>,
        context: HandlerContext,
      ) => AsyncIterable<MessageInitShape<O & DescMessageLike>>
    : Methods<S>[K] extends { input: infer I; output: infer O }
      ? (
          request: MessageShape<I & DescMessageLike>,
          context: HandlerContext,
        ) => Promise<MessageInitShape<O & DescMessageLike>>
      : never;
};

type DescMessageLike = import("@bufbuild/protobuf").DescMessage;

/** Per-call options of every client. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  readonly headers?: Readonly<Record<string, string>>;
}

/** A typed client: one method per RPC; streams are async iterables. */
export type A2aClient<S> = {
  [K in keyof Methods<S>]: Methods<S>[K] extends { methodKind: "server_streaming"; input: infer I; output: infer O }
    ? (
        request: MessageInitShape<I & DescMessageLike>,
        options?: CallOptions,
      ) => AsyncIterable<MessageShape<O & DescMessageLike>>
    : Methods<S>[K] extends { input: infer I; output: infer O }
      ? (
          request: MessageInitShape<I & DescMessageLike>,
          options?: CallOptions,
        ) => Promise<MessageShape<O & DescMessageLike>>
      : never;
};
