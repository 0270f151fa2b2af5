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
 * verifier made once reuses them across cards. A remote key set's answer is
 * read to MAX_KEY_SET_BYTES at most (past it the set is refused unread), and
 * one card names at most MAX_JKU_PER_CARD key set URLs (verify.ts).
 */
import {
  createRemoteJWKSet,
  customFetch,
  type FetchImplementation,
  type FlattenedJWSInput,
  type FlattenedVerifyGetKey,
  type JWSHeaderParameters,
} from "jose";
import { boundedText } from "../core/response-body.js";
import type { SigningKey } from "./key-alg.js";

export type CardKeySource =
  | { readonly key: SigningKey }
  | { readonly jwks: URL | FlattenedVerifyGetKey }
  | { readonly trustedJku: (jku: URL) => boolean };

export type VerifyKey = SigningKey | FlattenedVerifyGetKey;

const MAX_JKU_SETS = 16;

/** The most bytes of a remote key set's answer read (see the header). */
export const MAX_KEY_SET_BYTES = 128 * 1024;

/** jose's fetch of a key set, with the answer's body read to MAX_KEY_SET_BYTES at most. */
const boundedKeySetFetch: FetchImplementation = async (url, options) => {
  const res = await fetch(url, options);
  // jose refuses any other status by itself ("Expected 200 OK"); its body is not wanted.
  if (res.status !== 200) {
    await res.body?.cancel().catch(() => {});
    return res;
  }
  const tooLarge = () => new Error(`the key set at ${url} is over ${MAX_KEY_SET_BYTES} bytes`);
  const text = await boundedText(res, MAX_KEY_SET_BYTES, tooLarge);
  return new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
};

const remoteKeySet = (url: URL) => createRemoteJWKSet(url, { [customFetch]: boundedKeySetFetch });

/** The key (or key function) flattenedVerify is given for the source. */
export function verifyKeyOf(source: CardKeySource): VerifyKey {
  if ("key" in source) return source.key;
  if ("jwks" in source) return source.jwks instanceof URL ? remoteKeySet(source.jwks) : source.jwks;
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
      set = remoteKeySet(url);
      sets.set(url.href, set);
    }
    return set(header, token);
  };
}
