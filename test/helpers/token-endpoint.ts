/**
 * A small real OAuth 2.0 authorization server on 127.0.0.1 for client tests
 * (node:http, no mocks): the client credentials grant (RFC 6749 §4.4) at
 * /token, with client_secret_basic or client_secret_post, and its metadata at
 * both well-known paths (OpenID Connect discovery and RFC 8414). It records
 * every token request and knows which tokens it issued, which it revoked and
 * which expired, so an A2A server in the same test can check a bearer token.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

export interface TokenRequest {
  readonly clientId: string;
  readonly authMethod: "client_secret_basic" | "client_secret_post";
  readonly scope: string | undefined;
  readonly audience: string | undefined;
  readonly resource: string | undefined;
}

export interface TokenServer {
  /** http://127.0.0.1:port, the issuer. */
  readonly issuer: string;
  readonly tokenUrl: string;
  /** The OpenID Connect discovery URL. */
  readonly openIdConnectUrl: string;
  /** The RFC 8414 metadata URL. */
  readonly metadataUrl: string;
  /** Every accepted token request, in order. */
  readonly requests: TokenRequest[];
  /** Metadata requests, by path. */
  readonly metadataReads: string[];
  /** The lifetime of tokens issued from now on, in seconds; undefined: the answer has no expires_in. */
  expiresIn: number | undefined;
  /** Whether `token` was issued here, is not revoked and has not expired. */
  valid(token: string): boolean;
  revoke(token: string): void;
  /** Forgets every token and request; the next token is tok-1 again, with `expiresIn` as started. */
  reset(): void;
  close(): Promise<void>;
}

export interface TokenServerOptions {
  /** Client id → secret. */
  readonly clients: Readonly<Record<string, string>>;
  readonly expiresIn?: number;
  /** token_endpoint_auth_methods_supported; default both. */
  readonly authMethods?: readonly string[];
}

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/** client_id and client_secret from Basic (RFC 6749 §2.3.1: form-encoded, then base64) or from the body. */
function clientOf(req: IncomingMessage, form: URLSearchParams) {
  const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? "");
  if (basic) {
    const [id = "", secret = ""] = Buffer.from(basic[1]!, "base64").toString("utf8").split(":");
    const decode = (s: string) => decodeURIComponent(s.replace(/\+/g, " "));
    return { id: decode(id), secret: decode(secret), method: "client_secret_basic" as const };
  }
  return {
    id: form.get("client_id") ?? "",
    secret: form.get("client_secret") ?? "",
    method: "client_secret_post" as const,
  };
}

export async function startTokenServer(options: TokenServerOptions): Promise<TokenServer> {
  const issued = new Map<string, number>(); // token → expiry (ms since epoch), Infinity without one
  const revoked = new Set<string>();
  let n = 0;
  const state = {
    requests: [] as TokenRequest[],
    metadataReads: [] as string[],
    expiresIn: options.expiresIn as number | undefined,
  };
  const server = createServer(async (req, res) => {
    const json = (status: number, value: unknown) =>
      res
        .writeHead(status, { "content-type": "application/json", "cache-control": "no-store" })
        .end(JSON.stringify(value));
    const path = new URL(req.url ?? "/", "http://x").pathname;
    if (req.method === "GET" && path.startsWith("/.well-known/")) {
      state.metadataReads.push(path);
      return json(200, {
        issuer,
        token_endpoint: `${issuer}/token`,
        token_endpoint_auth_methods_supported: options.authMethods ?? ["client_secret_basic", "client_secret_post"],
        grant_types_supported: ["client_credentials"],
      });
    }
    if (req.method !== "POST" || path !== "/token") return json(404, { error: "not_found" });
    const form = new URLSearchParams(await body(req));
    const client = clientOf(req, form);
    if (options.clients[client.id] === undefined || options.clients[client.id] !== client.secret)
      return json(401, { error: "invalid_client" });
    if (form.get("grant_type") !== "client_credentials") return json(400, { error: "unsupported_grant_type" });
    const opt = (k: string) => form.get(k) ?? undefined;
    state.requests.push({
      clientId: client.id,
      authMethod: client.method,
      scope: opt("scope"),
      audience: opt("audience"),
      resource: opt("resource"),
    });
    const token = `tok-${++n}`;
    const life = state.expiresIn;
    issued.set(token, life === undefined ? Infinity : Date.now() + life * 1000);
    return json(200, {
      access_token: token,
      token_type: "Bearer",
      ...(life !== undefined ? { expires_in: life } : {}),
      ...(form.get("scope") ? { scope: form.get("scope") } : {}),
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    issuer,
    tokenUrl: `${issuer}/token`,
    openIdConnectUrl: `${issuer}/.well-known/openid-configuration`,
    metadataUrl: `${issuer}/.well-known/oauth-authorization-server`,
    valid: (token: string) => !revoked.has(token) && (issued.get(token) ?? 0) > Date.now(),
    revoke: (token: string) => void revoked.add(token),
    reset: () => {
      n = 0;
      issued.clear();
      revoked.clear();
      state.requests.length = 0;
      state.metadataReads.length = 0;
      state.expiresIn = options.expiresIn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
