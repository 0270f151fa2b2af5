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
 * The stored versions of a task share their unchanged messages and
 * artifacts (copy.ts copyReusing), which nobody modifies, so the sizes of
 * those of 1 KiB or more are remembered per object (a WeakMap of the
 * estimator, gone with the objects): a commit that adds an artifact walks the
 * task's top level, its small messages and artifacts, and the new artifact,
 * never again a large one.
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

/** Smaller ones are walked again: cheaper than what a WeakMap entry costs to keep. */
const REMEMBER_FROM = 1024;

/** The message types whose sizes are remembered: what a task's history and artifacts hold. */
const REMEMBERED = new Set(["lf.a2a.v1.Message", "lf.a2a.v1.Artifact"]);

export class SizeEstimator {
  private readonly known = new WeakMap<object, number>();

  /** The estimated heap bytes of a task as stored (see the header). */
  taskBytes(task: Task): number {
    return this.size(task);
  }

  private size(value: unknown): number {
    switch (typeof value) {
      case "string":
        return STRING + (value.length > LONG_STRING && !WIDE.test(value) ? value.length : 2 * value.length);
      case "bigint":
        return BIGINT;
      case "object":
        return value === null ? 0 : this.objectSize(value);
      default:
        return 0;
    }
  }

  private objectSize(value: object): number {
    if (value instanceof Uint8Array) return BYTES + value.byteLength;
    if (Array.isArray(value)) {
      let total = OBJECT + SLOT * value.length;
      for (const item of value) total += this.size(item);
      return total;
    }
    const typeName = (value as { $typeName?: unknown }).$typeName;
    const remembered = typeof typeName === "string" && REMEMBERED.has(typeName);
    if (remembered) {
      const known = this.known.get(value);
      if (known !== undefined) return known;
    }
    let total = OBJECT;
    const fields = value as Record<string, unknown>;
    for (const key in fields) {
      if (!Object.hasOwn(fields, key)) continue;
      total += SLOT + this.size(fields[key]);
    }
    if (remembered && total >= REMEMBER_FROM) this.known.set(value, total);
    return total;
  }
}
