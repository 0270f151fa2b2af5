/**
 * What the generated direct conversions (a2a_compat.ts: the older
 * version's JSON-RPC dialect ↔ the newer version's messages, in one pass)
 * call at run time:
 *
 *   reading      ProtoJSON scalars, checked as fromJson checks them; a wrong
 *                type throws CompatJsonError naming the field and its path
 *   paths        a chain of keys, made into a string only when something is
 *                lost or wrong (so a conversion that loses nothing builds none)
 *   copies       Struct values are deep-copied, so output never aliases input
 *   fallback     messages the generator does not convert directly go through
 *                the older proto: dialect codec → fromJson → plan converter
 */
import { fromJson, toJson, type DescMessage, type JsonObject, type JsonValue, type Message, type Registry } from "@bufbuild/protobuf";
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import { TimestampSchema, type Timestamp, type Value } from "@bufbuild/protobuf/wkt";
import type { Converter, Loss } from "./compat-convert.js";
import type { DialectCodec } from "./jsonrpc-dialect.js";

/** Where a value sits: a chain of keys up to the root (undefined), made a string only for a loss or an error. */
export type At = { readonly up: At; readonly key: string | number } | undefined;

export const at = (up: At, key: string | number): At => ({ up, key });

export function pathOf(a: At): string {
  if (a === undefined) return "";
  const up = pathOf(a.up);
  const k = a.key;
  return typeof k === "number" ? up + "[" + k + "]" : up === "" ? k : up + "." + k;
}

/** Passes each loss to `onLoss`, if given; returns the list. */
export function reportLosses(lost: Loss[], onLoss: ((loss: Loss) => void) | undefined): Loss[] {
  if (onLoss) for (const l of lost) onLoss(l);
  return lost;
}

export function lose(lost: Loss[], a: At, key: string, reason: string): void {
  const up = pathOf(a);
  lost.push({ path: up === "" ? key : up + "." + key, reason });
}

/** A dialect value that the older proto cannot read (fromJson would refuse it too). */
export class CompatJsonError extends Error {
  constructor(
    readonly path: string,
    what: string,
    value: unknown,
  ) {
    super(`cannot decode ${what}${path ? ` at ${path}` : ""} from JSON: ${preview(value)}`);
    this.name = "CompatJsonError";
  }
}

const preview = (v: unknown) => {
  const s = typeof v === "string" ? JSON.stringify(v) : Array.isArray(v) ? "array" : v === null ? "null" : typeof v === "object" ? "object" : String(v);
  return s.length > 40 ? s.slice(0, 37) + "..." : s;
};

export const invalid = (a: At, what: string, v: unknown): never => {
  throw new CompatJsonError(pathOf(a), what, v);
};

export const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function object(v: unknown, a: At, what: string): Record<string, unknown> {
  return isObject(v) ? v : invalid(a, what, v);
}

export function str(v: unknown, a: At, what: string): string {
  return typeof v === "string" ? v : invalid(a, what, v);
}

export function bool(v: unknown, a: At, what: string): boolean {
  return typeof v === "boolean" ? v : invalid(a, what, v);
}

/** int32 as ProtoJSON reads it: an integral number, or a string holding one. */
export function int32(v: unknown, a: At, what: string): number {
  const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
  return typeof n === "number" && Number.isInteger(n) && n >= -2147483648 && n <= 2147483647 ? n : invalid(a, what, v);
}

/** bytes as ProtoJSON reads them: base64, standard or URL-safe. */
export function bytes(v: unknown, a: At, what: string): Uint8Array {
  if (typeof v !== "string") return invalid(a, what, v);
  const quick = base64Quick(v);
  if (quick) return quick;
  try {
    return base64Decode(v);
  } catch {
    return invalid(a, what, v);
  }
}

/** Each base64 character's value, standard and URL-safe alphabets; -1 elsewhere. */
const B64_VALUE = (() => {
  const t = new Int8Array(128).fill(-1);
  for (let i = 0; i < 64; i++) t["ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".charCodeAt(i)] = i;
  t[45] = 62; // -
  t[95] = 63; // _
  return t;
})();

/**
 * Plain base64 (no whitespace, padding only at the end), decoded four characters at a time; undefined for
 * anything else, which base64Decode then reads (or refuses) as protobuf-es does.
 */
function base64Quick(s: string): Uint8Array | undefined {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 61) end--;
  if (s.length - end > 2 || end % 4 === 1) return undefined;
  const out = new Uint8Array((end * 3) >> 2);
  let o = 0;
  let i = 0;
  const at = (k: number) => {
    const c = s.charCodeAt(k);
    return c < 128 ? B64_VALUE[c]! : -1;
  };
  for (; i + 4 <= end; i += 4) {
    const c0 = at(i), c1 = at(i + 1), c2 = at(i + 2), c3 = at(i + 3);
    if ((c0 | c1 | c2 | c3) < 0) return undefined;
    const n = (c0 << 18) | (c1 << 12) | (c2 << 6) | c3;
    out[o++] = n >> 16;
    out[o++] = (n >> 8) & 255;
    out[o++] = n & 255;
  }
  if (end - i >= 2) {
    const c0 = at(i), c1 = at(i + 1), c2 = end - i === 3 ? at(i + 2) : 0;
    if ((c0 | c1 | c2) < 0) return undefined;
    out[o++] = (c0 << 2) | (c1 >> 4);
    if (end - i === 3) out[o++] = ((c1 & 15) << 4) | (c2 >> 2);
  }
  return out;
}

/**
 * An enum value read as fromJson reads it (ignoring unknown names), then mapped to the newer number:
 * `table` holds the dialect spelling, the proto name and the number of each older value.
 */
export function enumIn(table: ReadonlyMap<string | number, number>, v: unknown, a: At, what: string): number {
  if (typeof v === "string") return table.get(v) ?? 0;
  if (typeof v === "number" && Number.isInteger(v)) return table.get(v) ?? v;
  return invalid(a, what, v);
}

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** Each 12-bit value as its two base64 characters, built on first use. */
let b64Pairs: string[] | undefined;

/** Standard base64 with padding, as toJson writes bytes; three bytes per step through a table of character pairs. */
export function base64(b: Uint8Array): string {
  if (b.length > 1024) return base64Encode(b);
  const pairs = (b64Pairs ??= Array.from({ length: 4096 }, (_, i) => B64[i >> 6]! + B64[i & 63]!));
  const whole = b.length - (b.length % 3);
  let out = "";
  for (let i = 0; i < whole; i += 3) {
    const v = (b[i]! << 16) | (b[i + 1]! << 8) | b[i + 2]!;
    out += pairs[v >> 12]! + pairs[v & 4095]!;
  }
  if (b.length - whole === 1) out += pairs[b[whole]! << 4]! + "==";
  else if (b.length - whole === 2) {
    const v = (b[whole]! << 10) | (b[whole + 1]! << 2);
    out += pairs[v >> 6]! + B64[v & 63]! + "=";
  }
  return out;
}

export function array(v: unknown, a: At, what: string): unknown[] {
  return Array.isArray(v) ? v : invalid(a, what, v);
}

/** A list of strings (repeated string). */
export function strings(v: unknown, a: At, what: string): string[] {
  const list = array(v, a, what);
  const out: string[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) out[i] = str(list[i], at(a, i), what);
  return out;
}

/** Each element of a JSON list converted by `one`, with its index in the path. */
export function each<T>(v: unknown, a: At, what: string, lost: Loss[], one: (x: unknown, a: At, lost: Loss[]) => T): T[] {
  const list = array(v, a, what);
  const out: T[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) out[i] = one(list[i], at(a, i), lost);
  return out;
}

/** Each message of a list converted by `one`, with its index in the path. */
export function eachOf<M, T>(list: readonly M[], a: At, lost: Loss[], one: (x: M, a: At, lost: Loss[]) => T): T[] {
  const out: T[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) out[i] = one(list[i]!, at(a, i), lost);
  return out;
}

/** Sets an own property "__proto__" (a plain assignment would set the prototype); callers test the key inline. */
function setProto(o: Record<string, unknown>, v: unknown): void {
  Object.defineProperty(o, "__proto__", { value: v, enumerable: true, writable: true, configurable: true });
}

/** A deep copy of a JSON value; anything JSON cannot hold is refused. */
export function jsonCopy(v: unknown, a: At, what: string): JsonValue {
  if (v === null || typeof v === "string" || typeof v === "boolean") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : invalid(a, what, v);
  if (Array.isArray(v)) {
    const out: JsonValue[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) out[i] = jsonCopy(v[i], a, what);
    return out;
  }
  if (typeof v === "object") {
    const out: JsonObject = {};
    const keys = Object.keys(v);
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const x = jsonCopy((v as Record<string, unknown>)[k], a, what);
      if (k !== "__proto__") out[k] = x;
      else setProto(out, x);
    }
    return out;
  }
  return invalid(a, what, v);
}

/** A google.protobuf.Struct field (a JSON object in protobuf-es), copied. */
export function struct(v: unknown, a: At, what: string): JsonObject {
  return isObject(v) ? (jsonCopy(v, a, what) as JsonObject) : invalid(a, what, v);
}

export function timestamp(v: unknown, a: At, what: string): Timestamp {
  try {
    return fromJson(TimestampSchema, v as JsonValue);
  } catch {
    return invalid(a, what, v);
  }
}

/** RFC 3339 as toJson writes it (0, 3, 6 or 9 fractional digits); out of range, toJson says why. */
export function timestampJson(t: Timestamp): string {
  const seconds = Number(t.seconds);
  if (!(seconds >= MIN_TIMESTAMP_S && seconds <= MAX_TIMESTAMP_S) || !Number.isInteger(t.nanos) || t.nanos < 0 || t.nanos > 999_999_999) return toJson(TimestampSchema, t) as string;
  const days = Math.floor(seconds / 86400);
  const sod = seconds - days * 86400;
  // Civil date from days since 1970-01-01 (H. Hinnant's days_from_civil, inverted).
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const two = (n: number) => (n < 10 ? "0" + n : String(n));
  let out = `${String(year).padStart(4, "0")}-${two(month)}-${two(day)}T${two(Math.floor(sod / 3600))}:${two(Math.floor(sod / 60) % 60)}:${two(sod % 60)}`;
  if (t.nanos !== 0) {
    let frac = String(t.nanos + 1_000_000_000).slice(1);
    if (frac.endsWith("000000")) frac = frac.slice(0, 3);
    else if (frac.endsWith("000")) frac = frac.slice(0, 6);
    out += "." + frac;
  }
  return out + "Z";
}

/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, the range of ProtoJSON timestamps. */
const MIN_TIMESTAMP_S = -62135596800;
const MAX_TIMESTAMP_S = 253402300799;

/** A JSON value as a google.protobuf.Value message. */
export function valueOf(v: unknown, a: At, what: string): Value {
  const kind =
    v === null
      ? { case: "nullValue" as const, value: 0 }
      : typeof v === "number"
        ? { case: "numberValue" as const, value: Number.isFinite(v) ? v : invalid(a, what, v) }
        : typeof v === "string"
          ? { case: "stringValue" as const, value: v }
          : typeof v === "boolean"
            ? { case: "boolValue" as const, value: v }
            : Array.isArray(v)
              ? { case: "listValue" as const, value: { $typeName: "google.protobuf.ListValue" as const, values: v.map((x: unknown) => valueOf(x, a, what)) } }
              : isObject(v)
                ? { case: "structValue" as const, value: structMessage(v, a, what) }
                : invalid(a, what, v);
  return { $typeName: "google.protobuf.Value", kind } as Value;
}

function structMessage(v: Record<string, unknown>, a: At, what: string) {
  const fields: Record<string, Value> = {};
  const keys = Object.keys(v);
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i]!;
    const x = valueOf(v[k], a, what);
    if (k !== "__proto__") fields[k] = x;
    else setProto(fields, x);
  }
  return { $typeName: "google.protobuf.Struct" as const, fields };
}

/** A google.protobuf.Value message as JSON (an unset kind is null, as toJson writes it). */
export function valueJson(v: Value): JsonValue {
  const k = v.kind;
  switch (k.case) {
    case "numberValue":
    case "stringValue":
    case "boolValue":
      return k.value;
    case "listValue": {
      const list = k.value.values;
      const out: JsonValue[] = new Array(list.length);
      for (let i = 0; i < list.length; i++) out[i] = valueJson(list[i]!);
      return out;
    }
    case "structValue": {
      const out: JsonObject = {};
      const fields = k.value.fields;
      for (const key in fields) {
        const x = valueJson(fields[key]!);
        if (key !== "__proto__") out[key] = x;
        else setProto(out, x);
      }
      return out;
    }
    case "nullValue":
      return null;
    default:
      // As toJson: a Value must hold one of its kinds.
      throw new Error("google.protobuf.Value must have a value");
  }
}

/** A Struct field's value (a JSON object in protobuf-es), copied for output. */
export const structJson = (o: JsonObject): JsonObject => jsonCopy(o, undefined, "google.protobuf.Struct") as JsonObject;

/**
 * The direct conversions of a generated cross-version module, by type name: the older request (or any
 * older message) type → its JSON read as the newer message; the newer message type → the older JSON.
 */
export interface CompatJsonTable {
  readonly fromOlder: Readonly<Record<string, (json: unknown, a: At, lost: Loss[]) => Message>>;
  readonly toOlder: Readonly<Record<string, (message: never, a: At, lost: Loss[]) => JsonValue>>;
}

/** Conversion through the older proto, for messages without a direct conversion. */
export interface ViaProto {
  toNewer(olderType: string, json: unknown, a: At, lost: Loss[]): Message;
  toOlder(message: Message, a: At, lost: Loss[]): JsonValue;
}

export function viaProto(converter: Converter, dialect: DialectCodec): ViaProto {
  const registry: Registry = converter.registry;
  const desc = (name: string): DescMessage => {
    const d = registry.getMessage(name);
    if (!d) throw new Error(`compat: no message ${name}`);
    return d;
  };
  const prefix = (a: At, path: string) => {
    const p = pathOf(a);
    return p === "" ? path : path === "" ? p : path.startsWith("[") ? p + path : `${p}.${path}`;
  };
  return {
    toNewer(olderType, json, a, lost) {
      const d = desc(olderType);
      let older: Message;
      try {
        older = fromJson(d, dialect.decode(d, json as JsonValue, (path, reason) => lost.push({ path: prefix(a, path), reason })), { ignoreUnknownFields: true });
      } catch (e) {
        throw new CompatJsonError(pathOf(a), `${olderType} (${(e as Error).message})`, json);
      }
      return converter.convert(older, "toNewer", (l) => lost.push({ path: prefix(a, l.path), reason: l.reason })).message;
    },
    toOlder(message, a, lost) {
      const older = converter.convert(message, "toOlder", (l) => lost.push({ path: prefix(a, l.path), reason: l.reason })).message;
      const d = desc(older.$typeName);
      return dialect.encode(d, toJson(d, older));
    },
  };
}
