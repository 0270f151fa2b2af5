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
 *   dropped          on decode, a dialect key that no rule or field reads is reported
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

/** Called for each dialect value the proto has no field for (a2a.json's file name, part metadata, …). */
export type OnDrop = (path: string, reason: string) => void;

export interface DialectCodec {
  encode(desc: DescMessage, json: JsonValue): JsonValue;
  /** Decodes; what the proto cannot hold is reported to `onDrop`, never dropped silently. */
  decode(desc: DescMessage, json: JsonValue, onDrop?: OnDrop): JsonValue;
}

const codecs = new WeakMap<JsonRpcDialect, DialectCodec>();

/** The codec of a dialect table, built once. */
export function dialectCodec(d: JsonRpcDialect): DialectCodec {
  let c = codecs.get(d);
  if (!c) {
    c = createDialectCodec(d);
    codecs.set(d, c);
  }
  return c;
}

interface FieldShape {
  readonly f: DescField;
  readonly jsonName: string;
  /** The dialect key: a rename, else the JSON name. */
  readonly key: string;
  /** Message type to recurse into (not a well-known type), if any. */
  readonly sub: DescMessage | undefined;
  readonly isEnum: boolean;
  readonly resource: string | undefined;
  readonly always: boolean;
}

/** What the rules say about one message, worked out once per descriptor. */
interface Shape {
  readonly nullResult: boolean;
  readonly arrayField: FieldShape | undefined;
  readonly union: boolean;
  readonly part: boolean;
  readonly wrapper: { readonly field: FieldShape; readonly derived: readonly [string, string][] } | undefined;
  readonly kind: string | undefined;
  readonly fields: readonly FieldShape[];
  /** For a typed union: member field shape → `type` value. */
  readonly typed: ReadonlyMap<FieldShape, string> | undefined;
  /** For a list map: the map field (its values are StringList {list}). */
  readonly listMap: FieldShape | undefined;
}

export function createDialectCodec(d: JsonRpcDialect): DialectCodec {
  // When two proto values share a spelling (ROLE_UNSPECIFIED and ROLE_AGENT are both "agent"),
  // the first listed is read back.
  const enumBack = new Map<string, string>();
  for (const [k, v] of Object.entries(d.enums)) if (!enumBack.has(v)) enumBack.set(v, k);
  const kindOf = new Map(Object.entries(d.kinds));
  const uriKey = camel(d.part.file.uri);
  const bytesKey = camel(d.part.file.bytes);
  const dataKey = camel(d.part.data.field);
  const shapes = new WeakMap<DescMessage, Shape>();
  const messageOf = (f: DescField): DescMessage | undefined =>
    f.fieldKind === "message"
      ? f.message
      : f.fieldKind === "list" && f.listKind === "message"
        ? f.message
        : f.fieldKind === "map" && f.mapKind === "message"
          ? f.message
          : undefined;
  const isEnum = (f: DescField) =>
    f.fieldKind === "enum" ||
    (f.fieldKind === "list" && f.listKind === "enum") ||
    (f.fieldKind === "map" && f.mapKind === "enum");

  const shapeOf = (m: DescMessage): Shape => {
    let s = shapes.get(m);
    if (s) return s;
    const always = d.alwaysEmit[m.typeName] ?? [];
    const fields = m.fields.map((f): FieldShape => {
      const sub = messageOf(f);
      return {
        f,
        jsonName: f.jsonName,
        key: d.renames[`${m.typeName}.${f.name}`] ?? f.jsonName,
        sub: sub && !isWkt(sub) ? sub : undefined,
        isEnum: isEnum(f),
        resource: d.resourceNames.find((r) => r.message === m.typeName && r.field === f.name)?.pattern,
        always: always.includes(f.name),
      };
    });
    const arrayName = d.arrayResults[m.typeName];
    const w = d.wrappers.find((x) => x.message === m.typeName);
    s = {
      nullResult: d.nullResults.includes(m.typeName),
      arrayField: arrayName === undefined ? undefined : fields.find((x) => x.f.name === arrayName),
      union: d.unions.includes(m.typeName),
      part: m.typeName === d.part.message,
      wrapper: w
        ? {
            field: fields.find((x) => x.f.name === w.field)!,
            derived: Object.entries(w.derived).flatMap(([name, t]) => {
              const x = fields.find((y) => y.f.name === name);
              return x ? [[x.jsonName, t] as [string, string]] : [];
            }),
          }
        : undefined,
      kind: kindOf.get(m.typeName),
      fields,
      typed: d.typedUnions?.[m.typeName]
        ? new Map(
            Object.entries(d.typedUnions[m.typeName]!).map(([name, type]) => [
              fields.find((x) => x.f.name === name)!,
              type,
            ]),
          )
        : undefined,
      listMap: d.listMaps?.[m.typeName] ? fields.find((x) => x.f.name === d.listMaps![m.typeName]) : undefined,
    };
    shapes.set(m, s);
    return s;
  };

  const mapValue = (f: DescField, v: JsonValue, one: (x: JsonValue) => JsonValue): JsonValue => {
    if (f.fieldKind === "list" && Array.isArray(v)) return v.map(one);
    if (f.fieldKind === "map" && isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, one(x)]));
    return one(v);
  };
  const enumOut = (x: JsonValue) => (typeof x === "string" ? (d.enums[x] ?? x) : x);
  const enumIn = (x: JsonValue) => (typeof x === "string" ? (enumBack.get(x) ?? x) : x);

  function encode(m: DescMessage, json: JsonValue): JsonValue {
    const s = shapeOf(m);
    if (s.nullResult) return null;
    if (!isObj(json)) return json;
    if (s.arrayField) {
      const items = json[s.arrayField.jsonName];
      const sub = s.arrayField.sub!;
      return Array.isArray(items) ? items.map((x) => encode(sub, x)) : [];
    }
    if (s.union) {
      const f = s.fields.find((x) => json[x.jsonName] !== undefined);
      return f?.sub ? encode(f.sub, json[f.jsonName]!) : {};
    }
    if (s.part) return encodePart(json);
    if (s.wrapper) return encode(s.wrapper.field.sub!, json[s.wrapper.field.jsonName] ?? {});
    if (s.typed) {
      for (const [f, type] of s.typed) {
        const v = json[f.jsonName];
        if (v !== undefined && f.sub) return { type, ...(encode(f.sub, v) as Obj) };
      }
      return {};
    }
    if (s.listMap) {
      const map = json[s.listMap.jsonName];
      return isObj(map)
        ? Object.fromEntries(
            Object.entries(map).map(([k, v]) => [k, isObj(v) && Array.isArray(v["list"]) ? v["list"] : []]),
          )
        : {};
    }
    const out: Obj = {};
    if (s.kind) out["kind"] = s.kind;
    for (const x of s.fields) {
      const v = json[x.jsonName] ?? (x.always ? protoDefault(x.f) : undefined);
      if (v === undefined) continue;
      if (x.resource) {
        Object.assign(out, deepMerge(out, parsePattern(x.resource, String(v))));
        continue;
      }
      const sub = x.sub;
      const value = sub ? mapValue(x.f, v, (y) => encode(sub, y)) : x.isEnum ? mapValue(x.f, v, enumOut) : v;
      const prev = out[x.key];
      out[x.key] = isObj(prev) && isObj(value) ? deepMerge(prev, value) : value; // ids parsed from a resource name stay
    }
    return out;
  }

  function encodePart(json: Obj): JsonValue {
    if (typeof json["text"] === "string") return { kind: "text", text: json["text"] };
    const file = json["file"];
    if (isObj(file)) {
      const f: Obj = {};
      if (file[uriKey] !== undefined) f["uri"] = file[uriKey]!;
      if (file[bytesKey] !== undefined) f["bytes"] = file[bytesKey]!;
      if (file["mimeType"] !== undefined) f["mimeType"] = file["mimeType"]!;
      return { kind: "file", file: f };
    }
    const data = json["data"];
    if (isObj(data)) return { kind: "data", data: data[dataKey] ?? {} };
    return {};
  }

  const noDrop: OnDrop = () => {};
  const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);

  function decode(m: DescMessage, x: JsonValue, onDrop: OnDrop = noDrop, path = ""): JsonValue {
    const s = shapeOf(m);
    if (s.nullResult) return {};
    if (s.arrayField) {
      const sub = s.arrayField.sub!;
      return {
        [s.arrayField.jsonName]: Array.isArray(x) ? x.map((i, k) => decode(sub, i, onDrop, `${path}[${k}]`)) : [],
      };
    }
    if (!isObj(x)) return x;
    if (s.union) {
      const kind = x["kind"];
      const f =
        s.fields.find((y) => y.sub && kindOf.get(y.sub.typeName) === kind) ??
        // Without `kind`, tell a message from a task by its required fields.
        s.fields.find((y) =>
          x["messageId"] !== undefined ? y.sub?.typeName === "a2a.v1.Message" : y.sub?.typeName === "a2a.v1.Task",
        );
      return f?.sub ? { [f.jsonName]: decode(f.sub, x, onDrop, path) } : {};
    }
    if (s.part) return decodePart(x, onDrop, path);
    if (s.typed) {
      for (const [f, type] of s.typed) {
        if (x["type"] !== type || !f.sub) continue;
        const { type: _type, ...rest } = x;
        return { [f.jsonName]: decode(f.sub, rest, onDrop, path) };
      }
      onDrop(join(path, "type"), `unknown ${m.typeName} type ${JSON.stringify(x["type"])}`);
      return {};
    }
    if (s.listMap) {
      const map: Obj = {};
      for (const [k, v] of Object.entries(x)) map[k] = { list: Array.isArray(v) ? v : [] };
      return { [s.listMap.jsonName]: map };
    }
    if (s.wrapper) {
      const out: Obj = { [s.wrapper.field.jsonName]: decode(s.wrapper.field.sub!, x, onDrop, path) };
      for (const [jsonName, template] of s.wrapper.derived) out[jsonName] = fill(template, x);
      return out;
    }
    const out: Obj = {};
    const read = new Set<string>(["kind"]);
    const oneofs = new Set<string>();
    for (const y of s.fields) {
      if (y.resource) {
        out[y.jsonName] = fill(y.resource, x);
        for (const root of patternRoots(y.resource)) read.add(root);
        continue;
      }
      read.add(y.key).add(y.jsonName);
      const v = x[y.key] ?? x[y.jsonName];
      // null is ProtoJSON's "unset" (except for a google.protobuf.Value), so it takes no oneof slot either.
      if (
        v === undefined ||
        (v === null && !(y.f.fieldKind === "message" && y.f.message.typeName === "google.protobuf.Value"))
      )
        continue;
      // a2a.json may set several members of what the proto has as a oneof (OAuth flows): the first one stays.
      if (y.f.oneof) {
        if (oneofs.has(y.f.oneof.name)) {
          onDrop(join(path, y.key), `${m.typeName}.${y.f.oneof.name} holds one member; ${y.key} was not kept`);
          continue;
        }
        oneofs.add(y.f.oneof.name);
      }
      const sub = y.sub;
      const at = join(path, y.key);
      out[y.jsonName] = sub
        ? y.f.fieldKind === "list" && Array.isArray(v)
          ? v.map((z, k) => decode(sub, z, onDrop, `${at}[${k}]`))
          : y.f.fieldKind === "map" && isObj(v)
            ? Object.fromEntries(Object.entries(v).map(([k, z]) => [k, decode(sub, z, onDrop, `${at}.${k}`)]))
            : decode(sub, v, onDrop, at)
        : y.isEnum
          ? mapValue(y.f, v, enumIn)
          : v;
    }
    for (const k of Object.keys(x)) if (!read.has(k)) onDrop(join(path, k), `${m.typeName} has no field for it`);
    return out;
  }

  function decodePart(x: Obj, onDrop: OnDrop, path: string): JsonValue {
    if (x["metadata"] !== undefined) onDrop(join(path, "metadata"), "the v0.3 proto Part has no metadata");
    if (isObj(x["file"]) && x["file"]["name"] !== undefined)
      onDrop(join(path, "file.name"), "the v0.3 proto FilePart has no file name");
    const kind = x["kind"] ?? (x["text"] !== undefined ? "text" : x["file"] !== undefined ? "file" : "data");
    if (kind === "text") return { text: x["text"] ?? "" };
    if (kind === "file") {
      const file = isObj(x["file"]) ? x["file"] : {};
      const f: Obj = {};
      if (file["uri"] !== undefined) f[uriKey] = file["uri"]!;
      if (file["bytes"] !== undefined) f[bytesKey] = file["bytes"]!;
      if (file["mimeType"] !== undefined) f["mimeType"] = file["mimeType"]!;
      return { file: f };
    }
    return { data: { [dataKey]: x["data"] ?? {} } };
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
      return f.scalar === ScalarType.BOOL
        ? false
        : f.scalar === ScalarType.STRING || f.scalar === ScalarType.BYTES
          ? ""
          : 0;
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

/** The top-level dialect keys a pattern reads: "tasks/{id}/x/{cfg.id}" → ["id", "cfg"]. */
function patternRoots(pattern: string): string[] {
  return [...pattern.matchAll(/\{([^}.]+)[^}]*\}/g)].map((m) => m[1]!);
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
    for (const k of keys.slice(0, -1)) {
      const cur = o[k];
      const next: Obj = isObj(cur) ? cur : {};
      o[k] = next;
      o = next;
    }
    o[keys[keys.length - 1]!] = vs[i]!;
  });
  return out;
}

function deepMerge(a: Obj, b: Obj): Obj {
  const out: Obj = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = isObj(out[k]) && isObj(v) ? deepMerge(out[k] as Obj, v) : v;
  return out;
}
