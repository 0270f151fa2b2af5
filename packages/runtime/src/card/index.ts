/**
 * @protoc-gen-a2a/runtime/card-signing: agent card signatures (spec §8.4) on
 * the v1.0 ProtoJSON card, the form that is served: canonical text (RFC 8785),
 * signing and verifying with `jose`. Kept apart from the main entry so that
 * transport-only users never load jose; the main entry's card resolver takes
 * `agentCardVerifier(...)` as its `verify` option.
 */
export { canonicalizeAgentCard, CardFormError, type CanonicalCard, type CanonicalForm } from "./canonical.js";
export { signAgentCard, type AgentCardSignatureJson, type SignAgentCardOptions } from "./sign.js";
export {
  agentCardVerifier,
  AgentCardSignatureError,
  verifyAgentCard,
  type AgentCardVerification,
  type CardKeySource,
  type SignatureFailure,
  type VerifiedSignature,
  type VerifyAgentCardOptions,
} from "./verify.js";
export type { SigningKey } from "./key-alg.js";
