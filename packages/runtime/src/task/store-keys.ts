/**
 * The rule every TaskStore applies to the keys it is given (tenants, task
 * ids, context ids, artifact ids, push config ids): none may hold a NUL
 * character (U+0000). PostgreSQL text cannot store one (its error would be a
 * 500 of the store's own making), so the PostgreSQL store refuses it, and the
 * memory store refuses it alike, so both answer the same:
 * A2AError InvalidParamsError (HTTP 400) naming the operation and the field.
 * The handler checks the request's own fields first (send-start.ts,
 * task-operations.ts), so a caller reads the name it sent.
 */
import { A2AError } from "../a2a-error.js";
import type { Task } from "./a2a-types.js";

/** Refuses the first key holding a NUL character; `keys` maps field names to values. */
export function checkKeys(operation: string, keys: Readonly<Record<string, string>>): void {
  for (const field in keys) {
    const value = keys[field];
    if (value?.includes("\u0000")) {
      throw new A2AError(
        "InvalidParamsError",
        `${operation}: ${field} holds a NUL character (U+0000), which no task store key may hold`,
      );
    }
  }
}

/** Refuses a task whose id, context id or an artifact id holds a NUL character. */
export function checkTaskKeys(operation: string, tenant: string, task: Task): void {
  checkKeys(operation, { tenant, "task.id": task.id, "task.contextId": task.contextId });
  for (const artifact of task.artifacts) checkKeys(operation, { "artifact.artifactId": artifact.artifactId });
}
