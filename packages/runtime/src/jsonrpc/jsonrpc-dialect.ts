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
 *
 * Nothing is coerced. Decoding refuses (CompatJsonError, naming the path) an unknown
 * `kind`, a part without its content (text, a file with one of uri and bytes, a data
 * object), a kind on a message that is not its own, and an enum value the proto does
 * not have. Encoding reports (`onDrop`) what a2a.json has no form for: an enum number
 * without a name is written as the value 0's spelling, a part without content is left
 * out, a union that sets no member is written as {}.
 */
import {
  ScalarType,
  type DescEnum,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonValue,
} from "@bufbuild/protobuf";
import type { JsonRpcDialect } from "../definition.js";
import { CompatJsonError, PART_LEFT_OUT, partKindOf, refuseKind } from "../compat/compat-json.js";
import type { DialectCodec, OnDrop } from "../compat/conversion-types.js";
import { enumOf } from "../message-fields.js";

type Obj = { [k: string]: JsonValue };
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isWkt = (m: DescMessage) => m.typeName.startsWith("google.protobuf.");

/** Called for each dialect value the proto has no field for (a2a.json's file name, part metadata, …). */
export type { DialectCodec, OnDrop } from "../compat/conversion-types.js";

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
  /** The enum of an enum field (singular, list or map). */
  readonly enum: DescEnum | undefined;
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
        enum: enumOf(f),
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
  /** toJson writes a number only for a value without a name: a2a.json gets the value 0's spelling, reported. */
  const enumOut = (e: DescEnum, x: JsonValue, path: string, onDrop: OnDrop): JsonValue => {
    if (typeof x === "string") return d.enums[x] ?? x;
    const zero = e.values.find((v) => v.number === 0)?.name ?? "";
    onDrop(path, `no ${e.typeName} value for ${String(x)}; written as ${zero}`);
    return d.enums[zero] ?? zero;
  };
  /** An enum value read as the proto names it: a dialect spelling, a proto name or a number it has. */
  const enumIn = (e: DescEnum, x: JsonValue, path: string, what: string): JsonValue => {
    if (typeof x === "string") {
      const name = enumBack.get(x) ?? x;
      if (e.values.some((v) => v.name === name)) return name;
    } else if (typeof x !== "number" || e.values.some((v) => v.number === x)) return x;
    throw new CompatJsonError(path, what, x, `from JSON: unknown value ${JSON.stringify(x)}`);
  };

  function encode(m: DescMessage, json: JsonValue, onDrop: OnDrop = noDrop, path = ""): JsonValue {
    const s = shapeOf(m);
    if (s.nullResult) return null;
    if (!isObj(json)) return json;
    if (s.arrayField) {
      const items = json[s.arrayField.jsonName];
      const sub = s.arrayField.sub!;
      return Array.isArray(items) ? items.map((x, i) => encode(sub, x, onDrop, `${path}[${i}]`)) : [];
    }
    if (s.union) {
      const f = s.fields.find((x) => json[x.jsonName] !== undefined);
      if (f?.sub) return encode(f.sub, json[f.jsonName]!, onDrop, path);
      return noMember(m, path, onDrop);
    }
    if (s.part) {
      const p = encodePart(json);
      if (!p) onDrop(path, PART_LEFT_OUT);
      return p ?? {};
    }
    if (s.wrapper) return encode(s.wrapper.field.sub!, json[s.wrapper.field.jsonName] ?? {}, onDrop, path);
    if (s.typed) {
      for (const [f, type] of s.typed) {
        const v = json[f.jsonName];
        if (v !== undefined && f.sub) return { type, ...(encode(f.sub, v, onDrop, path) as Obj) };
      }
      return noMember(m, path, onDrop);
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
      const at = join(path, x.key);
      const value = x.sub
        ? encodeMessages(x, v, at, onDrop)
        : x.enum
          ? mapValue(x.f, v, (y) => enumOut(x.enum!, y, at, onDrop))
          : v;
      const prev = out[x.key];
      out[x.key] = isObj(prev) && isObj(value) ? deepMerge(prev, value) : value; // ids parsed from a resource name stay
    }
    return out;
  }

  /** A message field's value (each of a list or map): a part a2a.json has no form for is left out of its list. */
  function encodeMessages(x: FieldShape, v: JsonValue, at: string, onDrop: OnDrop): JsonValue {
    const sub = x.sub!;
    if (!shapeOf(sub).part) {
      if (x.f.fieldKind === "list" && Array.isArray(v)) return v.map((y, i) => encode(sub, y, onDrop, `${at}[${i}]`));
      if (x.f.fieldKind === "map" && isObj(v))
        return Object.fromEntries(Object.entries(v).map(([k, y]) => [k, encode(sub, y, onDrop, `${at}.${k}`)]));
      return encode(sub, v, onDrop, at);
    }
    const one = (y: JsonValue, where: string) => {
      const p = isObj(y) ? encodePart(y) : undefined;
      if (!p) onDrop(where, PART_LEFT_OUT);
      return p;
    };
    if (x.f.fieldKind === "list" && Array.isArray(v))
      return v.flatMap((y, i) => {
        const p = one(y, `${at}[${i}]`);
        return p ? [p] : [];
      });
    return one(v, at) ?? {};
  }

  function encodePart(json: Obj): Obj | undefined {
    if (typeof json["text"] === "string") return { kind: "text", text: json["text"] };
    const file = json["file"];
    if (isObj(file)) {
      const f: Obj = {};
      if (file[uriKey] !== undefined) f["uri"] = file[uriKey]!;
      if (file[bytesKey] !== undefined) f["bytes"] = file[bytesKey]!;
      if (f["uri"] === undefined && f["bytes"] === undefined) return undefined;
      if (file["mimeType"] !== undefined) f["mimeType"] = file["mimeType"]!;
      return { kind: "file", file: f };
    }
    const data = json["data"];
    if (isObj(data)) return { kind: "data", data: data[dataKey] ?? {} };
    return undefined;
  }

  /** A union or typed union that sets none of its members: a2a.json has no form for it. */
  function noMember(m: DescMessage, path: string, onDrop: OnDrop): Obj {
    const oneof = m.oneofs[0]?.name ?? "";
    onDrop(join(path, oneof), `${m.typeName} sets none of ${oneof}; a2a.json has no form for it`);
    return {};
  }

  const noDrop: OnDrop = () => {};
  const join = (path: string, key: string) => (path === "" ? key : key === "" ? path : `${path}.${key}`);

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
        kind === undefined
          ? // Without `kind`, tell a message from a task by its required fields.
            s.fields.find((y) =>
              x["messageId"] !== undefined ? y.sub?.typeName === "a2a.v1.Message" : y.sub?.typeName === "a2a.v1.Task",
            )
          : s.fields.find((y) => y.sub && kindOf.get(y.sub.typeName) === kind);
      if (!f?.sub)
        refuseKind(
          path,
          m.typeName,
          kind,
          s.fields.flatMap((y) => (y.sub && kindOf.get(y.sub.typeName)) || []).join(", "),
        );
      return { [f.jsonName]: decode(f.sub, x, onDrop, path) };
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
    if (s.kind !== undefined && x["kind"] !== undefined && x["kind"] !== s.kind)
      refuseKind(path, m.typeName, x["kind"], s.kind);
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
        : y.enum
          ? mapValue(y.f, v, (z) => enumIn(y.enum!, z, at, `${m.typeName}.${y.f.name}`))
          : v;
    }
    for (const k of Object.keys(x)) if (!read.has(k)) onDrop(join(path, k), `${m.typeName} has no field for it`);
    return out;
  }

  /** A part: its kind (or, without one, the content it holds) says which; its content must be there. */
  function decodePart(x: Obj, onDrop: OnDrop, path: string): JsonValue {
    if (x["metadata"] !== undefined) onDrop(join(path, "metadata"), "the v0.3 proto Part has no metadata");
    if (isObj(x["file"]) && x["file"]["name"] !== undefined)
      onDrop(join(path, "file.name"), "the v0.3 proto FilePart has no file name");
    const kind = partKindOf(x) ?? refuseKind(path, d.part.message, x["kind"], "text, file or data");
    if (kind === "text") {
      if (typeof x["text"] !== "string") throw new CompatJsonError(path, `${d.part.message}.text`, x["text"]);
      return { text: x["text"] };
    }
    if (kind === "file") {
      const at = join(path, "file");
      const file = x["file"];
      if (!isObj(file)) throw new CompatJsonError(at, d.part.file.message, file);
      const uri = file["uri"] ?? undefined;
      const bytes = file["bytes"] ?? undefined;
      if (uri !== undefined && bytes !== undefined)
        throw new CompatJsonError(at, `oneof ${d.part.file.message}.file (set by both uri and bytes)`, file);
      if (uri === undefined && bytes === undefined)
        throw new CompatJsonError(at, d.part.file.message, file, "from JSON: a file needs uri or bytes");
      const f: Obj = uri !== undefined ? { [uriKey]: uri } : { [bytesKey]: bytes! };
      if (file["mimeType"] !== undefined) f["mimeType"] = file["mimeType"]!;
      return { file: f };
    }
    if (!isObj(x["data"])) throw new CompatJsonError(path, `${d.part.data.message}.data`, x["data"]);
    return { data: { [dataKey]: x["data"] } };
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
