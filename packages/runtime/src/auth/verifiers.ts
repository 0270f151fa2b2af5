/**
 * What checks a presented credential, one verifier per security scheme of the
 * card, keyed by the scheme's name. A verifier has the one member its
 * scheme's type reads:
 *
 *   apiKey                  apiKey(key)          the key from the header,
 *                                                query parameter or cookie
 *                                                the scheme names
 *   http Bearer, oauth2,    bearer(token)        the token of
 *   openIdConnect                                `Authorization: Bearer …`
 *   http Basic              basic({username, password})
 *   other http schemes      authorization(credentials) the rest of
 *                                                `Authorization: <scheme> …`
 *   mtls                    certificate(cert)    the verified client
 *                                                certificate (TLS)
 *
 * Each returns the caller's identity, or undefined when the credential is not
 * valid (the call is then UnauthenticatedError); it may be async, and may
 * throw an A2AError of its own. apiKeyTable and certificateSubject are ready
 * verifiers; jwt.ts gives the OAuth 2.0 / OpenID Connect one.
 */
import type { A2aCall } from "../core/interceptor.js";
import type { ClientCertificate } from "../core/client-certificate.js";
import { withNames } from "../core/records.js";

/** Who a credential belongs to: the principal without its scheme, which authenticate adds. */
export interface Identity {
  readonly id: string;
  /** What the credential grants; a requirement's scopes must all be here. Default: none. */
  readonly scopes?: readonly string[];
  readonly claims?: Readonly<Record<string, unknown>>;
}

type Verdict = Identity | undefined | Promise<Identity | undefined>;

export interface ApiKeyVerifier {
  apiKey(key: string, call: A2aCall): Verdict;
}
export interface BearerVerifier {
  bearer(token: string, call: A2aCall): Verdict;
}
export interface BasicVerifier {
  basic(credentials: { readonly username: string; readonly password: string }, call: A2aCall): Verdict;
}
export interface AuthorizationVerifier {
  authorization(credentials: string, call: A2aCall): Verdict;
}
export interface CertificateVerifier {
  certificate(certificate: ClientCertificate, call: A2aCall): Verdict;
}

export type SchemeVerifier =
  | ApiKeyVerifier
  | BearerVerifier
  | BasicVerifier
  | AuthorizationVerifier
  | CertificateVerifier;

/**
 * API keys from a table (key → principal id). Keys are compared by their SHA-256 digests, so the time a lookup
 * takes does not depend on how much of a wrong key matches a right one. Scopes: `scopes(id)`, default none. The
 * digest is node:crypto's where the runtime has it (Node, Bun, Deno: process.getBuiltinModule), synchronous and
 * about a microsecond; else WebCrypto's, which is asynchronous and costs tens of microseconds a call.
 */
export function apiKeyTable(
  entries: Iterable<readonly [key: string, principalId: string]> | Readonly<Record<string, string>>,
  scopes: (principalId: string) => readonly string[] = () => [],
): ApiKeyVerifier {
  const list = Symbol.iterator in entries ? [...entries] : Object.entries(entries);
  const digest = sha256Hex();
  let table: ReadonlyMap<string, string> | undefined;
  const made = Promise.all(list.map(async ([key, id]) => [await digest(key), id] as const)).then((pairs) => {
    table = new Map(pairs);
    return table;
  });
  const identity = (id: string | undefined): Identity | undefined =>
    id === undefined ? undefined : { id, scopes: scopes(id) };
  return {
    apiKey(key) {
      const hex = digest(key);
      if (table && typeof hex === "string") return identity(table.get(hex));
      return Promise.all([made, hex]).then(([t, h]) => identity(t.get(h)));
    },
  };
}

type NodeCrypto = {
  /** One-shot hash (Node 20.12+, 21.7+). */
  hash?(algorithm: string, text: string, encoding: "hex"): string;
  createHash(algorithm: string): { update(text: string): { digest(encoding: "hex"): string } };
};

/** SHA-256 as hex: node:crypto's (synchronous) where the runtime has it, else WebCrypto's. */
function sha256Hex(): (text: string) => string | Promise<string> {
  const host = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
  const node = host?.getBuiltinModule?.("node:crypto") as NodeCrypto | undefined;
  const hash = node?.hash;
  if (hash) return (text) => hash("sha256", text, "hex");
  if (node) return (text) => node.createHash("sha256").update(text).digest("hex");
  return async (text) => {
    const bytes = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
    return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
  };
}

/**
 * A client certificate's subject as the principal: the attribute `attribute` (default CN) is the id, the other
 * subject attributes, the issuer and the fingerprint are claims. A certificate without it is not valid.
 * The id is the subject's name alone, so every CA the server trusts for clients can issue any principal: trust
 * one CA for them, or key the id by issuer too in a `{ certificate }` verifier of your own (`cert.issuer`).
 */
export function certificateSubject(attribute = "CN"): CertificateVerifier {
  return {
    certificate(cert) {
      const id = cert.subject[attribute];
      if (!id) return undefined;
      return { id, claims: withNames(cert.subject, { fingerprint256: cert.fingerprint256, issuer: cert.issuer }) };
    },
  };
}
