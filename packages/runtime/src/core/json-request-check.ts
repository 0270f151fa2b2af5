/**
 * Request checks on the JSON as it arrived, for what decoding would hide:
 *
 *   enum names   a string that names no value of the field's enum (nor, on a
 *                JSON-RPC binding with a dialect, one of its spellings such as
 *                "user") is refused; ProtoJSON decoding with unknown fields
 *                ignored would leave the field unset
 *   integers     an integer field given as a string must write a decimal
 *                number (`"16"`, `"1e2"`; ProtoJSON's forms): protobuf-es reads
 *                it with Number(), which also takes "0x10", "0b1" and "0o7";
 *                a string that is no number at all is left to the decoder
 *   part kind    with a dialect (v0.3 a2a.json), a part must carry `kind`
 *                (TextPart, FilePart and DataPart all require it); it is not
 *                guessed from the members present
 *
 * The walk follows the request descriptor through the keys the JSON holds
 * (ProtoJSON names, proto names, and the dialect's renamed keys; a wrapper
 * request's JSON is its wrapped field's). Unknown keys are left to the
 * decoder; google.protobuf.* values are not entered. The first problem is
 * returned as text naming its path in the JSON (`message.role`,
 * `message.parts[0].kind`). Only requests are checked: results keep the
 * decoders' leniency.
 */
import { type DescField, type DescMessage, type JsonValue, ScalarType } from "@bufbuild/protobuf";
import type { JsonRpcNames } from "./conversion-types.js";
import { messageOf } from "./message-fields.js";

/** One field the walk looks at: an enum, an integer, or a message below which something is checked. */
interface Watched {
  readonly field: DescField;
  /** The keys the JSON may hold it under: ProtoJSON name, proto name, the dialect's rename. */
  readonly keys: readonly string[];
  /** For a message field: its type. */
  readonly sub: DescMessage | undefined;
}

interface Shape {
  readonly watched: readonly Watched[];
  /** The field whose message the JSON is (a dialect wrapper), if any. */
  readonly wrapped: DescField | undefined;
  /** The dialect's part: `kind` required, nothing below it checked. */
  readonly part: boolean;
}

type Shapes = (m: DescMessage) => Shape;

/** Shapes per message name: without a dialect, and per dialect table. */
let plainShapes: Shapes | undefined;
const dialectShapes = new WeakMap<JsonRpcNames, Shapes>();

/** What is wrong with `json` as a request of type `desc`, or undefined. */
export function jsonRequestProblem(
  desc: DescMessage,
  json: JsonValue,
  dialect?: JsonRpcNames | null,
): string | undefined {
  const d = dialect ?? undefined;
  let shapes = d ? dialectShapes.get(d) : plainShapes;
  if (!shapes) {
    shapes = shaper(d);
    if (d) dialectShapes.set(d, shapes);
    else plainShapes = shapes;
  }
  return visit(desc, json, "", shapes, d);
}

function visit(
  m: DescMessage,
  json: JsonValue,
  path: string,
  shapes: Shapes,
  dialect: JsonRpcNames | undefined,
): string | undefined {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
  const s = shapes(m);
  if (s.part) return typeof json["kind"] === "string" ? undefined : `${join(path, "kind")} is required`;
  if (s.wrapped?.fieldKind === "message") return visit(s.wrapped.message, json, path, shapes, dialect);
  for (const { field: f, keys, sub } of s.watched) {
    for (const k of keys) {
      if (!Object.hasOwn(json, k)) continue;
      const v = json[k];
      if (v === null || v === undefined) continue;
      const problem = sub ? messages(f, sub, v, join(path, k), shapes, dialect) : values(f, v, path, k, dialect);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** Visits the message value, or each item of a list or map of messages. */
function messages(
  f: DescField,
  m: DescMessage,
  v: JsonValue,
  at: string,
  shapes: Shapes,
  dialect: JsonRpcNames | undefined,
): string | undefined {
  if (f.fieldKind === "list" && Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const problem = visit(m, v[i]!, `${at}[${i}]`, shapes, dialect);
      if (problem) return problem;
    }
    return undefined;
  }
  if (f.fieldKind === "map" && typeof v === "object" && !Array.isArray(v)) {
    for (const k of Object.keys(v!)) {
      const problem = visit(m, v![k]!, join(at, k), shapes, dialect);
      if (problem) return problem;
    }
    return undefined;
  }
  return visit(m, v, at, shapes, dialect);
}

/** Checks an enum or integer value, or each item of a list of them; the path is built only for a problem. */
function values(
  f: DescField,
  v: JsonValue,
  path: string,
  key: string,
  dialect: JsonRpcNames | undefined,
): string | undefined {
  if (f.fieldKind === "list" && Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const problem = valueProblem(f, v[i]!, dialect);
      if (problem) return `${join(path, key)}[${i}]: ${problem}`;
    }
    return undefined;
  }
  const problem = valueProblem(f, v, dialect);
  return problem && `${join(path, key)}: ${problem}`;
}

/** ProtoJSON's string forms of an integer: a decimal number, with a fraction and an exponent allowed. */
const DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * A string Number() reads as a number though it is no decimal one ("0x10"); the decoder names any other, and
 * the empty and space-padded ones it refuses itself.
 */
const nonDecimal = (v: string) => !DECIMAL.test(v) && v.trim() === v && v !== "" && !Number.isNaN(Number(v));

/**
 * Why an enum or integer value is refused, or undefined: an enum's string naming no value (nor a dialect
 * spelling of one), an integer's string that is no decimal number.
 */
function valueProblem(f: DescField, v: JsonValue, dialect: JsonRpcNames | undefined): string | undefined {
  if (typeof v !== "string") return undefined;
  if (!f.enum) return nonDecimal(v) ? `${JSON.stringify(v).slice(0, 60)} is not a decimal integer` : undefined;
  if (f.enum.values.some((x) => x.name === v)) return undefined;
  if (dialect && f.enum.values.some((x) => dialect.enums[x.name] === v)) return undefined;
  return `unknown value ${JSON.stringify(v).slice(0, 60)} for ${f.enum.typeName}`;
}

/** Shapes built once per message type; a field is watched only when something below it can be refused. */
function shaper(d: JsonRpcNames | undefined): Shapes {
  const cache = new Map<string, Shape>();
  const matters = new Map<string, boolean>();
  const isPart = (m: DescMessage) => d?.part === m.typeName;
  const wrapperOf = (m: DescMessage) => d?.wrappers.find((x) => x.message === m.typeName);
  const isEnum = (f: DescField) => f.fieldKind === "enum" || (f.fieldKind === "list" && f.listKind === "enum");
  const isValue = (f: DescField) => isEnum(f) || isInteger(f);
  const leadsOn = (m: DescMessage | undefined): boolean => m !== undefined && matter(m);
  const matter = (m: DescMessage): boolean => {
    const known = matters.get(m.typeName);
    if (known !== undefined) return known;
    matters.set(m.typeName, true); // a cycle: assume something below it, which only costs a visit
    const yes = isPart(m) || wrapperOf(m) !== undefined || m.fields.some((f) => isValue(f) || leadsOn(messageOf(f)));
    matters.set(m.typeName, yes);
    return yes;
  };
  return (m) => {
    let s = cache.get(m.typeName);
    if (s) return s;
    const watched: Watched[] = [];
    for (const f of m.fields) {
      const below = messageOf(f);
      if (!isValue(f) && !(below && matter(below))) continue;
      const renamed = d?.renames[`${m.typeName}.${f.name}`];
      const keys = [...new Set([f.jsonName, f.name, ...(renamed ? [renamed] : [])])];
      watched.push({ field: f, keys, sub: isValue(f) ? undefined : below });
    }
    const w = wrapperOf(m);
    s = { watched, wrapped: w && m.fields.find((f) => f.name === w.field), part: isPart(m) };
    cache.set(m.typeName, s);
    return s;
  };
}

const INTEGERS: ReadonlySet<ScalarType> = new Set([
  ScalarType.INT32,
  ScalarType.INT64,
  ScalarType.UINT32,
  ScalarType.UINT64,
  ScalarType.SINT32,
  ScalarType.SINT64,
  ScalarType.FIXED32,
  ScalarType.FIXED64,
  ScalarType.SFIXED32,
  ScalarType.SFIXED64,
]);

/** An integer field, or a list of integers (a map's values are not entered). */
function isInteger(f: DescField): boolean {
  if (f.fieldKind === "scalar") return INTEGERS.has(f.scalar);
  return f.fieldKind === "list" && f.listKind === "scalar" && INTEGERS.has(f.scalar);
}

const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);
