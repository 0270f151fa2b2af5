/**
 * Failures of the store's SQL, named: "PostgreSQL task store: <what> failed:
 * <PostgreSQL's message>", the original as cause. A missing table
 * (SQLSTATE 42P01) adds how to create them. A2AErrors (a bad page token) pass
 * through unchanged: they are the caller's.
 */
import { A2AError } from "../../a2a-error.js";

export function storeError(what: string, error: unknown): Error {
  if (error instanceof A2AError) return error;
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
