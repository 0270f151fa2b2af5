/**
 * Deep copies of protobuf-es messages for the in-memory store, so a caller
 * never holds an object the store keeps. protobuf-es v2 messages are plain
 * objects: fields, arrays, oneof {case, value} objects, Uint8Array for
 * bytes, bigint inside Timestamp, JSON objects for Struct. This walk copies
 * exactly that (arrays and plain objects recursively, Uint8Array by value,
 * primitives as they are) and takes about a fifth of structuredClone's time
 * on a task (6 vs 32 µs with four history messages, bench/task-store.js);
 * anything else (a class instance, a Map) goes through structuredClone.
 *
 * copyReusing(next, kept) is the copy for a change of a task the store keeps:
 * where `next` holds, at the same place, the very object `kept` holds, that
 * object is taken as it is; everything else is copied. It is safe because
 * `kept` is the store's own (every object in it was copied in, none was ever
 * handed out) and nothing modifies it, so an object identical to one of its
 * parts is that part. A change that adds one artifact to a task then copies
 * that artifact, not the task.
 */
import { setProto } from "../core/protojson-values.js";

type Fields = Record<string, unknown>;

function isPlain(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function copyValue(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (Array.isArray(value)) {
    const items: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) items[i] = copyValue(value[i]);
    return items;
  }
  if (value instanceof Uint8Array) return value.slice();
  if (!isPlain(value)) return structuredClone(value);
  const source = value as Fields;
  const out: Fields = {};
  // for-in with an own-key check walks the keys without allocating an array of them (Object.keys would).
  for (const k in source) {
    if (!Object.hasOwn(source, k)) continue;
    // A Struct key "__proto__" (from JSON) is an own key: kept as one, never the prototype.
    if (k === "__proto__") setProto(out, copyValue(source[k]));
    else out[k] = copyValue(source[k]);
  }
  return out;
}

/** A copy of `value` that shares no object with it. */
export function deepCopy<T>(value: T): T {
  return copyValue(value) as T;
}

function reusing(next: unknown, kept: unknown): unknown {
  if (next === kept || typeof next !== "object" || next === null) return next;
  if (typeof kept !== "object" || kept === null) return copyValue(next);
  if (Array.isArray(next)) {
    if (!Array.isArray(kept)) return copyValue(next);
    const items: unknown[] = new Array(next.length);
    for (let i = 0; i < next.length; i++) items[i] = reusing(next[i], kept[i]);
    return items;
  }
  if (next instanceof Uint8Array || !isPlain(next) || Array.isArray(kept)) return copyValue(next);
  const source = next as Fields;
  const old = kept as Fields;
  const out: Fields = {};
  for (const k in source) {
    if (!Object.hasOwn(source, k)) continue;
    if (k === "__proto__") setProto(out, copyValue(source[k]));
    else out[k] = reusing(source[k], Object.hasOwn(old, k) ? old[k] : undefined);
  }
  return out;
}

/**
 * A copy of `next` that takes as they are the parts it shares, at the same place, with `kept`, a value the
 * caller keeps and nobody modifies (see the header); shares no other object with `next`.
 */
export function copyReusing<T>(next: T, kept: T): T {
  return reusing(next, kept) as T;
}
