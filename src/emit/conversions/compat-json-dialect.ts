/**
 * The messages the older version's JSON-RPC dialect writes whole, for the
 * direct conversions (compat-json-module.ts): a union (the member's own JSON,
 * told apart by its kind), a typed union ({type, ...member}), a list map
 * ({key: [strings]}) and an array result (the bare list of one field). Each
 * function gives the body of the pair's conversion in one direction, as code.
 */
import type { DescMessage } from "@bufbuild/protobuf";
import type { PlanPair } from "../../compat/compat-plan.js";
import {
  assign,
  atKey,
  decCall,
  decFn,
  eachOf,
  encCall,
  encFn,
  rt,
  ty,
  declareZero,
  ruleOf,
  type JsonEnv,
} from "./compat-json-env.js";
import { code, field, lit, messageOf, setTest, type Code } from "./compat-json-fields.js";
import { guarded, indented, switchCase } from "../print/code-layout.js";

/** A pair: its plan and both descriptors. */
export interface WholePair {
  readonly plan: PlanPair;
  readonly d03: DescMessage;
  readonly d10: DescMessage;
}

/** The dialect's whole-message rules that a direct conversion writes (src/compat/json-ir.ts). */
export type WholeKind = "typed" | "listMap" | "array";

/** The message, list or map field a whole-message rule of an older message names. */
function ruleField(env: JsonEnv, d03: DescMessage): string {
  const rule = ruleOf(env, d03).rule;
  if (rule.kind !== "array" && rule.kind !== "listMap") throw new Error(`compat-json: ${d03.typeName}: no rule field`);
  return rule.field.f.name;
}

/** A typed union's `type` values, by the older member field's name. */
function typedMembers(env: JsonEnv, d03: DescMessage): Readonly<Record<string, string>> {
  const rule = ruleOf(env, d03).rule;
  if (rule.kind !== "typed") throw new Error(`compat-json: ${d03.typeName} is no typed union`);
  return Object.fromEntries(rule.members.map(([r, type]) => [r.f.name, type]));
}

/** The `kind` the dialect adds to an older message, if any. */
const kindOf = (env: JsonEnv, d03: DescMessage) => env.rules.messages.get(d03.typeName)?.kindValue;

/**
 * A union of the dialect: the member's own JSON, told apart by its `kind`; without a kind, a message
 * if it has a messageId, else a task (as the dialect codec decides); an unknown kind is refused.
 */
export function unionToNewer(env: JsonEnv, p: WholePair): Code[] {
  const members = p.plan.toNewer.map((s) => ({ s, sub: messageOf(field(p.d03, s.from))! }));
  const member = (m: (typeof members)[number]) =>
    assign(p.d10, (m.s as { to: string }).to, decCall(env, m.sub, "from", "path"));
  const byKind = (kind: string) => members.find((m) => kindOf(env, m.sub) === kind);
  const message = byKind("message");
  const task = byKind("task");
  const known = p.d03.fields
    .flatMap((f) => {
      const sub = messageOf(f);
      return (sub && kindOf(env, sub)) ?? [];
    })
    .join(", ");
  const what = lit(p.d03.typeName);
  const refuse = code`${rt(env, "refuseKind")}(${rt(env, "pathOf")}(path), ${what}, from["kind"], ${lit(known)});`;
  const guess: Code[] =
    message && task
      ? [code`if (from["messageId"] !== undefined) ${member(message)}`, code`else ${member(task)}`]
      : [refuse];
  return [
    code`const from = ${rt(env, "object")}(json, path, ${what});`,
    ...declareZero(env, "out", p.d10),
    `switch (from["kind"]) {`,
    ...members
      .filter((m) => kindOf(env, m.sub) !== undefined)
      .flatMap((m) => switchCase(code`case ${lit(kindOf(env, m.sub))}:`, [member(m), "break;"])),
    ...switchCase("case undefined:", [...guess, "break;"]),
    ...switchCase("default:", [refuse]),
    `}`,
    `return out;`,
  ];
}

/** A message the dialect writes whole (typed union, list map, array result), toward the newer version. */
export function wholeToNewer(env: JsonEnv, p: WholePair, rule: WholeKind): Code[] {
  const { d03, d10 } = p;
  const what = lit(d03.typeName);
  if (rule === "typed") {
    // {type, ...member}: the member's own fields beside the type that says which it is.
    const types = typedMembers(env, d03);
    const cases = p.plan.toNewer.map((s) => {
      const sub = messageOf(field(d03, s.from))!;
      const type = types[s.from];
      if (type === undefined) throw new Error(`compat-json: ${d03.typeName}.${s.from} has no type in the dialect`);
      return switchCase(code`case ${lit(type)}:`, [
        assign(d10, (s as { to: string }).to, decCall(env, sub, "rest", "path")),
        "break;",
      ]);
    });
    const unknown = code`"unknown ${d03.typeName} type " + ${rt(env, "preview")}(type)`;
    return [
      code`const { type, ...rest } = ${rt(env, "object")}(json, path, ${what});`,
      ...declareZero(env, "out", d10),
      `switch (type) {`,
      ...cases.flat(),
      ...switchCase("default:", [code`${rt(env, "lose")}(lost, path, "type", ${unknown});`]),
      `}`,
      `return out;`,
    ];
  }
  if (rule === "listMap") {
    // {scheme: [scopes]}: each key's list is the map value's list.
    const mapField = field(d10, ruleField(env, d03));
    const list = mapField.fieldKind === "map" && mapField.mapKind === "message" ? mapField.message : undefined;
    if (list?.fields.length !== 1) throw new Error(`compat-json: ${d10.typeName}: no list map`);
    const item = lit(`${d03.typeName}.${mapField.name}`);
    return [
      code`const from = ${rt(env, "object")}(json, path, ${what});`,
      ...declareZero(env, "out", d10),
      `for (const key of Object.keys(from)) {`,
      ...indented("  ", declareZero(env, "list", list)),
      code`  list.${list.fields[0]!.localName} = ${rt(env, "strings")}(from[key], path, key, ${item});`,
      code`  ${rt(env, "setKey")}(out.${mapField.localName}, key, list);`,
      `}`,
      `return out;`,
    ];
  }
  // The bare list of the one field a2a.json keeps.
  const f = field(d03, ruleField(env, d03));
  const step = p.plan.toNewer.find((s) => s.from === f.name) as { to: string } | undefined;
  if (!step) throw new Error(`compat-json: ${d03.typeName}.${f.name} has no step toward the newer version`);
  const each = code`${rt(env, "each")}(json, path, ${what}, lost, ${decFn(env, messageOf(f)!)})`;
  return [...declareZero(env, "out", d10), code`out.${field(d10, step.to).localName} = ${each};`, `return out;`];
}

/** A message the dialect writes whole (typed union, list map, array result), toward the older version. */
export function wholeToOlder(env: JsonEnv, p: WholePair, rule: WholeKind): Code[] {
  const { d03, d10 } = p;
  if (rule === "typed") {
    const types = typedMembers(env, d03);
    const oneof = d10.oneofs[0]!;
    const cases = p.plan.toOlder.map((s) => {
      const f = field(d10, s.from);
      const type = types[(s as { to: string }).to];
      const member = encCall(env, messageOf(f)!, `from.${oneof.localName}.value`, atKey(env, "path", f.name));
      return switchCase(code`case ${lit(f.localName)}:`, [code`return { type: ${lit(type)}, ...${member} };`]);
    });
    const older = d03.oneofs[0]?.name ?? "";
    const reason = `${d03.typeName} sets none of ${older}; a2a.json has no form for it`;
    return [
      `switch (from.${oneof.localName}.case) {`,
      ...cases.flat(),
      `}`,
      code`${rt(env, "lose")}(lost, path, ${lit(older)}, ${lit(reason)});`,
      `return {};`,
    ];
  }
  if (rule === "listMap") {
    const mapField = field(d10, ruleField(env, d03));
    const list = mapField.fieldKind === "map" && mapField.mapKind === "message" ? mapField.message : undefined;
    const name = `from.${mapField.localName}`;
    const value = code`${name}[key]${ty(env, "!")}.${list!.fields[0]!.localName}.slice()`;
    return [
      code`const out${ty(env, code`: ${rt(env, "JsonObject")}`)} = {};`,
      code`for (const key of Object.keys(${name})) ${rt(env, "setKey")}(out, key, ${value});`,
      `return out;`,
    ];
  }
  return arrayResultToOlder(env, p);
}

/** The bare list of the one field a2a.json keeps; the newer message's other set fields are reported. */
function arrayResultToOlder(env: JsonEnv, p: WholePair): Code[] {
  const { d03, d10 } = p;
  const f = field(d03, ruleField(env, d03));
  const lines: Code[] = [];
  let list: Code = "";
  for (const s of p.plan.toOlder) {
    const g = field(d10, s.from);
    if (s.op !== "lossy" && (s as { to: string }).to === f.name) {
      const sub = messageOf(g)!;
      list = code`${eachOf(env, sub)}(from.${g.localName}, ${atKey(env, "path", g.name)}, lost, ${encFn(env, sub)})`;
      continue;
    }
    const reason = s.op === "lossy" ? s.reason : `a2a.json's result is the bare list of ${f.name}; it has no ${g.name}`;
    const lose = code`${rt(env, "lose")}(lost, path, ${lit(g.name)}, ${lit(reason)});`;
    lines.push(...guarded(setTest(g, `from.${g.localName}`)!, lose));
  }
  return [...lines, code`return ${list};`];
}

/** A union toward the older dialect: the member's own JSON (with its kind); nothing set writes {}, reported. */
export function unionToOlder(env: JsonEnv, p: WholePair): Code[] {
  const lines: Code[] = [];
  for (const s of p.plan.toOlder) {
    const f = field(p.d10, s.from);
    const value = encCall(env, messageOf(f)!, `from.${f.oneof!.localName}.value`, atKey(env, "path", f.name));
    lines.push(...guarded(`from.${f.oneof!.localName}.case === ${lit(f.localName)}`, code`return ${value};`));
  }
  const oneof = p.d03.oneofs[0]?.name ?? "";
  const reason = `${p.d03.typeName} sets none of ${oneof}; a2a.json has no form for it`;
  return [...lines, code`${rt(env, "lose")}(lost, path, ${lit(oneof)}, ${lit(reason)});`, "return {};"];
}
