/**
 * What the dialect table (override api.jsonrpcDialect) says about each message
 * of a version, worked out once at generation time for the a2a.json codec
 * emitters (jsonrpc-codec-*.ts), and the printing context they share.
 *
 * A message has at most one whole-message rule (null result, array result,
 * union, part, wrapper, typed union, list map); else its fields are written
 * one by one (renames, alwaysEmit, enums, kinds, resource names). A message
 * that two rules claim is refused, naming it.
 */
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import type { GeneratedFile, ImportSymbol, Printable } from "@bufbuild/protoplugin";
import type { JsonRpcDialect } from "@protoc-gen-a2a/runtime/protocol";
import { compatJsonModule, runtimeModule } from "../print/runtime-entries.js";
import { paramNames } from "../print/unused-params.js";

/** One field as the dialect writes it. */
export interface FieldRule {
  readonly f: DescField;
  /** The dialect key: a rename, else the JSON name. */
  readonly key: string;
  /** The message type to recurse into (not a well-known type), if any. */
  readonly sub: DescMessage | undefined;
  /** The resource-name pattern of the field, if it has one. */
  readonly resource: string | undefined;
  /** Written even at its default. */
  readonly always: boolean;
}

export type MessageRule =
  | { readonly kind: "array"; readonly field: FieldRule }
  | { readonly kind: "union" }
  | { readonly kind: "part" }
  | { readonly kind: "wrapper"; readonly field: FieldRule; readonly derived: readonly [string, string][] }
  | { readonly kind: "typed"; readonly members: readonly [FieldRule, string][] }
  | { readonly kind: "listMap"; readonly field: FieldRule }
  | { readonly kind: "fields" };

export interface MessageRules {
  readonly m: DescMessage;
  /** The name its coders are called by: the type name without the package, nested names joined by "_". */
  readonly id: string;
  readonly rule: MessageRule;
  readonly fields: readonly FieldRule[];
  /** The `kind` the dialect adds, if any. */
  readonly kindValue: string | undefined;
}

/** What the emitters share: the file, the target, the table, and the symbols they print. */
export interface CodecCtx {
  readonly f: GeneratedFile;
  /** ts: types printed; js: none. */
  readonly typed: boolean;
  readonly dialect: JsonRpcDialect;
  readonly rules: ReadonlyMap<string, MessageRules>;
  /** A helper of the runtime's compat-json module. */
  readonly h: (name: string) => ImportSymbol;
  /** Printed only when typed: a type annotation such as `: JsonValue`. */
  readonly t: (...p: Printable[]) => Printable[];
  readonly jsonValue: ImportSymbol;
  readonly jsonObject: ImportSymbol;
  readonly at: ImportSymbol;
  readonly loss: ImportSymbol;
}

/** The runtime module whose helpers the codec calls (packages/runtime/src/compat/compat-json.ts). */

export function codecCtx(f: GeneratedFile, typed: boolean, dialect: JsonRpcDialect, messages: DescMessage[]): CodecCtx {
  const rules = new Map<string, MessageRules>();
  for (const m of messages) rules.set(m.typeName, messageRules(m, dialect));
  return {
    f,
    typed,
    dialect,
    rules,
    h: (name) => f.import(name, compatJsonModule),
    t: (...p) => (typed ? p : []),
    jsonValue: f.import("JsonValue", "@bufbuild/protobuf", true),
    jsonObject: f.import("JsonObject", "@bufbuild/protobuf", true),
    at: f.import("At", compatJsonModule, true),
    loss: f.import("Loss", runtimeModule, true),
  };
}

const isWkt = (m: DescMessage) => m.typeName.startsWith("google.protobuf.");

/** The message of a message field, list or map, if any. */
export const messageOf = (f: DescField): DescMessage | undefined =>
  f.fieldKind === "message"
    ? f.message
    : (f.fieldKind === "list" && f.listKind === "message") || (f.fieldKind === "map" && f.mapKind === "message")
      ? f.message
      : undefined;

export const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function messageRules(m: DescMessage, d: JsonRpcDialect): MessageRules {
  const always = d.alwaysEmit[m.typeName] ?? [];
  const fields = m.fields.map((f): FieldRule => {
    const sub = messageOf(f);
    return {
      f,
      key: d.renames[`${m.typeName}.${f.name}`] ?? f.jsonName,
      sub: sub && !isWkt(sub) ? sub : undefined,
      resource: d.resourceNames.find((r) => r.message === m.typeName && r.field === f.name)?.pattern,
      always: always.includes(f.name),
    };
  });
  const named = (name: string, what: string): FieldRule => {
    const x = fields.find((y) => y.f.name === name);
    if (!x) throw new Error(`jsonrpcDialect ${what}: ${m.typeName} has no field ${name}`);
    return x;
  };
  const candidates: MessageRule[] = [];
  const arrayName = d.arrayResults[m.typeName];
  if (arrayName !== undefined) candidates.push({ kind: "array", field: named(arrayName, "arrayResults") });
  if (d.unions.includes(m.typeName)) candidates.push({ kind: "union" });
  if (m.typeName === d.part.message) candidates.push({ kind: "part" });
  const w = d.wrappers.find((x) => x.message === m.typeName);
  if (w) {
    const derived = Object.entries(w.derived).flatMap(([name, t]) => {
      const x = fields.find((y) => y.f.name === name);
      return x ? [[x.f.jsonName, t] as [string, string]] : [];
    });
    candidates.push({ kind: "wrapper", field: named(w.field, "wrappers"), derived });
  }
  const typed = d.typedUnions?.[m.typeName];
  if (typed) {
    const members = Object.entries(typed).map(([name, type]): [FieldRule, string] => [
      named(name, "typedUnions"),
      type,
    ]);
    candidates.push({ kind: "typed", members });
  }
  const listMap = d.listMaps?.[m.typeName];
  if (listMap !== undefined) candidates.push({ kind: "listMap", field: named(listMap, "listMaps") });
  if (candidates.length > 1)
    throw new Error(`jsonrpcDialect: ${m.typeName} has ${candidates.map((c) => c.kind).join(" and ")} rules`);
  const id = m.typeName.slice(m.file.proto.package.length + 1).replace(/\./g, "_");
  return { m, id, rule: candidates[0] ?? { kind: "fields" }, fields, kindValue: d.kinds[m.typeName] };
}

/** The rules of a message type the codec writes. */
export function rulesOf(c: CodecCtx, m: DescMessage): MessageRules {
  const r = c.rules.get(m.typeName);
  if (!r) throw new Error(`jsonrpc codec: ${m.typeName} is not a message of the version's file`);
  return r;
}

/** Prints a function: typed in ts, plain in js. */
export function printFunction(
  c: CodecCtx,
  doc: string,
  name: string,
  params: readonly (readonly [string, Printable[]])[],
  returns: Printable[],
  body: readonly Printable[][],
): void {
  const { f } = c;
  f.print(f.jsDoc(doc));
  const used = paramNames(body.map((line) => [...line]));
  const ps: Printable[] = params.flatMap(([p, t], i) => [i > 0 ? ", " : "", used(p), ...c.t(": ", ...t)]);
  f.print("function ", name, "(", ...ps, ")", ...c.t(": ", ...returns), " {");
  for (const line of body) f.print("  ", ...line);
  f.print("}");
  f.print();
}

/** The parameters every coder takes: the value, its place, what was lost. */
export const coderParams = (c: CodecCtx, first = "json"): [string, Printable[]][] => [
  [first, [c.jsonValue]],
  ["a", [c.at]],
  ["lost", [c.loss, "[]"]],
];

/** A JSON string literal. */
export const lit = (s: string): string => JSON.stringify(s);

/** `json["key"]`. */
export const prop = (obj: string, key: string): string => `${obj}[${lit(key)}]`;

/** The printed width of a line. */
const width = (line: readonly Printable[]): number =>
  line.reduce<number>(
    (n, p) => n + (typeof p === "string" ? p.length : typeof p === "object" && "name" in p ? p.name.length : 8),
    0,
  );

/** `if (test) statement` on one line, or on two when it is longer than the generated code's lines. */
export function fold(indent: string, test: Printable[], statement: Printable[]): Printable[][] {
  const one = [indent, "if (", ...test, ") ", ...statement];
  return width(one) + 2 <= 120
    ? [one]
    : [
        [indent, "if (", ...test, ")"],
        [indent, "  ", ...statement],
      ];
}
