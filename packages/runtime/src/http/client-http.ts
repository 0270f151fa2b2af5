/**
 * What the JSON-RPC, HTTP+JSON and gRPC clients share: options, the service
 * parameters every request carries (A2A-Version as the interface's
 * Major.Minor, A2A-Extensions comma-separated), the tenant copied from the
 * interface into every request (spec §8.3.2), call signals (caller
 * signal, per-call signal, timeout), the client's interceptors around each
 * request (client/client-interceptor.ts), streams resumed after a drop when
 * asked (resubscribe.ts), and the error net: a call rejects only
 * with A2AError or A2ATransportError (client-errors.ts); whatever else breaks
 * (fetch, a body cut off, an answer that does not decode, an interceptor's own
 * error) becomes an A2ATransportError naming the operation and the URL, the
 * failure as cause. A URL in a message leaves out the query parameters the
 * interceptors added (a query API key), and a redirect's Location its query.
 *
 * buildClient hands a binding the headers the interceptors left (BindingCall:
 * `headerSet`, and `headers` as a record for the gRPC client's metadata) and
 * the query parameters they added (`query`, HTTP bindings only).
 */
import { create, type DescMessage, type Message } from "@bufbuild/protobuf";
import type { A2aClient, A2aServiceDefinition, Binding, CallOptions, OperationInfo } from "../core/definition.js";
import type { A2aResult } from "../core/interceptor.js";
import { transportFailure, type CallSite } from "../core/client-errors.js";
import { A2ATransportError } from "../core/a2a-error.js";
import { boundedText, isRedirect } from "../core/response-body.js";
import { eventsUntilAborted, untilAborted } from "../core/until-aborted.js";
import { timedSignal, type TimedSignal } from "../core/timed-signal.js";
import { plainErrorChain } from "../core/error-copy.js";
import { resubscribing, streamEnd, subscriptionFor, type ResubscribeOptions } from "./resubscribe.js";
import {
  chainClientInterceptors,
  openStream,
  type A2aClientCall,
  type A2aClientNext,
  type ClientInterceptor,
} from "../core/client-interceptor.js";

export interface A2aClientOptions {
  /** The interface URL from the agent card. */
  readonly url: string;
  /** The interface's tenant; set in every request that has no tenant of its own. */
  readonly tenant?: string;
  /** Extension URIs to declare. */
  readonly extensions?: readonly string[];
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  /**
   * The most bytes of one response body, or of one event of a stream, the client reads; past it the call is an
   * A2ATransportError, the rest never read. Default 64 MiB (DEFAULT_MAX_RESPONSE_BYTES).
   */
  readonly maxResponseBytes?: number;
  readonly fetch?: typeof globalThis.fetch;
  /** Told what a response carried that this version cannot hold (v0.3 JSON-RPC: a2a.json fields the proto lacks). */
  readonly onLoss?: (operation: string, loss: { readonly path: string; readonly reason: string }) => void;
  /**
   * Resume SubscribeToTask and SendStreamingMessage streams that drop before the task is done by subscribing
   * again (resubscribe.ts): true for the defaults, or the bounds. Default: off.
   */
  readonly resubscribe?: boolean | ResubscribeOptions;
  /** Around every request, the first outermost (client/client-interceptor.ts). */
  readonly interceptors?: readonly ClientInterceptor[];
}

/** The call options buildClient hands a binding: the caller's, with what the interceptors set. */
export interface BindingCall extends CallOptions {
  /** Every header to send, as the interceptors left them (HTTP bindings send exactly these). */
  readonly headerSet?: Headers;
  /** Query parameters to add to the request URL (HTTP bindings). */
  readonly query?: URLSearchParams;
}

/** The headers of a request: the call's full set from buildClient, else the client's, version, extensions, call's. */
export function serviceHeaders(
  def: A2aServiceDefinition,
  options: A2aClientOptions,
  call: BindingCall | undefined,
): Headers {
  if (call?.headerSet) return new Headers(call.headerSet);
  return startHeaders(def, options, call, "HTTP+JSON");
}

/** The client's headers, the version and extension headers of the binding, and the call's own headers. */
function startHeaders(
  def: A2aServiceDefinition,
  options: A2aClientOptions,
  call: CallOptions | undefined,
  binding: Binding,
): Headers {
  const h = new Headers(options.headers);
  const grpc = binding === "GRPC";
  const version = grpc ? def.headers.grpcVersionKey : def.headers.versionHeader;
  if (version) h.set(version, def.protocolVersion);
  if (options.extensions && options.extensions.length > 0)
    h.set(grpc ? def.headers.grpcExtensionsKey : def.headers.extensionsHeader, options.extensions.join(", "));
  for (const [k, v] of Object.entries(call?.headers ?? {})) h.set(k, v);
  return h;
}

/** `url` with the call's query parameters added to those it has. */
export function withQuery(url: string, call: BindingCall | undefined): string {
  const extra = call?.query?.toString();
  if (!extra) return url;
  return url + (url.includes("?") ? "&" : "?") + extra;
}

/**
 * One signal for a call: aborted by the client's signal, the call's signal, or the call's timeout (the call's
 * timeoutMs, else the client's), with the reason of the first (core/timed-signal.ts).
 */
export function callSignal(options: A2aClientOptions, call: CallOptions | undefined): TimedSignal {
  return timedSignal([options.signal, call?.signal], call?.timeoutMs ?? options.timeoutMs);
}

/** Whether an operation answers nothing (google.protobuf.Empty): only its answer may be empty or null. */
export function answersNothing(op: OperationInfo): boolean {
  return op.method.output.typeName === "google.protobuf.Empty";
}

/** The request as a message, with the interface's tenant filled in (I8). */
export function requestMessage(
  def: A2aServiceDefinition,
  op: OperationInfo,
  init: unknown,
  options: A2aClientOptions,
): Message {
  const msg = create(op.method.input as DescMessage, init as never) as Message & Record<string, unknown>;
  const field = def.tenantField;
  if (field && options.tenant && op.method.input.fields.some((f) => f.name === field)) {
    const local = op.method.input.fields.find((f) => f.name === field)!.localName;
    if (!msg[local]) msg[local] = options.tenant;
  }
  return msg;
}

/** A2aClientOptions.maxResponseBytes by default: 64 MiB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * The body of `res` as text, read to at most `limit` bytes (as decoded from any Content-Encoding): past it the
 * read stops and the call is a transport error naming the call's method and URL.
 */
export async function responseText(
  res: Response,
  limit: number,
  site: CallSite & { readonly method: string },
): Promise<string> {
  return boundedText(res, limit, () => {
    const said = `${site.operation}: ${site.method} ${site.url} answered a body over ${limit} bytes`;
    return new A2ATransportError(said, res.status, undefined, {
      operation: site.operation,
      url: site.url,
      headers: res.headers,
    });
  });
}

/**
 * fetch, with a rejection (refused connection, DNS, abort, timeout) as a transport error naming the call at
 * `shown`: the URL without the query parameters interceptors added, which may carry an API key. Redirects are
 * not followed (`redirect: "manual"`, which every caller's init carries): one is a transport error naming where
 * it pointed, so a call's credentials and body never go to a URL the caller did not give.
 */
export async function fetchFor(
  fetchFn: typeof globalThis.fetch,
  operation: string,
  url: string,
  init: RequestInit & { readonly method: string; readonly redirect: "manual" },
  shown = url,
): Promise<Response> {
  let res: Response;
  try {
    res = await fetchFn(url, init);
  } catch (e) {
    const named = url !== shown && namesUrl(e, url);
    throw transportFailure(
      { operation, url: shown, method: init.method },
      named ? plainErrorChain(e, (m) => m.split(url).join(shown)) : e,
    );
  }
  if (!isRedirect(res)) return res;
  await res.body?.cancel().catch(() => {});
  const to = res.headers.get("location");
  const where = to ? ` to ${locationShown(to, url)}` : "";
  const said = `answered HTTP ${res.status || "redirect"}${where}; the client follows no redirect`;
  throw new A2ATransportError(`${operation}: ${init.method} ${shown} ${said}`, res.status || undefined, undefined, {
    operation,
    url: shown,
    headers: res.headers,
  });
}

/**
 * A redirect's Location as a message shows it: its origin and path, its query left out, since a server that
 * redirects (to add a trailing slash, say) keeps the query, and with it a query API key.
 */
function locationShown(location: string, base: string): string {
  let to: URL;
  try {
    to = new URL(location, base);
  } catch {
    return "a Location that is no URL";
  }
  return `${to.origin}${to.pathname}`.slice(0, 200) + (to.search === "" ? "" : "?<query not shown>");
}

/** Whether a message along the failure's cause chain names `url`. */
function namesUrl(e: unknown, url: string): boolean {
  for (let x = e, depth = 0; x instanceof Error && depth < 5; x = x.cause, depth++)
    if (x.message.includes(url)) return true;
  return false;
}

type UnaryCaller = (op: OperationInfo, request: Message, call?: BindingCall) => Promise<Message>;
type StreamCaller = (op: OperationInfo, request: Message, call?: BindingCall) => AsyncIterable<Message>;

/** The end of the interceptor chain: the binding's request, its failures as the two client errors. */
function bindingStep(unary: UnaryCaller, stream: StreamCaller, site: (op: OperationInfo) => CallSite): A2aClientNext {
  return async (call) => {
    const sent: BindingCall = {
      headers: Object.fromEntries(call.headers),
      headerSet: call.headers,
      query: call.query,
      ...(call.signal ? { signal: call.signal } : {}),
    };
    try {
      if (!call.operation.streaming) return { kind: "unary", message: await unary(call.operation, call.request, sent) };
      return {
        kind: "stream",
        messages: guarded(site(call.operation), await openStream(stream(call.operation, call.request, sent))),
      };
    } catch (e) {
      throw transportFailure(site(call.operation), e);
    }
  };
}

/** A stream whose failures are the two client errors. */
async function* guarded(site: CallSite, events: AsyncIterable<Message>): AsyncIterable<Message> {
  try {
    yield* events;
  } catch (e) {
    throw transportFailure(site, e);
  }
}

/** What a call through the chain resolved to, checked against the operation's kind. */
function resultOf(op: OperationInfo, result: A2aResult): A2aResult {
  if (result.kind === (op.streaming ? "stream" : "unary")) return result;
  throw new Error(
    `${op.name}: an interceptor answered a ${result.kind} result for a ${op.streaming ? "stream" : "unary call"}`,
  );
}

/**
 * Builds the typed client object from per-operation unary and stream callers, with the client's interceptors
 * around each request, behind the error net. `binding` names the binding to interceptors and picks the version
 * and extension header names (gRPC's metadata keys for "GRPC", the default, which the gRPC client relies on).
 */
export function buildClient<S>(
  def: A2aServiceDefinition,
  unary: UnaryCaller,
  stream: StreamCaller,
  options: A2aClientOptions,
  binding: Binding,
): A2aClient<S> {
  const client: Record<string, unknown> = {};
  const site = (op: OperationInfo) => ({ operation: op.name, url: options.url });
  const chain = chainClientInterceptors(options.interceptors ?? [], bindingStep(unary, stream, site));
  const run = async (
    op: OperationInfo,
    init: unknown,
    call: CallOptions | undefined,
    signal: AbortSignal | undefined,
  ) => {
    const first: A2aClientCall = {
      operation: op,
      request: requestMessage(def, op, init, options),
      headers: startHeaders(def, options, call, binding),
      query: new URLSearchParams(),
      url: options.url,
      binding,
      protocolVersion: def.protocolVersion,
      signal,
    };
    try {
      // The call's bounds hold whatever signal an interceptor passes on to the binding.
      return resultOf(op, await untilAborted(chain(first), signal));
    } catch (e) {
      throw transportFailure(site(op), e);
    }
  };
  async function* start(op: OperationInfo, init: unknown, call: CallOptions | undefined) {
    const { signal, end } = callSignal(options, call);
    try {
      const result = await run(op, init, call, signal);
      if (result.kind !== "stream") return;
      const ends = streamEnd(def, op);
      for await (const message of guarded(site(op), eventsUntilAborted(result.messages, signal))) {
        yield message;
        if (ends?.(message)) return;
      }
    } finally {
      end();
    }
  }
  const policy = options.resubscribe === true ? {} : options.resubscribe || undefined;
  const resumed = (op: OperationInfo, init: unknown, call: CallOptions | undefined) =>
    policy && subscriptionFor(def, op)
      ? resubscribing({ def, op, init, call, url: options.url, clientSignal: options.signal, policy, start })
      : start(op, init, call);
  for (const op of def.operations) {
    client[op.localName] = op.streaming
      ? (init: unknown, call?: CallOptions) => resumed(op, init, call)
      : async (init: unknown, call?: CallOptions) => {
          const { signal, end } = callSignal(options, call);
          try {
            const result = await run(op, init, call, signal);
            return result.kind === "unary" ? result.message : undefined;
          } finally {
            end();
          }
        };
  }
  return client as A2aClient<S>;
}
