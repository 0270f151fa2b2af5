/**
 * One field of a protobuf-es message by its descriptor: reading and writing
 * it, whether it is a plain field or a member of a oneof (`{case, value}`),
 * and the enum or message type it holds, itself or as list items or map
 * values.
 */
import type { DescEnum, DescField, DescMessage, Message } from "@bufbuild/protobuf";

/** A field's value, whether it is a plain field or a member of a oneof. */
export function readField(msg: Message, f: DescField): unknown {
  const m = msg as unknown as Record<string, unknown>;
  if (f.oneof) {
    const o = m[f.oneof.localName] as { case?: string; value?: unknown };
    return o.case === f.localName ? o.value : undefined;
  }
  return m[f.localName];
}

/** Sets a field; a oneof member replaces the oneof's case. `undefined` leaves the message as it is. */
export function setField(msg: Message, f: DescField, value: unknown): void {
  const m = msg as unknown as Record<string, unknown>;
  if (value === undefined) return;
  if (f.oneof) m[f.oneof.localName] = { case: f.localName, value };
  else m[f.localName] = value;
}

/** The enum a field holds: itself, as list items or as map values. */
export function enumOf(f: DescField): DescEnum | undefined {
  if (f.fieldKind === "enum") return f.enum;
  if (f.fieldKind === "list" && f.listKind === "enum") return f.enum;
  if (f.fieldKind === "map" && f.mapKind === "enum") return f.enum;
  return undefined;
}

/** The message type a field holds (itself, as list items or as map values), google.protobuf.* left out. */
export function messageOf(f: DescField): DescMessage | undefined {
  const m =
    f.fieldKind === "message" ||
    (f.fieldKind === "list" && f.listKind === "message") ||
    (f.fieldKind === "map" && f.mapKind === "message")
      ? f.message
      : undefined;
  return m && !m.typeName.startsWith("google.protobuf.") ? m : undefined;
}
