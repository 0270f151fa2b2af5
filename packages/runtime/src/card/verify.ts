/**
 * Verifies the signatures of a v1.0 ProtoJSON agent card (spec §8.4.3): each
 * entry of `signatures` is checked as a JWS over the card's canonical text
 * (canonical.ts), with the key from the key source (card-keys.ts: one key,
 * a key set, or the header's jku when trusted).
 *
 * The card passes when at least one signature verifies (§8.4.3: at least one;
 * `requireAll` for every one). A signature is accepted over the "spec" form
 * (§8.4.1), else over the "empties-dropped" form the a2a-js and a2a-python
 * SDKs sign, but only when that form loses nothing a reader of the card sees
 * (canonical.ts emptiesDroppedLoss): it may drop empty FIELDS (an empty
 * REQUIRED description, an emptied message), which read as their defaults,
 * never a list element, map entry or Struct member. A signature over a form
 * that drops `{}` from securityRequirements does not cover that `{}`, so
 * accepting it would let anyone add an anonymous alternative (or an empty
 * interface, or change the scheme of a scope-less requirement) to a signed
 * card; such a card verifies over the spec form or not at all.
 * `strict: true` accepts the spec form only; `strict: false` (the default)
 * relaxes nothing more than the field-level difference above.
 * A signature whose protected header lacks `alg` or `kid` (§8.4.2: MUST) fails,
 * wherever else they are given.
 * Bounds, so that a card cannot make its verifier work or fetch without end:
 * the first MAX_SIGNATURES entries are checked (the others fail, unchecked),
 * and the signatures of one card name at most MAX_JKU_PER_CARD key set URLs
 * (`jku`) between them (a signature naming another one fails, unfetched).
 * Otherwise AgentCardSignatureError lists, per signature (index, kid, alg),
 * why it failed, and says why the empties-dropped form was not tried.
 */
import { base64url, decodeProtectedHeader, flattenedVerify, type JWSHeaderParameters } from "jose";
import { type CanonicalForm, canonicalizeAgentCard, emptiesDroppedLoss } from "./canonical.js";
import { type CardKeySource, type VerifyKey, verifyKeyOf } from "./card-keys.js";

export type { CardKeySource } from "./card-keys.js";

export interface VerifyAgentCardOptions {
  /** Every signature must verify, not just one. */
  readonly requireAll?: boolean;
  /**
   * Accept only the spec's canonical form (§8.4.1). Default false: a signature over the SDKs' empties-dropped
   * form is accepted too, but only when that form drops empty fields alone, never a list element, map entry or
   * Struct member (which it would not cover: an added `{}` in securityRequirements, for one).
   */
  readonly strict?: boolean;
  /** Allowed JWS algorithms. Default: any asymmetric one jose supports ("none" and HS* never). */
  readonly algorithms?: readonly string[];
}

export interface VerifiedSignature {
  readonly index: number;
  readonly protectedHeader: JWSHeaderParameters;
  readonly kid: string | undefined;
  readonly alg: string | undefined;
  /** The canonical form the signature covers. */
  readonly form: CanonicalForm;
}

export interface SignatureFailure {
  readonly index: number;
  readonly kid: string | undefined;
  readonly alg: string | undefined;
  readonly reason: string;
  readonly cause?: unknown;
}

export interface AgentCardVerification {
  readonly verified: readonly VerifiedSignature[];
  /** Signatures that did not verify (only when another one did and `requireAll` is off). */
  readonly failed: readonly SignatureFailure[];
  /** Fields outside the v1.0 AgentCard: not covered by any signature. */
  readonly ignoredFields: readonly string[];
  /**
   * The card as the verified signatures cover it (with its `signatures`): the v1.0 fields under their JSON
   * names, the ignored fields left out. Read this, not the card given: a client made from it
   * (clientForCard) sends credentials only as the signed card asks.
   */
  readonly card: Readonly<Record<string, unknown>>;
}

/** No (or not every) signature of the card verified; `failures` says why, per signature. */
export class AgentCardSignatureError extends Error {
  override name = "AgentCardSignatureError";
  constructor(
    message: string,
    readonly failures: readonly SignatureFailure[],
  ) {
    super(message);
  }
}

const ASYMMETRIC = [
  "ES256",
  "ES384",
  "ES512",
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "EdDSA",
  "Ed25519",
];

/** Checks the card's signatures; resolves with what verified, throws AgentCardSignatureError. */
export function verifyAgentCard(
  card: unknown,
  source: CardKeySource,
  options: VerifyAgentCardOptions = {},
): Promise<AgentCardVerification> {
  return verifyWith(card, verifyKeyOf(source), options);
}

async function verifyWith(
  card: unknown,
  key: VerifyKey,
  options: VerifyAgentCardOptions,
): Promise<AgentCardVerification> {
  const name = cardName(card);
  const entries = (card as { signatures?: unknown } | null)?.signatures;
  if (!Array.isArray(entries) || entries.length === 0) {
    throw new AgentCardSignatureError(`agent card ${name}: no signatures to verify`, []);
  }
  const lost = options.strict ? undefined : emptiesDroppedLoss(card);
  const forms: CanonicalForm[] = options.strict || lost !== undefined ? ["spec"] : ["spec", "empties-dropped"];
  const payloads = forms.map((form) => ({ form, ...canonicalizeAgentCard(card, form) }));
  const algorithms = [...(options.algorithms ?? ASYMMETRIC)];
  const verified: VerifiedSignature[] = [];
  const failed: SignatureFailure[] = [];
  const jkus = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    const outcome =
      index < MAX_SIGNATURES
        ? await verifyEntry(entry, index, payloads, { key, algorithms, jkus })
        : { index, kid: undefined, alg: undefined, reason: `not checked: a card's first ${MAX_SIGNATURES} are` };
    if ("reason" in outcome) failed.push(outcome);
    else verified.push(outcome);
  }
  if (verified.length === 0 || (options.requireAll && failed.length > 0)) {
    const what = verified.length === 0 ? "no signature verified" : "not every signature verified";
    const why = lost === undefined ? "" : ` (${notTried(lost)})`;
    throw new AgentCardSignatureError(`agent card ${name}: ${what}: ${failed.map(describe).join("; ")}${why}`, failed);
  }
  const covering = payloads.find((p) => p.form === verified[0]!.form) ?? payloads[0]!;
  return { verified, failed, ignoredFields: payloads[0]?.ignoredFields ?? [], card: covering.card };
}

/** The most signatures of one card checked (see the header). */
export const MAX_SIGNATURES = 16;
/** The most key set URLs (`jku`) the signatures of one card may name between them (see the header). */
export const MAX_JKU_PER_CARD = 4;

/** How a card's signatures are checked: the key, the algorithms, and the jku URLs named so far. */
interface EntryCheck {
  readonly key: VerifyKey;
  readonly algorithms: string[];
  readonly jkus: Set<string>;
}

async function verifyEntry(
  entry: unknown,
  index: number,
  payloads: readonly { readonly form: CanonicalForm; readonly text: string }[],
  { key, algorithms, jkus }: EntryCheck,
): Promise<VerifiedSignature | SignatureFailure> {
  const jws = entry as { protected?: unknown; signature?: unknown; header?: unknown } | null;
  if (typeof jws?.protected !== "string" || typeof jws.signature !== "string") {
    return { index, kid: undefined, alg: undefined, reason: "not an AgentCardSignature (protected, signature)" };
  }
  let header: JWSHeaderParameters;
  try {
    header = decodeProtectedHeader({ protected: jws.protected }) as JWSHeaderParameters;
  } catch (cause) {
    return { index, kid: undefined, alg: undefined, reason: "the protected header does not decode", cause };
  }
  const { kid, alg } = header;
  // S10 §8.4.2: the protected header MUST include alg and kid; in the unprotected one they are not signed.
  const missing = !alg ? "alg" : !kid ? "kid" : undefined;
  const reason = `its protected header names no ${missing} (spec §8.4.2 requires it)`;
  if (missing) return { index, kid, alg, reason };
  // RFC 7515 §4.1.4: a kid is a string (jose checks alg's type itself).
  if (typeof kid !== "string") return { index, kid: undefined, alg, reason: "its kid is not a string" };
  if (typeof header.jku === "string" && !jkus.has(header.jku)) {
    if (jkus.size >= MAX_JKU_PER_CARD)
      return { index, kid, alg, reason: `its jku is past the ${MAX_JKU_PER_CARD} a card may name` };
    jkus.add(header.jku);
  }
  let first: unknown;
  const seen = new Set<string>();
  for (const { form, text } of payloads) {
    if (seen.has(text)) continue;
    seen.add(text);
    const input = {
      protected: jws.protected,
      signature: jws.signature,
      payload: base64url.encode(text),
      ...(isHeader(jws.header) ? { header: jws.header } : {}),
    };
    try {
      await flattenedVerify(input, key, { algorithms });
      return { index, protectedHeader: header, kid, alg, form };
    } catch (e) {
      first ??= e;
      if (!isMismatch(e)) break; // the key or header is wrong: another payload will not help
    }
  }
  return { index, kid, alg, reason: reasonOf(first), cause: first };
}

function isHeader(value: unknown): value is JWSHeaderParameters {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isMismatch(e: unknown): boolean {
  return (e as { code?: string }).code === "ERR_JWS_SIGNATURE_VERIFICATION_FAILED";
}

function reasonOf(e: unknown): string {
  const code = (e as { code?: string } | undefined)?.code;
  if (code === "ERR_JWS_SIGNATURE_VERIFICATION_FAILED") {
    return "the signature does not match the card (changed after signing, or signed with another key)";
  }
  if (code === "ERR_JWKS_NO_MATCHING_KEY") return "no key in the key set matches its kid and alg";
  if (code === "ERR_JOSE_ALG_NOT_ALLOWED") return "its algorithm is not allowed";
  return (e as Error | undefined)?.message ?? String(e);
}

function notTried(lost: string): string {
  return `the SDKs' empties-dropped form was not tried: it drops ${lost}, which a signature over it would not cover`;
}

function describe(f: SignatureFailure): string {
  return `signature ${f.index} (kid ${f.kid ?? "none"}, alg ${f.alg ?? "none"}): ${f.reason}`;
}

function cardName(card: unknown): string {
  const name = (card as { name?: unknown } | null)?.name;
  return typeof name === "string" ? JSON.stringify(name) : "(unnamed)";
}

/** A verifier for createAgentCardResolver's `verify` option: checks each fetched card, reusing remote key sets. */
export function agentCardVerifier(
  source: CardKeySource,
  options: VerifyAgentCardOptions = {},
): (card: unknown) => Promise<AgentCardVerification> {
  const key = verifyKeyOf(source);
  return (card) => verifyWith(card, key, options);
}
