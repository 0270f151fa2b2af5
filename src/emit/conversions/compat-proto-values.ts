/**
 * The value-level code of the message conversions (compat-proto-pair.ts):
 * what a field holds at its zero value, whether it is set (as protobuf-es
 * isFieldSet says), and a copied or converted field value: scalars as they
 * are, enums by name through a table (an unknown number refused toward the
 * newer version, reported and written as 0 toward the older one), messages
 * through their pair's function, lists and maps item by item.
 */
import { ScalarType, type DescField, type DescOneof } from "@bufbuild/protobuf";
import type { Printable } from "@bufbuild/protoplugin";
import { type ConversionPair, type ConversionStep, type EnumTable, IMPLICIT } from "../../compat/conversion-ir.js";

export const lit = (s: string) => JSON.stringify(s);

/** A key of a path: a field name (quoted) or code (an index or map key variable). */
export type PathKey = string | { readonly code: string };

/**
 * The zero value of a target member, as code; undefined when the member is simply left out (unset). The IR
 * has refused 64-bit integers at their zero value (conversion-ir.ts).
 */
export function zeroValue(m: DescField | DescOneof): string | undefined {
  if (m.kind === "oneof") return "{ case: undefined }";
  const z = fieldZero(m);
  if (z === "BigInt(0)") throw new Error(`compat: ${m.parent.typeName}.${m.name}: no zero value for a 64-bit integer`);
  return z;
}

/** The zero value protobuf-es `create()` gives a field, as code; undefined when create() leaves it unset. */
export function fieldZero(f: DescField): string | undefined {
  if (f.fieldKind === "list") return "[]";
  if (f.fieldKind === "map") return "{}";
  if (f.fieldKind === "message" || f.presence !== IMPLICIT) return undefined;
  if (f.fieldKind === "enum") return "0";
  switch (f.scalar) {
    case ScalarType.STRING:
      return '""';
    case ScalarType.BOOL:
      return "false";
    case ScalarType.BYTES:
      return "new Uint8Array(0)";
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return "BigInt(0)";
    default:
      return "0";
  }
}

/** Code: whether the source field `f`, read as `read`, is set. */
export function isSet(f: DescField, read: string): string {
  if (f.oneof) return `from.${f.oneof.localName}.case === ${lit(f.localName)}`;
  if (f.fieldKind === "list") return `${read}.length > 0`;
  if (f.fieldKind === "map") return `Object.keys(${read}).length > 0`;
  if (f.fieldKind === "message" || f.presence !== IMPLICIT) return `${read} !== undefined`;
  if (f.fieldKind === "enum") return `${read} !== 0`;
  if (f.scalar === ScalarType.BOOL) return read;
  if (f.scalar === ScalarType.STRING) return `${read} !== ""`;
  if (f.scalar === ScalarType.BYTES) return `${read}.length > 0`;
  return `${read} !== 0`;
}

/** The name a table is printed under: `TASK_STATE_TO_OLDER`. */
export function tableName(t: EnumTable): string {
  const snake = t.from.name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
  return `${snake}_TO_${t.toNewer ? "NEWER" : "OLDER"}`;
}

/** What the value code of one field needs from the function writing it. */
export interface ValueContext {
  readonly toNewer: boolean;
  /** Expression: the path `keys` under `path`. */
  at(keys: readonly PathKey[]): Printable[];
  rt(name: string): Printable;
  /** Expression: `value` (a source message of `pair`) converted by the pair's function at path `keys`. */
  convert(pair: ConversionPair, value: string, keys: readonly PathKey[]): Printable[];
  /**
   * Expression: the list `read` of source messages of `pair` converted item by item, at path `keys`
   * (one path node for the whole list, when the conversion takes its path).
   */
  convertList(pair: ConversionPair, read: string, keys: readonly PathKey[]): Printable[];
  /** Marks the function as reporting losses (it takes `lost`) or reading its path (it takes `path`). */
  uses(what: "at" | "lost"): void;
}

/** Expression: an enum number `value` of source field `f` by table `t`, at `keys` + `key`. */
export function enumValue(
  c: ValueContext,
  f: DescField,
  t: EnumTable,
  value: string,
  keys: readonly PathKey[],
  key: PathKey,
): Printable[] {
  const keyCode = typeof key === "string" ? lit(key) : key.code;
  const parent = keys.length === 0 ? ["path"] : c.at(keys);
  c.uses("at");
  if (t.toNewer) {
    const what = lit(`${f.parent.typeName}.${f.name}`);
    return [`${tableName(t)}[${value}] ?? `, c.rt("enumRefused"), "(", ...parent, `, ${keyCode}, ${what}, ${value})`];
  }
  c.uses("lost");
  const zero = lit(t.to.values.find((v) => v.number === 0)?.name ?? "0");
  return [
    `${tableName(t)}[${value}] ?? `,
    c.rt("enumLost"),
    "(lost, ",
    ...parent,
    `, ${keyCode}, ${value}, ${lit(t.to.typeName)}, ${zero})`,
  ];
}

/**
 * Expression: the value of a copy, enum or pair step, its source field read as `read` (`from.<field>`, or the
 * member's value when the field is in a oneof).
 */
export function stepValue(c: ValueContext, step: ValueStep, read: string): Printable[] {
  const { from: f, to: t } = step;
  const keys = [f.name];
  const present = f.presence !== IMPLICIT && f.fieldKind !== "message" && !f.oneof;
  const wantsUnset = t.presence !== IMPLICIT && t.fieldKind !== "message" && !t.oneof;
  const enumOrValue = (v: Printable[]) =>
    present ? [`${read} === undefined ? ${zeroValue(t) ?? "undefined"} : `, ...v] : v;
  switch (step.op) {
    case "enum":
      if (f.fieldKind === "list")
        return [`${read}.map((value, i) => `, ...enumValue(c, f, step.table, "value", keys, { code: "i" }), ")"];
      return enumOrValue(enumValue(c, f, step.table, read, [], f.name));
    case "pair":
      if (f.fieldKind === "list") return c.convertList(step.pair, read, keys);
      if (f.fieldKind === "map") {
        const each = c.convert(step.pair, "value", [...keys, { code: "key" }]);
        return ["Object.fromEntries(Object.entries(", read, ").map(([key, value]) => [key, ", ...each, "]))"];
      }
      return f.oneof ? c.convert(step.pair, read, keys) : [`${read} && `, ...c.convert(step.pair, read, keys)];
    case "copy":
      if (f.fieldKind === "list") return [`${read}.slice()`];
      if (f.fieldKind === "map") return [`{ ...${read} }`];
      if (f.fieldKind !== "scalar" || present === wantsUnset || t.fieldKind !== "scalar") return [read];
      if (present) return [`${read} ?? ${zeroValue(t)}`];
      return f.scalar === ScalarType.STRING || f.scalar === ScalarType.BOOL
        ? [`${read} || undefined`]
        : [`${isSet(f, read)} ? ${read} : undefined`];
  }
}

type ValueStep = Extract<ConversionStep, { op: "copy" | "enum" | "pair" }>;
