/**
 * The value-level code of the message conversions (compat-proto-pair.ts):
 * what a field holds at its zero value, whether it is set (as protobuf-es
 * isFieldSet says), and a copied or converted field value: scalars as they
 * are, enums by name through a table (an unknown number refused toward the
 * newer version, reported and written as 0 toward the older one), messages
 * through their pair's function, lists and maps item by item.
 */
import { ScalarType, type DescEnum, type DescField, type DescMessage, type DescOneof } from "@bufbuild/protobuf";
import type { Printable } from "@bufbuild/protoplugin";

/** protobuf-es FeatureSet_FieldPresence.IMPLICIT: the field is set when it is not its zero value. */
export const IMPLICIT = 2;

export const lit = (s: string) => JSON.stringify(s);

/** A key of a path: a field name (quoted) or code (an index or map key variable). */
export type PathKey = string | { readonly code: string };

/** The zero value of a target member, as code; undefined when the member is simply left out (unset). */
export function zeroValue(m: DescField | DescOneof, problem: (what: string) => void): string | undefined {
  if (m.kind === "oneof") return "{ case: undefined }";
  const z = fieldZero(m);
  if (z === "BigInt(0)") {
    problem(`${m.parent.typeName}.${m.name}: 64-bit integers are not converted`);
    return "0";
  }
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
  if (f.oneof) return `m.${f.oneof.localName}.case === ${lit(f.localName)}`;
  if (f.fieldKind === "list") return `${read}.length > 0`;
  if (f.fieldKind === "map") return `Object.keys(${read}).length > 0`;
  if (f.fieldKind === "message" || f.presence !== IMPLICIT) return `${read} !== undefined`;
  if (f.fieldKind === "enum") return `${read} !== 0`;
  if (f.scalar === ScalarType.BOOL) return read;
  if (f.scalar === ScalarType.STRING) return `${read} !== ""`;
  if (f.scalar === ScalarType.BYTES) return `${read}.length > 0`;
  return `${read} !== 0`;
}

/** One enum pair's table, source number → target number, by value name, else by number. */
export interface EnumTable {
  readonly name: string;
  readonly from: DescEnum;
  readonly to: DescEnum;
  readonly entries: readonly (readonly [number, number])[];
}

export function enumTable(from: DescEnum, to: DescEnum, toNewer: boolean): EnumTable {
  const entries: [number, number][] = [];
  for (const v of from.values) {
    const same = to.values.find((x) => x.localName === v.localName) ?? to.values.find((x) => x.number === v.number);
    if (same) entries.push([v.number, same.number]);
  }
  const snake = from.name.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
  return { name: `${snake}_TO_${toNewer ? "NEWER" : "OLDER"}`, from, to, entries };
}

/** What the value code of one field needs from the function writing it. */
export interface ValueContext {
  readonly toNewer: boolean;
  /** Expression: the path `keys` under `a`. */
  at(keys: readonly PathKey[]): Printable[];
  rt(name: string): Printable;
  /** The table of an enum pair (printed once per module). */
  table(from: DescEnum, to: DescEnum): EnumTable;
  /** Expression: `value` (of message type `d`, source side) converted by its pair's function at path `keys`. */
  convert(d: DescMessage, value: string, keys: readonly PathKey[]): Printable[];
  /**
   * Expression: the list `read` of messages of type `d` (source side) converted item by item, at path `keys`
   * (one path node for the whole list, when the conversion takes its path).
   */
  convertList(d: DescMessage, read: string, keys: readonly PathKey[]): Printable[];
  /** Marks the function as reporting losses (it takes `lost`) or reading its path (it takes `a`). */
  uses(what: "at" | "lost"): void;
  problem(what: string): void;
}

/** Expression: an enum number `value` of source field `f` as the target field's enum, at `keys` + `key`. */
export function enumValue(
  c: ValueContext,
  f: DescField,
  from: DescEnum,
  to: DescEnum,
  value: string,
  keys: readonly PathKey[],
  key: PathKey,
): Printable[] {
  const t = c.table(from, to);
  const keyCode = typeof key === "string" ? lit(key) : key.code;
  const parent = keys.length === 0 ? ["a"] : c.at(keys);
  c.uses("at");
  if (c.toNewer) {
    const what = lit(`${f.parent.typeName}.${f.name}`);
    return [`${t.name}[${value}] ?? `, c.rt("enumRefused"), "(", ...parent, `, ${keyCode}, ${what}, ${value})`];
  }
  c.uses("lost");
  const zero = lit(to.values.find((v) => v.number === 0)?.name ?? "0");
  return [
    `${t.name}[${value}] ?? `,
    c.rt("enumLost"),
    "(lost, ",
    ...parent,
    `, ${keyCode}, ${value}, ${lit(to.typeName)}, ${zero})`,
  ];
}

const isWkt = (d: DescMessage) => d.typeName.startsWith("google.protobuf.");

/**
 * Expression: the value of source field `f` (not in a oneof when `read` is `m.<field>`; else `read` is the
 * member's value) for target field `t`, as a copy or message step writes it.
 */
export function fieldValue(c: ValueContext, f: DescField, t: DescField, read: string): Printable[] {
  const keys = [f.name];
  const present = f.presence !== IMPLICIT && f.fieldKind !== "message" && !f.oneof;
  const wantsUnset = t.presence !== IMPLICIT && t.fieldKind !== "message" && !t.oneof;
  switch (f.fieldKind) {
    case "scalar": {
      if (present === wantsUnset || t.fieldKind !== "scalar") return [read];
      if (present) return [`${read} ?? ${zeroValue(t, c.problem)}`];
      return f.scalar === ScalarType.STRING || f.scalar === ScalarType.BOOL
        ? [`${read} || undefined`]
        : [`${isSet(f, read)} ? ${read} : undefined`];
    }
    case "enum": {
      if (t.fieldKind !== "enum") return shapeProblem(c, f, t);
      const v = enumValue(c, f, f.enum, t.enum, read, [], f.name);
      return present ? [`${read} === undefined ? ${zeroValue(t, c.problem) ?? "undefined"} : `, ...v] : v;
    }
    case "message":
      if (t.fieldKind !== "message") return shapeProblem(c, f, t);
      if (isWkt(f.message) || f.message.typeName === t.message.typeName) return [read];
      return f.oneof ? c.convert(f.message, read, keys) : [`${read} && `, ...c.convert(f.message, read, keys)];
    case "list":
      if (t.fieldKind !== "list") return shapeProblem(c, f, t);
      if (f.listKind === "enum" && t.listKind === "enum")
        return [`${read}.map((v, i) => `, ...enumValue(c, f, f.enum, t.enum, "v", keys, { code: "i" }), ")"];
      if (f.listKind === "message" && !isWkt(f.message)) return c.convertList(f.message, read, keys);
      return [`${read}.slice()`];
    case "map":
      if (t.fieldKind !== "map") return shapeProblem(c, f, t);
      if (f.mapKind === "message" && !isWkt(f.message)) {
        const each = c.convert(f.message, "v", [...keys, { code: "k" }]);
        return ["Object.fromEntries(Object.entries(", read, ").map(([k, v]) => [k, ", ...each, "]))"];
      }
      if (f.mapKind === "enum") return shapeProblem(c, f, t);
      return [`{ ...${read} }`];
  }
}

function shapeProblem(c: ValueContext, f: DescField, t: DescField): Printable[] {
  c.problem(`${f.parent.typeName}.${f.name} → ${t.parent.typeName}.${t.name}: no conversion between their kinds`);
  return ["undefined"];
}
