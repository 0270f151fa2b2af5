/**
 * A message as this version writes it in JSON: protobuf-es toJson, then, when
 * the version's tables list them (`requiredJson`), the REQUIRED fields that
 * toJson left out at their default value, in messages at any depth:
 *
 *   scalar  "" · 0 · false      enum  its first value's name
 *   list    []                  map   {}
 *
 * v1.0 writes them (S10 §5.7: REQUIRED fields MUST be present; §3.1.4:
 * nextPageToken is "" on the last page), ProtoJSON alone would not.
 */
import {
  ScalarType,
  toJson,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonValue,
  type Message,
} from "@bufbuild/protobuf";
import type { ProtocolTables } from "./protocol-tables.js";

interface Fill {
  /** Missing JSON name → its default. */
  readonly defaults: readonly (readonly [string, JsonValue])[];
  /** Fields holding messages that have something to fill, with that message's Fill. */
  readonly nested: readonly (readonly [DescField, string, () => Fill | undefined])[];
}

const fillers = new WeakMap<object, (desc: DescMessage) => Fill | undefined>();

/** The JSON of `message` (of type `desc`) as `def`'s version writes it. */
export function messageJson(def: ProtocolTables, desc: DescMessage, message: Message): JsonValue {
  const json = toJson(desc, message as never);
  const table = def.requiredJson;
  if (!table) return json;
  let fillOf = fillers.get(table);
  if (!fillOf) {
    fillOf = compileFills(table);
    fillers.set(table, fillOf);
  }
  const fill = fillOf(desc);
  if (fill) apply(fill, json);
  return json;
}

function apply(fill: Fill, json: JsonValue): void {
  if (typeof json !== "object" || json === null || Array.isArray(json)) return;
  for (const [name, value] of fill.defaults)
    if (json[name] === undefined)
      json[name] = typeof value === "object" && value !== null ? (Array.isArray(value) ? [] : {}) : value;
  for (const [f, name, sub] of fill.nested) {
    const v = json[name];
    const s = v === undefined ? undefined : sub();
    if (!s) continue;
    if (f.fieldKind === "list" && Array.isArray(v)) for (const x of v) apply(s, x);
    else if (f.fieldKind === "map" && typeof v === "object" && v !== null)
      for (const x of Object.values(v)) apply(s, x);
    else apply(s, v!);
  }
}

/** Fills per message type, worked out once; undefined where nothing below a message can be missing. */
function compileFills(table: Readonly<Record<string, readonly string[]>>): (desc: DescMessage) => Fill | undefined {
  const done = new Map<string, Fill | undefined>();
  const visiting = new Set<string>();
  const fillOf = (desc: DescMessage): Fill | undefined => {
    if (done.has(desc.typeName)) return done.get(desc.typeName);
    visiting.add(desc.typeName);
    const required = table[desc.typeName] ?? [];
    const defaults = desc.fields
      .filter((f) => required.includes(f.name))
      .map((f) => [f.jsonName, defaultJson(f)] as const);
    const nested: (readonly [DescField, string, () => Fill | undefined])[] = [];
    for (const f of desc.fields) {
      const sub =
        f.fieldKind === "message" ||
        (f.fieldKind === "list" && f.listKind === "message") ||
        (f.fieldKind === "map" && f.mapKind === "message")
          ? f.message
          : undefined;
      if (!sub || sub.typeName.startsWith("google.protobuf.")) continue;
      if (visiting.has(sub.typeName)) {
        // A message that contains itself: its fill is known once it is done.
        nested.push([f, f.jsonName, () => done.get(sub.typeName)]);
        continue;
      }
      const s = fillOf(sub);
      if (s) nested.push([f, f.jsonName, () => s]);
    }
    visiting.delete(desc.typeName);
    const fill = defaults.length > 0 || nested.length > 0 ? { defaults, nested } : undefined;
    done.set(desc.typeName, fill);
    return fill;
  };
  return fillOf;
}

/** The JSON toJson writes for a field's default value. */
function defaultJson(f: DescField): JsonValue {
  if (f.fieldKind === "list") return [];
  if (f.fieldKind === "map") return {} as JsonObject;
  if (f.fieldKind === "enum") return f.enum.values[0]?.name ?? 0;
  if (f.fieldKind !== "scalar") return null;
  switch (f.scalar) {
    case ScalarType.STRING:
    case ScalarType.BYTES:
      return "";
    case ScalarType.BOOL:
      return false;
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return "0";
    default:
      return 0;
  }
}
