/**
 * Failures of the store's SQL, named: "PostgreSQL task store: <what> failed:
 * <PostgreSQL's message>", the original as cause. A missing table
 * (SQLSTATE 42P01) adds how to create them. A2AErrors (a bad page token) pass
 * through unchanged: they are the caller's.
 *
 * A database that cannot be reached (a refused or dropped connection, a
 * server shutting down or starting up: node's ECONNREFUSED, ECONNRESET,
 * ETIMEDOUT, EPIPE, ENOTFOUND, EAI_AGAIN, EHOSTUNREACH; SQLSTATE class 08 and
 * 57P01-57P03; pg's "Connection terminated" errors; pg's "Query read timeout",
 * a query unanswered past query_timeout, as when the network drops what it
 * carries), or one out of room for now (SQLSTATE class 53: too many
 * connections, out of memory, disk full, but not 53400, a configured limit
 * such as temp_file_limit that the same query meets again; the pool's "timeout exceeded when
 * trying to connect", all its connections busy past connectionTimeoutMillis),
 * found anywhere along the cause chain, is A2AError InternalError with HTTP
 * status 503: the caller is told the store is unavailable for now, which
 * resolves itself, rather than handed a 500. The message names the store and
 * the operation, and the cause by its code only (never a host, user or query).
 */
import { A2AError } from "../../core/a2a-error.js";

const UNREACHABLE_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "57P01",
  "57P02",
  "57P03",
]);

/** The code of the first error along the cause chain that says the database cannot serve now, if any. */
export function unreachableCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && (UNREACHABLE_CODES.has(code) || /^08|^53(?!400)/.test(code))) return code;
    if (/^Connection terminated|connection error and is not queryable/.test(e.message)) return "connection lost";
    if (e.message.startsWith("timeout exceeded when trying to connect")) return "no connection free in time";
    if (e.message === "Query read timeout") return "query unanswered in time";
  }
  return undefined;
}

export function storeError(what: string, error: unknown): Error {
  if (error instanceof A2AError) return error;
  const unreachable = unreachableCode(error);
  if (unreachable !== undefined) {
    return new A2AError(
      "InternalError",
      `PostgreSQL task store unavailable: ${what} failed (${unreachable}); retry later`,
      { httpStatus: 503 },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  const hint = code === "42P01" ? " (run `a2a-task-store migrate` or migrate() for this schema first)" : "";
  return new Error(`PostgreSQL task store: ${what} failed: ${message}${hint}`, { cause: error });
}

/** Runs a store operation, naming it in any failure. */
export async function named<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw storeError(what, error);
  }
}
