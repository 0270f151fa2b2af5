/**
 * gRPC binding, server and client, on connect-es (@connectrpc/connect) over
 * the protoc-gen-es service descriptor. A2A service parameters travel as
 * lowercase metadata (a2a-version, a2a-extensions; spec §10.2). Errors carry
 * the catalog's status code and a google.rpc.ErrorInfo in the status details
 * (§10.6), and an A2AError's own headers as trailers (WWW-Authenticate).
 * The client never lets a ConnectError out: an A2A or standard error
 * becomes A2AError, any other status or failure an A2ATransportError naming
 * the operation, the URL (options.url, else none) and the gRPC status, with
 * the ConnectError as `cause` (client-errors.ts). The server applies the
 * request limits of every binding (limits.ts, grpc-limits.ts): message size,
 * nesting, deadlines; and the agent card's rules before the handler runs
 * (card-rules.ts). The version metadata is checked first, before the limits
 * and the card; a call to a method the router does not have is answered by
 * grpcFallback (grpc-fallback.ts), which checks the version first too. The
 * activated extensions are echoed in the response metadata (a2a-extensions).
 * With `grpcContextValues` in the adapter, a call over mutual TLS carries
 * its verified client certificate (HandlerContext.clientCertificate).
 */
import {
  ConnectError,
  createClient,
  createContextKey as createConnectKey,
  createContextValues as createConnectValues,
  type ContextValues as ConnectValues,
  type ConnectRouter,
  type HandlerContext as ConnectContext,
  type Transport,
} from "@connectrpc/connect";
import { create, type DescService, type Message } from "@bufbuild/protobuf";
import type {
  A2aClient,
  A2aServiceDefinition,
  CallOptions,
  HandlerContext,
  OperationInfo,
} from "../core/definition.js";
import { A2AError, grpcStatusOf, type A2ATransportError } from "../core/a2a-error.js";
import { errorFromConnect } from "../core/client-errors.js";
import { ErrorInfoSchema } from "../core/error-info.js";
import { negotiateVersion } from "../http/negotiation.js";
import { admitCall, checkVersion, lazyContext, tenantOf } from "../http/call-context.js";
import { cardRulesOf } from "../card/card-rules.js";
import { createInvoker } from "../core/invoke.js";
import { errorReporter } from "../core/report-error.js";
import { verifiedClientCertificate, type ClientCertificate } from "../core/client-certificate.js";
import { buildClient, type A2aClientOptions, type BindingCall } from "../http/client-http.js";
import type { A2aServerOptions } from "../core/server-types.js";
import { DEFAULT_MAX_BODY, messageLimitProblem } from "../core/limits.js";
import { itemsUntilAborted, raceAbort, registerWithLimits } from "./grpc-limits.js";
import { grpcCode, trailersOnlyStatus } from "./grpc-status.js";

export function toConnectError(def: A2aServiceDefinition, e: unknown): ConnectError {
  if (e instanceof ConnectError) return e;
  const s = grpcStatusOf(def, e);
  const details = s.reason
    ? [
        {
          desc: ErrorInfoSchema,
          value: create(ErrorInfoSchema, { reason: s.reason, domain: s.domain, metadata: s.metadata ?? {} } as never),
        },
      ]
    : [];
  // An error's own response headers (WWW-Authenticate on UnauthenticatedError) go out as trailers.
  const trailers = e instanceof A2AError ? e.options.headers : undefined;
  return new ConnectError(s.message, grpcCode(s.status), trailers, details as never);
}

/** The verified client certificate of a gRPC call's TLS connection, in connect's context values. */
const grpcClientCertificateKey = createConnectKey<ClientCertificate | undefined>(undefined, {
  description: "A2A client certificate",
});

/**
 * Connect context values that carry a call's verified client certificate (mutual TLS) to the A2A gRPC routes:
 * `connectNodeAdapter({ routes, contextValues: grpcContextValues })`. Without them a gRPC call has none.
 */
export function grpcContextValues(req: { readonly socket?: unknown }): ConnectValues {
  return createConnectValues().set(grpcClientCertificateKey, verifiedClientCertificate(req.socket));
}

/** A service's registration on a connect router, as `connectNodeAdapter({ routes })` takes it. */
export type GrpcRoutes = (router: ConnectRouter) => void;

/**
 * What a generated stub's gRPC server takes (<service>GrpcRoutes): the server's options but the definition,
 * which the stub gives, and those of HTTP streams and the JSON-RPC dialect (keepAliveMs, onLoss).
 */
export type GrpcRoutesOptions<S extends DescService = DescService> = Omit<
  A2aServerOptions<S>,
  "definition" | "keepAliveMs" | "onLoss"
>;

/**
 * A gRPC client's options: those of every client but fetch and maxResponseBytes; url only names the server in
 * errors. The transport reads the messages, so it bounds them: connect's `readMaxBytes` (its default is 4 GiB,
 * after decompression), e.g. `createGrpcTransport({ baseUrl, readMaxBytes: DEFAULT_MAX_RESPONSE_BYTES })`.
 */
export type GrpcClientOptions = Omit<A2aClientOptions, "url" | "fetch" | "maxResponseBytes"> & {
  readonly url?: string;
};

/** The version a call's metadata names, if `def` speaks it; else VersionNotSupportedError. */
function versionIn(def: A2aServiceDefinition, header: Headers): string {
  const key = def.headers.grpcVersionKey;
  return checkVersion(def, negotiateVersion(def, key ? header.get(key) : null));
}

/** The trailers-only status of a call whose version `def` does not speak, refused before its message is read. */
function versionRefusal(def: A2aServiceDefinition): (header: Headers) => Record<string, string> | undefined {
  return (header) => {
    try {
      versionIn(def, header);
      return undefined;
    } catch (e) {
      return trailersOnlyStatus(def, e);
    }
  };
}

/** Registers the service on a connect router: `connectNodeAdapter({ routes: grpcRoutes(options), grpc: true })`. */
export function grpcRoutes<S extends DescService>(options: A2aServerOptions<S>): GrpcRoutes {
  const def = options.definition;
  const cardRules = cardRulesOf(def, options);
  /** The call's version, checked before anything else about the call (VersionNotSupportedError). */
  const versionOf = (ctx: ConnectContext): string => versionIn(def, ctx.requestHeader);
  const contextOf = (ctx: ConnectContext, op: OperationInfo, input: Message, version: string): HandlerContext => {
    const admitted = admitCall(
      def,
      op,
      { ok: true, version },
      ctx.requestHeader.get(def.headers.grpcExtensionsKey),
      cardRules(() => ctx.requestHeader),
    );
    if (admitted.activated.length > 0)
      ctx.responseHeader.set(def.headers.grpcExtensionsKey, admitted.activated.join(", "));
    return lazyContext(
      {
        signal: ctx.signal,
        get headers() {
          return new Headers(ctx.requestHeader);
        },
        header: (name: string) => ctx.requestHeader.get(name),
        clientCertificate: ctx.values.get(grpcClientCertificateKey),
      },
      admitted,
      "GRPC",
      tenantOf(def, input, op.tenantLocalName),
    );
  };
  const report = errorReporter(def, "GRPC", options.onError);
  const invoke = createInvoker(options.handler, options.interceptors, def);
  const fail = (e: unknown, op: OperationInfo) => {
    if (!(e instanceof ConnectError)) report(e, op.name); // a ConnectError is the deadline or a cancel
    return toConnectError(def, e);
  };
  /** The request within the JSON limits (limits.ts), else InvalidParamsError. */
  const checked = (req: Message, op: OperationInfo): Message => {
    const overLimit = messageLimitProblem(req, op.method.input.name);
    if (overLimit) throw new A2AError("InvalidParamsError", `Invalid request for ${op.name}: ${overLimit}`);
    return req;
  };
  return (router) => {
    const impl: Record<string, unknown> = {};
    for (const op of def.operations) {
      impl[op.localName] = op.streaming
        ? async function* (req: Message, ctx: ConnectContext) {
            try {
              const version = versionOf(ctx);
              const events = invoke.stream(op, checked(req, op), contextOf(ctx, op, req, version));
              yield* itemsUntilAborted(events, ctx.signal);
            } catch (e) {
              throw fail(e, op);
            }
          }
        : async (req: Message, ctx: ConnectContext) => {
            try {
              const version = versionOf(ctx);
              const work = invoke.unary(op, checked(req, op), contextOf(ctx, op, req, version));
              return await raceAbort(work, ctx.signal);
            } catch (e) {
              throw fail(e, op);
            }
          };
    }
    const maxMessageBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
    registerWithLimits(router, def.service, impl, { maxMessageBytes, refusal: versionRefusal(def) });
  };
}

/**
 * A gRPC client failure as the client throws it: A2AError or A2ATransportError (client-errors.ts). `site`
 * names the operation and URL in transport errors.
 */
export function fromConnectError(
  def: A2aServiceDefinition,
  e: unknown,
  site: { readonly operation: string; readonly url: string } = { operation: "gRPC call", url: "" },
): A2AError | A2ATransportError {
  return errorFromConnect(def, e, site);
}

/**
 * A typed gRPC client. `transport` is a connect transport, e.g. createGrpcTransport({ baseUrl, readMaxBytes })
 * from @connectrpc/connect-node; its readMaxBytes is the most a response message may hold (GrpcClientOptions).
 */
export function createGrpcClient<S extends DescService>(
  def: A2aServiceDefinition<S>,
  transport: Transport,
  options: GrpcClientOptions,
): A2aClient<S> {
  const raw = createClient(def.service as never, transport) as unknown as Record<
    string,
    (req: unknown, opts: unknown) => unknown
  >;
  const metadata = (call: BindingCall | undefined) => {
    // buildClient's full set, as the interceptors left it (a header they removed stays removed).
    if (call?.headerSet) return Object.fromEntries(call.headerSet);
    // Metadata keys are lowercase: a header given as "X-API-Key" and again in the call is one key.
    const h: Record<string, string> = {};
    for (const [k, v] of Object.entries(options.headers ?? {})) h[k.toLowerCase()] = v;
    if (def.headers.grpcVersionKey) h[def.headers.grpcVersionKey] = def.protocolVersion;
    if (options.extensions?.length) h[def.headers.grpcExtensionsKey] = options.extensions.join(", ");
    for (const [k, v] of Object.entries(call?.headers ?? {})) h[k.toLowerCase()] = v;
    return h;
  };
  const base = (options.url ?? "").replace(/\/+$/, "");
  const site = (op: OperationInfo) => ({
    operation: op.name,
    url: `${base}/${def.service.typeName}/${op.method.name}`,
  });
  const callOpts = (call: BindingCall | undefined) => {
    const signal = call?.signal;
    return { headers: metadata(call), ...(signal ? { signal } : {}) };
  };
  return buildClient<S>(
    def,
    async (op: OperationInfo, request: Message, call?: CallOptions) => {
      try {
        return (await raw[op.localName]!(request, callOpts(call))) as Message;
      } catch (e) {
        throw errorFromConnect(def, e, site(op));
      }
    },
    async function* (op: OperationInfo, request: Message, call?: CallOptions) {
      // connect ends a stream's call only through its signal (its iterator ignores return()): a caller that
      // stops reading (break) aborts it here, so the HTTP/2 stream is closed at once.
      const stop = new AbortController();
      const opts = callOpts(call);
      const signal = opts.signal ? AbortSignal.any([opts.signal, stop.signal]) : stop.signal;
      try {
        yield* raw[op.localName]!(request, { headers: opts.headers, signal }) as AsyncIterable<Message>;
      } catch (e) {
        throw errorFromConnect(def, e, site(op));
      } finally {
        stop.abort();
      }
    },
    { url: options.url ?? "", ...options },
    "GRPC",
  );
}
