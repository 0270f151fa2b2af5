/**
 * Signs a v1.0 ProtoJSON agent card (spec §8.4.2): a JWS whose payload is the
 * card's canonical text (canonical.ts) and is left out of the result
 * (detached, as AgentCardSignature has no payload field), appended to the
 * card's `signatures` as {protected, signature, header?}.
 *
 * Protected header: `alg` (given, else the key's, key-alg.ts), `typ` "JOSE",
 * `kid` (given, else the JWK's; §8.4.2 requires one), `jku` when given, then
 * any further protected parameters. `header` is the unprotected header. The
 * input card is not changed; signatures already on it are kept (they stay
 * valid: `signatures` is not part of the signed content).
 */
import { FlattenedSign, type JWSHeaderParameters } from "jose";
import { type CanonicalForm, canonicalizeAgentCard } from "./canonical.js";
import { inferAlg, type SigningKey } from "./key-alg.js";

export interface SignAgentCardOptions {
  /** The private key: a CryptoKey, a node KeyObject, a private JWK (or a secret for HS*). */
  readonly key: SigningKey;
  /** JWS algorithm, e.g. "ES256", "RS256", "EdDSA". Default: the key's. */
  readonly alg?: string;
  /** Key id for the protected header. Default: the JWK's `kid`. */
  readonly kid?: string;
  /** URL of the JWKS that holds the public key. */
  readonly jku?: string;
  /** More protected header parameters; `alg`, `typ`, `kid`, `jku` above take precedence. */
  readonly protectedHeader?: JWSHeaderParameters;
  /** The unprotected header (AgentCardSignature.header). */
  readonly header?: JWSHeaderParameters;
  /**
   * What is signed: "spec" (§8.4.1, default) or "empties-dropped" (what the
   * a2a-js and a2a-python verifiers rebuild; see canonical.ts). verifyAgentCard
   * accepts an empties-dropped signature only when that form drops empty fields
   * alone, never a list element, map entry or Struct member it would not cover.
   */
  readonly form?: CanonicalForm;
}

/** One AgentCardSignature in its ProtoJSON form. */
export interface AgentCardSignatureJson {
  readonly protected: string;
  readonly signature: string;
  readonly header?: JWSHeaderParameters;
}

/** The card with one more signature; the card is a v1.0 ProtoJSON object. */
export async function signAgentCard<Card extends object>(
  card: Card,
  options: SignAgentCardOptions,
): Promise<Card & { signatures: AgentCardSignatureJson[] }> {
  const alg = options.alg ?? inferAlg(options.key);
  if (!alg) throw new Error("signAgentCard: cannot tell the key's algorithm; give `alg`");
  const kid = options.kid ?? jwkKid(options.key);
  if (!kid) throw new Error("signAgentCard: give `kid` (spec §8.4.2: the protected header must include kid)");
  const { text } = canonicalizeAgentCard(card, options.form ?? "spec");
  const protectedHeader: JWSHeaderParameters = {
    ...options.protectedHeader,
    alg,
    typ: "JOSE",
    kid,
    ...(options.jku !== undefined ? { jku: options.jku } : {}),
  };
  const signer = new FlattenedSign(new TextEncoder().encode(text)).setProtectedHeader(protectedHeader);
  if (options.header) signer.setUnprotectedHeader(options.header);
  let jws: Awaited<ReturnType<FlattenedSign["sign"]>>;
  try {
    jws = await signer.sign(options.key);
  } catch (e) {
    throw new Error(`signAgentCard: signing with ${alg} (kid ${kid}) failed: ${(e as Error).message}`, { cause: e });
  }
  const signature: AgentCardSignatureJson = {
    protected: jws.protected ?? "",
    signature: jws.signature,
    ...(jws.header ? { header: jws.header } : {}),
  };
  const before = (card as { signatures?: unknown }).signatures;
  const kept = Array.isArray(before) ? (before as AgentCardSignatureJson[]) : [];
  return { ...card, signatures: [...kept, signature] };
}

function jwkKid(key: SigningKey): string | undefined {
  if (key instanceof Uint8Array || !("kty" in key)) return undefined;
  return typeof key.kid === "string" && key.kid !== "" ? key.kid : undefined;
}
