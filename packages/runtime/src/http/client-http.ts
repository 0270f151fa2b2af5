/**
 * What the JSON-RPC and HTTP+JSON clients share: options, the service
 * parameters every request carries (A2A-Version as the interface's
 * Major.Minor, A2A-Extensions comma-separated), the tenant copied from the
 * interface into every request (spec §8.3.2), call signals (caller
 * signal, per-call signal, timeout), streams resumed after a drop when asked
 * (resubscribe.ts), and the error net: a call rejects only
 * with A2AError or A2ATransportError (client-errors.ts); whatever else breaks
 * (fetch, a body cut off, an answer that does not decode) becomes an
 * A2ATransportError naming the operation and the URL, the failure as cause.
 */
import { create, type DescMessage, type Message } from "@bufbuild/protobuf";
import type { A2aClient, A2aServiceDefinition, CallOptions, OperationInfo } from "../definition.js";
import { transportFailure } from "../client-errors.js";
import { resubscribing, subscriptionFor, type ResubscribeOptions } from "../resubscribe.js";

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
  readonly fetch?: typeof globalThis.fetch;
  /** Told what a response carried that this version cannot hold (v0.3 JSON-RPC: a2a.json fields the proto lacks). */
  readonly onLoss?: (operation: string, loss: { readonly path: string; readonly reason: string }) => void;
  /**
   * Resume SubscribeToTask and SendStreamingMessage streams that drop before the task is done by subscribing
   * again (resubscribe.ts): true for the defaults, or the bounds. Default: off.
   */
  readonly resubscribe?: boolean | ResubscribeOptions;
}

export function serviceHeaders(
  def: A2aServiceDefinition,
  options: A2aClientOptions,
  call: CallOptions | undefined,
): Headers {
  const h = new Headers(options.headers);
  if (def.headers.versionHeader) h.set(def.headers.versionHeader, def.protocolVersion);
  if (options.extensions && options.extensions.length > 0)
    h.set(def.headers.extensionsHeader, options.extensions.join(", "));
  for (const [k, v] of Object.entries(call?.headers ?? {})) h.set(k, v);
  return h;
}

export function callSignal(options: A2aClientOptions, call: CallOptions | undefined): AbortSignal | undefined {
  const signals: AbortSignal[] = [];
  if (options.signal) signals.push(options.signal);
  if (call?.signal) signals.push(call.signal);
  const timeout = call?.timeoutMs ?? options.timeoutMs;
  if (timeout !== undefined) signals.push(AbortSignal.timeout(timeout));
  return signals.length === 0 ? undefined : signals.length === 1 ? signals[0] : AbortSignal.any(signals);
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

/** fetch, with a rejection (refused connection, DNS, abort, timeout) as a transport error naming the call. */
export async function fetchFor(
  fetchFn: typeof globalThis.fetch,
  operation: string,
  url: string,
  init: RequestInit & { readonly method: string },
): Promise<Response> {
  try {
    return await fetchFn(url, init);
  } catch (e) {
    throw transportFailure({ operation, url, method: init.method }, e);
  }
}

/** Builds the typed client object from per-operation unary and stream callers, behind the error net. */
export function buildClient<S>(
  def: A2aServiceDefinition,
  unary: (op: OperationInfo, request: Message, call?: CallOptions) => Promise<Message>,
  stream: (op: OperationInfo, request: Message, call?: CallOptions) => AsyncIterable<Message>,
  options: A2aClientOptions,
): A2aClient<S> {
  const client: Record<string, unknown> = {};
  const site = (op: OperationInfo) => ({ operation: op.name, url: options.url });
  async function* guarded(op: OperationInfo, events: AsyncIterable<Message>) {
    try {
      yield* events;
    } catch (e) {
      throw transportFailure(site(op), e);
    }
  }
  const start = (op: OperationInfo, init: unknown, call: CallOptions | undefined) =>
    guarded(op, stream(op, requestMessage(def, op, init, options), call));
  const policy = options.resubscribe === true ? {} : options.resubscribe || undefined;
  const resumed = (op: OperationInfo, init: unknown, call: CallOptions | undefined) =>
    policy && subscriptionFor(def, op)
      ? resubscribing({ def, op, init, call, url: options.url, clientSignal: options.signal, policy, start })
      : start(op, init, call);
  for (const op of def.operations) {
    client[op.localName] = op.streaming
      ? (init: unknown, call?: CallOptions) => resumed(op, init, call)
      : (init: unknown, call?: CallOptions) =>
          unary(op, requestMessage(def, op, init, options), call).catch((e: unknown) => {
            throw transportFailure(site(op), e);
          });
  }
  return client as A2aClient<S>;
}
