/**
 * The rule every TaskStore applies to the keys it is given (tenants, task
 * ids, context ids, artifact ids, push config ids): none may hold a NUL
 * character (U+0000), and none may be longer than MAX_KEY_BYTES in UTF-8.
 * PostgreSQL text cannot store a NUL, and a btree index row holds at most
 * about 2,700 bytes (the tasks indexes hold three keys: tenant, context id,
 * task id), so either would be a 500 of the store's own making; the
 * PostgreSQL store refuses them, and the memory store refuses them alike, so
 * both answer the same:
 * A2AError InvalidParamsError (HTTP 400) naming the operation and the field.
 * The handler checks the request's own fields first (send-start.ts,
 * task-operations.ts), so a caller reads the name it sent.
 */
import { A2AError } from "../a2a-error.js";
import type { Task } from "./a2a-types.js";

/** The longest key, in UTF-8 bytes: a UUID is 36; three such keys fit in one index row with room to spare. */
export const MAX_KEY_BYTES = 512;

const encoder = new TextEncoder();

/** Whether the key is longer than MAX_KEY_BYTES in UTF-8 (at most 3 bytes per UTF-16 unit: counted only then). */
const tooLong = (value: string) => value.length > MAX_KEY_BYTES / 3 && encoder.encode(value).length > MAX_KEY_BYTES;

/** Refuses the first key holding a NUL character or too long; `keys` maps field names to values. */
export function checkKeys(operation: string, keys: Readonly<Record<string, string>>): void {
  for (const field in keys) {
    const value = keys[field];
    if (value === undefined) continue;
    if (value.includes("\u0000")) {
      throw new A2AError(
        "InvalidParamsError",
        `${operation}: ${field} holds a NUL character (U+0000), which no task store key may hold`,
      );
    }
    if (tooLong(value)) {
      throw new A2AError(
        "InvalidParamsError",
        `${operation}: ${field} is longer than ${MAX_KEY_BYTES} bytes (UTF-8), the longest task store key`,
      );
    }
  }
}

/** Refuses a task whose id, context id or an artifact id holds a NUL character. */
export function checkTaskKeys(operation: string, tenant: string, task: Task): void {
  checkKeys(operation, { tenant, "task.id": task.id, "task.contextId": task.contextId });
  for (const artifact of task.artifacts) checkKeys(operation, { "artifact.artifactId": artifact.artifactId });
}
