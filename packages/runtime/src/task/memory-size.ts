/**
 * How many bytes of heap a stored task takes, estimated for the memory
 * store's byte budget: cheap (no serializing), and never much under what V8
 * holds.
 *
 *   strings     16 + their length; a long string (over 1 KiB) with a
 *               character past U+00FF is held two bytes a character by V8,
 *               and counted so (one native regex scan, once per stored
 *               string); a short string is counted two bytes a character
 *   bytes       64 + byteLength (a Uint8Array and its backing store)
 *   objects     32 + 8 per property, arrays 32 + 8 per element, bigints 24,
 *               plus what they hold; other values are inside their slot
 *
 * Incremental: the stored versions of a task share their unchanged messages
 * and artifacts (copy.ts copyReusing), which nobody modifies. taskSizes keeps
 * the size of each history message and artifact beside the task, and the
 * next version's estimate reuses the size of every element that is the same
 * object at the same place, and of the status when it is the same object, so a commit that adds an artifact walks the
 * task's top level and the new artifact only, whatever the task holds.
 */
import type { Task } from "./a2a-types.js";

const STRING = 16;
const BYTES = 64;
const OBJECT = 32;
const SLOT = 8;
const BIGINT = 24;
const LONG_STRING = 1024;
/** A character V8 cannot keep in a one-byte string. */
const WIDE = /[\u0100-\uffff]/;

/** A task's estimate, with the sizes of its history messages and artifacts by position (for the next one). */
export interface TaskSizes {
  readonly bytes: number;
  /** The size of the task's status (a commit that adds an artifact keeps the status object). */
  readonly status: number;
  readonly history: readonly number[];
  readonly artifacts: readonly number[];
}

/** The estimated heap bytes of `task`; `before` is the version it was made from, whose element sizes it reuses. */
export function taskSizes(task: Task, before?: { readonly task: Task; readonly sizes: TaskSizes }): TaskSizes {
  const history = listSizes(task.history, before?.task.history, before?.sizes.history);
  const artifacts = listSizes(task.artifacts, before?.task.artifacts, before?.sizes.artifacts);
  const status = before !== undefined && before.task.status === task.status ? before.sizes.status : sizeOf(task.status);
  let bytes = OBJECT + SLOT + status;
  const fields = task as unknown as Record<string, unknown>;
  for (const key in fields) {
    if (!Object.hasOwn(fields, key) || key === "history" || key === "artifacts" || key === "status") continue;
    bytes += SLOT + sizeOf(fields[key]);
  }
  bytes += 2 * (SLOT + OBJECT) + SLOT * (history.length + artifacts.length);
  for (const size of history) bytes += size;
  for (const size of artifacts) bytes += size;
  return { bytes, status, history, artifacts };
}

/** The sizes of `items`, reusing `oldSizes[i]` where `items[i]` is `olds[i]` itself. */
function listSizes(
  items: readonly object[],
  olds: readonly object[] | undefined,
  oldSizes: readonly number[] | undefined,
): number[] {
  const sizes = new Array<number>(items.length);
  for (let i = 0; i < items.length; i++) {
    const item = items[i];
    const known = olds !== undefined && oldSizes !== undefined && olds[i] === item ? oldSizes[i] : undefined;
    sizes[i] = known ?? sizeOf(item);
  }
  return sizes;
}

/** The estimate of any value (module rules): a task event's, for the watches' bound (task-watch.ts). */
export const heapSizeOf = (value: unknown): number => sizeOf(value);

function sizeOf(value: unknown): number {
  switch (typeof value) {
    case "string":
      return STRING + (value.length > LONG_STRING && !WIDE.test(value) ? value.length : 2 * value.length);
    case "bigint":
      return BIGINT;
    case "object":
      return value === null ? 0 : objectSize(value);
    default:
      return 0;
  }
}

function objectSize(value: object): number {
  if (value instanceof Uint8Array) return BYTES + value.byteLength;
  if (Array.isArray(value)) {
    let total = OBJECT + SLOT * value.length;
    for (const item of value) total += sizeOf(item);
    return total;
  }
  let total = OBJECT;
  const fields = value as Record<string, unknown>;
  for (const key in fields) {
    if (!Object.hasOwn(fields, key)) continue;
    total += SLOT + sizeOf(fields[key]);
  }
  return total;
}
