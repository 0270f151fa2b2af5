/**
 * The rule every TaskStore applies to the keys it is given (tenants, task
 * ids, context ids, artifact ids, push config ids): none may hold a NUL
 * character (U+0000) or a lone surrogate (half of a UTF-16 pair: no text
 * UTF-8 can carry, which PostgreSQL stores as U+FFFD, so two keys would
 * become one), and none may be longer than MAX_KEY_BYTES in UTF-8.
 * Task owners (access.ts) are keys too. PostgreSQL text cannot store a NUL,
 * and a btree index row holds at most about 2,700 bytes (the tasks indexes
 * hold three keys: tenant, context id or owner, task id), so either would
 * be a 500 of the store's own making; the
 * PostgreSQL store refuses them, and the memory store refuses them alike, so
 * both answer the same:
 * A2AError InvalidParamsError (HTTP 400) naming the operation and the field.
 * The handler checks the request's own fields first (send-start.ts,
 * task-operations.ts), so a caller reads the name it sent.
 */
import { A2AError } from "../core/a2a-error.js";
import type { Task } from "./a2a-types.js";

/** The longest key, in UTF-8 bytes: a UUID is 36; three such keys fit in one index row with room to spare. */
export const MAX_KEY_BYTES = 512;

const encoder = new TextEncoder();

/** Whether the key is longer than MAX_KEY_BYTES in UTF-8 (at most 3 bytes per UTF-16 unit: counted only then). */
const tooLong = (value: string) => value.length > MAX_KEY_BYTES / 3 && encoder.encode(value).length > MAX_KEY_BYTES;

/** Any surrogate (a fast test), then a lone one: with the u flag a pair is one code point, outside \p{Cs}. */
const SURROGATE = /[\ud800-\udfff]/;
const LONE_SURROGATE = /\p{Cs}/u;

/** Refuses a key holding a NUL character or a lone surrogate, or longer than MAX_KEY_BYTES, naming `field`. */
export function checkKey(operation: string, field: string, value: string): void {
  if (value.includes("\u0000")) {
    throw new A2AError(
      "InvalidParamsError",
      `${operation}: ${field} holds a NUL character (U+0000), which no task store key may hold`,
    );
  }
  if (SURROGATE.test(value) && LONE_SURROGATE.test(value)) {
    throw new A2AError(
      "InvalidParamsError",
      `${operation}: ${field} holds a lone surrogate (half of a UTF-16 pair), which no task store key may hold`,
    );
  }
  if (tooLong(value)) {
    throw new A2AError(
      "InvalidParamsError",
      `${operation}: ${field} is longer than ${MAX_KEY_BYTES} bytes (UTF-8), the longest task store key`,
    );
  }
}

/** Refuses the first bad key (see checkKey); `keys` maps field names to values (undefined: not given). */
export function checkKeys(operation: string, keys: Readonly<Record<string, string | undefined>>): void {
  for (const field in keys) {
    const value = keys[field];
    if (value !== undefined) checkKey(operation, field, value);
  }
}

/**
 * Refuses a task whose id, context id or an artifact id is a bad key. With `before`, the stored version the
 * task was made from, what it shares with it (the same artifact object at the same place) was checked already.
 */
export function checkTaskKeys(operation: string, tenant: string, task: Task, before?: Task): void {
  if (before === undefined) checkKey(operation, "tenant", tenant);
  if (task.id !== before?.id) checkKey(operation, "task.id", task.id);
  if (task.contextId !== before?.contextId) checkKey(operation, "task.contextId", task.contextId);
  const artifacts = task.artifacts;
  for (let i = 0; i < artifacts.length; i++) {
    const artifact = artifacts[i]!;
    if (artifact !== before?.artifacts[i]) checkKey(operation, "artifact.artifactId", artifact.artifactId);
  }
}
