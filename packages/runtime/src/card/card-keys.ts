/**
 * Where a card verifier finds the public key of a signature (spec §8.4.3:
 * by kid and jku, or from a trusted key store):
 *
 *   { key }          one public key for every signature
 *   { jwks }         a key set chosen by the header's kid and alg: a jose
 *                    resolver (createLocalJWKSet, createRemoteJWKSet) or the
 *                    URL of a JWKS (fetched and cached by jose)
 *   { trustedJku }   the key set at the header's `jku`, only when the
 *                    predicate trusts that URL: a card naming its own key
 *                    URL proves nothing unless the URL is trusted
 *
 * A resolved source keeps its remote key sets (at most 16 jku URLs), so a
 * verifier made once reuses them across cards.
 */
import { createRemoteJWKSet, type FlattenedVerifyGetKey, type JWSHeaderParameters, type FlattenedJWSInput } from "jose";
import type { SigningKey } from "./key-alg.js";

export type CardKeySource =
  | { readonly key: SigningKey }
  | { readonly jwks: URL | FlattenedVerifyGetKey }
  | { readonly trustedJku: (jku: URL) => boolean };

export type VerifyKey = SigningKey | FlattenedVerifyGetKey;

const MAX_JKU_SETS = 16;

/** The key (or key function) flattenedVerify is given for the source. */
export function verifyKeyOf(source: CardKeySource): VerifyKey {
  if ("key" in source) return source.key;
  if ("jwks" in source) return source.jwks instanceof URL ? createRemoteJWKSet(source.jwks) : source.jwks;
  const sets = new Map<string, FlattenedVerifyGetKey>();
  const trusted = source.trustedJku;
  return (header: JWSHeaderParameters, token: FlattenedJWSInput) => {
    if (typeof header.jku !== "string") throw new Error("its protected header names no jku");
    let url: URL;
    try {
      url = new URL(header.jku);
    } catch {
      throw new Error(`its jku ${JSON.stringify(header.jku)} is not a URL`);
    }
    if (!trusted(url)) throw new Error(`its jku ${url.href} is not trusted`);
    let set = sets.get(url.href);
    if (!set) {
      if (sets.size >= MAX_JKU_SETS) sets.clear();
      set = createRemoteJWKSet(url);
      sets.set(url.href, set);
    }
    return set(header, token);
  };
}
