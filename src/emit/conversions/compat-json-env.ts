/**
 * What the writers of the direct conversions (compat-json-module.ts) share:
 * the pairs, the module's imports (runtime helpers, message shapes), and the
 * code pieces both directions use: reading and writing a field under its
 * dialect key, setting a newer field, calling another pair's function, the
 * zero value of a message. Every piece is code as printables (import symbols
 * in place), never text to fix up later.
 */
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import type { GeneratedFile } from "@bufbuild/protoplugin";
import type { CompatPlan, PlanPair } from "../../compat/compat-plan.js";
import { type ConversionIr, planReason as planReasonOf } from "../../compat/conversion-ir.js";
import type { DialectIr, FieldRule, MessageRules } from "../../compat/dialect-ir.js";
import type { JsonIr, JsonPair } from "../../compat/json-ir.js";
import {
  code,
  EnumTables,
  field,
  lit,
  prop,
  readValue,
  setTest,
  valueKind,
  writeValue,
  zeroLiteral,
  zeroMembers,
  type Code,
} from "./compat-json-fields.js";
import { cases, indented, widthOf } from "../print/code-layout.js";
import type { Resource } from "./compat-json-transforms.js";
import { lowerFirstWord } from "../print/names.js";
import { compatJsonHelper, runtimeModule } from "../print/runtime-entries.js";
import { paramNames } from "../print/unused-params.js";
import type { NamespacedShape } from "../print/shape-imports.js";

/** The helpers the generated conversions call (packages/runtime/src/compat/compat-json.ts). */

export type Dir = "toNewer" | "toOlder";

export interface Pair {
  /** Its direct conversions, as src/compat/json-ir.ts derives them. */
  readonly json: JsonPair;
  readonly plan: PlanPair;
  readonly d10: DescMessage;
  readonly d03: DescMessage;
  /** The newer message's name, nested names joined by "_": names the functions. */
  readonly id: string;
}

/** The module being written: its file, target, inputs and pairs. */
export interface JsonEnv {
  readonly f: GeneratedFile;
  /** Whether types are written (TypeScript). */
  readonly typed: boolean;
  readonly plan: CompatPlan;
  /** The dialect of the older messages. */
  readonly rules: DialectIr;
  readonly messages: ReadonlyMap<string, DescMessage>;
  /** Each pair by either of its type names. */
  readonly pairs: ReadonlyMap<string, Pair>;
  readonly enums: EnumTables;
  /** A newer message's type, through the namespace import of its file. */
  readonly shape: NamespacedShape;
}

/** What the module is written from: the conversion IR, the dialect and its rules, the direct conversions. */
export interface JsonSources {
  readonly ir: ConversionIr;
  readonly rules: DialectIr;
  readonly json: JsonIr;
  /** A newer message's type, through the namespace import of its file. */
  readonly shape: NamespacedShape;
}

export function createEnv(f: GeneratedFile, typed: boolean, { ir, rules, json, shape }: JsonSources): JsonEnv {
  const { plan } = ir;
  const pairs = new Map<string, Pair>();
  for (const jp of json) {
    const { newer: d10, older: d03 } = jp.pair;
    const id = d10.typeName.slice(plan.newer.length + 1).replace(/\./g, "_");
    const pair: Pair = { json: jp, plan: jp.pair.plan, d10, d03, id };
    pairs.set(d10.typeName, pair).set(d03.typeName, pair);
  }
  const enums = new EnumTables(rules, typed);
  return { f, typed, plan, rules, messages: ir.messages, pairs, enums, shape };
}

/** The part of the module's environment that knows the dialect's rules. */
export type PairEnv = Pick<JsonEnv, "rules">;

/** A runtime helper or type, imported where the generated code uses it. */
export function rt(env: JsonEnv, name: string): Code {
  if (name === "JsonObject" || name === "JsonValue") return env.f.import(name, "@bufbuild/protobuf", true);
  if (name === "Loss") return env.f.import(name, runtimeModule, true);
  return compatJsonHelper(name);
}

/** `s` in TypeScript, nothing in JavaScript. */
export const ty = (env: JsonEnv, s: Code): Code => (env.typed ? s : "");

/** The dialect's rules of an older message. */
export function ruleOf(env: Pick<PairEnv, "rules">, d03: DescMessage): MessageRules {
  const r = env.rules.messages.get(d03.typeName);
  if (!r) throw new Error(`compat-json: ${d03.typeName} has no dialect rules`);
  return r;
}

/** The dialect's rule of an older field. */
export function fieldRule(env: Pick<PairEnv, "rules">, d03: DescMessage, name: string): FieldRule {
  const r = ruleOf(env, d03).fields.find((x) => x.f.name === name);
  if (!r) throw new Error(`compat-json: ${d03.typeName} has no field ${name}`);
  return r;
}

/** The dialect key of an older field. */
export const key03 = (env: JsonEnv, name: string, d: DescMessage) => fieldRule(env, d, name).key;

/** The dialect's resource name pattern of an older field. */
export function resource(env: JsonEnv, d03: DescMessage, name03: string): Resource {
  const pattern = fieldRule(env, d03, name03).resource;
  if (pattern === undefined)
    throw new Error(`compat-json: ${d03.typeName}.${name03} has no resource name pattern in the dialect`);
  return { keys: pattern.split(/\{([^}]+)\}/).filter((_, i) => i % 2 === 1) };
}

export function pairOf(env: JsonEnv, typeName: string): Pair {
  const p = env.pairs.get(typeName);
  if (!p) throw new Error(`compat-json: ${typeName} has no counterpart`);
  return p;
}

export function olderMessage(env: JsonEnv, short: string): DescMessage {
  const d = env.messages.get(`${env.plan.older}.${short}`);
  if (!d) throw new Error(`compat-json: no message ${env.plan.older}.${short}`);
  return d;
}

/** The reason of the plan's lossy step for a field of a newer message, toward the older version. */
export function planReason(env: JsonEnv, newerShort: string, name: string): string {
  // The transform's definition lists it, and the IR has checked the plan has it (src/compat/transforms.ts).
  const reason = planReasonOf(env.plan, newerShort, name);
  if (reason === undefined) throw new Error(`compat-json: the plan has no lossy step for ${newerShort}.${name}`);
  return reason;
}

/** Expression: a newer message at its zero value (typed as its shape in TypeScript). */
export const zero = (env: JsonEnv, d: DescMessage): Code =>
  env.typed ? code`(${zeroLiteral(d)} as ${env.shape(d)})` : zeroLiteral(d);

/**
 * Statement (lines): `const name` declared (typed as its shape in TypeScript) as a newer message at its zero value;
 * a member a line when long.
 */
export function declareZero(env: JsonEnv, name: string, d: DescMessage): Code[] {
  const members = zeroMembers(d);
  const declared = env.typed ? code`const ${name}: ${env.shape(d)} = ` : `const ${name} = `;
  if (widthOf(declared) + `{ ${members.join(", ")} };`.length <= 116) return [code`${declared}${zeroLiteral(d)};`];
  const lines = indented(
    "  ",
    members.map((x) => `${x},`),
  );
  return [code`${declared}{`, ...lines, "};"];
}

// ---- function names and calls ----

/**
 * The function (json, path, lost) → newer message of a pair: the newer message's name, then the
 * direction, as the proto path names its own (`taskToOlder`), marked as the JSON one (`taskFromOlderJson`).
 */
export const decName = (p: Pair) => decPartName(p, "");
/** A function toward the newer version that does part of a pair's conversion (`agentCard` + part + `FromOlderJson`). */
export const decPartName = (p: Pair, part: string) => `${lowerFirstWord(p.id)}${part}FromOlderJson`;
/** The function (from, path, lost) → older dialect JSON of a pair (`taskToOlderJson`). */
export const encName = (p: Pair) => `${lowerFirstWord(p.id)}ToOlderJson`;

/** The function converting older dialect JSON of `sub`'s pair, for list elements. */
export const decFn = (env: JsonEnv, sub: DescMessage) => decName(pairOf(env, sub.typeName));
export const encFn = (env: JsonEnv, sub: DescMessage) => encName(pairOf(env, sub.typeName));

/** Expression: older dialect JSON `expr` converted to the newer counterpart of `sub`. */
export const decCall = (env: JsonEnv, sub: DescMessage, expr: string, atExpr: Code): Code =>
  code`${decFn(env, sub)}(${expr}, ${atExpr}, lost)`;
/** Expression: the newer message `expr` (of type `sub`) converted to older dialect JSON. */
export const encCall = (env: JsonEnv, sub: DescMessage, expr: string, atExpr: Code): Code =>
  code`${encFn(env, sub)}(${expr}, ${atExpr}, lost)`;

/** The list writer: eachOf leaves out an element without a form (a part without content), eachTo has none. */
export const eachOf = (env: JsonEnv, sub: DescMessage): Code =>
  rt(env, ruleOf(env, pairOf(env, sub.typeName).d03).rule.kind === "part" ? "eachOf" : "eachTo");

/**
 * A conversion, as lines: `function name(param: T, path: At, lost: Loss[]): R {`, typed in TypeScript only, the
 * body indented, `}`. `params` are `json` toward the newer version, `from` toward the older one (and `out`, the
 * message a part of a conversion fills); the body fills `out` from them. A parameter the body does not read is
 * written `_path` / `_lost` (noUnusedParameters).
 */
export function printedFunction(
  env: JsonEnv,
  name: string,
  params: readonly (readonly [string, Code])[],
  result: Code,
  body: readonly Code[],
): Code[] {
  const typed = (t: Code): Code => ty(env, code`: ${t}`);
  const lost = typed(code`${rt(env, "Loss")}[]`);
  const used = paramNames([...body]);
  const all = [
    ...params.map(([param, type]) => code`${param}${typed(type)}`),
    code`${used("path")}${typed(rt(env, "At"))}`,
    code`${used("lost")}${lost}`,
  ];
  const head = [`function ${name}(`, ...all.flatMap((x, i) => (i === 0 ? [x] : [", ", x])), code`)${typed(result)} {`];
  // A parameter a line when the head is too long for one, as a formatter prints it.
  const heads = widthOf(head) <= 120 ? [head] : [`function ${name}(`, ...all.map((x) => ["  ", x, ","]), head.at(-1)!];
  return [...heads, ...body.map((l) => ["  ", l]), "}"];
}

/** Expression: `at(parent, key)`. */
export const atKey = (env: JsonEnv, parent: Code, key: string): Code => code`${rt(env, "at")}(${parent}, ${lit(key)})`;

// ---- toward the newer version ----

/** Expression: the dialect value of an older field of `obj`; null or undefined when absent. */
export function read(env: JsonEnv, d03: DescMessage, name: string, obj: string): string {
  const f = field(d03, name);
  const k = key03(env, name, d03);
  return k === f.jsonName ? prop(obj, k) : `(${prop(obj, k)} ?? ${prop(obj, f.jsonName)})`;
}

/** Expression: the value `expr` of an older field read as the older proto reads it (into `d10Field`'s enum). */
export function readAs(
  env: JsonEnv,
  d03: DescMessage,
  name: string,
  expr: string,
  d10Field?: DescField,
  where: Code = "path",
) {
  const f = field(d03, name);
  const what = lit(`${d03.typeName}.${name}`);
  const enumTable = (e: Parameters<EnumTables["toNewer"]>[0]) => {
    const isEnum =
      d10Field && (d10Field.fieldKind === "enum" || (d10Field.fieldKind === "list" && d10Field.listKind === "enum"));
    return env.enums.toNewer(e, isEnum ? d10Field.enum : e);
  };
  const helper = (name: string) => rt(env, name);
  if (f.fieldKind === "list") {
    // Elements are named by their index under the field's key.
    if (valueKind(f) === "string")
      return code`${helper("strings")}(${expr}, ${where}, ${lit(key03(env, name, d03))}, ${what})`;
    throw new Error(`compat-json: no reader for ${f.toString()}`);
  }
  // An enum value is refused at its own key (its path made only then); other values at their object.
  const at = valueKind(f) === "enum" ? code`${where}, ${lit(key03(env, name, d03))}` : where;
  return readValue(f, expr, at, what, helper, enumTable);
}

/** Statement: sets a newer field of `target` (a oneof member by its case). */
export function assign(d10: DescMessage, name10: string, expr: Code, target = "out"): Code {
  const t = field(d10, name10);
  return t.oneof
    ? code`${target}.${t.oneof.localName} = { case: ${lit(t.localName)}, value: ${expr} };`
    : code`${target}.${t.localName} = ${expr};`;
}

/** Statement (lines): reports the keys of `obj` that the older message `d03` has no field for. */
export function unknownKeys(
  env: JsonEnv,
  d03: DescMessage,
  obj: string,
  atExpr: string,
  extra: readonly string[] = [],
): Code[] {
  const known = new Set<string>(["kind", ...extra]);
  for (const f of d03.fields) {
    // A resource name is spelled as the ids its pattern names (tasks/{id} ↔ id), not under its own key.
    if (fieldRule(env, d03, f.name).resource !== undefined)
      for (const k of resource(env, d03, f.name).keys) known.add(k.split(".")[0]!);
    else known.add(key03(env, f.name, d03)).add(f.jsonName);
  }
  return keyCheck(env, d03.typeName, obj, atExpr, [...known]);
}

/**
 * Statement (lines): reports each key of `obj` not in `known`, as one `what` (an older message) has no field
 * for. One for-in with a switch in the function itself: a for-in that sees one object shape stays fast, a
 * shared helper's (or a Set lookup's) sees them all.
 */
export function keyCheck(env: JsonEnv, what: string, obj: string, atExpr: string, known: readonly string[]): Code[] {
  const labels = cases(
    known.map((k) => `case ${lit(k)}:`),
    "break;",
  );
  const lose = code`${rt(env, "lose")}(lost, ${atExpr}, key, ${lit(`${what} has no field for it`)});`;
  return [code`for (const key in ${obj}) switch (key) {`, ...indented("  ", [...labels, code`default: ${lose}`]), "}"];
}

// ---- toward the older version ----

/** Expression: a newer field of `obj`. */
export function get(d10: DescMessage, name: string, obj = "from"): string {
  const f = field(d10, name);
  return f.oneof
    ? `(${obj}.${f.oneof.localName}.case === ${lit(f.localName)} ? ${obj}.${f.oneof.localName}.value : undefined)`
    : `${obj}.${f.localName}`;
}

/** How put writes: the newer field the value comes from, whether that was tested set, whether it is always written. */
export interface PutFrom {
  readonly source?: DescField;
  readonly sourceTested?: boolean;
  readonly always?: boolean;
}

/**
 * Statement writing `expr` (a value for the older field) under its dialect key, when toJson would write it; an
 * expression that is not a plain path is evaluated once, into `value` (a name no conversion toward the older
 * version uses otherwise).
 */
export function put(env: JsonEnv, d03: DescMessage, name03: string, expr: string, target: string, from: PutFrom = {}) {
  const { source, sourceTested = false, always = false } = from;
  const t = field(d03, name03);
  const table =
    valueKind(t) === "enum" && t.fieldKind === "enum"
      ? env.enums.toOlder(source && source.fieldKind === "enum" ? source.enum : t.enum, t.enum)
      : undefined;
  // A plain path is used in place; anything else is evaluated once.
  const once = !/^[\w.]+$/.test(expr);
  const held = once ? "value" : expr;
  // Skip the test when the caller's own test (the source being set) already implies it.
  const test = setTest(t, held);
  const implied = always || (sourceTested && source !== undefined && test === setTest(source, held));
  const value = writeValue(t, held, (name) => rt(env, name), table, source?.name ?? name03);
  const write = code`${test && !implied ? `if (${test}) ` : ""}${prop(target, key03(env, name03, d03))} = ${value};`;
  return once ? code`{ const ${held} = ${expr}; ${write} }` : write;
}
