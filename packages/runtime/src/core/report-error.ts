/**
 * What a server does with a failure that is not an A2A error: a handler that
 * throws something other than A2AError, or an internal fault. The client gets
 * InternalError without details (a2a-error.ts); `onError` gets the error and
 * where it happened, once per error object. Without `onError`, each is
 * written once to stderr with its stack. A2A errors are answers, not failures:
 * they are not reported.
 */
import { A2AError } from "./a2a-error.js";
import type { A2aServiceDefinition } from "./definition.js";

export interface ErrorContext {
  readonly binding: "JSONRPC" | "HTTP+JSON" | "GRPC";
  /** The operation (RPC name) when the failure came after the request was routed. */
  readonly operation: string | undefined;
  /** The protocol version the server serves, e.g. "1.0". */
  readonly protocolVersion: string;
}

export type OnError = (error: unknown, context: ErrorContext) => void;

/** Writes the failure to stderr: the binding, the operation and the stack (or the value). */
export const logError: OnError = (error, context) => {
  const where = `${context.binding} ${context.operation ?? "(unrouted)"} at ${context.protocolVersion}`;
  console.error(`A2A server: internal error in ${where}:`, error);
};

/** A reporter for one server: skips A2A errors and errors it has already reported. */
export function errorReporter(
  def: A2aServiceDefinition,
  binding: ErrorContext["binding"],
  onError: OnError = logError,
): (error: unknown, operation: string | undefined) => void {
  const reported = new WeakSet<object>();
  return (error, operation) => {
    if (error instanceof A2AError) return;
    if (typeof error === "object" && error !== null) {
      if (reported.has(error)) return;
      reported.add(error);
    }
    try {
      onError(error, { binding, operation, protocolVersion: def.protocolVersion });
    } catch {
      // A failing reporter must not change the reply.
    }
  };
}
