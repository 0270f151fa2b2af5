/**
 * The direct conversions between the older version's a2a.json and the newer
 * messages, derived on the IR: for each pair of the conversion IR
 * (conversion-ir.ts) and each direction, the composition of the pair's plan
 * steps with the dialect's rule of the older message and of each older field
 * (dialect-ir.ts). The writers (emit/conversions/compat-json-*) print each
 * step by its op; what cannot be composed is a problem naming the compat
 * entry, the pair, the direction and the step, reported before anything is
 * written.
 *
 *   function = form
 *   form     = part | union | typed | listMap | array   the dialect writes the message whole
 *            | fields { step } { dialect read }          key by key, in the plan's order
 *   step     = value   newer field ↔ older key, one kind of value (below) or a list of strings
 *            | map     strings | messages (of a pair), key by key
 *            | message a message or a list of them, by their pair's function
 *            | lose    reported, not written
 *            | dialect (toward the older version) a field the older proto lacks, kept under its a2a.json key
 *            | transform
 *   dialect read = (toward the newer version) a key a2a.json carries, read into the newer field
 *
 * The value kinds are those the runtime's a2a.json helpers read and write: string, bool, int32, bytes,
 * enum (as the dialect spells it), Struct and Timestamp.
 */
import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import type { Problems } from "../generation-error.js";
import type { ConversionFunction, ConversionIr, ConversionPair, ConversionStep, Direction } from "./conversion-ir.js";
import { type DialectIr, type FieldRule, type MessageRules, messageOf } from "./dialect-ir.js";
import type { CompatTransformName } from "./transforms.js";

export type ValueKind = "string" | "bool" | "int32" | "bytes" | "enum" | "struct" | "timestamp";

export type JsonStep =
  | { readonly op: "value"; readonly from: DescField; readonly to: DescField; readonly older: FieldRule }
  | {
      readonly op: "map";
      readonly of: "strings" | "messages";
      readonly from: DescField;
      readonly to: DescField;
      readonly older: FieldRule;
    }
  | { readonly op: "message"; readonly from: DescField; readonly to: DescField; readonly older: FieldRule }
  | { readonly op: "lose"; readonly from: DescField; readonly older: FieldRule | undefined; readonly reason: string }
  | { readonly op: "dialect"; readonly from: DescField; readonly key: string }
  | { readonly op: "transform"; readonly transform: Exclude<CompatTransformName, "part"> };

export type JsonForm =
  | { readonly kind: "part" | "union" | "typed" | "listMap" | "array" }
  | { readonly kind: "fields"; readonly steps: readonly JsonStep[] };

/** A2a.json keys the older proto lacks, each read into a newer field toward the newer version. */
export interface DialectRead {
  readonly to: DescField;
  readonly key: string;
}

export interface JsonPair {
  readonly pair: ConversionPair;
  /** The dialect's rules of the older message. */
  readonly rules: MessageRules;
  readonly toOlder: JsonForm;
  readonly toNewer: JsonForm;
  readonly dialectReads: readonly DialectRead[];
}

/** Every pair's direct conversions, in the conversion IR's order. */
export type JsonIr = readonly JsonPair[];

/** The direct conversions of `ir` over the older version's dialect; every step that cannot be written is reported. */
export function buildJsonIr(ir: ConversionIr, dialect: DialectIr, problems: Problems): JsonIr {
  const out: JsonPair[] = [];
  for (const pair of ir.pairs) {
    const rules = dialect.messages.get(pair.older.typeName);
    if (!rules) {
      problems.add(`${placeOf(pair)}: the dialect has no rules for ${pair.older.typeName}`);
      continue;
    }
    const olderRule = (f: DescField) => rules.fields.find((r) => r.f === f);
    const x: Composer = { rules, dialectFields: pair.plan.dialectFields, olderRule, problems };
    const fns = ir.functions.get(pair)!;
    const dialectReads = checkDialectFields(pair, rules, problems);
    out.push({ pair, rules, toOlder: form(x, fns.toOlder), toNewer: form(x, fns.toNewer), dialectReads });
  }
  return out;
}

/** What composing the steps of one pair reads. */
interface Composer {
  readonly rules: MessageRules;
  readonly dialectFields: Readonly<Record<string, string>>;
  /** The dialect's rule of an older field of the pair. */
  olderRule(f: DescField): FieldRule | undefined;
  readonly problems: Problems;
}

const placeOf = (p: ConversionPair) =>
  `${p.plan.entry ?? p.newer.typeName} (${p.older.typeName} ↔ ${p.newer.typeName})`;

/** One direction of a pair: the dialect's whole-message form, else its steps composed key by key. */
function form(x: Composer, fn: ConversionFunction): JsonForm {
  const { rules } = x;
  const problem = (what: string) => x.problems.add(`${placeOf(fn.pair)}: ${what}`);
  if (rules.nullResult || rules.rule.kind === "wrapper") {
    problem(`the dialect's ${rules.nullResult ? "null result" : "wrapper"} rule has no direct conversion`);
    return { kind: "fields", steps: [] };
  }
  const kind = rules.rule.kind;
  if (kind === "typed" || kind === "listMap" || kind === "array") return { kind };
  const steps: JsonStep[] = [];
  for (const s of fn.steps) {
    const step = compose(x, fn.dir, s);
    const [name, op] =
      s.op === "transform" ? [s.transform.field, `transform ${s.transform.name}`] : [s.from.name, s.op];
    if (step === undefined) problem(`${fn.dir} step ${name} (${op})`);
    else if (step !== "none") steps.push(step);
  }
  return kind === "part" || kind === "union" ? { kind } : { kind: "fields", steps };
}

/**
 * A step of the message conversion composed with the dialect's rule of its older field; "none" for one that
 * writes nothing here, undefined for one that has no a2a.json form.
 */
function compose(x: Composer, dir: Direction, s: ConversionStep): JsonStep | "none" | undefined {
  const toNewer = dir === "toNewer";
  const kind = x.rules.rule.kind;
  if (s.op === "transform") {
    // The Part's conversion is the dialect's part rule (its form), which only the part transform stands for.
    const name = s.transform.name;
    if (kind === "part") return name === "part" ? "none" : undefined;
    return name === "part" ? undefined : { op: "transform", transform: name };
  }
  const from = s.from;
  if (s.op === "lose") {
    if (kind === "union") return undefined; // a union holds its members only
    if (from.fieldKind === "map" || (messageOf(from) === undefined && valueKind(from) === undefined)) return undefined;
    const key = toNewer ? undefined : x.dialectFields[from.name];
    if (key !== undefined) return { op: "dialect", from, key };
    return { op: "lose", from, older: toNewer ? x.olderRule(from) : undefined, reason: s.reason };
  }
  const to = s.to;
  const older = x.olderRule(toNewer ? from : to);
  if (!older) return undefined;
  if (kind === "union")
    return s.op === "pair" && from.oneof !== undefined && from.fieldKind === "message"
      ? { op: "message", from, to, older }
      : undefined;
  if (s.op === "pair")
    return from.fieldKind === "map"
      ? { op: "map", of: "messages", from, to, older }
      : { op: "message", from, to, older };
  if (copyable(from, to)) return { op: "value", from, to, older };
  return stringMap(from, to) ? { op: "map", of: "strings", from, to, older } : undefined;
}

/** What a2a.json holds and the older proto does not: plain values only, nested keys for the Part only. */
function checkDialectFields(pair: ConversionPair, rules: MessageRules, problems: Problems): DialectRead[] {
  const where = pair.plan.entry ?? pair.newer.typeName;
  const part = rules.rule.kind === "part";
  return Object.entries(pair.plan.dialectFields).flatMap(([name, key]) => {
    const to = pair.newer.fields.find((f) => f.name === name);
    if (!to) return []; // the plan has reported it
    if (!part && key.includes(".")) {
      problems.add(`${where}: dialectFields ${name}: "${key}" is nested; only the Part conversion reads nested keys`);
      return [];
    }
    const kind = valueKind(to);
    if (!part && !(kind && (to.fieldKind !== "list" || kind === "string") && kind !== "enum")) {
      problems.add(`${where}: dialectFields ${name}: its type has no a2a.json conversion`);
      return [];
    }
    return part ? [] : [{ to, key }];
  });
}

/** A map of strings, copied key by key. */
function stringMap(from: DescField, to: DescField): boolean {
  if (from.fieldKind !== "map" || to.fieldKind !== "map" || from.mapKey !== to.mapKey) return false;
  return (
    from.mapKind === "scalar" &&
    to.mapKind === "scalar" &&
    from.scalar === ScalarType.STRING &&
    to.scalar === ScalarType.STRING
  );
}

/** The kind of a singular value of a field (or of a list's items), if the a2a.json helpers handle it. */
export function valueKind(f: DescField): ValueKind | undefined {
  const scalar =
    f.fieldKind === "scalar" ? f.scalar : f.fieldKind === "list" && f.listKind === "scalar" ? f.scalar : undefined;
  if (scalar !== undefined) return SCALAR_KINDS.get(scalar);
  if (f.fieldKind === "enum" || (f.fieldKind === "list" && f.listKind === "enum")) return "enum";
  const m: DescMessage | undefined = f.fieldKind === "message" ? f.message : undefined;
  if (m?.typeName === "google.protobuf.Struct") return "struct";
  if (m?.typeName === "google.protobuf.Timestamp") return "timestamp";
  return undefined;
}

const SCALAR_KINDS = new Map<ScalarType, ValueKind>([
  [ScalarType.STRING, "string"],
  [ScalarType.BOOL, "bool"],
  [ScalarType.INT32, "int32"],
  [ScalarType.BYTES, "bytes"],
]);

/** A copy from `from` to `to` is direct when both hold the same kind of value, singular or both lists of strings. */
export function copyable(from: DescField, to: DescField): boolean {
  const k = valueKind(from);
  if (!k || k !== valueKind(to)) return false;
  if (from.fieldKind === "list" || to.fieldKind === "list")
    return from.fieldKind === "list" && to.fieldKind === "list" && k === "string";
  return from.fieldKind !== "map" && to.fieldKind !== "map";
}
