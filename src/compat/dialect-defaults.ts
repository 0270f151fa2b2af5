/**
 * Generation-time facts about the older version's JSON-RPC dialect that the
 * emitted conversions bake in as literals:
 *
 *   dialectDefault   what a field in the dialect's `alwaysEmit` list is written as
 *                    when the message leaves it at its default: lists [], maps {},
 *                    enums the dialect's spelling of value 0, scalars their ProtoJSON
 *                    zero, messages their own `kind` and always-emitted fields
 */
import { ScalarType, type DescField, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import { type DialectIr, spelled } from "./dialect-ir.js";

/** The dialect JSON of `field` of `message` at its default, as the dialect codec writes it. */
export function dialectDefault(message: DescMessage, field: string, dialect: DialectIr): JsonValue {
  const f = message.fields.find((x) => x.name === field);
  if (f === undefined) throw new Error(`${message.typeName} has no field ${field}`);
  return fieldDefault(f, dialect);
}

function fieldDefault(f: DescField, dialect: DialectIr): JsonValue {
  switch (f.fieldKind) {
    case "list":
      return [];
    case "map":
      return {};
    case "enum": {
      const zero = f.enum.values[0]?.name;
      return zero === undefined ? 0 : spelled(dialect, zero);
    }
    case "message":
      return messageDefault(f.message, dialect);
    case "scalar":
      return f.scalar === ScalarType.BOOL
        ? false
        : f.scalar === ScalarType.STRING || f.scalar === ScalarType.BYTES
          ? ""
          : 0;
  }
}

function messageDefault(m: DescMessage, dialect: DialectIr): JsonValue {
  const out: { [k: string]: JsonValue } = {};
  const rules = dialect.messages.get(m.typeName);
  if (rules?.kindValue !== undefined) out["kind"] = rules.kindValue;
  for (const x of rules?.fields ?? []) if (x.always) out[x.key] = fieldDefault(x.f, dialect);
  return out;
}
