/**
 * ProtoJSON forms written and read as protobuf-es toJson/fromJson do, made
 * for the many small values of A2A messages (compat-json.ts uses them; tests
 * compare each with protobuf-es): base64 written twelve bytes a step (one
 * String.fromCharCode call each) and read four characters a step, RFC 3339
 * timestamps from the civil date (the last day's date part kept for the
 * next), google.protobuf.Value as JSON. Anything unusual is left to
 * protobuf-es, which then decides.
 */
import { toJson, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { TimestampSchema, type Timestamp, type Value } from "@bufbuild/protobuf/wkt";

const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** Each base64 digit's character code. */
const B64_CODES = Uint8Array.from(B64, (c) => c.charCodeAt(0));
/** The character codes of one step (at most 16 characters), written before they become a string. */
const step = new Uint8Array(16);
const fromCodes = String.fromCharCode;

/**
 * Standard base64 with padding, as toJson writes bytes: twelve bytes a step, their sixteen characters made
 * by one String.fromCharCode call (much cheaper than joining short strings), then the rest the same way.
 */
export function base64(b: Uint8Array): string {
  if (b.length > 1024) return base64Encode(b);
  const n = b.length;
  const s = step;
  let out = "";
  let i = 0;
  for (; i + 12 <= n; i += 12) {
    for (let k = 0; k < 4; k++) {
      const j = i + 3 * k;
      quad(s, 4 * k, (b[j]! << 16) | (b[j + 1]! << 8) | b[j + 2]!);
    }
    out += sixteen(s);
  }
  // The last 0 to 11 bytes: whole groups, then one or two bytes with their padding.
  let o = 0;
  for (; i + 3 <= n; i += 3, o += 4) quad(s, o, (b[i]! << 16) | (b[i + 1]! << 8) | b[i + 2]!);
  if (n - i === 1) {
    quad(s, o, b[i]! << 16);
    s[o + 2] = 61;
    s[o + 3] = 61;
    o += 4;
  } else if (n - i === 2) {
    quad(s, o, (b[i]! << 16) | (b[i + 1]! << 8));
    s[o + 3] = 61;
    o += 4;
  }
  return o === 0 ? out : out + lastStep(s, o);
}

/** The four characters of a 24-bit group into `s` at `o`. */
function quad(s: Uint8Array, o: number, v: number): void {
  const c = B64_CODES;
  s[o] = c[v >> 18]!;
  s[o + 1] = c[(v >> 12) & 63]!;
  s[o + 2] = c[(v >> 6) & 63]!;
  s[o + 3] = c[v & 63]!;
}

/** The first 4, 8, 12 or 16 character codes of `s` as a string. */
function lastStep(s: Uint8Array, o: number): string {
  if (o === 4) return fromCodes(s[0]!, s[1]!, s[2]!, s[3]!);
  if (o === 8) return fromCodes(s[0]!, s[1]!, s[2]!, s[3]!, s[4]!, s[5]!, s[6]!, s[7]!);
  if (o === 12) return fromCodes(s[0]!, s[1]!, s[2]!, s[3]!, s[4]!, s[5]!, s[6]!, s[7]!, s[8]!, s[9]!, s[10]!, s[11]!);
  return sixteen(s);
}

/** The 16 character codes of `s` as a string, in one call (no spread: an argument list is faster). */
function sixteen(s: Uint8Array): string {
  return fromCodes(
    s[0]!,
    s[1]!,
    s[2]!,
    s[3]!,
    s[4]!,
    s[5]!,
    s[6]!,
    s[7]!,
    s[8]!,
    s[9]!,
    s[10]!,
    s[11]!,
    s[12]!,
    s[13]!,
    s[14]!,
    s[15]!,
  );
}

/** Each base64 character's value, standard and URL-safe alphabets; -1 elsewhere. */
const B64_VALUE = (() => {
  const t = new Int8Array(128).fill(-1);
  for (let i = 0; i < 64; i++) t[B64.charCodeAt(i)] = i;
  t[45] = 62; // -
  t[95] = 63; // _
  return t;
})();

/**
 * Plain base64 (no whitespace, padding only at the end), decoded four characters at a time; undefined for
 * anything else, which base64Decode then reads (or refuses) as protobuf-es does.
 */
export function base64Read(s: string): Uint8Array | undefined {
  let end = s.length;
  while (end > 0 && s.charCodeAt(end - 1) === 61) end--;
  if (s.length - end > 2 || end % 4 === 1) return undefined;
  const out = new Uint8Array((end * 3) >> 2);
  const value = B64_VALUE;
  let o = 0;
  let i = 0;
  for (; i + 4 <= end; i += 4) {
    const c0 = s.charCodeAt(i);
    const c1 = s.charCodeAt(i + 1);
    const c2 = s.charCodeAt(i + 2);
    const c3 = s.charCodeAt(i + 3);
    // One test for the four: each a character of the table, and each its value (-1: not base64).
    if ((c0 | c1 | c2 | c3) > 127) return undefined;
    const n = (value[c0]! << 18) | (value[c1]! << 12) | (value[c2]! << 6) | value[c3]!;
    if (n < 0) return undefined;
    out[o] = n >> 16;
    out[o + 1] = (n >> 8) & 255;
    out[o + 2] = n & 255;
    o += 3;
  }
  if (end - i >= 2) {
    const c0 = b64(s, i);
    const c1 = b64(s, i + 1);
    const c2 = end - i === 3 ? b64(s, i + 2) : 0;
    if ((c0 | c1 | c2) < 0) return undefined;
    out[o++] = (c0 << 2) | (c1 >> 4);
    if (end - i === 3) out[o++] = ((c1 & 15) << 4) | (c2 >> 2);
  }
  return out;
}

/** The value of the base64 character at `k` of `s`; -1 for one that is not. */
const b64 = (s: string, k: number): number => {
  const c = s.charCodeAt(k);
  return c < 128 ? B64_VALUE[c]! : -1;
};

/** RFC 3339 as toJson writes it (0, 3, 6 or 9 fractional digits); out of range, toJson says why. */
export function timestampJson(t: Timestamp): string {
  const seconds = Number(t.seconds);
  const nanos = t.nanos;
  if (
    !(seconds >= MIN_TIMESTAMP_S && seconds <= MAX_TIMESTAMP_S) ||
    !Number.isInteger(nanos) ||
    nanos < 0 ||
    nanos > 999_999_999
  )
    return toJson(TimestampSchema, t) as string;
  const days = Math.floor(seconds / 86400);
  const sod = seconds - days * 86400;
  const minutes = Math.floor(sod / 60);
  const out =
    datePart(days) +
    DIGITS2[Math.floor(minutes / 60)]! +
    ":" +
    DIGITS2[minutes % 60]! +
    ":" +
    DIGITS2[sod - minutes * 60]!;
  if (nanos === 0) return out + "Z";
  // The fraction in groups of three digits, as few groups as hold it.
  const ms = Math.floor(nanos / 1_000_000);
  const rest = nanos - ms * 1_000_000;
  if (rest === 0) return out + "." + DIGITS3[ms]! + "Z";
  const us = Math.floor(rest / 1000);
  const ns = rest - us * 1000;
  return out + "." + DIGITS3[ms]! + DIGITS3[us]! + (ns === 0 ? "" : DIGITS3[ns]!) + "Z";
}

/** The last day written, as "YYYY-MM-DDT": the timestamps of one message are mostly of one day. */
let lastDay = Number.NaN;
let lastDayPart = "";

/** "YYYY-MM-DDT" of a day since 1970-01-01: the civil date by H. Hinnant's days_from_civil, inverted. */
function datePart(days: number): string {
  if (days === lastDay) return lastDayPart;
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  lastDayPart = `${String(year).padStart(4, "0")}-${DIGITS2[month]!}-${DIGITS2[day]!}T`;
  lastDay = days;
  return lastDayPart;
}

/** "00" to "99", and "000" to "999". */
const DIGITS2 = Array.from({ length: 100 }, (_, i) => String(i + 100).slice(1));
const DIGITS3 = Array.from({ length: 1000 }, (_, i) => String(i + 1000).slice(1));

/** 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z, the range of ProtoJSON timestamps. */
const MIN_TIMESTAMP_S = -62135596800;
const MAX_TIMESTAMP_S = 253402300799;

/**
 * A google.protobuf.Value message as JSON; like toJson, it refuses a Value without a kind and a number JSON
 * cannot hold (NaN, ±Infinity), which JSON.stringify would write as null.
 */
export function valueJson(v: Value): JsonValue {
  const k = v.kind;
  switch (k.case) {
    case "numberValue":
      return Number.isFinite(k.value) ? k.value : notFinite();
    case "stringValue":
    case "boolValue":
      return k.value;
    case "listValue":
      return listJson(k.value.values);
    case "structValue":
      return structFieldsJson(k.value.fields);
    case "nullValue":
      return null;
    default:
      // As toJson: a Value must hold one of its kinds.
      throw new Error("google.protobuf.Value must have a value");
  }
}

/** As toJson says it: the number of a Value that JSON cannot hold. */
const notFinite = (): never => {
  throw new Error("google.protobuf.Value cannot be NaN or Infinity");
};

/** A list's values as JSON; a finite number, a string or a bool read in place, without a call. */
function listJson(list: readonly Value[]): JsonValue[] {
  const out: JsonValue[] = new Array(list.length);
  for (let i = 0; i < list.length; i++) out[i] = inPlace(list[i]!);
  return out;
}

/** A Value as JSON, a finite number, a string or a bool read in place (the common case), else by valueJson. */
function inPlace(v: Value): JsonValue {
  const k = v.kind;
  return k.case === "stringValue" || k.case === "boolValue" || (k.case === "numberValue" && Number.isFinite(k.value))
    ? k.value
    : valueJson(v);
}

/**
 * A Struct's fields as a JSON object: a spread of the fields (keys in order, `__proto__` as an own key), each
 * value then replaced (storing into keys a copy already has is much cheaper than adding the keys one by one);
 * a finite number, a string or a bool read in place.
 */
function structFieldsJson(fields: Readonly<Record<string, Value>>): JsonObject {
  const out: Record<string, JsonValue | Value> = { ...fields };
  for (const key in fields) {
    if (!hasOwn.call(fields, key)) continue;
    const x = inPlace(fields[key]!);
    if (key !== "__proto__") out[key] = x;
    else setProto(out, x);
  }
  return out as JsonObject;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** Sets an own property "__proto__" (a plain assignment would set the prototype); callers test the key inline. */
export function setProto(o: Record<string, unknown>, v: unknown): void {
  Object.defineProperty(o, "__proto__", { value: v, enumerable: true, writable: true, configurable: true });
}
