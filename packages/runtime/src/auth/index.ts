/**
 * @protoc-gen-a2a/runtime/auth: a server's authentication from its agent
 * card (authenticate.ts), the verifiers of each security scheme type
 * (verifiers.ts, jwt.ts) and how the card's security reads (card-security.ts).
 */
export { principalKey, type Principal } from "../core/principal.js";
export { authenticate, AuthSetupError, type AuthenticateOptions } from "./authenticate.js";
export {
  apiKeyTable,
  certificateSubject,
  type ApiKeyVerifier,
  type AuthorizationVerifier,
  type BasicVerifier,
  type BearerVerifier,
  type CertificateVerifier,
  type Identity,
  type SchemeVerifier,
} from "./verifiers.js";
export { jwtBearer, type JwtBearerOptions } from "./jwt.js";
export {
  readCardSecurity,
  type CardRequirement,
  type CardScheme,
  type CardSecurity,
  type CardSecurityReadOptions,
} from "../card/card-security.js";
export type { ClientCertificate } from "../core/client-certificate.js";
