/**
 * @protoc-gen-a2a/runtime/auth: a server's authentication from its agent
 * card (authenticate.ts) and the verifiers of each security scheme type.
 */
export { principalKey, type Principal } from "./principal.js";
