/**
 * Code pieces for one field of the direct conversions (compat-json-module.ts), as printables:
 * how a value of a given proto field type is read from the older version's
 * dialect JSON, written to it, tested for being set, and what the zero value
 * of a newer message is. A field type that has no fragment here fails the
 * generation, naming the pair and the step (compat-json-module.ts).
 *
 *   read   ProtoJSON value → protobuf-es value, checked as fromJson checks it
 *   write  protobuf-es value → ProtoJSON value, as toJson writes it
 *   set    whether isFieldSet would say the field is set
 */
import type { DescEnum, DescEnumValue, DescField, DescMessage } from "@bufbuild/protobuf";
import { type DialectIr, spelled } from "../../compat/dialect-ir.js";
import { IMPLICIT } from "../../compat/conversion-ir.js";
import { fieldZero } from "./compat-proto-values.js";

export { IMPLICIT };
export { code, type Code } from "../print/code-layout.js";
import { code, listed, type Code } from "../print/code-layout.js";

export const lit = (v: unknown) => JSON.stringify(v);

/** `o["key"]`: a key of an a2a.json object (noPropertyAccessFromIndexSignature). */
export const prop = (o: string, key: string) => `${o}[${lit(key)}]`;

export { copyable, valueKind, type ValueKind as Scalarish } from "../../compat/json-ir.js";
import { valueKind } from "../../compat/json-ir.js";

/**
 * Condition under which isFieldSet(field) holds for the value `expr` (which is also when toJson writes it);
 * undefined when any present value is set.
 */
export function setTest(f: DescField, expr: string): string | undefined {
  const parts = setTestParts(f);
  return parts && parts[0] + expr + parts[1];
}

/** setTest for a value given as code. */
export function isSetCode(f: DescField, expr: Code): Code | undefined {
  const parts = setTestParts(f);
  return parts && [parts[0], expr, parts[1]].filter((x) => x !== "");
}

/** The text before and after the value in setTest's condition. */
function setTestParts(f: DescField): readonly [string, string] | undefined {
  if (f.fieldKind === "list") return ["", ".length > 0"];
  if (f.fieldKind === "map") return ["Object.keys(", ").length > 0"];
  if (f.fieldKind === "message") return ["", " !== undefined"];
  if (f.oneof || f.presence !== IMPLICIT) return ["", " !== undefined"];
  switch (valueKind(f)) {
    case "string":
      return ["", ' !== ""'];
    case "bool":
      return ["", ""];
    case "bytes":
      return ["", ".length > 0"];
    default:
      return ["", " !== 0"];
  }
}

/** Enum tables, named once per module: dialect/proto spellings → newer number, newer number → dialect spelling. */
export class EnumTables {
  readonly decls: Code[] = [];
  private readonly names = new Map<string, string>();
  /** `typed`: whether the Maps' type arguments are written (TypeScript). */
  constructor(
    private readonly dialect: DialectIr,
    private readonly typed: boolean,
  ) {}

  /**
   * A Map from every JSON spelling of an older enum value (dialect, proto name, number) to the newer number
   * (as the proto path maps enums: by name, else by number); a value without one is not in it, so reading it is
   * refused.
   */
  toNewer(older: DescEnum, newer: DescEnum): string {
    return this.named(`${constantCase(newer.name)}_FROM_JSON`, `${older.typeName}>${newer.typeName}`, (start) => {
      const entries: string[] = [];
      for (const v of older.values) {
        const n = counterpart(v, newer)?.number;
        if (n === undefined) continue;
        const spelling = this.dialect.enumSpellings.get(v.name);
        // When two values share a spelling (ROLE_UNSPECIFIED and ROLE_AGENT are both "agent"), the
        // first listed wins, as in the dialect codec.
        if (spelling !== undefined && this.firstSpelling(spelling) === v.name) entries.push(`[${lit(spelling)}, ${n}]`);
        entries.push(`[${lit(v.name)}, ${n}]`, `[${v.number}, ${n}]`);
      }
      const type = this.typed ? "<string | number, number>" : "";
      return listed(`${start}new Map${type}([`, entries, "]);").join("\n");
    });
  }

  /**
   * An EnumToOlder (compat-json.ts): newer numbers → the dialect spelling of the older value (by name,
   * else by number), and the older value 0, which a number without one is written as (and reported).
   */
  toOlder(newer: DescEnum, older: DescEnum): string {
    return this.named(`${constantCase(older.name)}_TO_JSON`, `${newer.typeName}<${older.typeName}`, (start) => {
      const spell = (name: string) => lit(spelled(this.dialect, name));
      const entries = newer.values.flatMap((v) => {
        const o = counterpart(v, older);
        return o === undefined ? [] : [`[${v.number}, ${spell(o.name)}]`];
      });
      const zero = older.values.find((x) => x.number === 0)?.name ?? "";
      const type = this.typed ? "<number, string>" : "";
      const spellings = listed(`spelled: new Map${type}([`, entries, "])", 120 - 2).join("\n");
      const members = [`older: ${lit(older.typeName)}`, `zeroName: ${lit(zero)}`, `zeroSpelled: ${spell(zero)}`];
      return listed(`${start}{`, [...members, spellings], "};").join("\n");
    });
  }

  private firstSpelling(spelling: string): string | undefined {
    return [...this.dialect.enumSpellings].find(([, s]) => s === spelling)?.[0];
  }

  /**
   * The constant for `key`, declared on first use as `name` (numbered if taken); `declare` prints the whole
   * declaration from its start, `const NAME = `.
   */
  private named(name: string, key: string, declare: (start: string) => string): string {
    let n = this.names.get(key);
    if (!n) {
      const taken = new Set(this.names.values());
      n = name;
      for (let i = 2; taken.has(n); i++) n = `${name}_${i}`;
      this.names.set(key, n);
      this.decls.push(declare(`const ${n} = `));
    }
    return n;
  }
}

/** An enum's name as a constant's (TaskState → TASK_STATE), as the proto path names its tables. */
const constantCase = (name: string) => name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();

/** The value of `to` with the local name of `v`, else with its number (as the proto path maps enums). */
function counterpart(v: DescEnumValue, to: DescEnum): DescEnumValue | undefined {
  return to.values.find((x) => x.localName === v.localName) ?? to.values.find((x) => x.number === v.number);
}

/** An object literal equal to `create(desc)`: members in declaration order. */
export function zeroLiteral(desc: DescMessage): string {
  return `{ ${zeroMembers(desc).join(", ")} }`;
}

/** The members of zeroLiteral, each `name: value`. */
export function zeroMembers(desc: DescMessage): string[] {
  const parts = [`$typeName: ${lit(desc.typeName)}`];
  for (const member of desc.members) {
    if (member.kind === "oneof") parts.push(`${member.localName}: { case: undefined }`);
    else {
      const z = fieldZero(member);
      if (z !== undefined) parts.push(`${member.localName}: ${z}`);
    }
  }
  return parts;
}

/** Expression reading a field's singular value `expr` from ProtoJSON, as a protobuf-es value. */
export function readValue(
  f: DescField,
  expr: string,
  where: Code,
  what: string,
  rt: (s: string) => Code,
  enums: (e: DescEnum) => string | undefined,
): Code[] {
  const kind = valueKind(f);
  switch (kind) {
    case "string":
    case "bool":
    case "int32":
    case "bytes":
    case "struct":
      return code`${rt(kind === "string" ? "str" : kind)}(${expr}, ${where}, ${what})`;
    case "timestamp":
      return code`${rt("timestamp")}(${expr}, ${where}, ${what}, lost)`;
    case "enum": {
      const table = enums((f as DescField & { enum: DescEnum }).enum) ?? "undefined";
      return code`${rt("enumIn")}(${table}, ${expr}, ${where}, ${what})`;
    }
    default:
      throw new Error(`compat-json: no reader for ${f.toString()}`);
  }
}

/**
 * Expression writing a protobuf-es value `expr` of a field as ProtoJSON (enums in the dialect's spelling via
 * `table`, a number without one reported under `key` of the message at `path`).
 */
export function writeValue(
  f: DescField,
  expr: string,
  rt: (s: string) => Code,
  table: string | undefined,
  key = f.name,
): Code {
  switch (valueKind(f)) {
    case "bytes":
      return code`${rt("base64")}(${expr})`;
    case "struct":
      return code`${rt("structJson")}(${expr})`;
    case "timestamp":
      return code`${rt("timestampJson")}(${expr})`;
    case "enum":
      return code`${rt("enumOut")}(${table ?? "undefined"}, ${expr}, path, ${lit(key)}, lost)`;
    default:
      return f.fieldKind === "list" ? `${expr}.slice()` : expr;
  }
}

/** The field `name` of `d`. */
export const field = (d: DescMessage, name: string): DescField => {
  const f = d.fields.find((x) => x.name === name);
  if (!f) throw new Error(`compat-json: ${d.typeName} has no field ${name}`);
  return f;
};
export { messageOf } from "../../compat/dialect-ir.js";
