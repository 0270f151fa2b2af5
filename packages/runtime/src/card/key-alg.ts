/**
 * The JWS algorithm a signing key implies, when the signer names none:
 * the JWK's own `alg`; else by key type: EC P-256/P-384/P-521 → ES256/ES384/
 * ES512, Ed25519 → EdDSA, RSA (PKCS#1 v1.5, or RSA JWK and KeyObject) → RS256
 * (CryptoKey: RS + its hash size), RSA-PSS CryptoKey → PS + its hash size.
 * Anything else (a symmetric secret, an unknown curve) must be given an alg.
 */
import type { CryptoKey, JWK, KeyObject } from "jose";

export type SigningKey = CryptoKey | KeyObject | JWK | Uint8Array;

const CURVE_ALG: Readonly<Record<string, string>> = {
  "P-256": "ES256",
  "P-384": "ES384",
  "P-521": "ES512",
  prime256v1: "ES256",
  secp384r1: "ES384",
  secp521r1: "ES512",
  Ed25519: "EdDSA",
};

/** The algorithm of the key, or undefined when it cannot be told. */
export function inferAlg(key: SigningKey): string | undefined {
  if (key instanceof Uint8Array) return undefined;
  if ("algorithm" in key && typeof key.algorithm === "object") return cryptoKeyAlg(key as CryptoKey);
  if ("asymmetricKeyType" in key) return keyObjectAlg(key as NodeKeyObject);
  return jwkAlg(key as JWK);
}

function cryptoKeyAlg(key: CryptoKey): string | undefined {
  const algorithm = key.algorithm as { name: string; namedCurve?: string; hash?: { name: string } };
  const bits = algorithm.hash?.name.replace("SHA-", "");
  if (algorithm.name === "ECDSA") return CURVE_ALG[algorithm.namedCurve ?? ""];
  if (algorithm.name === "Ed25519") return "EdDSA";
  if (algorithm.name === "RSASSA-PKCS1-v1_5" && bits) return `RS${bits}`;
  if (algorithm.name === "RSA-PSS" && bits) return `PS${bits}`;
  return undefined;
}

/** What node:crypto's KeyObject tells of its key (jose's KeyObject type only has `type`). */
interface NodeKeyObject {
  readonly asymmetricKeyType?: string;
  readonly asymmetricKeyDetails?: { readonly namedCurve?: string };
}

function keyObjectAlg(key: NodeKeyObject): string | undefined {
  const type = key.asymmetricKeyType;
  if (type === "ed25519") return "EdDSA";
  if (type === "rsa") return "RS256";
  if (type === "ec") return CURVE_ALG[key.asymmetricKeyDetails?.namedCurve ?? ""];
  return undefined;
}

function jwkAlg(jwk: JWK): string | undefined {
  if (jwk.alg) return jwk.alg;
  if (jwk.kty === "EC" || jwk.kty === "OKP") return CURVE_ALG[jwk.crv ?? ""];
  if (jwk.kty === "RSA") return "RS256";
  return undefined;
}
