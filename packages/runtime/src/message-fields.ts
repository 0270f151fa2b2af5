/**
 * Reading and writing one field of a protobuf-es message by its descriptor,
 * whether it is a plain field or a member of a oneof (`{case, value}`).
 */
import type { DescField, Message } from "@bufbuild/protobuf";

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
