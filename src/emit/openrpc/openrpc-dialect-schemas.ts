/**
 * Messages of a version whose JSON-RPC binding speaks a dialect (v0.3: a2a.json) → JSON Schemas of that
 * form, from the model and the dialect's IR (src/compat/dialect-ir.ts), which the version's codec is
 * written from too. A message has at most one whole-message rule:
 *
 *   null result   null                          array         the bare array of one field
 *   union         one of the oneof's members    part          {kind: text|file|data, …} (part.file: uri|bytes)
 *   wrapper       the wrapped field's schema    typed         one of the members, each with its `type`
 *   listMap       the bare map of string arrays
 *
 * else an object of its fields: keys as the dialect writes them (a rename, else the JSON name), enum values
 * as the dialect spells them, the `kind` the dialect adds (required), a resource-name field as its pattern's
 * ids (`tasks/{id}` → `id`; required but for the ids a request may leave out).
 * `required`: the fields the dialect always writes, `kind`, and the fields the input rules require (api.input*:
 * field_behavior REQUIRED as the override files leave it). No schema forbids other keys: a2a.json has keys
 * the proto lacks (Part.metadata, file name), which the codec reads and reports as lost.
 */
import type { FieldModel, MessageModel } from "../../model/model-types.js";
import type { ResolvedApi } from "../../model/resolve-api.js";
import { type DialectIr, type FieldRule, type MessageRules, spelled } from "../../compat/dialect-ir.js";
import { compact, type Tree, type TreeObject } from "../print/doc-tree.js";
import { SchemaComponents } from "../schemas/schema-components.js";
import { wellKnownSchema } from "../schemas/protojson-schemas.js";

/** The ids a resource-name pattern names: `tasks/{id}/pushNotificationConfigs/{cfg}` → id, cfg. */
const ids = (pattern: string) => [...pattern.matchAll(/\{([^}.]+)\}/g)].map((x) => x[1]!);

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
    private readonly d: DialectIr,
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

  private rules(msg: MessageModel): MessageRules | undefined {
    return this.d.messages.get(msg.fullName);
  }

  private rule(msg: MessageModel, f: FieldModel): FieldRule | undefined {
    return this.rules(msg)?.fields.find((x) => x.f.name === f.name);
  }

  /** Whether a field must be present: always written, or the input rules (REQUIRED unless an override removed it). */
  private required(msg: MessageModel, f: FieldModel): boolean {
    if (this.rule(msg, f)?.always) return true;
    const rules = this.m.inputOverrides.get(msg.fullName);
    if (rules?.has(f.name)) return rules.get(f.name) !== null;
    return f.required;
  }

  private key(msg: MessageModel, f: FieldModel): string {
    return this.rule(msg, f)?.key ?? f.jsonName;
  }

  /** The object form of a message: its fields by dialect key, kind, resource ids. */
  object(msg: MessageModel): TreeObject {
    const props: [string, Tree][] = [];
    const required: string[] = [];
    const kind = this.rules(msg)?.kindValue;
    if (kind !== undefined) {
      props.push(["kind", { type: "string", const: kind }]);
      required.push("kind");
    }
    for (const f of msg.fields) {
      const rule = this.rule(msg, f);
      if (rule?.resource !== undefined) {
        for (const id of ids(rule.resource)) {
          props.push([id, { type: "string", description: `Part of the proto's \`${f.name}\` (${rule.resource}).` }]);
          if (this.required(msg, f) && !rule.optionalIds.includes(id)) required.push(id);
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
    const rule = this.rules(msg)?.rule;
    const wrapper = rule?.kind === "wrapper" ? rule : undefined;
    const inner = wrapper ? msg.fields.find((f) => f.name === wrapper.field.f.name) : undefined;
    const target = inner ? this.m.messages.get(inner.type)! : msg;
    const o = this.object(target) as { properties: Record<string, Tree>; required?: string[] };
    // A wrapper's own required fields are read from keys of the wrapped message (derived: parent ← taskId).
    const derived = (wrapper?.derived ?? []).flatMap((d) => {
      const f = msg.fields.find((x) => x.name === d.name);
      return f && this.required(msg, f) ? ids(d.pattern) : [];
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
    const fieldOf = (r: FieldRule) => msg.fields.find((f) => f.name === r.f.name)!;
    const rule = this.rules(msg)?.rule ?? { kind: "fields" };
    switch (rule.kind) {
      case "array":
      case "wrapper":
        return this.field(fieldOf(rule.field));
      case "union":
        return { description: msg.description ?? msg.name, oneOf: msg.fields.map((f) => this.field(f)) };
      case "part":
        return this.part(msg);
      case "typed": {
        const members = rule.members.map(([field, type]) => ({
          allOf: [
            this.field(fieldOf(field)),
            { properties: { type: { type: "string", const: type } }, required: ["type"] },
          ],
        }));
        return { description: msg.description ?? msg.name, oneOf: members };
      }
      case "listMap":
        return { type: "object", additionalProperties: { type: "array", items: { type: "string" } } };
      case "fields":
        return this.object(msg);
    }
  }

  private enumSchema(fullName: string): TreeObject {
    const e = this.m.enums.get(fullName)!;
    const names = [...new Set(e.values.map((v) => spelled(this.d, v.name)))];
    return compact({ type: "string", enum: names, description: e.description });
  }

  /** A queued type's component: its message in the dialect's form, or its enum. */
  protected build(fullName: string): TreeObject {
    const msg = this.m.messages.get(fullName);
    return msg ? this.whole(msg) : this.m.enums.has(fullName) ? this.enumSchema(fullName) : {};
  }
}
