/**
 * The framework-agnostic request and response every A2A HTTP adapter
 * (node:http, fetch) converts to and from. Bodies are read lazily and with a
 * size limit; a streaming response body is an async iterable of text chunks.
 * Adapters may build `headers`, `query` and `signal` on first use: most calls
 * need none of them, and each costs microseconds per request.
 */
import type { DescService } from "@bufbuild/protobuf";
import type { A2aHandler, A2aServiceDefinition } from "./definition.js";
import type { OnError } from "./report-error.js";
import type { Interceptor } from "./interceptor.js";
import type { ClientCertificate } from "./client-certificate.js";

export interface CoreRequest {
  readonly method: string;
  /** Path without the query, still percent-encoded. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** False when the URL has no query string, so `query` need not be built. */
  readonly hasQuery: boolean;
  /** All headers (built on first use; prefer `header`). */
  readonly headers: Headers;
  /** One header, case-insensitive; repeated headers joined with ", ". */
  header(name: string): string | null;
  /** Reads the body; rejects with BodyTooLargeError past the limit, BodyAbortedError when the client went away. */
  readonly body: (limit: number) => Promise<Uint8Array>;
  /** Aborted when the client disconnects. */
  readonly signal: AbortSignal;
  /** The verified client certificate of a mutual-TLS connection (client-certificate.ts), if any. */
  readonly clientCertificate?: ClientCertificate | undefined;
}

export interface CoreResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | AsyncIterable<string>;
}

export class BodyTooLargeError extends Error {
  override name = "BodyTooLargeError";
}

/** The client went away (closed or reset the connection) before its request body ended: nothing to answer. */
export class BodyAbortedError extends Error {
  override name = "BodyAbortedError";
}

export interface A2aServerOptions<S extends DescService = DescService> {
  readonly definition: A2aServiceDefinition<S>;
  readonly handler: A2aHandler<S>;
  /**
   * The agent card JSON (v1.0 ProtoJSON; v0.3 a2a.json), computed per call so it can depend on headers. The
   * HTTP server serves it; every server enforces it before the handler runs (card-rules.ts): an operation whose
   * capability it leaves false or out (capabilities.streaming, capabilities.pushNotifications, the extended card)
   * gets that capability's error, the extensions it marks required must be declared, and the declared ones it
   * lists are echoed in the response's extensions header. Read once per object returned; a function without
   * parameters is called without building the request's Headers. Unset: nothing is enforced.
   */
  readonly agentCard?: (headers: Headers) => unknown;
  /** Extension URIs a client must declare. Default: those the agent card marks `required: true`. */
  readonly requiredExtensions?: readonly string[];
  /**
   * Largest request body accepted, in bytes (default 1 MiB, DEFAULT_MAX_BODY): an HTTP body (413 past it), and
   * each gRPC request message (RESOURCE_EXHAUSTED). The other request limits are fixed (limits.ts).
   */
  readonly maxBodyBytes?: number;
  /**
   * A stream that sent nothing for this long, in milliseconds, after its first event gets an SSE
   * comment line (": keep-alive"), so proxies keep it open. Default 15000; 0 turns it off.
   */
  readonly keepAliveMs?: number;
  /** Told what a request carried that this version cannot hold (v0.3 JSON-RPC: a2a.json fields the proto lacks). */
  readonly onLoss?: (operation: string, loss: { readonly path: string; readonly reason: string }) => void;
  /**
   * Told of every failure that is not an A2A error (a handler's exception, an internal fault), once each;
   * the client gets InternalError without details. Default: logError (report-error.ts), to stderr.
   */
  readonly onError?: OnError;
  /**
   * Run around the handler of every call, the first outermost (interceptor.ts): authentication
   * (auth/authenticate.ts), logging, tracing. onError still hears of every failure that is no A2A error.
   */
  readonly interceptors?: readonly Interceptor[];
}

/**
 * What a generated stub's HTTP+JSON server takes (create<Service>RestHandler): the server's options but the
 * definition, which the stub gives.
 */
export type RestHandlerOptions<S extends DescService = DescService> = Omit<A2aServerOptions<S>, "definition">;

export type CoreHandler = (req: CoreRequest) => Promise<CoreResponse>;

/**
 * The statuses whose answer carries no content (RFC 9110 §15.3.5, §15.3.6, §15.4.5: a card's 304, a CORS
 * preflight's 204): the adapters send them without a body or a Content-Length (the Fetch standard allows their
 * Response only a null body).
 */
export const NO_CONTENT_STATUSES: ReadonlySet<number> = new Set([204, 205, 304]);

export { DEFAULT_MAX_BODY } from "./limits.js";
