/**
 * What the generated direct conversions (a2a_compat_jsonrpc.ts: the older
 * version's JSON-RPC dialect ↔ the newer version's messages, in one pass)
 * call at run time:
 *
 *   reading      ProtoJSON scalars, checked as fromJson checks them; a wrong
 *                type throws CompatJsonError naming the field and its path
 *   paths        a chain of keys, made into a string only when something is
 *                lost or wrong (so a conversion that loses nothing builds none),
 *                from the root, one concatenation per key;
 *                a node is read only then, at once, so the list and map loops
 *                here pass one node to all elements, its key set to each in turn
 *   copies       Struct values are deep-copied, so output never aliases input;
 *                Struct and Value JSON nests at most MAX_VALUE_DEPTH deep
 *   values       bytes, timestamps and google.protobuf.Value written as toJson
 *                writes them, by protojson-values.ts (re-exported here)
 *   no coercion  reading refuses an enum value the older version does not have;
 *                writing reports an enum number without an older value (written as
 *                the value 0) and a part a2a.json has no form for (left out of its list)
 *   dialect      what the generated a2a.json codec of a version (<base>_jsonrpc_codec)
 *                calls: its dispatch by message type, lists and maps of messages,
 *                the ids of a resource name, merged objects
 */
import { fromJson, type DescMessage, type JsonObject, type JsonValue, type Message } from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { TimestampSchema, type Timestamp, type Value } from "@bufbuild/protobuf/wkt";
import type { JsonRpcCodec, JsonRpcNames, Loss, OnDrop } from "../core/conversion-types.js";
import { base64Read, setProto } from "../core/protojson-values.js";
import { set } from "../core/records.js";

/** Where a value sits: a chain of keys up to the root (undefined), made a string only for a loss or an error. */
export type At = { readonly up: At; readonly key: string | number } | undefined;

export const at = (up: At, key: string | number): At => ({ up, key });

/** The one path node a loop under `up` passes to each element in turn, `key` set to the element's index or key. */
type Cursor = { up: At; key: string | number };

/**
 * The path of `a`: names joined by ".", indexes as "[i]" (no "." before one). Built from the root when
 * every name is plain (not "", not starting with "["); otherwise from the leaf, which decides each
 * separator by what follows it.
 */
export function pathOf(a: At): string {
  const p = plainPath(a);
  return p !== undefined ? p : leafFirstPath(a);
}

/** The path from the root, one concatenation per key; undefined at a name that is not plain. */
function plainPath(a: At): string | undefined {
  if (a === undefined) return "";
  const k = a.key;
  const head = plainPath(a.up);
  if (head === undefined) return undefined;
  if (typeof k === "number") return head + indexKey(k);
  if (k === "" || k.charCodeAt(0) === 91) return undefined;
  return head === "" ? k : head + "." + k;
}

function leafFirstPath(a: At): string {
  let path = "";
  for (let x = a; x !== undefined; x = x.up) {
    const k = x.key;
    const rest = path === "" || path[0] === "[" ? path : "." + path;
    path = (typeof k === "number" ? indexKey(k) : k) + rest;
  }
  return path;
}

/** "[i]", from a table for the small indexes most lists have. */
const INDEX_KEYS = Array.from({ length: 64 }, (_, i) => `[${i}]`);
const indexKey = (i: number): string => (i >= 0 && i < 64 && Number.isInteger(i) ? INDEX_KEYS[i]! : `[${i}]`);

/** Passes each loss to `onLoss`, if given; returns the list. */
export function reportLosses(lost: Loss[], onLoss: ((loss: Loss) => void) | undefined): Loss[] {
  if (onLoss) for (const l of lost) onLoss(l);
  return lost;
}

/** Reports the loss of `key` under `a` (of what sits at `a` itself when `key` is ""). */
export function lose(lost: Loss[], a: At, key: string, reason: string): void {
  const up = pathOf(a);
  lost.push({ path: up === "" ? key : key === "" ? up : up + "." + key, reason });
}

/** The loss reason of a part that a2a.json has no form for (no content): it is left out of its list. */
export const PART_LEFT_OUT = "a part without text, a file (uri or bytes) or data has no a2a.json form; it was left out";

/**
 * A value that cannot be converted to the newer version: a dialect value the older proto cannot read
 * (fromJson would refuse it too), an unknown kind, a part without content, an enum value the older
 * version lacks. A request that throws it is InvalidParams.
 */
export class CompatJsonError extends Error {
  /**
   * @param path where the value sits, e.g. "message.parts[1].file"
   * @param what the field or message it was read as
   * @param reason what is wrong with it; by default, the value itself
   */
  constructor(
    readonly path: string,
    readonly what: string,
    readonly value: unknown,
    readonly reason = `from JSON: ${preview(value)}`,
  ) {
    super(`cannot decode ${what}${path ? ` at ${path}` : ""} ${reason}`);
    this.name = "CompatJsonError";
  }
}

/**
 * A value as an error or a loss names it, at most 40 characters whatever its size: a string quoted (cut
 * first), a number or boolean as it is, "object", "array" or "null".
 */
export const preview = (v: unknown): string => {
  const s =
    typeof v === "string"
      ? JSON.stringify(v.length > 40 ? v.slice(0, 40) : v)
      : Array.isArray(v)
        ? "array"
        : v === null
          ? "null"
          : typeof v === "object"
            ? "object"
            : String(v);
  return s.length > 40 ? s.slice(0, 37) + "..." : s;
};

/**
 * Refuses the value `v` at `a`; `expected` (e.g. "a string") is named after it: `from JSON: 5 (expected a string)`,
 * or `from JSON: no value (expected a string)` when there is none.
 */
export const invalid = (a: At, what: string, v: unknown, expected?: string): never => {
  const reason =
    expected === undefined
      ? undefined
      : `from JSON: ${v === undefined ? "no value" : preview(v)} (expected ${expected})`;
  throw new CompatJsonError(pathOf(a), what, v, reason);
};

/** Refuses the value `v` at `a` for `reason` (written after "from JSON: "). */
export const refuse = (a: At, what: string, v: unknown, reason: string): never => {
  throw new CompatJsonError(pathOf(a), what, v, `from JSON: ${reason}`);
};

/**
 * Refuses a `kind` (at `path`, the object's path) that is not one of `known`; a missing one
 * only where nothing else says what the object is.
 */
export function refuseKind(path: string, what: string, kind: unknown, known: string): never {
  const where = path === "" ? "kind" : `${path}.kind`;
  throw new CompatJsonError(
    where,
    what,
    kind,
    kind === undefined || kind === null
      ? `from JSON: no kind (${known})`
      : `from JSON: unknown kind ${preview(kind)} (${known})`,
  );
}

/** A part's kind, else the one content key it has (text, file, data); undefined when neither says. */
export function partKindOf(x: Record<string, unknown>): "text" | "file" | "data" | undefined {
  const kind =
    x["kind"] ??
    (x["text"] !== undefined ? "text" : x["file"] !== undefined ? "file" : x["data"] !== undefined ? "data" : null);
  return kind === "text" || kind === "file" || kind === "data" ? kind : undefined;
}

const PART_CONTENTS = ["text", "file", "data"] as const;

/**
 * A part's content of another kind than the one it is read as (a text part's `data`): a part holds one content,
 * so the others are reported lost at their keys.
 */
export function loseOtherContent(x: Record<string, unknown>, kind: "text" | "file" | "data", a: At, lost: Loss[]) {
  for (const other of PART_CONTENTS) {
    if (other !== kind && x[other] !== undefined) lose(lost, a, other, `a ${kind} part holds no ${other}; not kept`);
  }
}

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

export function object(v: unknown, a: At, what: string): Record<string, unknown> {
  return isObject(v) ? v : invalid(a, what, v, "an object");
}

export function str(v: unknown, a: At, what: string): string {
  return typeof v === "string" ? v : invalid(a, what, v, "a string");
}

export function bool(v: unknown, a: At, what: string): boolean {
  return typeof v === "boolean" ? v : invalid(a, what, v, "true or false");
}

/** int32 as ProtoJSON reads it: an integral number, or a string holding one. */
export function int32(v: unknown, a: At, what: string): number {
  const n = typeof v === "string" && v !== "" && v.trim() === v ? Number(v) : v;
  return isInt32(n) ? n : invalid(a, what, v, "an int32");
}

const isInt32 = (n: unknown): n is number =>
  typeof n === "number" && Number.isInteger(n) && n >= -2147483648 && n <= 2147483647;

/** bytes as ProtoJSON reads them: base64, standard or URL-safe. */
export function bytes(v: unknown, a: At, what: string): Uint8Array {
  if (typeof v !== "string") return invalid(a, what, v, "base64");
  const quick = base64Read(v);
  if (quick) return quick;
  try {
    return base64Decode(v);
  } catch {
    return invalid(a, what, v, "base64");
  }
}

/**
 * An enum value mapped to the newer number: `table` holds the dialect spelling, the proto name and the
 * number of each older value; any other value is refused.
 */
export function enumIn(
  table: ReadonlyMap<string | number, number>,
  v: unknown,
  up: At,
  key: string,
  what: string,
): number {
  const n = typeof v === "string" || isInt32(v) ? table.get(v) : undefined;
  if (n !== undefined) return n;
  if (typeof v !== "string" && !isInt32(v)) return invalid(at(up, key), what, v, "a name or a number");
  throw new CompatJsonError(pathOf(at(up, key)), what, v, `from JSON: unknown value ${preview(v)}`);
}

/** How a newer enum is written in the older dialect. */
export interface EnumToOlder {
  /** The older enum's name, e.g. "a2a.v1.TaskState". */
  readonly older: string;
  /** Newer number → the dialect spelling of the older value of the same name. */
  readonly spelled: ReadonlyMap<number, string>;
  /** The older value 0's proto name, e.g. "TASK_STATE_UNSPECIFIED". */
  readonly zeroName: string;
  /** The older value 0's dialect spelling, e.g. "unknown". */
  readonly zeroSpelled: string;
}

/** The dialect spelling of a newer enum number; one the older enum lacks is reported and written as the value 0. */
export function enumOut(e: EnumToOlder, n: number, a: At, key: string, lost: Loss[]): string {
  const s = e.spelled.get(n);
  if (s !== undefined) return s;
  lose(lost, a, key, `no ${e.older} value for ${n}; written as ${e.zeroName}`);
  return e.zeroSpelled;
}

export function array(v: unknown, a: At, what: string): unknown[] {
  return Array.isArray(v) ? v : invalid(a, what, v, "an array");
}

/** A list of strings (repeated string) under `key` of the object at `up`; its path is made only for an error. */
export function strings(v: unknown, up: At, key: string, what: string): string[] {
  if (!Array.isArray(v)) return invalid(at(up, key), what, v, "an array");
  const out: string[] = new Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const s: unknown = v[i];
    out[i] = typeof s === "string" ? s : invalid(at(at(up, key), i), what, s, "a string");
  }
  return out;
}

/** Each element of a JSON list converted by `one`, with its index in the path. */
export function each<T>(
  v: unknown,
  a: At,
  what: string,
  lost: Loss[],
  one: (x: unknown, a: At, lost: Loss[]) => T,
): T[] {
  const list = array(v, a, what);
  const out: T[] = new Array(list.length);
  const el: Cursor = { up: a, key: 0 };
  for (let i = 0; i < list.length; i++) {
    el.key = i;
    out[i] = one(list[i], el, lost);
  }
  return out;
}

/**
 * Each message of a list converted by `one`, with its index in the path; an element `one` gives no
 * form for (undefined: it has reported why) is left out.
 */
export function eachOf<M, T>(
  list: readonly M[],
  a: At,
  lost: Loss[],
  one: (x: M, a: At, lost: Loss[]) => T | undefined,
): T[] {
  // Sized for every element (a list grown by push reserves more), cut to those kept.
  const out: T[] = new Array(list.length);
  let n = 0;
  const el: Cursor = { up: a, key: 0 };
  for (let i = 0; i < list.length; i++) {
    el.key = i;
    const y = one(list[i]!, el, lost);
    if (y !== undefined) out[n++] = y;
  }
  if (n < out.length) out.length = n;
  return out;
}

/** Each message of a list converted by `one`, with its index in the path. */
export function eachTo<M, T>(list: readonly M[], a: At, lost: Loss[], one: (x: M, a: At, lost: Loss[]) => T): T[] {
  const out: T[] = new Array(list.length);
  const el: Cursor = { up: a, key: 0 };
  for (let i = 0; i < list.length; i++) {
    el.key = i;
    out[i] = one(list[i]!, el, lost);
  }
  return out;
}

/** Sets `o[k]`, a key named __proto__ as an own key (records.ts `set`). */
export const setKey: <T>(o: Record<string, T>, k: string, v: T) => void = set;

/** Each value of a JSON object converted by `one`, with its key in the path (a proto map). */
export function eachKey<T>(
  v: unknown,
  a: At,
  what: string,
  lost: Loss[],
  one: (x: unknown, a: At, lost: Loss[]) => T,
): Record<string, T> {
  const o = object(v, a, what);
  const out: Record<string, T> = {};
  const keys = Object.keys(o);
  const el: Cursor = { up: a, key: "" };
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    el.key = k;
    setKey(out, k, one(o[k], el, lost));
  }
  return out;
}

/** Each value of a proto map converted by `one`, with its key in the path. */
export function eachKeyOf<M>(
  map: Readonly<Record<string, M>>,
  a: At,
  lost: Loss[],
  one: (x: M, a: At, lost: Loss[]) => JsonValue,
): JsonObject {
  const out: JsonObject = {};
  const keys = Object.keys(map);
  const el: Cursor = { up: a, key: "" };
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    el.key = k;
    setKey(out, k, one(map[k]!, el, lost));
  }
  return out;
}

/** A map<string, string> (a JSON object of strings). */
export function stringMap(v: unknown, a: At, what: string): Record<string, string> {
  const o = object(v, a, what);
  const out: Record<string, string> = {};
  const keys = Object.keys(o);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    setKey(out, k, str(o[k], at(a, k), what));
  }
  return out;
}

/** A map<string, string> written as JSON, copied. */
export function stringMapJson(map: Readonly<Record<string, string>>): JsonObject {
  const out: JsonObject = {};
  const keys = Object.keys(map);
  for (let i = 0; i < keys.length; i++) setKey(out, keys[i]!, map[keys[i]!]!);
  return out;
}

/**
 * An id of a resource name read from a2a.json under `key` of the object at `a`: a string, or a number as written;
 * "" when there is none (null too), so that the request's check names the missing id; anything else refused.
 */
export function resourceId(v: unknown, a: At, key: string, what: string): string {
  if (typeof v === "string") return v;
  if (typeof v === "number") return String(v);
  return v === undefined || v === null ? "" : invalid(at(a, key), what, v, "a string");
}

/**
 * How deep the JSON values read here (Struct and Value fields) may nest, in objects and arrays: as deep as
 * protobuf-es's fromJson reads them. Deeper is refused rather than left to exhaust the stack; the servers
 * refuse a body deeper than MAX_JSON_DEPTH (http/limits.ts) before it gets here.
 */
export const MAX_VALUE_DEPTH = 100;

/** Refuses a value that nests deeper than MAX_VALUE_DEPTH. */
const tooDeep = (a: At, what: string, v: unknown): never =>
  refuse(a, what, v, `nests deeper than ${MAX_VALUE_DEPTH} levels of objects and arrays`);

/** A deep copy of a JSON value (inside `depth` objects and arrays); anything JSON cannot hold is refused. */
export function jsonCopy(v: unknown, a: At, what: string, depth = 0): JsonValue {
  if (v === null || typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : invalid(a, what, v);
  if (typeof v !== "object") return invalid(a, what, v);
  if (depth >= MAX_VALUE_DEPTH) return tooDeep(a, what, v);
  if (Array.isArray(v)) {
    const out: JsonValue[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = jsonCopy(v[i], a, what, depth + 1);
    return out;
  }
  return objectCopy(v as Record<string, unknown>, a, what, depth + 1);
}

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * A JSON object copied: cloned whole by a spread (its keys in order, a `__proto__` key as an own key; much
 * cheaper than adding the keys one by one), then each value checked and each object or list in it copied.
 */
function objectCopy(v: Record<string, unknown>, a: At, what: string, depth: number): JsonObject {
  const out = { ...v } as JsonObject;
  for (const k in v) {
    if (!hasOwn.call(v, k)) continue;
    const x = v[k];
    if (x === null || typeof x === "string" || typeof x === "boolean") continue;
    if (typeof x === "number") {
      if (!Number.isFinite(x)) invalid(a, what, x);
    } else if (typeof x === "object") {
      const y = jsonCopy(x, a, what, depth);
      if (k !== "__proto__") out[k] = y;
      else setProto(out, y);
    } else invalid(a, what, x);
  }
  return out;
}

/** A google.protobuf.Struct field (a JSON object in protobuf-es), copied. */
export function struct(v: unknown, a: At, what: string): JsonObject {
  return isObject(v) ? (jsonCopy(v, a, what) as JsonObject) : invalid(a, what, v);
}

/**
 * An RFC 3339 date-time without its offset ("2025-04-02T16:59:25.331844"), which ISO 8601 reads as local time of
 * an unknown zone: the v0.3 specification's own examples write status timestamps so, and a2a.json asks only for
 * an ISO 8601 date-time. ProtoJSON refuses it; A2A means UTC.
 */
const ZONELESS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?$/;

/**
 * A google.protobuf.Timestamp's JSON as ProtoJSON reads it: a date-time without an offset (ZONELESS) is read as
 * UTC, "Z" added, and reported at `a` as lost; anything else as it is.
 */
export function utcTimestamp(v: JsonValue, a: At, lost: Loss[]): JsonValue {
  if (typeof v !== "string" || !ZONELESS.test(v)) return v;
  lose(lost, a, "", "the date-time has no UTC offset; read as UTC");
  return `${v}Z`;
}

/** A google.protobuf.Timestamp field read from JSON (one without an offset: utcTimestamp), `a` its message. */
export function timestamp(v: unknown, a: At, what: string, lost?: Loss[]): Timestamp {
  const json =
    lost === undefined ? v : utcTimestamp(v as JsonValue, at(a, what.slice(what.lastIndexOf(".") + 1)), lost);
  try {
    return fromJson(TimestampSchema, json as JsonValue);
  } catch {
    return invalid(a, what, v);
  }
}

/** A JSON value (inside `depth` objects and arrays) as a google.protobuf.Value message. */
// biome-ignore lint/suspicious/noShadowRestrictedNames: a public export that generated code imports by this name
export function valueOf(v: unknown, a: At, what: string, depth = 0): Value {
  switch (typeof v) {
    case "string":
      return { $typeName: VALUE, kind: { case: "stringValue", value: v } } as Value;
    case "number":
      return {
        $typeName: VALUE,
        kind: { case: "numberValue", value: Number.isFinite(v) ? v : invalid(a, what, v) },
      } as Value;
    case "boolean":
      return { $typeName: VALUE, kind: { case: "boolValue", value: v } } as Value;
    case "object":
      if (v === null) return { $typeName: VALUE, kind: { case: "nullValue", value: 0 } } as Value;
      if (depth >= MAX_VALUE_DEPTH) return tooDeep(a, what, v);
      if (Array.isArray(v)) {
        const values: Value[] = new Array(v.length);
        for (let i = 0; i < v.length; i++) values[i] = valueOf(v[i], a, what, depth + 1);
        const value = { $typeName: "google.protobuf.ListValue" as const, values };
        return { $typeName: VALUE, kind: { case: "listValue", value } } as Value;
      }
      return {
        $typeName: VALUE,
        kind: { case: "structValue", value: structMessage(v, a, what, depth + 1) },
      } as Value;
    default:
      return invalid(a, what, v);
  }
}

const VALUE = "google.protobuf.Value";

/**
 * A JSON object as a google.protobuf.Struct message: each own key's value as a Value. The fields start as
 * a spread of the object (its keys in order, `__proto__` as an own key) and each value is then replaced:
 * storing into keys a copy already has is much cheaper than adding the keys one by one.
 */
function structMessage(v: object, a: At, what: string, depth: number) {
  const fields = { ...v } as Record<string, Value>;
  for (const k in v) {
    if (!hasOwn.call(v, k)) continue;
    const x = valueOf((v as Record<string, unknown>)[k], a, what, depth);
    if (k !== "__proto__") fields[k] = x;
    else setProto(fields, x);
  }
  return { $typeName: "google.protobuf.Struct" as const, fields };
}

/** A Struct field's value (a JSON object in protobuf-es), copied for output. */
export function structJson(o: JsonObject): JsonObject {
  try {
    // A message built here may nest as deep as toJson writes it: a depth that never reaches the limit.
    return jsonCopy(o, undefined, "google.protobuf.Struct", Number.NEGATIVE_INFINITY) as JsonObject;
  } catch (e) {
    // Writing, not reading a dialect: say so.
    throw new Error(
      `cannot encode google.protobuf.Struct to JSON: ${preview((e as CompatJsonError).value)} is not a JSON value`,
    );
  }
}

/**
 * The direct conversions of a generated cross-version module, by type name: the older request (or any
 * older message) type → its JSON read as the newer message; the newer message type → the older JSON.
 */
export interface CompatJsonTable {
  readonly fromOlder: Readonly<Record<string, (json: unknown, a: At, lost: Loss[]) => Message>>;
  readonly toOlder: Readonly<Record<string, (message: never, a: At, lost: Loss[]) => JsonValue>>;
}

/** A newer message in the older a2a.json form, by the table's conversion for its type. */
export function writeOlderJson(
  table: CompatJsonTable,
  message: Message,
  onLoss: ((loss: Loss) => void) | undefined,
): { json: JsonValue; lost: Loss[] } {
  const write = table.toOlder[message.$typeName];
  if (!write) throw new Error(`compat: ${message.$typeName} has no a2a.json form`);
  const lost: Loss[] = [];
  const json = write(message as never, undefined, lost);
  return { json, lost: reportLosses(lost, onLoss) };
}

/** The older a2a.json form of `olderType` read as its newer counterpart, by the table's conversion. */
export function readOlderJson<T extends Message>(
  table: CompatJsonTable,
  olderType: string | undefined,
  json: JsonValue,
  onLoss: ((loss: Loss) => void) | undefined,
): { message: T; lost: Loss[] } {
  const read = olderType === undefined ? undefined : table.fromOlder[olderType];
  if (!read) throw new Error(`compat: no a2a.json form for ${olderType ?? "a message without a counterpart"}`);
  const lost: Loss[] = [];
  const message = read(json, undefined, lost) as T;
  return { message, lost: reportLosses(lost, onLoss) };
}

export { base64, timestampJson, valueJson } from "../core/protojson-values.js";

// ---- the generated a2a.json codec's primitives ----

/** One message's half of a generated a2a.json codec: ProtoJSON → a2a.json, or back. */
export type JsonCoder = (json: JsonValue, a: At, lost: Loss[]) => JsonValue;

/** A message type's encoder (ProtoJSON → a2a.json) and decoder (a2a.json → ProtoJSON). */
export interface MessageCoders {
  readonly encode: JsonCoder;
  readonly decode: JsonCoder;
}

export const isJsonObject = (v: JsonValue | undefined): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Each item of a list converted by `one`, with its index in the path; anything else converted whole. */
export function eachJson(v: JsonValue, a: At, lost: Loss[], one: JsonCoder): JsonValue {
  if (!Array.isArray(v)) return one(v, a, lost);
  const out: JsonValue[] = new Array(v.length);
  const el: Cursor = { up: a, key: 0 };
  for (let i = 0; i < v.length; i++) {
    el.key = i;
    out[i] = one(v[i]!, el, lost);
  }
  return out;
}

/** Each value of a map converted by `one`, with its key in the path; anything else converted whole. */
export function mapJson(v: JsonValue, a: At, lost: Loss[], one: JsonCoder): JsonValue {
  if (!isJsonObject(v)) return one(v, a, lost);
  return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, one(x, at(a, k), lost)]));
}

/** The id at the key path `keys` of a dialect object at `a`, as resourceId reads it (`what`: the message). */
export function nameId(x: JsonObject, a: At, what: string, ...keys: string[]): string {
  let v: JsonValue | undefined = x;
  for (const k of keys) v = isJsonObject(v) ? v[k] : undefined;
  const key = keys.join(".");
  return resourceId(v, a, key, `${what} ${key}`);
}

/**
 * A resource name from its pattern's pieces: text as it is, each key path (an array) as nameId reads it; ""
 * when the first id is missing, so that a request without its task id has no name (its check names that id)
 * rather than "tasks/" or "tasks//pushNotificationConfigs/c1".
 */
export function resourceName(
  x: JsonObject,
  a: At,
  what: string,
  ...pieces: readonly (string | readonly string[])[]
): string {
  let out = "";
  let first = true;
  for (const p of pieces) {
    if (typeof p === "string") out += p;
    else {
      const id = nameId(x, a, what, ...p);
      if (first && id === "") return "";
      first = false;
      out += id;
    }
  }
  return out;
}

/** `value` over `prev`: two objects merged key by key (deeply), anything else replaced. */
export function mergeJson(prev: JsonValue | undefined, value: JsonValue): JsonValue {
  if (!isJsonObject(prev) || !isJsonObject(value)) return value;
  const out: JsonObject = { ...prev };
  for (const [k, v] of Object.entries(value)) out[k] = mergeJson(out[k], v);
  return out;
}

/** A typed union's member in a2a.json: the member's object with its `type` first. */
export const withType = (type: string, v: JsonValue): JsonObject => ({ type, ...(v as JsonObject) });

/**
 * The codec over a generated table (message type name → its coders): what a coder loses is passed to
 * `onDrop` in order, also when it then refuses the value.
 */
export function jsonRpcCodec(coders: Readonly<Record<string, MessageCoders>>, names: JsonRpcNames): JsonRpcCodec {
  const of = (desc: DescMessage): MessageCoders => {
    if (!Object.hasOwn(coders, desc.typeName)) throw new Error(`a2a.json codec: no coders for ${desc.typeName}`);
    return coders[desc.typeName]!;
  };
  const run = (one: JsonCoder, json: JsonValue, onDrop: OnDrop | undefined): JsonValue => {
    const lost: Loss[] = [];
    try {
      return one(json, undefined, lost);
    } finally {
      if (onDrop) for (const l of lost) onDrop(l.path, l.reason);
    }
  };
  return {
    names,
    encode: (desc, json, onDrop) => run(of(desc).encode, json, onDrop),
    decode: (desc, json, onDrop) => run(of(desc).decode, json, onDrop),
  };
}
