/**
 * The HandlerContext of an in-process v1.0 JSON-RPC call made by a given
 * caller: its principal set in the call's context values (principalKey), as
 * an authentication interceptor leaves it, and read back as
 * HandlerContext.principal; no principal: a server that authenticates
 * nothing. For tests that call a handler directly, without a wire.
 */
import { type HandlerContext, type Principal, principalKey } from "@protoc-gen-a2a/runtime";
import { createContextValues } from "@protoc-gen-a2a/runtime/protocol";

/** A principal as a verifier would make it, with the given scopes. */
export function principal(id: string, scopes: readonly string[] = []): Principal {
  return { id, scheme: "bearer", scopes, claims: { sub: id } };
}

export interface CallerOptions {
  /** The call's tenant (HandlerContext.tenant); default none. */
  readonly tenant?: string;
  readonly signal?: AbortSignal;
}

/** The context of one call by `caller` (undefined: unauthenticated). */
export function callerContext(caller: Principal | undefined, options: CallerOptions = {}): HandlerContext {
  const values = createContextValues();
  if (caller !== undefined) values.set(principalKey, caller);
  return {
    signal: options.signal ?? new AbortController().signal,
    headers: new Headers(),
    header: () => null,
    protocolVersion: "1.0",
    extensions: [],
    binding: "JSONRPC",
    tenant: options.tenant,
    query: new URLSearchParams(),
    clientCertificate: undefined,
    values,
    principal: values.get(principalKey),
  };
}
