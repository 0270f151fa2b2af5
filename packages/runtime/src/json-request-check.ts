/**
 * Request checks on the JSON as it arrived, for what decoding would hide:
 *
 *   enum names   a string that names no value of the field's enum (nor, on a
 *                JSON-RPC binding with a dialect, one of its spellings such as
 *                "user") is refused; ProtoJSON decoding with unknown fields
 *                ignored would leave the field unset
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
import type { DescField, DescMessage, JsonValue } from "@bufbuild/protobuf";
import type { JsonRpcDialect } from "./definition.js";

interface Shape {
  readonly byKey: ReadonlyMap<string, DescField>;
  /** The field whose message the JSON is (a dialect wrapper), if any. */
  readonly wrapped: DescField | undefined;
  /** The dialect's part: `kind` required, nothing below it checked. */
  readonly part: boolean;
}

/** Shapes per message name: without a dialect, and per dialect table. */
const plainShapes = new Map<string, Shape>();
const dialectShapes = new WeakMap<JsonRpcDialect, Map<string, Shape>>();

/** What is wrong with `json` as a request of type `desc`, or undefined. */
export function jsonRequestProblem(
  desc: DescMessage,
  json: JsonValue,
  dialect?: JsonRpcDialect | null,
): string | undefined {
  const d = dialect ?? undefined;
  let cache = d ? dialectShapes.get(d) : plainShapes;
  if (!cache) {
    cache = new Map();
    dialectShapes.set(d!, cache);
  }
  const shapes = cache;
  return visit(desc, json, "", (m) => shapeOf(m, d, shapes), d);
}

function visit(
  m: DescMessage,
  json: JsonValue,
  path: string,
  shape: (m: DescMessage) => Shape,
  dialect: JsonRpcDialect | undefined,
): string | undefined {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return undefined;
  const s = shape(m);
  if (s.part) return typeof json["kind"] === "string" ? undefined : `${join(path, "kind")} is required`;
  if (s.wrapped?.fieldKind === "message") return visit(s.wrapped.message, json, path, shape, dialect);
  for (const [k, v] of Object.entries(json)) {
    const f = s.byKey.get(k);
    if (!f || v === null) continue;
    const at = join(path, k);
    const problem =
      f.fieldKind === "enum" || (f.fieldKind === "list" && f.listKind === "enum")
        ? each(f, v, at, (x, p) => enumProblem(f, x, p, dialect))
        : sub(f)
          ? each(f, v, at, (x, p) => visit(sub(f)!, x, p, shape, dialect))
          : undefined;
    if (problem) return problem;
  }
  return undefined;
}

/** Applies `check` to the value, or to each item of a list or map. */
function each(
  f: DescField,
  v: JsonValue,
  at: string,
  check: (x: JsonValue, path: string) => string | undefined,
): string | undefined {
  if (f.fieldKind === "list" && Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const problem = check(v[i]!, `${at}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  if (f.fieldKind === "map" && typeof v === "object" && v !== null && !Array.isArray(v)) {
    for (const [k, x] of Object.entries(v)) {
      const problem = check(x, join(at, k));
      if (problem) return problem;
    }
    return undefined;
  }
  return check(v, at);
}

function enumProblem(f: DescField, v: JsonValue, at: string, dialect: JsonRpcDialect | undefined): string | undefined {
  if (typeof v !== "string" || !f.enum) return undefined;
  if (f.enum.values.some((x) => x.name === v)) return undefined;
  if (dialect && f.enum.values.some((x) => dialect.enums[x.name] === v)) return undefined;
  return `${at}: unknown value ${JSON.stringify(v).slice(0, 60)} for ${f.enum.typeName}`;
}

function sub(f: DescField): DescMessage | undefined {
  const m =
    f.fieldKind === "message" ||
    (f.fieldKind === "list" && f.listKind === "message") ||
    (f.fieldKind === "map" && f.mapKind === "message")
      ? f.message
      : undefined;
  return m && !m.typeName.startsWith("google.protobuf.") ? m : undefined;
}

function shapeOf(m: DescMessage, d: JsonRpcDialect | undefined, cache: Map<string, Shape>): Shape {
  let s = cache.get(m.typeName);
  if (s) return s;
  const byKey = new Map<string, DescField>();
  for (const f of m.fields) {
    byKey.set(f.name, f).set(f.jsonName, f);
    const renamed = d?.renames[`${m.typeName}.${f.name}`];
    if (renamed) byKey.set(renamed, f);
  }
  const w = d?.wrappers.find((x) => x.message === m.typeName);
  s = { byKey, wrapped: w && m.fields.find((f) => f.name === w.field), part: d?.part.message === m.typeName };
  cache.set(m.typeName, s);
  return s;
}

const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);
