/**
 * gRPC binding, server and client, on connect-es (@connectrpc/connect) over
 * the protoc-gen-es service descriptor. A2A service parameters travel as
 * lowercase metadata (a2a-version, a2a-extensions; spec §10.2). Errors carry
 * the catalog's status code and a google.rpc.ErrorInfo in the status details
 * (§10.6); the client turns them back into A2AError by the ErrorInfo reason.
 * The agent card's rules apply before the handler runs (card-rules.ts); the
 * activated extensions are echoed in the response metadata (a2a-extensions).
 */
import {
  Code,
  ConnectError,
  createClient,
  type ConnectRouter,
  type HandlerContext as ConnectContext,
} from "@connectrpc/connect";
import { create, type DescService, type Message } from "@bufbuild/protobuf";
import type { A2aClient, A2aServiceDefinition, CallOptions, HandlerContext, OperationInfo } from "./definition.js";
import { errorFromWire, grpcStatusOf } from "./a2a-error.js";
import { ErrorInfoSchema } from "./error-info.js";
import { negotiateVersion } from "./negotiation.js";
import { admitCall, lazyContext, tenantOf } from "./call-context.js";
import { cardRulesOf } from "./card-rules.js";
import { invokeStream, invokeUnary } from "./invoke.js";
import { errorReporter } from "./report-error.js";
import { buildClient, callSignal, type A2aClientOptions } from "./client-http.js";
import type { A2aServerOptions } from "./server-types.js";

/** "FAILED_PRECONDITION" → Code.FailedPrecondition */
export function grpcCode(name: string): Code {
  const key = name
    .toLowerCase()
    .split("_")
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join("") as keyof typeof Code;
  return (Code[key] as Code | undefined) ?? Code.Unknown;
}

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
  return new ConnectError(s.message, grpcCode(s.status), undefined, details as never);
}

/** Registers the service on a connect router: `connectNodeAdapter({ routes: grpcRoutes(options), grpc: true })`. */
export function grpcRoutes<S extends DescService>(options: A2aServerOptions<S>): (router: ConnectRouter) => void {
  const def = options.definition;
  const cardRules = cardRulesOf(def, options);
  const contextOf = (ctx: ConnectContext, op: OperationInfo, input: Message): HandlerContext => {
    const key = def.headers.grpcVersionKey;
    const admitted = admitCall(
      def,
      op,
      negotiateVersion(def, key ? ctx.requestHeader.get(key) : null),
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
      },
      admitted,
      "GRPC",
      tenantOf(def, input, op.tenantLocalName),
    );
  };
  const report = errorReporter(def, "GRPC", options.onError);
  const fail = (e: unknown, op: OperationInfo) => {
    report(e, op.name);
    return toConnectError(def, e);
  };
  return (router) => {
    const impl: Record<string, unknown> = {};
    for (const op of def.operations) {
      impl[op.localName] = op.streaming
        ? async function* (req: Message, ctx: ConnectContext) {
            try {
              yield* invokeStream(options.handler, op, req, contextOf(ctx, op, req));
            } catch (e) {
              throw fail(e, op);
            }
          }
        : async (req: Message, ctx: ConnectContext) => {
            try {
              return await invokeUnary(options.handler, op, req, contextOf(ctx, op, req));
            } catch (e) {
              throw fail(e, op);
            }
          };
    }
    router.service(def.service as never, impl as never);
  };
}

export function fromConnectError(def: A2aServiceDefinition, e: unknown): unknown {
  if (!(e instanceof ConnectError)) return e;
  const info = e.findDetails(ErrorInfoSchema)[0] as unknown as
    | { reason?: string; domain?: string; metadata?: Record<string, string> }
    | undefined;
  if (info?.reason) {
    return errorFromWire(def, {
      reason: info.reason,
      ...(info.domain ? { domain: info.domain } : {}),
      message: e.rawMessage,
      ...(info.metadata ? { metadata: info.metadata } : {}),
    });
  }
  // A version without ErrorInfo (v0.3): a status that only one error of the catalog uses names it.
  if (!def.errors.some((x) => x.reason)) {
    const hits = def.errors.filter((x) => x.grpcStatus !== null && grpcCode(x.grpcStatus) === e.code);
    if (hits.length === 1) return errorFromWire(def, { code: hits[0]!.jsonrpcCode, message: e.rawMessage });
  }
  return e;
}

/**
 * A typed gRPC client. `transport` is a connect transport, e.g. createGrpcTransport({ baseUrl })
 * from @connectrpc/connect-node.
 */
export function createGrpcClient<S extends DescService>(
  def: A2aServiceDefinition<S>,
  transport: Parameters<typeof createClient>[1],
  options: Omit<A2aClientOptions, "url" | "fetch"> & { url?: string },
): A2aClient<S> {
  const raw = createClient(def.service as never, transport) as unknown as Record<
    string,
    (req: unknown, opts: unknown) => unknown
  >;
  const metadata = (call: CallOptions | undefined) => {
    const h: Record<string, string> = { ...options.headers };
    if (def.headers.grpcVersionKey) h[def.headers.grpcVersionKey] = def.protocolVersion;
    if (options.extensions?.length) h[def.headers.grpcExtensionsKey] = options.extensions.join(", ");
    for (const [k, v] of Object.entries(call?.headers ?? {})) h[k.toLowerCase()] = v;
    return h;
  };
  const callOpts = (call: CallOptions | undefined) => {
    const signal = callSignal({ url: "", ...options }, call);
    return { headers: metadata(call), ...(signal ? { signal } : {}) };
  };
  return buildClient<S>(
    def,
    async (op: OperationInfo, request: Message, call?: CallOptions) => {
      try {
        return (await raw[op.localName]!(request, callOpts(call))) as Message;
      } catch (e) {
        throw fromConnectError(def, e);
      }
    },
    async function* (op: OperationInfo, request: Message, call?: CallOptions) {
      try {
        yield* raw[op.localName]!(request, callOpts(call)) as AsyncIterable<Message>;
      } catch (e) {
        throw fromConnectError(def, e);
      }
    },
    { url: options.url ?? "", ...options },
  );
}
