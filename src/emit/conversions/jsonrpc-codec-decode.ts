/**
 * Prints the decoders of the a2a.json codec (a2a.json → ProtoJSON), one per
 * message, by its rule (jsonrpc-codec-rules.ts): a union's member is told
 * apart by `kind` (without one, a message by its messageId, else a task); a
 * part by its kind, else the one content it holds; a typed union's by `type`;
 * a wrapper's derived fields and a resource name filled from their
 * templates; fields read under their dialect key or JSON name.
 *
 * Nothing is coerced. Refused (CompatJsonError, naming the path): an unknown
 * `kind`, a kind on a message that is not its own, a part without its content
 * (text, a file with one of uri and bytes, a data object), an enum value the
 * proto does not have. Reported as lost: a key no rule or field reads (of a
 * part and its file: a key outside part-keys.ts), a second member of a oneof,
 * part metadata and a file's name, the content of another kind than the
 * part's (compat-json.ts loseOtherContent), an unknown `type`, and a timestamp's
 * missing UTC offset (read as UTC: compat-json.ts utcTimestamp).
 */
import type { DescEnum } from "@bufbuild/protobuf";
import type { Printable } from "@bufbuild/protoplugin";
import { FILE_KEYS, PART_KEYS } from "../../compat/part-keys.js";
import { enumOfField } from "./jsonrpc-codec-encode.js";
import { listed } from "../print/code-layout.js";
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

type Line = Printable[];

export const decoderName = (id: string) => `decode${id}`;
export const enumDecoderName = (e: DescEnum) => `decode${e.name}`;

const identifier = /^[A-Za-z_$][\w$]*$/;
const key = (k: string) => (identifier.test(k) ? k : lit(k));

/** Prints the decoder of one message (and, for one read field by field, the keys it reads). */
export function printDecoder(c: CodecCtx, r: MessageRules): void {
  const guard: Line = ["if (!", c.h("isJsonObject"), "(json)) return json;"];
  const rule = r.rule;
  const call = (x: FieldRule, value: string, path: Printable[] = ["path"]): Printable[] => [
    decoderName(rulesOf(c, x.sub!).id),
    `(${value}, `,
    ...path,
    ", lost)",
  ];
  let body: Line[];
  switch (rule.kind) {
    case "array": {
      const each: Printable[] = ["json.map((item, i) => ", ...call(rule.field, "item", [c.h("at"), "(path, i)"]), ")"];
      body = [[`return { ${key(rule.field.f.jsonName)}: Array.isArray(json) ? `, ...each, " : [] };"]];
      break;
    }
    case "union":
      body = [guard, ...unionBody(c, r, call)];
      break;
    case "part":
      body = [guard, ...partBody(c)];
      break;
    case "typed":
      body = [guard, ...typedBody(c, r, rule.members, call)];
      break;
    case "listMap":
      body = [
        guard,
        ["const map", ...c.t(": ", c.jsonObject), " = {};"],
        // A value that is not a list is refused (null too, which fromJson would read as empty); its strings are
        // fromJson's to check. A key "__proto__" is an own key.
        ["for (const [key, list] of Object.entries(json)) {"],
        [
          "  if (!Array.isArray(list)) ",
          c.h("invalid"),
          "(",
          c.h("at"),
          `(path, key), ${lit(`${r.m.typeName}.${rule.field.f.name}`)}, list, "an array");`,
        ],
        ["  ", c.h("setKey"), "(map, key, { list });"],
        ["}"],
        [`return { ${key(rule.field.f.jsonName)}: map };`],
      ];
      break;
    case "wrapper":
      body = [
        guard,
        ["return {"],
        [`  ${key(rule.field.f.jsonName)}: `, ...call(rule.field, "json"), ","],
        ...rule.derived.map((d): Line => [`  ${key(d.jsonName)}: `, ...fill(c, d.pattern, r.m.typeName), ","]),
        ["};"],
      ];
      break;
    case "fields":
      printKeys(c, r);
      body = [guard, ...fieldsBody(c, r)];
      break;
  }
  printFunction(c, `${r.m.typeName} read from a2a.json.`, decoderName(r.id), coderParams(c), [c.jsonValue], body);
}

/**
 * "tasks/{id}" filled from the dialect object `json` (of message `what`): a lone id as it is (a missing id is "",
 * an id that is not a string or a number refused); a pattern with
 * text around its ids through resourceName, which gives "" when every id is missing, so that an input rule on the
 * name sees the request's absent id.
 */
function fill(c: CodecCtx, template: string, what: string): Printable[] {
  const pieces = template.split(/(\{[^}]+\})/).filter((p) => p !== "");
  const id = (piece: string) => /^\{([^}]+)\}$/.exec(piece)?.[1];
  const keys = (path: string) => path.split(".").map(lit).join(", ");
  const at = `path, ${lit(what)}`;
  if (pieces.length === 1 && id(pieces[0]!) !== undefined)
    return [c.h("nameId"), `(json, ${at}, ${keys(id(pieces[0]!)!)})`];
  if (!pieces.some((p) => id(p) !== undefined)) return [pieces.length > 0 ? lit(pieces.join("")) : '""'];
  const args = pieces.map((p) => {
    const path = id(p);
    return path === undefined ? lit(p) : `[${keys(path)}]`;
  });
  return [c.h("resourceName"), `(json, ${at}, ${args.join(", ")})`];
}

/** The top-level dialect keys a pattern reads: "tasks/{id}/x/{cfg.id}" → ["id", "cfg"]. */
const patternRoots = (pattern: string) => [...pattern.matchAll(/\{([^}.]+)[^}]*\}/g)].map((m) => m[1]!);

const keysName = (r: MessageRules) => `keysOf${r.id}`;

/** Prints the keys a message read field by field takes: `kind`, its dialect keys, JSON names, ids. */
function printKeys(c: CodecCtx, r: MessageRules): void {
  const keys = new Set<string>(["kind"]);
  for (const x of r.fields) {
    if (x.resource) for (const root of patternRoots(x.resource)) keys.add(root);
    else keys.add(x.key).add(x.f.jsonName);
  }
  const type: Printable[] = c.t(": ReadonlySet<string>");
  const head = `const ${keysName(r)}: ReadonlySet<string> = new Set([`;
  const [first, ...rest] = listed(head, [...keys].map(lit), "]);");
  c.f.print("const ", keysName(r), ...type, ` = new Set(${first!.slice(head.length - 1)}`);
  for (const line of rest) c.f.print(line);
  c.f.print();
}

function unionBody(c: CodecCtx, r: MessageRules, call: (x: FieldRule, v: string) => Printable[]): Line[] {
  const kinds = new Map<string, FieldRule>();
  for (const x of r.fields) {
    const kind = x.sub && c.rules.get(x.sub.typeName)?.kindValue;
    if (kind && !kinds.has(kind)) kinds.set(kind, x);
  }
  const member = (x: FieldRule | undefined): Printable[] =>
    x ? ["return { ", key(x.f.jsonName), ": ", ...call(x, "json"), " };"] : ["break;"];
  const byType = (name: string) => r.fields.find((x) => x.sub?.typeName === name);
  const known = r.fields.flatMap((x) => (x.sub && c.rules.get(x.sub.typeName)?.kindValue) || []).join(", ");
  return [
    ['switch (json["kind"]) {'],
    ["  case undefined:"],
    ["    // Without a kind, a message is told from a task by its messageId."],
    ['    if (json["messageId"] !== undefined) ', ...member(byType("a2a.v1.Message"))],
    ["    ", ...member(byType("a2a.v1.Task"))],
    ...[...kinds].flatMap(([kind, x]): Line[] => [[`  case ${lit(kind)}:`], ["    ", ...member(x)]]),
    ["}"],
    ["return ", c.h("refuseKind"), `(`, c.h("pathOf"), `(path), ${lit(r.m.typeName)}, json["kind"], ${lit(known)});`],
  ];
}

function typedBody(
  c: CodecCtx,
  r: MessageRules,
  members: readonly [FieldRule, string][],
  call: (x: FieldRule, v: string) => Printable[],
): Line[] {
  const seen = new Set<string>();
  const cases = members.flatMap(([x, type]): Line[] => {
    if (!x.sub || seen.has(type)) return [];
    seen.add(type);
    return [[`  case ${lit(type)}:`], ["    return { ", key(x.f.jsonName), ": ", ...call(x, "rest"), " };"]];
  });
  return [
    ["const { type, ...rest } = json;"],
    ["switch (type) {"],
    ...cases,
    ["}"],
    [c.h("lose"), `(lost, path, "type", ${lit(`unknown ${r.m.typeName} type `)} + `, c.h("preview"), "(type));"],
    ["return {};"],
  ];
}

function fieldsBody(c: CodecCtx, r: MessageRules): Line[] {
  const lines: Line[] = [];
  if (r.kindValue !== undefined) {
    const kind = lit(r.kindValue);
    lines.push([`if (json["kind"] !== undefined && json["kind"] !== ${kind})`]);
    lines.push(["  ", c.h("refuseKind"), "(", c.h("pathOf"), `(path), ${lit(r.m.typeName)}, json["kind"], ${kind});`]);
  }
  lines.push(["const out", ...c.t(": ", c.jsonObject), " = {};"]);
  if (r.fields.some((x) => !x.resource)) lines.push(["let value", ...c.t(": ", c.jsonValue, " | undefined"), ";"]);
  const oneofs = new Set(r.fields.flatMap((x) => (x.resource || !x.f.oneof ? [] : [x.f.oneof.localName])));
  for (const o of oneofs) lines.push([`let ${o}Kept = false;`]);
  for (const x of r.fields) lines.push(...fieldLines(c, r, x));
  lines.push(["for (const key of Object.keys(json))"]);
  lines.push([
    "  if (!",
    keysName(r),
    ".has(key)) ",
    c.h("lose"),
    `(lost, path, key, ${lit(`${r.m.typeName} has no field for it`)});`,
  ]);
  lines.push(["return out;"]);
  return lines;
}

function fieldLines(c: CodecCtx, r: MessageRules, x: FieldRule): Line[] {
  const target = prop("out", x.f.jsonName);
  if (x.resource) return [[`${target} = `, ...fill(c, x.resource, r.m.typeName), ";"]];
  const read = x.key === x.f.jsonName ? prop("json", x.key) : `${prop("json", x.key)} ?? ${prop("json", x.f.jsonName)}`;
  // null is ProtoJSON's "unset" (except for a google.protobuf.Value), so it takes no oneof slot either.
  const isValue = x.f.fieldKind === "message" && x.f.message.typeName === "google.protobuf.Value";
  const set: Line = [`${target} = `, ...fieldValue(c, r, x), ";"];
  const o = x.f.oneof;
  const keep: Line[] = o
    ? [
        [`  if (${o.localName}Kept)`],
        [
          "    ",
          c.h("lose"),
          `(lost, path, ${lit(x.key)}, ${lit(`${r.m.typeName}.${o.name} holds one member; ${x.key} was not kept`)});`,
        ],
        ["  else {"],
        [`    ${o.localName}Kept = true;`],
        ["    ", ...set],
        ["  }"],
      ]
    : [];
  const test = isValue ? "value !== undefined" : "value != null";
  if (!o) return [[`value = ${read};`], ...fold("", [test], set)];
  return [[`value = ${read};`], [`if (${test}) {`], ...keep, ["}"]];
}

/** A field's ProtoJSON: messages and enums decoded, anything else as it is. */
function fieldValue(c: CodecCtx, r: MessageRules, x: FieldRule): Printable[] {
  const path: Printable[] = [c.h("at"), `(path, ${lit(x.key)})`];
  if (x.sub) {
    const name = decoderName(rulesOf(c, x.sub).id);
    if (x.f.fieldKind === "list") return [c.h("eachJson"), "(value, ", ...path, `, lost, ${name})`];
    if (x.f.fieldKind === "map") return [c.h("mapJson"), "(value, ", ...path, `, lost, ${name})`];
    return [name, "(value, ", ...path, ", lost)"];
  }
  const e = enumOfField(x.f);
  if (e) return [enumDecoderName(e), "(value, ", ...path, `, ${lit(`${r.m.typeName}.${x.f.name}`)})`];
  const isTimestamp = x.f.fieldKind === "message" && x.f.message.typeName === "google.protobuf.Timestamp";
  return isTimestamp ? [c.h("utcTimestamp"), "(value, ", ...path, ", lost)"] : ["value"];
}

/** The part: its kind (or, without one, the content it holds) says which; its content must be there. */
function partBody(c: CodecCtx): Line[] {
  const d = c.dialect.part;
  const isObject = c.h("isJsonObject");
  const invalid = c.h("invalid");
  return [
    [
      'if (json["metadata"] !== undefined) ',
      c.h("lose"),
      '(lost, path, "metadata", "the v0.3 proto Part has no metadata");',
    ],
    ...keyCheck(c, "json", "path", d.message, PART_KEYS),
    ['const file = json["file"];'],
    ["if (", isObject, '(file) && file["name"] !== undefined)'],
    ["  ", c.h("lose"), '(lost, path, "file.name", "the v0.3 proto FilePart has no file name");'],
    ["const kind = ", c.h("partKindOf"), "(json);"],
    ["if (kind !== undefined) ", c.h("loseOtherContent"), "(json, kind, path, lost);"],
    ["switch (kind) {"],
    ['  case "text": {'],
    ['    const text = json["text"];'],
    [
      '    return typeof text === "string" ? { text } : ',
      invalid,
      `(path, ${lit(`${d.message}.text`)}, text, "a string");`,
    ],
    ["  }"],
    ['  case "file":'],
    ["    return { file: readFile(file, ", c.h("at"), '(path, "file"), lost) };'],
    ['  case "data": {'],
    ['    const data = json["data"];'],
    [
      "    return ",
      isObject,
      `(data) ? { data: { ${key(camel(d.data.field))}: data } } : `,
      invalid,
      `(path, ${lit(`${d.data.message}.data`)}, data, "an object");`,
    ],
    ["  }"],
    ["}"],
    [
      "return ",
      c.h("refuseKind"),
      "(",
      c.h("pathOf"),
      `(path), ${lit(d.message)}, json["kind"], "text, file or data");`,
    ],
  ];
}

/** Reports each key of `obj` (at `atExpr`) not in `known`, as keys `what` has no field for. */
function keyCheck(c: CodecCtx, obj: string, atExpr: string, what: string, known: readonly string[]): Line[] {
  return [
    [`for (const key in ${obj}) switch (key) {`],
    ...known.map((k) => [`  case ${lit(k)}:`]),
    ["    break;"],
    ["  default: ", c.h("lose"), `(lost, ${atExpr}, key, ${lit(`${what} has no field for it`)});`],
    ["}"],
  ];
}

/** Prints the reader of a part's file: one of uri and bytes, and its media type. */
export function printFileReader(c: CodecCtx): void {
  const d = c.dialect.part;
  const file = lit(d.file.message);
  printFunction(
    c,
    `A part's file read from a2a.json as ${d.file.message}: one of uri and bytes, and its media type.`,
    "readFile",
    [
      ["file", [c.jsonValue, " | undefined"]],
      ["path", [c.at]],
      ["lost", [c.loss, "[]"]],
    ],
    [c.jsonObject],
    [
      ["if (!", c.h("isJsonObject"), `(file)) return `, c.h("invalid"), `(path, ${file}, file, "an object");`],
      ...keyCheck(c, "file", "path", d.file.message, FILE_KEYS),
      ['const uri = file["uri"] ?? undefined;'],
      ['const bytes = file["bytes"] ?? undefined;'],
      ["if (uri !== undefined && bytes !== undefined)"],
      [
        "  return ",
        c.h("invalid"),
        `(path, ${lit(`oneof ${d.file.message}.file (set by both uri and bytes)`)}, file);`,
      ],
      ["const out", ...c.t(": ", c.jsonObject), " = {};"],
      [`if (uri !== undefined) ${prop("out", camel(d.file.uri))} = uri;`],
      [`else if (bytes !== undefined) ${prop("out", camel(d.file.bytes))} = bytes;`],
      ["else return ", c.h("refuse"), `(path, ${file}, file, "a file needs uri or bytes");`],
      ['if (file["mimeType"] !== undefined) out["mimeType"] = file["mimeType"];'],
      ["return out;"],
    ],
  );
}

/** Prints the reader of an enum: a dialect spelling, a proto name or a number it has; any other refused. */
export function printEnumDecoder(c: CodecCtx, e: DescEnum): void {
  // When two proto values share a spelling (ROLE_UNSPECIFIED and ROLE_AGENT are both "agent"),
  // the first listed is read back.
  const back = new Map<string, string>();
  for (const [k, v] of c.dialect.enumSpellings) if (!back.has(v)) back.set(v, k);
  const names = new Set(e.values.map((v) => v.name));
  const mapped: Line[] = [];
  const same: string[] = [];
  for (const s of new Set([...back.keys(), ...names])) {
    const name = back.get(s) ?? s;
    if (!names.has(name)) continue;
    if (name === s) same.push(lit(s));
    else mapped.push([`  case ${lit(s)}:`], [`    return ${lit(name)};`]);
  }
  same.push(...[...new Set(e.values.map((v) => v.number))].map(String));
  printFunction(
    c,
    `${e.typeName} read from a2a.json: a spelling, a proto name or a number it has; any other is refused.`,
    enumDecoderName(e),
    [
      ["json", [c.jsonValue]],
      ["path", [c.at]],
      ["what", ["string"]],
    ],
    [c.jsonValue],
    [
      ["switch (json) {"],
      ...mapped,
      ...same.map((s): Line => [`  case ${s}:`]),
      ...(same.length > 0 ? [["    return json;"]] : []),
      ["}"],
      ['if (typeof json !== "string" && typeof json !== "number") return json;'],
      ["return ", c.h("refuse"), '(path, what, json, "unknown value " + ', c.h("preview"), "(json));"],
    ],
  );
}
