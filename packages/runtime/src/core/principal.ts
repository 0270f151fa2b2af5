/**
 * Who is calling: the identity an authentication interceptor verified
 * (auth/authenticate.ts), kept in the call's context values under
 * principalKey and read as HandlerContext.principal and the executor's
 * RequestContext.principal. Undefined when the server authenticates nothing.
 *
 *   id       stable and unique within its scheme: tasks and push configs
 *            are owned by it and the scheme together (the task runtime's
 *            default authorize policy, ownerOf: `scheme/id`), so two
 *            verifiers' ids never meet
 *   scheme   the security scheme name of the card that verified it (for an
 *            AND of schemes, the first)
 *   scopes   what the credential grants (OAuth 2.0 scopes, or a verifier's own)
 *   claims   what else the verifier read (JWT claims, certificate fields)
 */
import { createContextKey } from "./context-values.js";

export interface Principal {
  readonly id: string;
  readonly scheme: string;
  readonly scopes: readonly string[];
  readonly claims: Readonly<Record<string, unknown>>;
}

/** The verified caller of a call; undefined when nothing authenticated it. */
export const principalKey = createContextKey<Principal | undefined>(undefined, "principal");
