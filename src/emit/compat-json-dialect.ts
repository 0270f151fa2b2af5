/**
 * The messages the older version's JSON-RPC dialect writes whole, for the
 * direct conversions (compat-json-module.ts): a union (the member's own JSON,
 * told apart by its kind), a typed union ({type, ...member}), a list map
 * ({key: [strings]}) and an array result (the bare list of one field). Each
 * function gives the body of the pair's conversion in one direction, as code.
 */
import type { DescMessage } from "@bufbuild/protobuf";
import type { JsonRpcDialect } from "@protoc-gen-a2a/runtime";
import type { PlanPair } from "../compat/compat-plan.js";
import { field, lit, messageOf, setTest } from "./compat-json-fields.js";

/** What the writers need of the module they write into. */
export interface WholeCtx {
  readonly dialect: JsonRpcDialect;
  /** `s` in TypeScript, "" in JavaScript. */
  ty(s: string): string;
  /** A runtime helper's name, imported. */
  rt(name: string): string;
  /** Expression: a newer message at its zero value. */
  zero(d: DescMessage): string;
  /** Statement: sets a newer field of `m` (a oneof member by its case). */
  assign(d10: DescMessage, name10: string, expr: string): string;
  /** Expression: older dialect JSON `v` converted to the newer counterpart of `sub`. */
  decCall(sub: DescMessage, v: string, atExpr: string): string;
  /** The name of the function converting older dialect JSON of `sub`'s pair. */
  decFn(sub: DescMessage): string;
  /** Expression: the newer message `v` (of type `sub`) converted to older dialect JSON. */
  encCall(sub: DescMessage, v: string, atExpr: string): string;
  encFn(sub: DescMessage): string;
  /** The runtime's list writer for messages of type `sub`. */
  eachOf(sub: DescMessage): string;
}

/** A pair: its plan and both descriptors. */
export interface WholePair {
  readonly plan: PlanPair;
  readonly d03: DescMessage;
  readonly d10: DescMessage;
}

/** The dialect rule that writes the whole message, when one does (else its fields are written one by one). */
export function wholeRule(dialect: JsonRpcDialect, d03: DescMessage): string | undefined {
  const name = d03.typeName;
  if (dialect.nullResults.includes(name)) return "null result";
  if (dialect.wrappers.some((w) => w.message === name)) return "wrapper";
  if (dialect.arrayResults[name] !== undefined) return "array result";
  if (dialect.typedUnions?.[name] !== undefined) return "typed union";
  if (dialect.listMaps?.[name] !== undefined) return "list map";
  return undefined;
}

/**
 * A union of the c.dialect: the member's own JSON, told apart by its `kind`; without a kind, a message
 * if it has a messageId, else a task (as the c.dialect codec decides); an unknown kind is refused.
 */
export function unionToNewer(c: WholeCtx, p: WholePair): string[] {
  const members = p.plan.toNewer.map((s) => ({ s, sub: messageOf(field(p.d03, s.from))! }));
  const member = (m: (typeof members)[number]) =>
    c.assign(p.d10, (m.s as { to: string }).to, c.decCall(m.sub, "x", "a"));
  const byKind = (kind: string) => members.find((m) => c.dialect.kinds[m.sub.typeName] === kind);
  const message = byKind("message");
  const task = byKind("task");
  const known = p.d03.fields.flatMap((f) => c.dialect.kinds[messageOf(f)?.typeName ?? ""] ?? []).join(", ");
  const refuse = `${c.rt("refuseKind")}(${c.rt("pathOf")}(a), ${lit(p.d03.typeName)}, x.kind, ${lit(known)});`;
  const guess = message && task ? `if (x.messageId !== undefined) ${member(message)} else ${member(task)}` : refuse;
  return [
    `const x = ${c.rt("object")}(j, a, ${lit(p.d03.typeName)});`,
    `const m = ${c.zero(p.d10)};`,
    `switch (x.kind) {`,
    ...members
      .filter((m) => c.dialect.kinds[m.sub.typeName] !== undefined)
      .map((m) => `  case ${lit(c.dialect.kinds[m.sub.typeName])}: ${member(m)} break;`),
    `  case undefined: ${guess} break;`,
    `  default: ${refuse}`,
    `}`,
    `return m;`,
  ];
}

/**
 * A message the c.dialect writes whole (typed union, list map, array result), toward the newer version;
 * undefined for one written field by field.
 */
export function wholeToNewer(c: WholeCtx, p: WholePair): string[] | undefined {
  const { d03, d10 } = p;
  const rule = wholeRule(c.dialect, d03);
  const what = lit(d03.typeName);
  if (rule === "typed union") {
    // {type, ...member}: the member's own fields beside the type that says which it is.
    const types = c.dialect.typedUnions![d03.typeName]!;
    const cases = p.plan.toNewer.map((s) => {
      const sub = messageOf(field(d03, s.from))!;
      const type = types[s.from];
      if (type === undefined) throw new Error(`compat-json: ${d03.typeName}.${s.from} has no type in the c.dialect`);
      return `  case ${lit(type)}: ${c.assign(d10, (s as { to: string }).to, c.decCall(sub, "rest", "a"))} break;`;
    });
    const unknown = `"unknown ${d03.typeName} type " + JSON.stringify(type)`;
    return [
      `const { type, ...rest } = ${c.rt("object")}(j, a, ${what});`,
      `const m = ${c.zero(d10)};`,
      `switch (type) {`,
      ...cases,
      `  default: ${c.rt("lose")}(lost, a, "type", ${unknown});`,
      `}`,
      `return m;`,
    ];
  }
  if (rule === "list map") {
    // {scheme: [scopes]}: each key's list is the map value's list.
    const mapField = field(d10, c.dialect.listMaps![d03.typeName]!);
    const list = mapField.fieldKind === "map" && mapField.mapKind === "message" ? mapField.message : undefined;
    if (list?.fields.length !== 1) throw new Error(`compat-json: ${d10.typeName}: no list map`);
    const item = lit(`${d03.typeName}.${mapField.name}`);
    return [
      `const x = ${c.rt("object")}(j, a, ${what});`,
      `const m = ${c.zero(d10)};`,
      `for (const k of Object.keys(x)) {`,
      `  const list = ${c.zero(list)};`,
      `  list.${list.fields[0]!.localName} = ${c.rt("strings")}(x[k], a, k, ${item});`,
      `  ${c.rt("setKey")}(m.${mapField.localName}, k, list);`,
      `}`,
      `return m;`,
    ];
  }
  if (rule === "array result") {
    // The bare list of the one field a2a.json keeps.
    const f = field(d03, c.dialect.arrayResults[d03.typeName]!);
    const step = p.plan.toNewer.find((s) => s.from === f.name) as { to: string } | undefined;
    if (!step) throw new Error(`compat-json: ${d03.typeName}.${f.name} has no step toward the newer version`);
    return [
      `const m = ${c.zero(d10)};`,
      `m.${field(d10, step.to).localName} = ${c.rt("each")}(j, a, ${what}, lost, ${c.decFn(messageOf(f)!)});`,
      `return m;`,
    ];
  }
  return undefined;
}

/** A message the c.dialect writes whole, toward the older version; undefined for one written field by field. */
export function wholeToOlder(c: WholeCtx, p: WholePair): string[] | undefined {
  const { d03, d10 } = p;
  const rule = wholeRule(c.dialect, d03);
  if (rule === "typed union") {
    const types = c.dialect.typedUnions![d03.typeName]!;
    const oneof = d10.oneofs[0]!;
    const cases = p.plan.toOlder.map((s) => {
      const f = field(d10, s.from);
      const type = types[(s as { to: string }).to];
      const member = c.encCall(messageOf(f)!, `m.${oneof.localName}.value`, `${c.rt("at")}(a, ${lit(f.name)})`);
      return `  case ${lit(f.localName)}: return { type: ${lit(type)}, ...${member} };`;
    });
    const older = d03.oneofs[0]?.name ?? "";
    const reason = `${d03.typeName} sets none of ${older}; a2a.json has no form for it`;
    return [
      `switch (m.${oneof.localName}.case) {`,
      ...cases,
      `}`,
      `${c.rt("lose")}(lost, a, ${lit(older)}, ${lit(reason)});`,
      `return {};`,
    ];
  }
  if (rule === "list map") {
    const mapField = field(d10, c.dialect.listMaps![d03.typeName]!);
    const list = mapField.fieldKind === "map" && mapField.mapKind === "message" ? mapField.message : undefined;
    const name = `m.${mapField.localName}`;
    return [
      `const o${c.ty(`: ${c.rt("JsonObject")}`)} = {};`,
      `for (const k of Object.keys(${name})) ` +
        `${c.rt("setKey")}(o, k, ${name}[k]${c.ty("!")}.${list!.fields[0]!.localName}.slice());`,
      `return o;`,
    ];
  }
  if (rule === "array result") {
    const f = field(d03, c.dialect.arrayResults[d03.typeName]!);
    const lines: string[] = [];
    let list = "";
    for (const s of p.plan.toOlder) {
      const g = field(d10, s.from);
      if (s.op !== "lossy" && (s as { to: string }).to === f.name) {
        const sub = messageOf(g)!;
        list = `${c.eachOf(sub)}(m.${g.localName}, ${c.rt("at")}(a, ${lit(g.name)}), lost, ${c.encFn(sub)})`;
        continue;
      }
      const reason =
        s.op === "lossy" ? s.reason : `a2a.json's result is the bare list of ${f.name}; it has no ${g.name}`;
      lines.push(`if (${setTest(g, `m.${g.localName}`)}) ${c.rt("lose")}(lost, a, ${lit(g.name)}, ${lit(reason)});`);
    }
    return [...lines, `return ${list};`];
  }
  return undefined;
}

/** A union toward the older c.dialect: the member's own JSON (with its kind); nothing set writes {}, reported. */
export function unionToOlder(c: WholeCtx, p: WholePair): string[] {
  const lines: string[] = [];
  for (const s of p.plan.toOlder) {
    const f = field(p.d10, s.from);
    lines.push(
      `if (m.${f.oneof!.localName}.case === ${lit(f.localName)}) ` +
        `return ${c.encCall(messageOf(f)!, `m.${f.oneof!.localName}.value`, `${c.rt("at")}(a, ${lit(f.name)})`)};`,
    );
  }
  const oneof = p.d03.oneofs[0]?.name ?? "";
  const reason = `${p.d03.typeName} sets none of ${oneof}; a2a.json has no form for it`;
  return [...lines, `${c.rt("lose")}(lost, a, ${lit(oneof)}, ${lit(reason)});`, "return {};"];
}
