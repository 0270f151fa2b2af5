/**
 * Messages of a version whose JSON-RPC binding speaks a dialect (v0.3: a2a.json) → JSON Schemas of that
 * form, from the model and the dialect table (override api.jsonrpcDialect), the rules the version's codec
 * is written from (jsonrpc-codec-rules.ts). A message has at most one whole-message rule:
 *
 *   nullResults   null                          arrayResults  the bare array of one field
 *   unions        one of the oneof's members    part          {kind: text|file|data, …} (part.file: uri|bytes)
 *   wrappers      the wrapped field's schema    typedUnions   one of the members, each with its `type`
 *   listMaps      the bare map of string arrays
 *
 * else an object of its fields: keys renamed (renames) or JSON names, enum values as the dialect names them,
 * the `kind` the dialect adds (required), a resource-name field as its pattern's ids (`tasks/{id}` → `id`;
 * required but for the entry's `optional` ids).
 * `required`: the dialect's alwaysEmit fields, `kind`, and the fields the input rules require (api.input*:
 * field_behavior REQUIRED as the override files leave it). No schema forbids other keys: a2a.json has keys
 * the proto lacks (Part.metadata, file name), which the codec reads and reports as lost.
 */
import type { FieldModel, MessageModel } from "../../model/model-types.js";
import type { ResolvedApi } from "../../model/resolve-api.js";
import type { JsonRpcDialect } from "@protoc-gen-a2a/runtime/protocol";
import { compact, type Tree, type TreeObject } from "../print/doc-tree.js";
import { SchemaComponents } from "../schemas/schema-components.js";
import { wellKnownSchema } from "../schemas/protojson-schemas.js";

const scalarTypes: Readonly<Record<string, TreeObject>> = {
  string: { type: "string" },
  bool: { type: "boolean" },
  bytes: { type: "string", contentEncoding: "base64" },
  float: { type: "number" },
  double: { type: "number" },
};

function scalar(type: string): TreeObject {
  if (scalarTypes[type]) return scalarTypes[type]!;
  return /64$/.test(type) ? { type: ["string", "integer"] } : { type: "integer" };
}

export class DialectSchemas extends SchemaComponents {
  constructor(
    private readonly m: ResolvedApi,
    private readonly d: JsonRpcDialect,
    refPrefix: string,
  ) {
    super(m.package, refPrefix);
  }

  ref(fullName: string): TreeObject {
    if (this.d.nullResults.includes(fullName)) return { type: "null" };
    const wkt = wellKnownSchema(fullName);
    if (wkt) return wkt;
    return this.queued(fullName);
  }

  protected typeSchema(kind: FieldModel["kind"], type: string): TreeObject {
    return kind === "scalar" ? scalar(type) : this.ref(type);
  }

  /** Whether a field must be present: alwaysEmit, or the input rules (REQUIRED unless an override removed it). */
  private required(msg: MessageModel, f: FieldModel): boolean {
    if (this.d.alwaysEmit[msg.fullName]?.includes(f.name)) return true;
    const rules = this.m.inputOverrides.get(msg.fullName);
    if (rules?.has(f.name)) return rules.get(f.name) !== null;
    return f.required;
  }

  private key(msg: MessageModel, f: FieldModel): string {
    return this.d.renames[`${msg.fullName}.${f.name}`] ?? f.jsonName;
  }

  /** The object form of a message: its fields by dialect key, kind, resource ids. */
  object(msg: MessageModel): TreeObject {
    const props: [string, Tree][] = [];
    const required: string[] = [];
    const kind = this.d.kinds[msg.fullName];
    if (kind !== undefined) {
      props.push(["kind", { type: "string", const: kind }]);
      required.push("kind");
    }
    for (const f of msg.fields) {
      const resource = this.d.resourceNames.find((r) => r.message === msg.fullName && r.field === f.name);
      if (resource) {
        for (const id of [...resource.pattern.matchAll(/\{([^}.]+)\}/g)].map((x) => x[1]!)) {
          props.push([id, { type: "string", description: `Part of the proto's \`${f.name}\` (${resource.pattern}).` }]);
          if (this.required(msg, f) && !resource.optional?.includes(id)) required.push(id);
        }
        continue;
      }
      const key = this.key(msg, f);
      props.push([key, this.field(f)]);
      if (this.required(msg, f) && f.oneof === undefined) required.push(key);
    }
    return compact({
      type: "object",
      description: msg.description,
      properties: Object.fromEntries(props),
      required: required.length > 0 ? [...new Set(required)] : undefined,
    });
  }

  /**
   * The params of a request in the dialect: the keys of its object form (a wrapper's: the wrapped message's),
   * each with its schema and whether it is required.
   */
  params(fullName: string): { readonly name: string; readonly schema: Tree; readonly required: boolean }[] {
    const msg = this.m.messages.get(fullName)!;
    const wrapper = this.d.wrappers.find((w) => w.message === fullName);
    const inner = wrapper ? msg.fields.find((f) => f.name === wrapper.field) : undefined;
    const target = inner ? this.m.messages.get(inner.type)! : msg;
    const o = this.object(target) as { properties: Record<string, Tree>; required?: string[] };
    // A wrapper's own required fields are read from keys of the wrapped message (derived: parent ← taskId).
    const derived = Object.entries(wrapper?.derived ?? {}).flatMap(([field, pattern]) => {
      const f = msg.fields.find((x) => x.name === field);
      return f && this.required(msg, f) ? [...pattern.matchAll(/\{([^}.]+)\}/g)].map((x) => x[1]!) : [];
    });
    return Object.entries(o.properties).map(([name, schema]) => ({
      name,
      schema,
      required: (o.required?.includes(name) ?? false) || derived.includes(name),
    }));
  }

  /** The part rule: one branch per member of the part's oneof, its `kind` the member's name. */
  private part(msg: MessageModel): TreeObject {
    const p = this.d.part;
    const branches = msg.fields.map((f): TreeObject => {
      let value: TreeObject;
      if (f.kind === "message" && f.type === p.file.message) value = this.file(f.type);
      else if (f.kind === "message" && f.type === p.data.message) {
        const data = this.m.messages.get(f.type)!.fields.find((x) => x.name === p.data.field)!;
        value = this.field(data);
      } else value = this.field(f);
      return {
        type: "object",
        properties: { kind: { type: "string", const: f.name }, [f.name]: value },
        required: ["kind", f.name],
      };
    });
    return compact({ description: msg.description, oneOf: branches });
  }

  /** The file of a file part: `uri` or `bytes` (part.file), with the other fields of the file message. */
  private file(type: string): TreeObject {
    const p = this.d.part.file;
    const msg = this.m.messages.get(type)!;
    const others = msg.fields.filter((f) => f.name !== p.uri && f.name !== p.bytes);
    const common = Object.fromEntries(others.map((f) => [this.key(msg, f), this.field(f)]));
    const branch = (key: string, schema: TreeObject): TreeObject => ({
      type: "object",
      properties: { [key]: schema, ...common },
      required: [key],
    });
    return {
      oneOf: [branch("uri", { type: "string" }), branch("bytes", { type: "string", contentEncoding: "base64" })],
    };
  }

  private whole(msg: MessageModel): TreeObject {
    const d = this.d;
    const fieldOf = (name: string) => msg.fields.find((f) => f.name === name)!;
    const array = d.arrayResults[msg.fullName];
    if (array !== undefined) return this.field(fieldOf(array));
    if (d.unions.includes(msg.fullName))
      return { description: msg.description ?? msg.name, oneOf: msg.fields.map((f) => this.field(f)) };
    if (d.part.message === msg.fullName) return this.part(msg);
    const wrapper = d.wrappers.find((w) => w.message === msg.fullName);
    if (wrapper) return this.field(fieldOf(wrapper.field));
    const typed = d.typedUnions?.[msg.fullName];
    if (typed) {
      const members = Object.entries(typed).map(([field, type]) => ({
        allOf: [
          this.field(fieldOf(field)),
          { properties: { type: { type: "string", const: type } }, required: ["type"] },
        ],
      }));
      return { description: msg.description ?? msg.name, oneOf: members };
    }
    const listMap = d.listMaps?.[msg.fullName];
    if (listMap !== undefined)
      return { type: "object", additionalProperties: { type: "array", items: { type: "string" } } };
    return this.object(msg);
  }

  private enumSchema(fullName: string): TreeObject {
    const e = this.m.enums.get(fullName)!;
    const names = [...new Set(e.values.map((v) => this.d.enums[v.name] ?? v.name))];
    return compact({ type: "string", enum: names, description: e.description });
  }

  /** A queued type's component: its message in the dialect's form, or its enum. */
  protected build(fullName: string): TreeObject {
    const msg = this.m.messages.get(fullName);
    return msg ? this.whole(msg) : this.m.enums.has(fullName) ? this.enumSchema(fullName) : {};
  }
}
