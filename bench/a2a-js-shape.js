// Moves values between protobuf-es messages and the ts-proto shape @a2a-js/sdk 1.3.0 uses for v1.0
// (oneof {$case, value}, Struct and Value as plain JSON, Timestamp as an RFC 3339 string, bytes as Buffer).
// Shared by bench/conversion.js and test/compat-vs-a2a-js.test.ts, which feed a2a-js the same content as ours.
import { fromJson, toJson } from "@bufbuild/protobuf";
import { TimestampSchema, ValueSchema } from "@bufbuild/protobuf/wkt";

/** The message type of a field (singular, list or map), if it holds messages. */
const messageOf = (f) =>
  f.fieldKind === "message" || f.listKind === "message" || f.mapKind === "message" ? f.message : undefined;

/** Applies `one` to a field's value: each element of a list, each value of a map, or the value itself. */
const each = (f, v, one) =>
  f.fieldKind === "list"
    ? v.map((x) => one(f, x))
    : f.fieldKind === "map"
      ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, one(f, x)]))
      : one(f, v);

/** A protobuf-es message as the a2a-js object (every field present, unset ones undefined, as ts-proto writes them). */
export function toA2aJsShape(desc, msg) {
  const element = (f, x) => {
    const d = messageOf(f);
    if (!d) return x instanceof Uint8Array ? Buffer.from(x) : x;
    if (d.typeName === "google.protobuf.Value") return toJson(ValueSchema, x);
    if (d.typeName === "google.protobuf.Timestamp") return toJson(TimestampSchema, x);
    if (d.typeName === "google.protobuf.Struct") return x;
    return toA2aJsShape(d, x);
  };
  const out = {};
  for (const f of desc.fields) {
    if (f.oneof) {
      const o = msg[f.oneof.localName];
      if (!(f.oneof.localName in out)) out[f.oneof.localName] = undefined;
      if (o.case === f.localName) out[f.oneof.localName] = { $case: f.localName, value: element(f, o.value) };
      continue;
    }
    const v = msg[f.localName];
    out[f.localName] = v === undefined ? undefined : each(f, v, element);
  }
  return out;
}

/** An a2a-js object as protobuf-es init data (for `create`). */
export function fromA2aJsShape(desc, obj) {
  const element = (f, x) => {
    const d = messageOf(f);
    if (!d || d.typeName === "google.protobuf.Struct") return x;
    if (d.typeName === "google.protobuf.Value") return fromJson(ValueSchema, x);
    if (d.typeName === "google.protobuf.Timestamp") return fromJson(TimestampSchema, x);
    return fromA2aJsShape(d, x);
  };
  const out = {};
  for (const f of desc.fields) {
    if (f.oneof) {
      const o = obj[f.oneof.localName];
      if (o && o.$case === f.localName) out[f.oneof.localName] = { case: f.localName, value: element(f, o.value) };
      continue;
    }
    const v = obj[f.localName];
    if (v === undefined || v === null) continue;
    out[f.localName] = each(f, v, element);
  }
  return out;
}
