/**
 * The request limits of the gRPC binding (limits.ts), on a connect router:
 *
 *   size       each request message is at most maxBodyBytes (default 1 MiB,
 *              as HTTP), compressed or not: connect's readMaxBytes, which
 *              answers RESOURCE_EXHAUSTED from the length prefix, before the
 *              message is buffered;
 *   nesting    a message the protobuf binary reader refuses as too deep
 *              (connect answers INTERNAL "parse binary: …") is answered
 *              INVALID_ARGUMENT, as the JSON paths answer InvalidParams;
 *   refusal    a gRPC call the service refuses from its metadata alone (its
 *              version) is answered before connect reads the message, its
 *              status in trailers after the headers (connect's universal
 *              response cannot end the stream with its headers, and a status
 *              in headers that do not end it is one grpc-js does not read):
 *              a bad version with an oversized or malformed message is the
 *              version's error (any other request is left to connect, which
 *              refuses it as below);
 *   deadlines  a grpc-timeout (or connect-timeout-ms) longer than
 *              MAX_DEADLINE_MS is clamped to it before connect starts its
 *              timer (a longer timer fires at once); a call whose deadline
 *              passes ends with DEADLINE_EXCEEDED, unary or stream, even when
 *              the handler does not watch its signal (raceAbort, itemsUntilAborted);
 *   reading    the request must arrive whole (its END_STREAM) within its
 *              deadline, and within readTimeoutMs (REQUEST_READ_TIMEOUT_MS,
 *              60 s) without one: connect reads it before the handler runs,
 *              tied to no timer, so a client that never ended its request
 *              held the call, and about 40 KiB with it, for good. Past
 *              either, the call ends with DEADLINE_EXCEEDED;
 *   disconnects a stream whose client went away is closed at once, also
 *              while connect waits for the client to read (itemsUntilAborted).
 *
 * The service is registered for gRPC alone (an adapter that turns gRPC off is
 * refused, naming the service; found by registering it once with the
 * adapter's options): the A2A binding is
 * gRPC, and gRPC-web and the Connect protocol, which connect's adapters also
 * serve by default, answer a malformed message with INTERNAL (the remap above
 * reads gRPC trailers only). A request in either is refused as unsupported
 * (HTTP 415), and so is gRPC with JSON messages (application/grpc+json): the
 * A2A binding's messages are protobuf, and a JSON message can carry what a
 * binary one cannot (a lone surrogate in a Struct, which the JSON bindings
 * refuse by their limits and then could not write back). The adapter's
 * other options stay, except readMaxBytes, which maxBodyBytes replaces.
 */
import { Code, ConnectError, type ConnectRouter } from "@connectrpc/connect";
import type { UniversalHandler, UniversalServerRequest } from "@connectrpc/connect/protocol";
import type { DescService } from "@bufbuild/protobuf";
import { MAX_DEADLINE_MS } from "../core/limits.js";
import { eventsUntilAborted, untilAborted } from "../core/until-aborted.js";
import { timedSignal } from "../core/timed-signal.js";
import { mediaTypeOf } from "../core/media-type.js";

/** What registerWithLimits applies besides deadlines (see the header). */
export interface GrpcLimits {
  /** The most bytes one request message may hold. */
  readonly maxMessageBytes: number;
  /** The trailers-only status of a call refused from its metadata alone; undefined to let it run. */
  readonly refusal?: (header: Headers) => Record<string, string> | undefined;
  /** The time the request may take to arrive whole, when its deadline is not sooner. Default 60 000. */
  readonly readTimeoutMs?: number;
}

/** GrpcLimits.readTimeoutMs by default. */
export const REQUEST_READ_TIMEOUT_MS = 60_000;

/** Registers `impl` for `service` on the router with a message size limit, clamped deadlines and the refusal. */
export function registerWithLimits(
  router: ConnectRouter,
  service: DescService,
  impl: Record<string, unknown>,
  limits: GrpcLimits,
): void {
  const handlers = router.handlers as UniversalHandler[];
  const start = handlers.length;
  router.service(service, impl as never);
  const protocols = new Set(handlers.slice(start).flatMap((h) => h.protocolNames));
  handlers.splice(start);
  if (!protocols.has("grpc")) {
    throw new Error(`${service.typeName}: the A2A gRPC routes serve gRPC alone, which the adapter turns off (grpc)`);
  }
  const options = { readMaxBytes: limits.maxMessageBytes, grpc: true, grpcWeb: false, connect: false };
  router.service(service, impl as never, options);
  for (let i = start; i < handlers.length; i++) handlers[i] = withLimits(handlers[i]!, limits);
}

function withLimits(handler: UniversalHandler, limits: GrpcLimits): UniversalHandler {
  const { refusal } = limits;
  const readTimeoutMs = limits.readTimeoutMs ?? REQUEST_READ_TIMEOUT_MS;
  const limited = async (req: UniversalServerRequest) => {
    // Only a gRPC call: anything else is connect's to refuse (415, 405), as it would without the refusal.
    if (isGrpcJson(req)) return { status: 415, header: new Headers({ "content-type": "text/plain; charset=utf-8" }) };
    const refused = refusal && isGrpcCall(req) ? refusal(req.header) : undefined;
    if (refused) {
      return {
        status: 200,
        header: new Headers({ "content-type": "application/grpc" }),
        trailer: new Headers(refused),
      };
    }
    const deadline = clampDeadline(req.header);
    const reading = withReadDeadline(req, Math.min(deadline ?? readTimeoutMs, readTimeoutMs));
    let res: Awaited<ReturnType<UniversalHandler>>;
    try {
      res = await handler(reading.req);
    } finally {
      // connect has read the request, or given up on it (a second message on a unary call, say).
      reading.stop();
    }
    if (res.trailer) invalidArgumentForParseErrors(res.trailer);
    return res;
  };
  return Object.assign(limited, handler);
}

const GRPC_TYPES: ReadonlySet<string> = new Set(["application/grpc", "application/grpc+proto"]);

/** A POST with a gRPC content type (application/grpc or +proto), not gRPC-web nor JSON messages. */
function isGrpcCall(req: UniversalServerRequest): boolean {
  return req.method === "POST" && GRPC_TYPES.has(mediaTypeOf(req.header.get("content-type")));
}

/** A gRPC call whose messages are JSON (application/grpc+json), refused (see the header). */
function isGrpcJson(req: UniversalServerRequest): boolean {
  return mediaTypeOf(req.header.get("content-type")) === "application/grpc+json";
}

/**
 * Clamps the deadline headers; returns grpc-timeout in ms, if any. grpc-timeout is at most 8 digits and a unit;
 * connect-timeout-ms at most 10 digits.
 */
function clampDeadline(header: Headers): number | undefined {
  const grpc = /^(\d{1,8})([HMSmun])$/.exec(header.get("grpc-timeout") ?? "");
  const unitMs: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 1e-3, n: 1e-6 };
  const ms = grpc ? Number(grpc[1]) * unitMs[grpc[2]!]! : undefined;
  if (ms !== undefined && ms > MAX_DEADLINE_MS) header.set("grpc-timeout", `${Math.floor(MAX_DEADLINE_MS / 1000)}S`);
  const connect = header.get("connect-timeout-ms");
  if (connect !== null && /^\d{1,10}$/.test(connect) && Number(connect) > MAX_DEADLINE_MS)
    header.set("connect-timeout-ms", String(MAX_DEADLINE_MS));
  return ms;
}

/**
 * The request, its body to arrive whole within `ms` (then DEADLINE_EXCEEDED, and the body is closed; a JSON body
 * is as it is), and stop(), which ends the wait: called once connect is done with the request, however it went.
 * The wait is the one every abortable wait here uses (core/until-aborted.ts), on the timed signal the clients
 * use (core/timed-signal.ts: a timeout past what a timer holds sets none); the timer keeps no process running.
 */
function withReadDeadline(req: UniversalServerRequest, ms: number): { req: UniversalServerRequest; stop(): void } {
  const { body } = req;
  if (!(typeof body === "object" && body !== null && Symbol.asyncIterator in body)) return { req, stop: () => {} };
  const late = timedSignal([], ms);
  if (late.signal === undefined) return { req, stop: late.end };
  const why = () => new ConnectError(`the request did not arrive whole within ${ms} ms`, Code.DeadlineExceeded);
  return {
    req: { ...req, body: eventsUntilAborted(body as AsyncIterable<Uint8Array>, late.signal, why) },
    stop: late.end,
  };
}

/** A request the binary reader could not read (too deep, malformed) is the client's fault: INVALID_ARGUMENT. */
function invalidArgumentForParseErrors(trailer: Headers): void {
  if (trailer.get("grpc-status") !== String(Code.Internal)) return;
  const message = trailer.get("grpc-message") ?? "";
  if (message.startsWith("parse%20binary") || message.startsWith("parse binary"))
    trailer.set("grpc-status", String(Code.InvalidArgument));
}

/** Why the call ended early: the deadline (DEADLINE_EXCEEDED, as connect sets it), else CANCELED. */
function abortError(signal: AbortSignal): ConnectError {
  const reason: unknown = signal.reason;
  return reason instanceof ConnectError ? reason : new ConnectError("the call was canceled", Code.Canceled);
}

/** What `work` resolves to, unless the signal aborts first: then its abortError. */
export const raceAbort = <T>(work: Promise<T>, signal: AbortSignal): Promise<T> =>
  untilAborted(work, signal, abortError);

/**
 * The items of `source` until the signal aborts; then the source is closed at once, even while connect waits
 * for a 'drain' that a client gone away never sends, and the abortError is thrown, so a stream past its
 * deadline ends with DEADLINE_EXCEEDED (core/until-aborted.ts).
 */
export const itemsUntilAborted = <T>(source: AsyncIterable<T>, signal: AbortSignal): AsyncIterable<T> =>
  eventsUntilAborted(source, signal, abortError);
