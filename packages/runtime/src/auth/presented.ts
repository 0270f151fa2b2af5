/**
 * The credential a call presents for one security scheme, read from where
 * the scheme says (card-security.ts), or undefined when it presents none:
 *
 *   apiKey   the header, query parameter or cookie named by the scheme; on
 *            gRPC, which has no query, a query key is the metadata entry of
 *            its name lowercased (as the clients send it), and a cookie the
 *            `cookie` metadata entry
 *   http     `Authorization: <scheme> <credentials>`, the scheme compared
 *            without case (RFC 9110 §11.1); Basic credentials are base64 of
 *            `user:password` (RFC 7617); a malformed value is presented but
 *            not valid
 *   oauth2, openIdConnect   `Authorization: Bearer <token>` (RFC 6750 §2.1)
 *   mtls     the verified client certificate of the connection
 */
import type { HandlerContext } from "../core/definition.js";
import type { ClientCertificate } from "../core/client-certificate.js";
import type { CardScheme } from "../card/card-security.js";

type SecurityScheme = Exclude<CardScheme, { type: "unknown" }>;

export type Presented =
  | { readonly kind: "apiKey"; readonly key: string }
  | { readonly kind: "bearer"; readonly token: string }
  | { readonly kind: "basic"; readonly username: string; readonly password: string }
  | { readonly kind: "authorization"; readonly credentials: string }
  | { readonly kind: "certificate"; readonly certificate: ClientCertificate }
  | { readonly kind: "malformed"; readonly why: string };

export function presentedFor(scheme: SecurityScheme, context: HandlerContext): Presented | undefined {
  switch (scheme.type) {
    case "apiKey": {
      const key = apiKeyOf(scheme, context);
      return key === undefined || key === "" ? undefined : { kind: "apiKey", key };
    }
    case "http":
      return httpCredentials(scheme.scheme, context.header("authorization"));
    case "oauth2":
    case "openIdConnect":
      return httpCredentials("Bearer", context.header("authorization"));
    case "mutualTLS":
      return context.clientCertificate ? { kind: "certificate", certificate: context.clientCertificate } : undefined;
  }
}

/** A field name HTTP can carry (RFC 9110 §5.1 token); Headers refuses, by throwing, to look up any other. */
const FIELD_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function apiKeyOf(scheme: SecurityScheme & { type: "apiKey" }, context: HandlerContext): string | undefined {
  // gRPC has no query: there the client sends the key as the metadata entry of its name, lowercased. A name no
  // header can have (a query key "key[]") is then never presented.
  if (scheme.location === "header" || (scheme.location === "query" && context.binding === "GRPC")) {
    return FIELD_NAME.test(scheme.key) ? (context.header(scheme.key) ?? undefined) : undefined;
  }
  if (scheme.location === "query") return context.query.get(scheme.key) ?? undefined;
  for (const pair of (context.header("cookie") ?? "").split(";")) {
    const eq = pair.indexOf("=");
    if (eq > 0 && pair.slice(0, eq).trim() === scheme.key) return decodeCookie(pair.slice(eq + 1).trim());
  }
  return undefined;
}

function decodeCookie(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** The credentials of `Authorization: <scheme> …` when its scheme is `wanted`, else undefined. */
function httpCredentials(wanted: string, header: string | null): Presented | undefined {
  if (!header) return undefined;
  const space = header.indexOf(" ");
  const scheme = space < 0 ? header : header.slice(0, space);
  if (scheme.toLowerCase() !== wanted.toLowerCase()) return undefined;
  const credentials = space < 0 ? "" : header.slice(space + 1).trim();
  if (credentials === "") return { kind: "malformed", why: `Authorization: ${scheme} without credentials` };
  const lower = wanted.toLowerCase();
  if (lower === "bearer") return { kind: "bearer", token: credentials };
  if (lower !== "basic") return { kind: "authorization", credentials };
  const decoded = decodeBasic(credentials);
  return decoded ?? { kind: "malformed", why: "Authorization: Basic is not base64 of user:password" };
}

function decodeBasic(credentials: string): Presented | undefined {
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(credentials)) return undefined;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(atob(credentials), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
  const colon = text.indexOf(":");
  if (colon < 0) return undefined;
  return { kind: "basic", username: text.slice(0, colon), password: text.slice(colon + 1) };
}
