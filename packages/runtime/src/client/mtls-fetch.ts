/**
 * Mutual TLS for a client (mtlsSecurityScheme): the client certificate goes
 * on the TLS connection, not in a header.
 *
 *   HTTP bindings  mtlsFetch(tls): a fetch whose connections go through an
 *                  undici Agent with the certificate, key and trusted CA
 *                  (undici, an optional peer dependency: `npm install
 *                  undici@7`; loaded by name on the first request, so a client
 *                  without mutual TLS never needs it, and bundles for
 *                  browsers leave it out: core/node-builtins.ts importByName)
 *   gRPC           the transport takes them: connect-node's
 *                  createGrpcTransport({ baseUrl, nodeOptions: { cert, key, ca } });
 *                  mtlsGrpcTransport makes that transport when the caller gives
 *                  no grpcTransport (connect-node is loaded on the first call)
 *
 * PEM strings throughout; `ca` replaces the default trusted roots, as in
 * node:tls.
 */
import type { Transport } from "@connectrpc/connect";
import { importByName } from "../core/node-builtins.js";
import { withNames } from "../core/records.js";
import { DEFAULT_MAX_RESPONSE_BYTES } from "../http/client-http.js";

/** A client certificate for mutual TLS, PEM. */
export interface MutualTlsCredential {
  readonly cert: string;
  readonly key: string;
  /** The roots to trust for the server's certificate; default: Node's. */
  readonly ca?: string;
}

const tlsOptions = (tls: MutualTlsCredential) => ({ cert: tls.cert, key: tls.key, ...(tls.ca ? { ca: tls.ca } : {}) });

/** A fetch that presents `tls` on every connection (HTTP bindings; the clients pass URLs as strings). */
export function mtlsFetch(tls: MutualTlsCredential): typeof globalThis.fetch {
  type Undici = typeof import("undici");
  let ready: Promise<{ fetch: Undici["fetch"]; dispatcher: InstanceType<Undici["Agent"]> }> | undefined;
  return async (input, init) => {
    ready ??= importByName<Undici>("undici").then(
      (u) => ({ fetch: u.fetch, dispatcher: new u.Agent({ connect: tlsOptions(tls) }) }),
      (e: unknown) => {
        throw new Error("mutual TLS over HTTP needs the package undici (npm install undici@7)", { cause: e });
      },
    );
    const { fetch, dispatcher } = await ready;
    const url = typeof input === "string" || input instanceof URL ? input : input.url;
    const response = await fetch(url, withNames((init ?? {}) as object, { dispatcher }));
    return response as unknown as Response;
  };
}

/**
 * A gRPC transport for `baseUrl` (https) presenting `tls`, made with connect-node on the first call; it reads a
 * response message of at most `readMaxBytes` (after decompression; default 64 MiB, DEFAULT_MAX_RESPONSE_BYTES).
 */
export function mtlsGrpcTransport(
  baseUrl: string,
  tls: MutualTlsCredential,
  readMaxBytes = DEFAULT_MAX_RESPONSE_BYTES,
): Transport {
  let ready: Promise<Transport> | undefined;
  const load = () =>
    (ready ??= importByName<typeof import("@connectrpc/connect-node")>("@connectrpc/connect-node").then(
      (m) => m.createGrpcTransport({ baseUrl, nodeOptions: tlsOptions(tls), readMaxBytes }),
      (e: unknown) => {
        throw new Error(`mutual TLS over gRPC at ${baseUrl} without grpcTransport needs @connectrpc/connect-node`, {
          cause: e,
        });
      },
    ));
  return {
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      return (await load()).unary(method, signal, timeoutMs, header, input, contextValues);
    },
    async stream(method, signal, timeoutMs, header, input, contextValues) {
      return (await load()).stream(method, signal, timeoutMs, header, input, contextValues);
    },
  };
}
