/**
 * A typed client for the interface an agent card offers: picks the first
 * interface this client can use (select-interface.ts), copies its tenant into
 * every request, and builds the JSON-RPC, HTTP+JSON or gRPC client for it (a JSON-RPC client
 * with its `jsonrpc` calls, which clientForOlder uses to stay on the wire JSON).
 * gRPC needs a transport factory (e.g. createGrpcTransport from
 * @connectrpc/connect-node), since transports are platform-specific; it gets
 * maxResponseBytes as `readMaxBytes`, since only a transport can bound the
 * messages it reads.
 *
 * With an older version to fall back to (createClientForCardOrOlder), a newer
 * client is had for any card: an interface at the newer version wins wherever
 * the card lists it; only when the card offers none does an interface at the
 * older version get an older client, wrapped by the version bridge the caller
 * passes (the generated clientForOlder; the runtime cannot import generated
 * code). `selected.protocolVersion` tells which version was taken. The
 * option `resubscribe` then applies to the bridged client (withResubscribe).
 *
 * Credentials (option `credentials`, by the card's scheme names) are chosen
 * by the card's security requirements (client/credentials.ts) before
 * anything else, so a card whose requirements none of them meet fails with
 * NoCredentialsError before any request. Without the option nothing is
 * chosen nor checked (the caller may send its own headers). They are sent by an interceptor
 * after the caller's own (`interceptors`), on whichever interface and version
 * is taken. A mutualTLS scheme's certificate goes on the connection: the HTTP
 * bindings' fetch is mtlsFetch (unless the caller gives `fetch`), and
 * grpcTransport gets it as its second argument; without grpcTransport, a
 * client with a certificate can still use gRPC, through connect-node's
 * transport made with it (mtlsGrpcTransport).
 *
 * Credentials sent in requests (every scheme but mutualTLS) go only to an
 * interface that keeps them out of clear text: https:, TLS gRPC, or a
 * loopback host (select-interface.ts); the card's other interfaces are passed
 * over, and a card with no such one fails with NoUsableInterfaceError naming
 * the interface it would have taken. `allowCleartextCredentials` lifts this,
 * for a network the caller secures itself (a service mesh's sidecars).
 *
 * With `credentialOrigins`, credentials of any kind go only to those origins
 * (origin-list.ts): an interface elsewhere is passed over the same way, and a
 * client secret goes to the card's token endpoint only when it is at one of
 * them (a credential's own tokenUrl is used wherever it is).
 */
import type { DescService } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import type { A2aClient, A2aServiceDefinition, Binding } from "../core/definition.js";
import { DEFAULT_MAX_RESPONSE_BYTES, type A2aClientOptions } from "../http/client-http.js";
import { createJsonRpcClient } from "../jsonrpc/client-jsonrpc.js";
import type { JsonRpcClient } from "../jsonrpc/json-operations.js";
import { createRestClient } from "../rest/client-rest.js";
import { createGrpcClient } from "../grpc/grpc.js";
import { withResubscribe } from "../http/resubscribe.js";
import { selectInterface, type CardInterface, type InterfaceNeeds } from "../card/select-interface.js";
import { OriginList } from "../card/origin-list.js";
import { credentialsForCard, type CardCredentials, type Credentials } from "./credentials.js";
import { mtlsFetch, mtlsGrpcTransport, type MutualTlsCredential } from "./mtls-fetch.js";

export interface ClientForCardOptions extends Omit<A2aClientOptions, "url" | "tenant"> {
  /** Bindings this client may use, in no particular order (the card's order decides). Default: all it can build. */
  readonly bindings?: readonly Binding[];
  /**
   * Makes a gRPC transport for an interface's base URL; with a mutualTLS scheme chosen, `tls` holds the
   * client certificate, and `readMaxBytes` is maxResponseBytes (default 64 MiB), the most a response message
   * may hold, which only the transport can bound (connect-node:
   * `createGrpcTransport({ baseUrl, nodeOptions: tls, readMaxBytes })`). Without it gRPC is used only with a
   * client certificate (mtlsGrpcTransport).
   */
  readonly grpcTransport?: (baseUrl: string, tls: MutualTlsCredential | undefined, readMaxBytes: number) => Transport;
  /**
   * Credentials by the name of the card's security scheme; the card's requirements pick which are sent, or
   * NoCredentialsError. Without it, nothing is sent for the card's security.
   */
  readonly credentials?: Credentials;
  /**
   * Send credentials also over plain http: (and gRPC without TLS) to a host other than loopback. Default false:
   * such interfaces are passed over when credentials go in the requests (S10 §7.1).
   */
  readonly allowCleartextCredentials?: boolean;
  /**
   * The origins credentials may go to, e.g. `["https://agent.example"]`: the card's interfaces elsewhere are
   * passed over, and a client secret goes to a token endpoint the card names only at one of them. Default: where
   * the card says. A TypeError names an entry that is no http: or https: origin.
   */
  readonly credentialOrigins?: readonly string[];
}

/** The older version a newer client falls back to, and the bridge making a newer client of an older one. */
export interface OlderVersionFallback<N extends DescService, O extends DescService> {
  readonly older: A2aServiceDefinition<O>;
  /** E.g. the generated clientForOlder. */
  readonly bridge: (client: A2aClient<O> | JsonRpcClient<O>) => A2aClient<N>;
}

export class NoUsableInterfaceError extends Error {
  override name = "NoUsableInterfaceError";
}

const NO_CREDENTIALS: CardCredentials = { interceptor: undefined, schemes: [], tls: undefined };

/** What the options say of credentials: those the card's requirements pick (credentials.ts), and where they go. */
interface Auth extends CardCredentials {
  readonly origins: OriginList | undefined;
}

/** The credentials the card's requirements pick from the options', if given any, and the origins they may go to. */
function credentialsOf(card: unknown, options: ClientForCardOptions): Auth {
  const list = options.credentialOrigins;
  const origins = list === undefined ? undefined : new OriginList(list);
  const picked = options.credentials
    ? credentialsForCard(card, options.credentials, { origins: list })
    : NO_CREDENTIALS;
  return { interceptor: picked.interceptor, schemes: picked.schemes, tls: picked.tls, origins };
}

/** The bindings a client may use: those it can build, less those the options leave out. */
function usableBindings(options: ClientForCardOptions, auth: CardCredentials): Binding[] {
  const grpc = options.grpcTransport !== undefined || auth.tls !== undefined;
  const supported: Binding[] = ["JSONRPC", "HTTP+JSON", ...(grpc ? (["GRPC"] as const) : [])];
  return options.bindings ? supported.filter((b) => options.bindings!.includes(b)) : supported;
}

/** What the client needs of an interface at `versions`: secure when credentials go in its requests. */
function needsOf(options: ClientForCardOptions, auth: Auth, versions: readonly string[]): InterfaceNeeds {
  const bindings = usableBindings(options, auth);
  const cleartext = auth.interceptor === undefined || options.allowCleartextCredentials === true;
  const sending = auth.interceptor !== undefined || auth.tls !== undefined;
  return {
    bindings,
    versions,
    ...(cleartext ? {} : { secure: { tls: auth.tls !== undefined } }),
    // A bare gRPC host:port is reached over TLS with a client certificate (clientAt).
    ...(sending && auth.origins !== undefined
      ? { origins: { list: auth.origins, bareScheme: auth.tls ? ("https" as const) : ("http" as const) } }
      : {}),
  };
}

/** No interface fits: the one that would have but for its origin or its clear-text URL, or none at all. */
function noInterface(card: unknown, needs: InterfaceNeeds): NoUsableInterfaceError {
  const { bindings, versions, secure, origins } = needs;
  const elsewhere = origins ? selectInterface(card, { bindings, versions, ...(secure ? { secure } : {}) }) : undefined;
  if (elsewhere && origins) {
    return new NoUsableInterfaceError(
      `the agent card's ${elsewhere.binding} interface ${elsewhere.url} is not at one of credentialOrigins ` +
        `(${origins.list}), where the credentials may go`,
    );
  }
  const insecure = secure ? selectInterface(card, { bindings, versions }) : undefined;
  if (insecure) {
    return new NoUsableInterfaceError(
      `the agent card's ${insecure.binding} interface ${insecure.url} is not https: and not on this host, and ` +
        "the card's credentials are not sent in clear text (option allowCleartextCredentials allows it)",
    );
  }
  return new NoUsableInterfaceError(
    `the agent card offers no ${bindings.join(", ")} interface at protocol version ${versions.join(" or ")} ` +
      "with an http: or https: URL",
  );
}

/** The client of one selected interface, sending the card's credentials. */
function clientAt<S extends DescService>(
  def: A2aServiceDefinition<S>,
  selected: CardInterface,
  options: ClientForCardOptions,
  auth: Auth,
): A2aClient<S> | JsonRpcClient<S> {
  const { credentials: _, grpcTransport, allowCleartextCredentials: __, credentialOrigins: ___, ...rest } = options;
  const fetch = options.fetch ?? (auth.tls ? mtlsFetch(auth.tls) : undefined);
  const clientOptions = {
    ...rest,
    url: selected.url,
    ...(auth.interceptor ? { interceptors: [...(options.interceptors ?? []), auth.interceptor] } : {}),
    ...(selected.tenant ? { tenant: selected.tenant } : {}),
    ...(fetch ? { fetch } : {}),
  };
  if (selected.binding === "JSONRPC") return createJsonRpcClient(def, clientOptions);
  if (selected.binding === "HTTP+JSON") return createRestClient(def, clientOptions);
  const scheme = auth.tls ? "https" : "http";
  const base = /^[a-z][a-z0-9+.-]*:\/\//i.test(selected.url) ? selected.url : `${scheme}://${selected.url}`;
  const readMaxBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  const transport = grpcTransport
    ? grpcTransport(base, auth.tls, readMaxBytes)
    : mtlsGrpcTransport(base, auth.tls!, readMaxBytes);
  return createGrpcClient(def, transport, clientOptions);
}

export function createClientForCard<S extends DescService>(
  def: A2aServiceDefinition<S>,
  card: unknown,
  options: ClientForCardOptions = {},
): { client: A2aClient<S> | JsonRpcClient<S>; selected: CardInterface } {
  const auth = credentialsOf(card, options);
  const needs = needsOf(options, auth, [def.protocolVersion]);
  const selected = selectInterface(card, needs);
  if (!selected) throw noInterface(card, needs);
  return { client: clientAt(def, selected, options, auth), selected };
}

/**
 * A newer-version client for a card of either version: an interface at `newer.protocolVersion` if the card
 * has one, else one at the fallback's older version through its bridge. `selected` is the interface taken
 * (its protocolVersion tells which); `bridged` is true for the older one.
 */
export function createClientForCardOrOlder<N extends DescService, O extends DescService>(
  newer: A2aServiceDefinition<N>,
  fallback: OlderVersionFallback<N, O>,
  card: unknown,
  options: ClientForCardOptions = {},
): { client: A2aClient<N>; selected: CardInterface; bridged: boolean } {
  const auth = credentialsOf(card, options);
  const atNewer = selectInterface(card, needsOf(options, auth, [newer.protocolVersion]));
  if (atNewer) return { client: clientAt(newer, atNewer, options, auth), selected: atNewer, bridged: false };
  const atOlder = selectInterface(card, needsOf(options, auth, [fallback.older.protocolVersion]));
  if (!atOlder)
    throw noInterface(card, needsOf(options, auth, [newer.protocolVersion, fallback.older.protocolVersion]));
  // Resumed above the bridge: its one-pass JSON-RPC calls go around the older client's streams.
  const { resubscribe, ...olderOptions } = options;
  const bridgedClient = fallback.bridge(clientAt(fallback.older, atOlder, olderOptions, auth));
  const client = resubscribe
    ? withResubscribe(newer, bridgedClient, resubscribe, {
        url: atOlder.url,
        ...(options.signal ? { signal: options.signal } : {}),
      })
    : bridgedClient;
  return { client, selected: atOlder, bridged: true };
}
