/**
 * Prints the encoders of the a2a.json codec (ProtoJSON → a2a.json), one per
 * message, by its rule (jsonrpc-codec-rules.ts):
 *
 *   null result   null                      array result   the bare array of the field
 *   union         the member set, bare      part           {kind, text | file | data}
 *   wrapper       the wrapped field         typed union    the member set, with its `type`
 *   list map      the bare map of arrays    fields         each field under its dialect key
 *
 * Fields: renames, alwaysEmit (the ProtoJSON default, then encoded), enum
 * spellings, `kind`, and resource names written as the ids their pattern
 * names. What a2a.json has no form for is reported as a loss: an enum number
 * without a name (written as the value 0's spelling), a part without content
 * (left out of its list), a union that sets no member ({}).
 */
import { ScalarType, type DescEnum, type DescField } from "@bufbuild/protobuf";
import type { Printable } from "@bufbuild/protoplugin";
import {
  camel,
  coderParams,
  fold,
  lit,
  printFunction,
  prop,
  rulesOf,
  type CodecCtx,
  type FieldRule,
  type MessageRules,
} from "./jsonrpc-codec-rules.js";
import { spelled } from "../../compat/dialect-ir.js";

type Line = Printable[];

export const encoderName = (id: string) => `encode${id}`;
export const enumEncoderName = (e: DescEnum) => `encode${e.name}`;

/** Prints the encoder of one message. */
export function printEncoder(c: CodecCtx, r: MessageRules): void {
  const guard: Line = ["if (!", c.h("isJsonObject"), "(json)) return json;"];
  const body = encodeBody(c, r);
  printFunction(c, `${r.m.typeName} → a2a.json.`, encoderName(r.id), coderParams(c), [c.jsonValue], [guard, ...body]);
}

function encodeBody(c: CodecCtx, r: MessageRules): Line[] {
  const rule = r.rule;
  const call = (x: FieldRule, value: string, path: Printable[] = ["path"]): Printable[] => [
    encoderName(rulesOf(c, x.sub!).id),
    `(${value}, `,
    ...path,
    ", lost)",
  ];
  switch (rule.kind) {
    case "array": {
      const at: Printable[] = [c.h("at"), "(path, i)"];
      return [
        [`const items = ${prop("json", rule.field.f.jsonName)};`],
        ["return Array.isArray(items) ? items.map((item, i) => ", ...call(rule.field, "item", at), ") : [];"],
      ];
    }
    case "union":
      // The first member set is written; one that is not a message has no form, as none set.
      return [
        ...r.fields.flatMap((x): Line[] => {
          const v = prop("json", x.f.jsonName);
          if (x.sub) return fold("", [`${v} !== undefined`], ["return ", ...call(x, v), ";"]);
          return [[`if (${v} !== undefined) {`], ...noMember(c, r).map((l) => ["  ", ...l]), ["}"]];
        }),
        ...noMember(c, r),
      ];
    case "part":
      return [["return ", "partOrLoss(json, path, lost) ?? {};"]];
    case "wrapper":
      return [["return ", ...call(rule.field, `${prop("json", rule.field.f.jsonName)} ?? {}`), ";"]];
    case "typed":
      return [
        ...rule.members.flatMap(([x, type]): Line[] => {
          if (!x.sub) return [];
          const v = prop("json", x.f.jsonName);
          return fold("", [`${v} !== undefined`], ["return ", c.h("withType"), `(${lit(type)}, `, ...call(x, v), ");"]);
        }),
        ...noMember(c, r),
      ];
    case "listMap":
      return [
        [`const map = ${prop("json", rule.field.f.jsonName)};`],
        ["if (!", c.h("isJsonObject"), "(map)) return {};"],
        ["return Object.fromEntries("],
        [
          "  Object.entries(map).map(([key, value]) => [key, ",
          c.h("isJsonObject"),
          '(value) && Array.isArray(value["list"]) ? value["list"] : []]),',
        ],
        [");"],
      ];
    case "fields":
      return encodeFields(c, r);
  }
}

/** A union that sets none of its members: a2a.json has no form for it. */
function noMember(c: CodecCtx, r: MessageRules): Line[] {
  const oneof = r.m.oneofs[0]?.name ?? "";
  const reason = `${r.m.typeName} sets none of ${oneof}; a2a.json has no form for it`;
  return [[c.h("lose"), `(lost, path, ${lit(oneof)}, ${lit(reason)});`], ["return {};"]];
}

function encodeFields(c: CodecCtx, r: MessageRules): Line[] {
  const init = r.kindValue !== undefined ? `{ kind: ${lit(r.kindValue)} }` : "{}";
  const lines: Line[] = [["const out", ...c.t(": ", c.jsonObject), ` = ${init};`]];
  const written = new Set<string>(r.kindValue !== undefined ? ["kind"] : []);
  for (const x of r.fields) {
    const src = prop("json", x.f.jsonName);
    const value = x.always ? `${src} ?? ${protoDefault(x.f)}` : src;
    if (x.resource) {
      lines.push(...resourceLines(c, x.resource, value, x.always, src, written));
      continue;
    }
    const converted = fieldValue(c, x, value);
    const target = prop("out", x.key);
    const assign: Line = written.has(x.key)
      ? [`${target} = `, c.h("mergeJson"), `(${target}, `, ...converted, ");"]
      : [`${target} = `, ...converted, ";"];
    written.add(x.key);
    lines.push(...(x.always ? [assign] : fold("", [`${src} != null`], assign)));
  }
  lines.push(["return out;"]);
  return lines;
}

/** A field's value in a2a.json: messages and enums encoded, anything else as it is. */
function fieldValue(c: CodecCtx, x: FieldRule, value: string): Printable[] {
  const path: Printable[] = [c.h("at"), `(path, ${lit(x.key)})`];
  const f = x.f;
  if (x.sub) {
    const sub = rulesOf(c, x.sub);
    if (sub.rule.kind === "part")
      return f.fieldKind === "list"
        ? ["encodeParts(", value, ", ", ...path, ", lost)"]
        : ["(partOrLoss(", value, ", ", ...path, ", lost) ?? {})"];
    if (f.fieldKind === "list") return [c.h("eachJson"), `(${value}, `, ...path, `, lost, ${encoderName(sub.id)})`];
    if (f.fieldKind === "map") return [c.h("mapJson"), `(${value}, `, ...path, `, lost, ${encoderName(sub.id)})`];
    return [encoderName(sub.id), `(${value}, `, ...path, ", lost)"];
  }
  const e = enumOfField(f);
  return e ? [enumEncoderName(e), `(${value}, `, ...path, ", lost)"] : [value];
}

/** The enum of a singular enum field; a list or map of enums has no a2a.json rule and is refused. */
export function enumOfField(f: DescField): DescEnum | undefined {
  if (f.fieldKind === "enum") return f.enum;
  if ((f.fieldKind === "list" && f.listKind === "enum") || (f.fieldKind === "map" && f.mapKind === "enum"))
    throw new Error(`jsonrpc codec: ${f.parent.typeName}.${f.name}: a list or map of enums has no a2a.json rule`);
  return undefined;
}

/**
 * A resource name written as the ids its pattern names ("tasks/{id}" → id), when it has as many segments.
 * One a2a.json always has (alwaysEmit) writes its ids whatever the name: "" for each when it has not.
 */
function resourceLines(
  c: CodecCtx,
  pattern: string,
  value: string,
  always: boolean,
  src: string,
  written: Set<string>,
): Line[] {
  const segments = pattern.split("/");
  const tree = idTree(segments);
  const bang = c.typed ? "!" : "";
  const id = (i: number) => (always ? `named ? ids[${i}]${bang} : ""` : `ids[${i}]${bang}`);
  const literal = (v: unknown): string =>
    typeof v === "number"
      ? id(v)
      : `{ ${[...(v as Map<string, unknown>)].map(([k, x]) => `${key(k)}: ${literal(x)}`).join(", ")} }`;
  const indent = always ? "  " : "    ";
  const sets: Line[] = [...tree].map(([root, v]) => {
    const target = prop("out", root);
    return written.has(root)
      ? [`${indent}${target} = `, c.h("mergeJson"), `(${target}, ${literal(v)});`]
      : [`${indent}${target} = ${literal(v)};`];
  });
  for (const root of tree.keys()) written.add(root);
  const split: Line = [`  const ids = String(${value}).split("/");`];
  if (always) return [["{"], split, [`  const named = ids.length === ${segments.length};`], ...sets, ["}"]];
  return [[`if (${src} != null) {`], split, [`  if (ids.length === ${segments.length}) {`], ...sets, ["  }"], ["}"]];
}

/** The ids of a pattern's segments, by their (dotted) keys: key → segment index, or → the keys under it. */
function idTree(segments: readonly string[]): Map<string, number | Map<string, unknown>> {
  const tree = new Map<string, number | Map<string, unknown>>();
  segments.forEach((s, i) => {
    const m = /^\{([^}]+)\}$/.exec(s);
    if (!m) return;
    const keys = m[1]!.split(".");
    let node: Map<string, unknown> = tree;
    for (const k of keys.slice(0, -1)) {
      const next = node.get(k);
      const sub = next instanceof Map ? (next as Map<string, unknown>) : new Map<string, unknown>();
      node.set(k, sub);
      node = sub;
    }
    node.set(keys[keys.length - 1]!, i);
  });
  return tree;
}

const key = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : lit(k));

/** The ProtoJSON of a field's default value, as printed code. */
function protoDefault(f: DescField): string {
  switch (f.fieldKind) {
    case "list":
      return "[]";
    case "map":
    case "message":
      return "{}";
    case "enum":
      return f.enum.values[0] ? lit(f.enum.values[0].name) : "0";
    case "scalar":
      return f.scalar === ScalarType.BOOL
        ? "false"
        : f.scalar === ScalarType.STRING || f.scalar === ScalarType.BYTES
          ? '""'
          : "0";
  }
}

/** Prints the encoder of an enum: its dialect spelling; a number without a name as the value 0's, reported. */
export function printEnumEncoder(c: CodecCtx, e: DescEnum): void {
  const spelling = (name: string) => spelled(c.dialect, name);
  const zero = e.values.find((v) => v.number === 0)?.name ?? "";
  const cases: Line[] = e.values
    .filter((v) => c.dialect.enumSpellings.has(v.name))
    .flatMap((v): Line[] => [[`  case ${lit(v.name)}:`], [`    return ${lit(spelling(v.name))};`]]);
  const body: Line[] = [
    ["switch (json) {"],
    ...cases,
    ["}"],
    ['if (typeof json === "string") return json;'],
    [
      c.h("lose"),
      `(lost, path, "", ${lit(`no ${e.typeName} value for `)} + String(json) + ${lit(`; written as ${zero}`)});`,
    ],
    [`return ${lit(spelling(zero))};`],
  ];
  printFunction(
    c,
    `${e.typeName} in a2a.json: its spelling; a number without a name is written as the value 0's.`,
    enumEncoderName(e),
    coderParams(c),
    [c.jsonValue],
    body,
  );
}

/** Prints the part writers: the part's a2a.json form, and the same reporting a part that has none. */
export function printPartWriters(c: CodecCtx, withList: boolean): void {
  const d = c.dialect.part;
  const isObject = c.h("isJsonObject");
  const uri = camel(d.file.uri);
  const bytes = camel(d.file.bytes);
  printFunction(
    c,
    `${d.message} in a2a.json; undefined when it has no text, file (uri or bytes) or data.`,
    "writePart",
    [["json", [c.jsonObject]]],
    [c.jsonObject, " | undefined"],
    [
      ['const text = json["text"];'],
      ['if (typeof text === "string") return { kind: "text", text };'],
      ['const file = json["file"];'],
      ["if (", isObject, "(file)) {"],
      [`  const uri = ${prop("file", uri)};`],
      [`  const bytes = ${prop("file", bytes)};`],
      ["  if (uri === undefined && bytes === undefined) return undefined;"],
      ["  const out", ...c.t(": ", c.jsonObject), " = {};"],
      ['  if (uri !== undefined) out["uri"] = uri;'],
      ['  if (bytes !== undefined) out["bytes"] = bytes;'],
      ['  if (file["mimeType"] !== undefined) out["mimeType"] = file["mimeType"];'],
      ['  return { kind: "file", file: out };'],
      ["}"],
      ['const data = json["data"];'],
      ["if (", isObject, `(data)) return { kind: "data", data: ${prop("data", camel(d.data.field))} ?? {} };`],
      ["return undefined;"],
    ],
  );
  printFunction(
    c,
    "A part in a2a.json, or undefined (reported) when it has no form there.",
    "partOrLoss",
    coderParams(c),
    [c.jsonObject, " | undefined"],
    [
      ["const part = ", isObject, "(json) ? writePart(json) : undefined;"],
      // The reason is the runtime's, imported by the generated code: the generator never loads the runtime.
      ["if (part === undefined) ", c.h("lose"), '(lost, path, "", ', c.h("PART_LEFT_OUT"), ");"],
      ["return part;"],
    ],
  );
  if (!withList) return;
  printFunction(
    c,
    "A list of parts, those a2a.json has no form for left out (reported).",
    "encodeParts",
    coderParams(c),
    [c.jsonValue],
    [
      ["if (!Array.isArray(json)) return partOrLoss(json, path, lost) ?? {};"],
      ["const out", ...c.t(": ", c.jsonObject, "[]"), " = [];"],
      ["for (let i = 0; i < json.length; i++) {"],
      ["  const part = partOrLoss(json[i]", ...c.t("!"), ", ", c.h("at"), "(path, i), lost);"],
      ["  if (part !== undefined) out.push(part);"],
      ["}"],
      ["return out;"],
    ],
  );
}
