/**
 * The component table both document emitters build their schemas in (protojson-schemas.ts for ProtoJSON,
 * openrpc-dialect-schemas.ts for the v0.3 JSON-RPC dialect): a reference names a message or enum and queues
 * it; `components()` builds every queued type (and what its schema references in turn) once, then lists the
 * components by name.
 *
 * Rule: a type of the document's own package is named without it (`Task`), any other by its full name.
 */
import type { FieldModel } from "../../model/model-types.js";
import type { Tree, TreeObject } from "../print/doc-tree.js";

export abstract class SchemaComponents {
  private readonly defined = new Map<string, TreeObject>();
  private readonly queue: string[] = [];

  protected constructor(
    private readonly ownPackage: string,
    /** e.g. "#/components/schemas/" */
    private readonly refPrefix: string,
  ) {}

  /** The component name of a message or enum. */
  name(fullName: string): string {
    const own = this.ownPackage + ".";
    return fullName.startsWith(own) ? fullName.slice(own.length) : fullName;
  }

  /** A reference to a message's or enum's component, queued to be built. */
  protected queued(fullName: string): TreeObject {
    const name = this.name(fullName);
    if (!this.defined.has(name) && !this.queue.includes(fullName)) this.queue.push(fullName);
    return { $ref: this.refPrefix + name };
  }

  /** The schema of one value of a type: a scalar name, or an enum or message full name. */
  protected abstract typeSchema(kind: FieldModel["kind"], type: string): TreeObject;

  /** A field's schema: its type, as an array or a map when it is one, with its comment. */
  field(f: FieldModel): TreeObject {
    const one = f.mapEntry ? this.typeSchema(f.mapEntry.kind, f.mapEntry.type) : this.typeSchema(f.kind, f.type);
    const shaped = f.map
      ? { type: "object", additionalProperties: one }
      : f.repeated
        ? { type: "array", items: one }
        : one;
    return f.description === undefined ? shaped : { ...shaped, description: f.description };
  }

  /** The schema of a queued type's component. */
  protected abstract build(fullName: string): TreeObject;

  /** Every component, the queued ones built, by name. */
  components(): TreeObject {
    for (let next = this.queue.shift(); next !== undefined; next = this.queue.shift()) {
      const name = this.name(next);
      if (!this.defined.has(name)) this.defined.set(name, this.build(next));
    }
    const names = [...this.defined.keys()].sort();
    return Object.fromEntries(names.map((n): [string, Tree] => [n, this.defined.get(n)!]));
  }

  /** A component defined as it is (not a message or enum); returns the reference to it. */
  define(name: string, schema: TreeObject): TreeObject {
    this.defined.set(name, schema);
    return { $ref: this.refPrefix + name };
  }
}
