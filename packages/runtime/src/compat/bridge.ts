/**
 * Version bridge, server side: an older-version handler (v0.3) on top of a
 * newer-version handler (v1.0). Each older operation calls the newer
 * operation it corresponds to (the operation pairs of the compat module);
 * requests convert to the newer version and responses and stream events back,
 * with the generated converter. Losses go to `onLoss`; nothing is dropped
 * silently.
 *
 * Requests convert with the converter's convertRequest: by their pair, or, for
 * a request that wraps the other version's (v0.3 Create: {parent, config_id,
 * config}), by the generated conversion of that wrapped request.
 *
 * The server side is returned as a BridgedHandler: the older definition, the
 * older handler, and its JSON-RPC operations served in one pass
 * (`jsonrpcOperations`, the JSON-RPC server's option of that name). With the
 * one-pass a2a.json conversions of the compat module (`json`), each
 * operation whose request and response both have one is such an operation:
 * params JSON → newer request → handler → older result JSON, without the
 * older proto's messages; other bindings and operations go through the older
 * handler. Wrapping the older handler does not change the wire path, which
 * the server options name; wrap the newer handler to see every call. A request
 * read in one pass is checked with the newer version's input rules less the
 * ones it waives for the older version (validate.ts); the others were checked
 * with the older version's rules before the bridge got them (invoke.ts).
 *
 * A request that cannot convert (an unknown kind or enum value, a part without
 * content: CompatJsonError) is InvalidParams naming the field's path; the
 * handler is not called.
 *
 * Errors: the handler's A2AError is renamed to the older catalog's error of
 * the same JSON-RPC code (-32007 is AuthenticatedExtendedCardNotConfiguredError
 * in v0.3); a code the older catalog lacks (-32008, -32009) travels as a
 * JSON-RPC server error in the reserved range with its message.
 */
import { create, fromJson, type DescMessage, type DescService, type Message } from "@bufbuild/protobuf";
import type {
  A2aClient,
  A2aHandler,
  A2aServiceDefinition,
  CallOptions,
  HandlerContext,
  OperationInfo,
} from "../core/definition.js";
import type { JsonRpcCalls, JsonRpcClient, JsonRpcOperation, JsonRpcOperations } from "../jsonrpc/json-operations.js";
import { CompatJsonError, isObject } from "./compat-json.js";
import { A2AError, A2ATransportError } from "../core/a2a-error.js";
import { invalidRequest } from "../core/invoke.js";
import type { Converter, Loss } from "../core/conversion-types.js";
import type { CompatJsonTable } from "./compat-json.js";
import type { JsonValue } from "@bufbuild/protobuf";
import { definedNames, withNames } from "../core/records.js";

export interface OperationPair {
  readonly older: string;
  readonly newer: string;
}

/** What both bridges are built from: the two versions, how their operations and messages correspond. */
interface BridgeBase<O extends DescService, N extends DescService> {
  readonly older: A2aServiceDefinition<O>;
  readonly newer: A2aServiceDefinition<N>;
  readonly converter: Converter;
  readonly operations: readonly OperationPair[];
  /** The one-pass conversions of the older JSON-RPC payloads, if the older version has a dialect. */
  readonly json?: CompatJsonTable;
  readonly onLoss?: (operation: string, loss: Loss) => void;
}

export interface BridgeOptions<O extends DescService, N extends DescService> extends BridgeBase<O, N> {
  readonly handler: A2aHandler<N>;
}

export interface ClientBridgeOptions<O extends DescService, N extends DescService> extends BridgeBase<O, N> {
  /** A JSON-RPC client (createJsonRpcClient) is called on JSON (its `jsonrpc` calls) where `json` allows. */
  readonly client: A2aClient<O> | JsonRpcClient<O>;
}

/** The older version's side of a server, made by the bridge: what the servers take as it is. */
export interface BridgedHandler<S extends DescService> {
  readonly definition: A2aServiceDefinition<S>;
  readonly handler: A2aHandler<S>;
  /** The JSON-RPC operations served in one pass (JsonRpcServerOptions.jsonrpcOperations); may be empty. */
  readonly jsonrpcOperations: JsonRpcOperations;
}

type AnyBridge = BridgeOptions<DescService, DescService>;
type Target = (req: unknown, ctx: HandlerContext) => unknown;

export function createBridgeHandler<O extends DescService, N extends DescService>(
  options: BridgeOptions<O, N>,
): BridgedHandler<O> {
  const o = options as unknown as AnyBridge;
  const out: Record<string, unknown> = {};
  const direct = new Map<string, JsonRpcOperation>();
  for (const pair of options.operations) {
    const from = o.older.byName.get(pair.older);
    const to = o.newer.byName.get(pair.newer);
    if (!from || !to) continue;
    const target = (options.handler as Record<string, Target>)[to.localName];
    if (typeof target !== "function") continue;
    const call: Target = (req, ctx) => target.call(options.handler, req, ctx);
    out[from.localName] = bridgedMethod(o, pair.older, from, to, call);
    const fromJson = options.json?.fromOlder[from.method.input.typeName];
    const toJson = options.json?.toOlder[to.method.output.typeName];
    if (fromJson && toJson && o.converter.counterpart(from.method.input.typeName) === to.method.input.typeName) {
      const writeJson = toJson as (m: Message, a: undefined, lost: Loss[]) => JsonValue;
      direct.set(from.name, directOperation(o, from, to, pair.older, fromJson, writeJson, call));
    }
  }
  return { definition: options.older, handler: out as A2aHandler<O>, jsonrpcOperations: direct };
}

/** An older handler method: the request converted to the newer version, the handler's answer converted back. */
function bridgedMethod(o: AnyBridge, operation: string, from: OperationInfo, to: OperationInfo, target: Target) {
  const call = (req: Message, ctx: HandlerContext) => target(toNewerRequest(o, req, from, to, ctx), ctx);
  const back = (res: unknown): Message => {
    const msg = create(to.method.output as DescMessage, res as never);
    return o.converter.convert(msg, "toOlder", (l) => o.onLoss?.(operation, l)).message;
  };
  return from.streaming
    ? async function* (req: Message, ctx: HandlerContext) {
        try {
          for await (const ev of call(req, ctx) as AsyncIterable<unknown>) yield back(ev);
        } catch (e) {
          throw renameError(o, e);
        }
      }
    : async (req: Message, ctx: HandlerContext) => {
        try {
          return back(await call(req, ctx));
        } catch (e) {
          throw renameError(o, e);
        }
      };
}

/** A JSON-RPC operation served in one pass: params → newer request → handler → older result JSON. */
function directOperation(
  o: AnyBridge,
  from: OperationInfo,
  to: OperationInfo,
  operation: string,
  fromJson: (json: unknown, a: undefined, lost: Loss[]) => Message,
  toJson: (m: Message, a: undefined, lost: Loss[]) => JsonValue,
  call: Target,
): JsonRpcOperation {
  const output = to.method.output as DescMessage;
  const bridgeLoss = (l: Loss) => o.onLoss?.(operation, l);
  /** The request; what it carried that v1.0 cannot hold goes to the server's onLoss, else the bridge's. */
  const read = (params: JsonValue, serverLoss: ((l: Loss) => void) | undefined): Message => {
    const lost: Loss[] = [];
    let req: Message;
    try {
      req = fromJson(params, undefined, lost);
    } catch (e) {
      if (e instanceof CompatJsonError)
        throw new A2AError("InvalidParamsError", `Invalid params for ${from.jsonrpcMethod}: ${e.message}`);
      throw e;
    }
    // Checked with the newer version's input rules, less those it waives for the older version; a refusal
    // names the older version's keys where its own rules see the same problem.
    const problem = to.checkRequest?.(req, "JSONRPC", o.older.protocolVersion);
    if (problem) throw invalidRequest(from, "JSONRPC", olderProblem(o, from, params) ?? problem);
    lost.forEach(serverLoss ?? bridgeLoss);
    return req;
  };
  /** A result; what v0.3 cannot hold goes to the bridge's onLoss. */
  const write = (res: unknown): JsonValue => {
    const lost: Loss[] = [];
    const json = toJson(create(output, res as never), undefined, lost);
    lost.forEach(bridgeLoss);
    return json;
  };
  async function* events(req: Message, ctx: HandlerContext): AsyncIterable<JsonValue> {
    try {
      for await (const ev of call(req, ctx) as AsyncIterable<unknown>) {
        if (ctx.signal.aborted) return;
        yield write(ev);
      }
    } catch (e) {
      throw renameError(o, e);
    }
  }
  return from.streaming
    ? { stream: (params, ctx, serverLoss) => events(read(params, serverLoss), ctx) }
    : {
        async unary(params, ctx, serverLoss) {
          const req = read(params, serverLoss);
          try {
            return write(await call(req, ctx));
          } catch (e) {
            throw renameError(o, e);
          }
        },
      };
}

/**
 * What the older version's own rules say of JSON-RPC `params`, named by its a2a.json keys (`id`, not the newer
 * `taskId`); undefined when they find nothing or the params do not decode. Runs only for a refused request.
 */
function olderProblem(o: AnyBridge, from: OperationInfo, params: JsonValue): string | undefined {
  const codec = o.older.jsonrpcCodec;
  if (!codec || !from.checkRequest) return undefined;
  try {
    const input = from.method.input;
    const older = fromJson(input, codec.decode(input, params), { ignoreUnknownFields: true });
    return from.checkRequest(older, "JSONRPC");
  } catch {
    return undefined;
  }
}

/** The newer request; one that cannot convert is InvalidParams, named as the binding names the operation. */
function toNewerRequest(o: AnyBridge, req: Message, from: OperationInfo, to: OperationInfo, ctx: HandlerContext) {
  try {
    return convertRequest(o, req, to);
  } catch (e) {
    if (!(e instanceof CompatJsonError)) throw e;
    throw ctx.binding === "JSONRPC"
      ? new A2AError("InvalidParamsError", `Invalid params for ${from.jsonrpcMethod}: ${e.message}`)
      : new A2AError("InvalidParamsError", `Invalid request for ${from.name}: ${e.message}`);
  }
}

/** The request converted to the newer operation's request type: by its pair, or as a wrapped request. */
function convertRequest(o: AnyBridge, req: Message, to: OperationInfo): Message {
  return o.converter.convertRequest(req, to.method.input.typeName, (l: Loss) => o.onLoss?.(to.name, l)).message;
}

/** The JSON-RPC code of an error of version `def`: the one it carries, else its catalog's. */
function codeIn(def: A2aServiceDefinition, e: A2AError): number | undefined {
  return (
    e.options.code ??
    def.errors.find((x) => x.name === e.type)?.jsonrpcCode ??
    def.standardErrors.find((x) => x.name === e.type)?.code
  );
}

/** An error of version `from` as version `to` names it (the error with the same code), if `to` has one. */
function sameErrorIn(from: A2aServiceDefinition, to: A2aServiceDefinition, e: A2AError): A2AError | undefined {
  const code = codeIn(from, e);
  const same = to.errors.find((x) => x.jsonrpcCode === code) ?? to.standardErrors.find((x) => x.code === code);
  if (same === undefined) return undefined;
  const message = e.message !== e.type ? e.message : undefined;
  return A2AError.named(same.name, message, withNames(e.options, definedNames({ code })));
}

/** A newer-version error as the older version names it: the error with its code, else a ServerError. */
function renameError(o: AnyBridge, e: unknown): unknown {
  if (!(e instanceof A2AError)) return e;
  const same = sameErrorIn(o.newer, o.older, e);
  if (same) return same;
  const code = codeIn(o.newer, e);
  const httpStatus = o.newer.errors.find((x) => x.jsonrpcCode === code)?.httpStatus ?? 400;
  return new A2AError("ServerError", e.message, withNames(e.options, definedNames({ code, httpStatus })));
}

/** An older peer's error as the newer client names it (the same code), else as the peer sent it. */
function newerError(older: A2aServiceDefinition, newer: A2aServiceDefinition, e: unknown): unknown {
  return e instanceof A2AError ? (sameErrorIn(older, newer, e) ?? e) : e;
}

/**
 * Version bridge, client side: a newer-version client (v1.0 types) over an
 * older-version client (v0.3 peer). Requests convert to the older version and
 * responses back. An operation the older version lacks (ListTasks) fails with
 * UnsupportedOperationError before anything is sent. The v1.0 Create request
 * becomes the v0.3 {parent, config_id, config} wrapper (convertRequest). Over a JSON-RPC client
 * (JsonRpcClient: its `jsonrpc` calls) with the one-pass conversions (`json`),
 * an operation whose request and response both have one sends and reads
 * a2a.json directly.
 */
export function createClientBridge<O extends DescService, N extends DescService>(
  options: ClientBridgeOptions<O, N>,
): A2aClient<N> {
  const o = options as unknown as ClientBridgeOptions<DescService, DescService>;
  const { older, newer } = o;
  const out: Record<string, unknown> = {};
  const raw = o.json ? jsonCalls(o.client) : undefined;
  for (const to of newer.operations) {
    const pair = o.operations.find((p) => p.newer === to.name);
    const from = pair && older.byName.get(pair.older);
    if (!from) {
      out[to.localName] = () => {
        throw new A2AError(
          "UnsupportedOperationError",
          `${to.name} does not exist in protocol ${older.protocolVersion}`,
        );
      };
      continue;
    }
    const onLoss = (l: Loss) => o.onLoss?.(to.name, l);
    const call = (raw && onePassCall(o, raw, from, to, onLoss)) ?? convertedCall(o, from, to, onLoss);
    out[to.localName] = withNewerErrors(o, to.streaming, call);
  }
  return out as A2aClient<N>;
}

type ClientBridge = ClientBridgeOptions<DescService, DescService>;
type BridgedCall = (init: unknown, opts?: CallOptions) => unknown;

/**
 * The call on a JSON-RPC client's JSON (v1.0 request → a2a.json params; a2a.json result → v1.0 message), when
 * the operation's request and response both have one-pass conversions; else undefined.
 */
function onePassCall(
  o: ClientBridge,
  raw: JsonRpcCalls,
  from: OperationInfo,
  to: OperationInfo,
  onLoss: (l: Loss) => void,
): BridgedCall | undefined {
  const toJson = o.json?.toOlder[to.method.input.typeName] as
    | ((m: Message, a: undefined, lost: Loss[]) => JsonValue)
    | undefined;
  const fromJson = o.json?.fromOlder[from.method.output.typeName];
  if (!toJson || !fromJson || o.converter.counterpart(to.method.input.typeName) !== from.method.input.typeName) {
    return undefined;
  }
  const params = (init: unknown): JsonValue => {
    const lost: Loss[] = [];
    const json = toJson(create(to.method.input as DescMessage, init as never), undefined, lost);
    lost.forEach(onLoss);
    return json;
  };
  // What a result carries that v1.0 cannot hold goes to the JSON-RPC client's onLoss, else the bridge's.
  const resultLoss = raw.onLoss ? (l: Loss) => raw.onLoss!(from.name, l) : onLoss;
  const result = (json: JsonValue): Message => {
    const lost: Loss[] = [];
    const m = readBack(to, o.older.protocolVersion, () => fromJson(json, undefined, lost));
    // Outside readBack: what a loss callback throws is the caller's own, not an unreadable answer.
    lost.forEach(resultLoss);
    return m;
  };
  if (!to.streaming) return async (init, opts) => result(await raw.call(from, params(init), opts));
  return async function* (init, opts) {
    for await (const ev of raw.stream(from, params(init), opts)) {
      yield result(ev);
      if (isFinalJson(ev)) return;
    }
  };
}

/** The call through the older client's typed method, its request and answer converted message by message. */
function convertedCall(o: ClientBridge, from: OperationInfo, to: OperationInfo, onLoss: (l: Loss) => void) {
  const client = o.client as Record<string, (req: unknown, opts: unknown) => unknown>;
  const call = client[from.localName]!.bind(o.client);
  const request = (init: unknown): Message =>
    o.converter.convertRequest(
      create(to.method.input as DescMessage, init as never),
      from.method.input.typeName,
      onLoss,
    ).message;
  const back = (m: unknown): Message =>
    readBack(to, o.older.protocolVersion, () => o.converter.convert(m as Message, "toNewer", onLoss).message);
  if (!to.streaming) return async (init: unknown, opts?: CallOptions) => back(await call(request(init), opts));
  return async function* (init: unknown, opts?: CallOptions) {
    for await (const ev of call(request(init), opts) as AsyncIterable<unknown>) {
      yield back(ev);
      if (isFinalMessage(ev)) return;
    }
  };
}

/** The call with the older peer's errors named as the newer version names them (newerError). */
function withNewerErrors(o: ClientBridge, streaming: boolean, call: BridgedCall): BridgedCall {
  const rename = (e: unknown) => newerError(o.older, o.newer, e);
  if (!streaming)
    return (init, opts) => (call(init, opts) as Promise<unknown>).catch((e: unknown) => Promise.reject(rename(e)));
  return async function* (init, opts) {
    try {
      yield* call(init, opts) as AsyncIterable<unknown>;
    } catch (e) {
      throw rename(e);
    }
  };
}

/**
 * An older answer read as the newer version's message: a failure to read it (CompatJsonError, a bad enum or
 * timestamp) is an A2ATransportError naming the operation, as the clients throw for an answer they cannot read.
 */
function readBack<T>(to: OperationInfo, olderVersion: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof A2AError || e instanceof A2ATransportError) throw e;
    const why = e instanceof Error ? e.message : String(e);
    throw new A2ATransportError(
      `${to.name}: the protocol ${olderVersion} answer cannot be read: ${why}`,
      undefined,
      undefined,
      {
        operation: to.name,
        cause: e,
      },
    );
  }
}

/**
 * A v0.3 stream event that says it is the last (TaskStatusUpdateEvent.final): the bridged stream ends after it
 * even when the peer keeps the stream open, as v0.3 clients stop there (v1.0 has no such flag to pass on).
 */
const isFinalJson = (ev: JsonValue): boolean => isObject(ev) && ev["final"] === true;

/** isFinalJson of an older stream event as a message: its status update's `final`. */
function isFinalMessage(ev: unknown): boolean {
  const payload = (ev as { readonly payload?: { readonly case?: unknown; readonly value?: unknown } }).payload;
  return payload?.case === "statusUpdate" && (payload.value as { readonly final?: unknown }).final === true;
}

/** The JSON calls of a JSON-RPC client (JsonRpcClient), if it is one. */
function jsonCalls<S>(client: A2aClient<S> | JsonRpcClient<S>): JsonRpcCalls | undefined {
  // An operation's method is a function; the JSON calls are an object.
  const calls = (client as { readonly jsonrpc?: unknown }).jsonrpc;
  return typeof calls === "object" && calls !== null ? (calls as JsonRpcCalls) : undefined;
}
