/**
 * Messages and enums of the model → JSON Schemas of their ProtoJSON form, for the OpenAPI documents and
 * the v1.0 OpenRPC document (both JSON Schema 2020-12 / draft-07 compatible: only keywords both share).
 *
 * ProtoJSON rules (protobuf.dev, "ProtoJSON format"): keys are the fields' JSON names; 64-bit integers are
 * decimal strings; enums are their value names (google.protobuf.NullValue is null); bytes base64; a
 * repeated field is an array, a map an object; at most one member of a oneof is present; well-known types
 * have their special forms (Timestamp an RFC 3339 string, Duration "1.5s", Struct an object, Value any
 * JSON, ListValue an array, FieldMask a string, wrappers their wrapped value, Any an object with "@type").
 *
 * `required` lists the fields with `(google.api.field_behavior) = REQUIRED`, outside oneofs, that the JSON
 * always carries: every one when the version writes REQUIRED fields even at their default
 * (api.requiredFieldsInJson), else only singular message fields (ProtoJSON leaves out a scalar, enum, list
 * or map at its default). Messages and enums become components (named by the name inside the service's
 * package, else the full name), reached from the roots asked for; well-known types are written inline.
 */
import type { EnumModel, FieldModel, MessageModel } from "../../model/model-types.js";
import { compact, type TreeObject } from "../print/doc-tree.js";
import { SchemaComponents } from "./schema-components.js";

export interface SchemaSource {
  readonly package: string;
  readonly messages: ReadonlyMap<string, MessageModel>;
  readonly enums: ReadonlyMap<string, EnumModel>;
  readonly requiredInJson: boolean;
}

const int64 = (pattern: string, format: string): TreeObject => ({ type: "string", format, pattern });
const scalars: Readonly<Record<string, TreeObject>> = {
  string: { type: "string" },
  bool: { type: "boolean" },
  int32: { type: "integer", format: "int32" },
  sint32: { type: "integer", format: "int32" },
  sfixed32: { type: "integer", format: "int32" },
  uint32: { type: "integer", format: "uint32", minimum: 0 },
  fixed32: { type: "integer", format: "uint32", minimum: 0 },
  int64: int64("^-?[0-9]+$", "int64"),
  sint64: int64("^-?[0-9]+$", "int64"),
  sfixed64: int64("^-?[0-9]+$", "int64"),
  uint64: int64("^[0-9]+$", "uint64"),
  fixed64: int64("^[0-9]+$", "uint64"),
  float: { type: "number", format: "float" },
  double: { type: "number", format: "double" },
  bytes: { type: "string", contentEncoding: "base64" },
};

const wrappers: Readonly<Record<string, string>> = {
  DoubleValue: "double",
  FloatValue: "float",
  Int64Value: "int64",
  UInt64Value: "uint64",
  Int32Value: "int32",
  UInt32Value: "uint32",
  BoolValue: "bool",
  StringValue: "string",
  BytesValue: "bytes",
};

/** The inline ProtoJSON schema of a google.protobuf well-known type, or undefined for any other message. */
export function wellKnownSchema(fullName: string): TreeObject | undefined {
  if (!fullName.startsWith("google.protobuf.")) return undefined;
  const name = fullName.slice("google.protobuf.".length);
  const wrapped = wrappers[name];
  if (wrapped) return { ...scalars[wrapped]!, description: `google.protobuf.${name}: the wrapped value` };
  switch (name) {
    case "Timestamp":
      return { type: "string", format: "date-time", description: "google.protobuf.Timestamp (RFC 3339)" };
    case "Duration":
      return { type: "string", pattern: "^-?[0-9]+(\\.[0-9]{1,9})?s$", description: "google.protobuf.Duration" };
    case "Struct":
      return { type: "object", additionalProperties: true, description: "google.protobuf.Struct: any JSON object" };
    case "Value":
      return { description: "google.protobuf.Value: any JSON value" };
    case "ListValue":
      return { type: "array", items: {}, description: "google.protobuf.ListValue: any JSON array" };
    case "Empty":
      return { type: "object", description: "google.protobuf.Empty: an empty object" };
    case "FieldMask":
      return { type: "string", description: "google.protobuf.FieldMask: field paths joined by commas" };
    case "Any":
      return {
        type: "object",
        properties: { "@type": { type: "string" } },
        required: ["@type"],
        description: "google.protobuf.Any: the message's JSON with its type URL in @type",
      };
    default:
      return undefined;
  }
}

/** Builds component schemas on demand: `ref` names a message or enum and queues it (schema-components.ts). */
export class ProtoJsonSchemas extends SchemaComponents {
  constructor(
    private readonly src: SchemaSource,
    /** e.g. "#/components/schemas/" */
    refPrefix: string,
  ) {
    super(src.package, refPrefix);
  }

  /** A reference to the ProtoJSON schema of a message or enum (a well-known type inline). */
  ref(fullName: string): TreeObject {
    const wkt = wellKnownSchema(fullName);
    if (wkt) return wkt;
    if (fullName === "google.protobuf.NullValue") return { type: "null" };
    return this.queued(fullName);
  }

  /** The schema of one value of a type: a scalar name, or an enum or message full name. */
  typeSchema(kind: FieldModel["kind"], type: string): TreeObject {
    return kind === "scalar" ? scalars[type]! : this.ref(type);
  }

  /** The object schema of a message, or of the listed fields of it (a request body without its path fields). */
  message(m: MessageModel, only?: readonly string[]): TreeObject {
    const fields = only ? m.fields.filter((f) => only.includes(f.name)) : m.fields;
    const required = fields.filter((f) => f.required && f.oneof === undefined && this.alwaysWritten(f));
    const oneofs = [...new Set(fields.flatMap((f) => (f.oneof === undefined ? [] : [f.oneof])))];
    const choices = oneofs.map((o) => this.oneofChoice(m, o, fields));
    return compact({
      type: "object",
      description: only ? undefined : m.description,
      properties: Object.fromEntries(fields.map((f) => [f.jsonName, this.field(f)])),
      required: required.length > 0 ? required.map((f) => f.jsonName) : undefined,
      allOf: choices.length > 0 ? choices : undefined,
    });
  }

  /**
   * At most one member of a oneof: exactly one of "this member" for each, or "none of them". A member's
   * branch names it in `properties` (as `true`: its schema is the message's) so the branch reads alone.
   */
  private oneofChoice(m: MessageModel, oneof: string, fields: readonly FieldModel[]): TreeObject {
    const members = fields.filter((f) => f.oneof === oneof).map((f) => f.jsonName);
    const has = (name: string): TreeObject => ({ title: name, properties: { [name]: true }, required: [name] });
    const none = { title: `no ${oneof}`, properties: Object.fromEntries(members.map((n) => [n, false])) };
    return {
      description: m.oneofDescriptions?.[oneof] ?? `oneof ${oneof}: at most one of ${members.join(", ")}`,
      "x-oneof": oneof,
      oneOf: [...members.map(has), none],
    };
  }

  private alwaysWritten(f: FieldModel): boolean {
    return this.src.requiredInJson || (f.kind === "message" && !f.repeated && !f.map);
  }

  private enumSchema(e: EnumModel): TreeObject {
    const values = e.values.filter((v) => v.description !== undefined).map((v) => `- ${v.name}: ${v.description}`);
    const text = [e.description, values.length > 0 ? values.join("\n") : undefined].filter(Boolean).join("\n\n");
    return compact({ type: "string", enum: e.values.map((v) => v.name), description: text || undefined });
  }

  /** A queued type's component: its message or enum schema. */
  protected build(fullName: string): TreeObject {
    const m = this.src.messages.get(fullName);
    const e = this.src.enums.get(fullName);
    return m ? this.message(m) : e ? this.enumSchema(e) : { description: `${fullName} (unknown type)` };
  }
}
