/**
 * A JSON-RPC payload dialect over the proto's ProtoJSON (v0.3: a2a.json),
 * driven by the dialect tables of the override files and by the message
 * descriptors, so that user data (google.protobuf.Struct, Value, metadata)
 * passes through untouched:
 *
 *   encode(desc, protoJson) → dialect JSON      decode(desc, dialectJson) → protoJson
 *
 * Rules, in the order they are tried for a message:
 *   null result      a message in `nullResults` is written as null
 *   array result     a message in `arrayResults` is written as the bare array of that field
 *   union            a message in `unions` (one oneof) is written as its member, told apart by `kind`
 *   part             {text} | {file:{<uri>|<bytes>, mimeType}} | {data:{<field>: X}}
 *                    ↔ {kind:"text", text} | {kind:"file", file:{uri|bytes, mimeType}} | {kind:"data", data: X}
 *   wrapper          a request written as one of its fields; the others derived by templates
 *   fields           each field under its JSON name or its `renames` key (fields in
 *                    `alwaysEmit` written even at their default); enums spelled by
 *                    `enums`; `kinds` adds `kind`; a `resourceNames` field becomes the ids
 *                    its pattern names (`tasks/{id}` ↔ `id`), and back
 */
import { ScalarType, type DescField, type DescMessage, type JsonObject, type JsonValue } from "@bufbuild/protobuf";
import type { JsonRpcDialect } from "./definition.js";

type Obj = { [k: string]: JsonValue };
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isWkt = (m: DescMessage) => m.typeName.startsWith("google.protobuf.");

export interface DialectCodec {
  encode(desc: DescMessage, json: JsonValue): JsonValue;
  decode(desc: DescMessage, json: JsonValue): JsonValue;
}

const codecs = new WeakMap<JsonRpcDialect, DialectCodec>();

/** The codec of a dialect table, built once. */
export function dialectCodec(d: JsonRpcDialect): DialectCodec {
  let c = codecs.get(d);
  if (!c) codecs.set(d, (c = createDialectCodec(d)));
  return c;
}

export function createDialectCodec(d: JsonRpcDialect): DialectCodec {
  // When two proto values share a spelling (ROLE_UNSPECIFIED and ROLE_AGENT are both "agent"), the first listed is read back.
  const enumBack = new Map<string, string>();
  for (const [k, v] of Object.entries(d.enums)) if (!enumBack.has(v)) enumBack.set(v, k);
  const kindOf = new Map(Object.entries(d.kinds));
  const resource = (m: DescMessage, f: DescField) => d.resourceNames.find((r) => r.message === m.typeName && r.field === f.name);
  const keyOf = (m: DescMessage, f: DescField) => d.renames[`${m.typeName}.${f.name}`] ?? f.jsonName;
  const messageOf = (f: DescField): DescMessage | undefined => (f.fieldKind === "message" ? f.message : f.fieldKind === "list" && f.listKind === "message" ? f.message : f.fieldKind === "map" && f.mapKind === "message" ? f.message : undefined);
  const isEnum = (f: DescField) => f.fieldKind === "enum" || (f.fieldKind === "list" && f.listKind === "enum") || (f.fieldKind === "map" && f.mapKind === "enum");

  const mapValue = (f: DescField, v: JsonValue, one: (x: JsonValue) => JsonValue): JsonValue => {
    if (f.fieldKind === "list" && Array.isArray(v)) return v.map(one);
    if (f.fieldKind === "map" && isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, one(x)]));
    return one(v);
  };

  function encode(m: DescMessage, json: JsonValue): JsonValue {
    if (d.nullResults.includes(m.typeName)) return null;
    if (!isObj(json)) return json;
    const arrayField = d.arrayResults[m.typeName];
    if (arrayField !== undefined) {
      const f = m.fields.find((x) => x.name === arrayField)!;
      const items = json[f.jsonName];
      return Array.isArray(items) ? items.map((x) => encode(messageOf(f)!, x)) : [];
    }
    if (d.unions.includes(m.typeName)) {
      const f = m.fields.find((x) => json[x.jsonName] !== undefined);
      return f ? encode(messageOf(f)!, json[f.jsonName]!) : {};
    }
    if (m.typeName === d.part.message) return encodePart(json);
    const wrapper = d.wrappers.find((w) => w.message === m.typeName);
    if (wrapper) {
      const f = m.fields.find((x) => x.name === wrapper.field)!;
      return encode(messageOf(f)!, json[f.jsonName] ?? {});
    }
    const out: Obj = {};
    const kind = kindOf.get(m.typeName);
    if (kind) out["kind"] = kind;
    const always = d.alwaysEmit[m.typeName] ?? [];
    for (const f of m.fields) {
      const v = json[f.jsonName] ?? (always.includes(f.name) ? protoDefault(f) : undefined);
      if (v === undefined) continue;
      const rule = resource(m, f);
      if (rule) {
        Object.assign(out, deepMerge(out, parsePattern(rule.pattern, String(v))));
        continue;
      }
      const sub = messageOf(f);
      const value = sub && !isWkt(sub) ? mapValue(f, v, (x) => encode(sub, x)) : isEnum(f) ? mapValue(f, v, (x) => (typeof x === "string" ? (d.enums[x] ?? x) : x)) : v;
      const key = keyOf(m, f);
      const prev = out[key];
      out[key] = isObj(prev) && isObj(value) ? deepMerge(prev, value) : value; // ids parsed from a resource name stay
    }
    return out;
  }

  function encodePart(json: Obj): JsonValue {
    const out: Obj = {};
    if (typeof json["text"] === "string") return { kind: "text", text: json["text"] };
    const file = json["file"];
    if (isObj(file)) {
      const uriKey = camel(d.part.file.uri);
      const bytesKey = camel(d.part.file.bytes);
      const f: Obj = {};
      if (file[uriKey] !== undefined) f["uri"] = file[uriKey]!;
      if (file[bytesKey] !== undefined) f["bytes"] = file[bytesKey]!;
      if (file["mimeType"] !== undefined) f["mimeType"] = file["mimeType"]!;
      return { kind: "file", file: f };
    }
    const data = json["data"];
    if (isObj(data)) return { kind: "data", data: data[camel(d.part.data.field)] ?? {} };
    return out;
  }

  function decode(m: DescMessage, x: JsonValue): JsonValue {
    if (d.nullResults.includes(m.typeName)) return {};
    const arrayField = d.arrayResults[m.typeName];
    if (arrayField !== undefined) {
      const f = m.fields.find((y) => y.name === arrayField)!;
      return { [f.jsonName]: Array.isArray(x) ? x.map((i) => decode(messageOf(f)!, i)) : [] };
    }
    if (!isObj(x)) return x;
    if (d.unions.includes(m.typeName)) {
      const kind = x["kind"];
      const f =
        m.fields.find((y) => messageOf(y) && kindOf.get(messageOf(y)!.typeName) === kind) ??
        // Without `kind`, tell a message from a task by its required fields.
        m.fields.find((y) => (x["messageId"] !== undefined ? messageOf(y)?.typeName === "a2a.v1.Message" : messageOf(y)?.typeName === "a2a.v1.Task"));
      return f ? { [f.jsonName]: decode(messageOf(f)!, x) } : {};
    }
    if (m.typeName === d.part.message) return decodePart(x);
    const wrapper = d.wrappers.find((w) => w.message === m.typeName);
    if (wrapper) {
      const f = m.fields.find((y) => y.name === wrapper.field)!;
      const out: Obj = { [f.jsonName]: decode(messageOf(f)!, x) };
      for (const [field, template] of Object.entries(wrapper.derived)) {
        const target = m.fields.find((y) => y.name === field);
        if (target) out[target.jsonName] = fill(template, x);
      }
      return out;
    }
    const out: Obj = {};
    for (const f of m.fields) {
      const rule = resource(m, f);
      if (rule) {
        out[f.jsonName] = fill(rule.pattern, x);
        continue;
      }
      const v = x[keyOf(m, f)] ?? x[f.jsonName];
      if (v === undefined) continue;
      const sub = messageOf(f);
      out[f.jsonName] = sub && !isWkt(sub) ? mapValue(f, v, (y) => decode(sub, y)) : isEnum(f) ? mapValue(f, v, (y) => (typeof y === "string" ? (enumBack.get(y) ?? y) : y)) : v;
    }
    return out;
  }

  function decodePart(x: Obj): JsonValue {
    const kind = x["kind"] ?? (x["text"] !== undefined ? "text" : x["file"] !== undefined ? "file" : "data");
    if (kind === "text") return { text: x["text"] ?? "" };
    if (kind === "file") {
      const file = isObj(x["file"]) ? x["file"] : {};
      const f: Obj = {};
      if (file["uri"] !== undefined) f[camel(d.part.file.uri)] = file["uri"]!;
      if (file["bytes"] !== undefined) f[camel(d.part.file.bytes)] = file["bytes"]!;
      if (file["mimeType"] !== undefined) f["mimeType"] = file["mimeType"]!;
      return { file: f };
    }
    return { data: { [camel(d.part.data.field)]: x["data"] ?? {} } };
  }

  return { encode, decode };
}

/** The ProtoJSON of a field's default value. */
function protoDefault(f: DescField): JsonValue {
  switch (f.fieldKind) {
    case "list":
      return [];
    case "map":
    case "message":
      return {};
    case "enum":
      return f.enum.values[0]?.name ?? 0;
    case "scalar":
      return f.scalar === ScalarType.BOOL ? false : f.scalar === ScalarType.STRING || f.scalar === ScalarType.BYTES ? "" : 0;
  }
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function getPath(x: JsonValue, dotted: string): JsonValue | undefined {
  let v: JsonValue | undefined = x;
  for (const k of dotted.split(".")) v = isObj(v) ? v[k] : undefined;
  return v;
}

/** "tasks/{id}" filled from the dialect object; a missing id becomes "". */
function fill(template: string, x: JsonValue): string {
  return template.replace(/\{([^}]+)\}/g, (_, path: string) => {
    const v = getPath(x, path);
    return typeof v === "string" || typeof v === "number" ? String(v) : "";
  });
}

/** "tasks/{taskId}/…" matched against a value: the ids it names, as a nested object. */
function parsePattern(pattern: string, value: string): JsonObject {
  const ps = pattern.split("/");
  const vs = value.split("/");
  const out: Obj = {};
  if (ps.length !== vs.length) return out;
  ps.forEach((p, i) => {
    const m = /^\{([^}]+)\}$/.exec(p);
    if (!m) return;
    const keys = m[1]!.split(".");
    let o = out;
    for (const k of keys.slice(0, -1)) o = (o[k] = isObj(o[k]) ? o[k] : {}) as Obj;
    o[keys[keys.length - 1]!] = vs[i]!;
  });
  return out;
}

function deepMerge(a: Obj, b: Obj): Obj {
  const out: Obj = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = isObj(out[k]) && isObj(v) ? deepMerge(out[k] as Obj, v) : v;
  return out;
}
