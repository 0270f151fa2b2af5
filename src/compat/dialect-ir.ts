/**
 * The a2a.json dialect as IR: what the dialect table (override
 * api.jsonrpcDialect) says about each message of the older version, worked
 * out once from the table and the descriptors. The a2a.json codec of that
 * version (emit/conversions/jsonrpc-codec-*) and the direct conversions
 * between its a2a.json and the newer messages (json-ir.ts) both read it, so
 * the dialect is interpreted in one place.
 *
 *   message = rule, kind?, null result?, { field }
 *   rule    = array (the bare list of one field) | union (a oneof written bare, told apart by `kind`)
 *           | part | wrapper (one field, the others derived) | typed (a oneof beside a `type`)
 *           | listMap (a map of string lists, bare) | fields (key by key)
 *   field   = key (a rename, else the JSON name), sub (the message to recurse into, not a
 *             well-known type), resource (the resource-name pattern), always (written at its default)
 *
 * A message has at most one whole-message rule; two that claim one, or a rule that names a field the
 * message lacks, are problems naming the message and the rule.
 */
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import type { JsonRpcDialect } from "@protoc-gen-a2a/runtime/protocol";
import type { Problems } from "../generation-error.js";

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
  /** The dialect writes the message as null (a result without content). */
  readonly nullResult: boolean;
}

/** The dialect's rules of each message of a version, by type name. */
export type DialectIr = ReadonlyMap<string, MessageRules>;

/** The dialect's rules of each message, by type name; what cannot hold is reported to `problems`. */
export function dialectRules(
  dialect: JsonRpcDialect,
  messages: readonly DescMessage[],
  problems: Problems,
): Map<string, MessageRules> {
  const rules = new Map<string, MessageRules>();
  for (const m of messages) rules.set(m.typeName, messageRules(m, dialect, problems));
  return rules;
}

const isWkt = (m: DescMessage) => m.typeName.startsWith("google.protobuf.");

/** The message of a message field, list or map, if any. */
export const messageOf = (f: DescField): DescMessage | undefined =>
  f.fieldKind === "message" ||
  (f.fieldKind === "list" && f.listKind === "message") ||
  (f.fieldKind === "map" && f.mapKind === "message")
    ? f.message
    : undefined;

/** A proto field name as its JSON name (`task_id` → `taskId`). */
export const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

function messageRules(m: DescMessage, d: JsonRpcDialect, problems: Problems): MessageRules {
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
  const named = (name: string, what: string): FieldRule | undefined => {
    const x = fields.find((y) => y.f.name === name);
    if (!x) problems.add(`jsonrpcDialect ${what}: ${m.typeName} has no field ${name}`);
    return x;
  };
  const candidates: MessageRule[] = [];
  const arrayName = d.arrayResults[m.typeName];
  const array = arrayName === undefined ? undefined : named(arrayName, "arrayResults");
  if (array) candidates.push({ kind: "array", field: array });
  if (d.unions.includes(m.typeName)) candidates.push({ kind: "union" });
  if (m.typeName === d.part.message) candidates.push({ kind: "part" });
  const w = d.wrappers.find((x) => x.message === m.typeName);
  const wrapped = w && named(w.field, "wrappers");
  if (w && wrapped) {
    const derived = Object.entries(w.derived).flatMap(([name, t]) => {
      const x = fields.find((y) => y.f.name === name);
      return x ? [[x.f.jsonName, t] as [string, string]] : [];
    });
    candidates.push({ kind: "wrapper", field: wrapped, derived });
  }
  const typed = d.typedUnions?.[m.typeName];
  if (typed) {
    const members = Object.entries(typed).flatMap(([name, type]): [FieldRule, string][] => {
      const x = named(name, "typedUnions");
      return x ? [[x, type]] : [];
    });
    candidates.push({ kind: "typed", members });
  }
  const listMapName = d.listMaps?.[m.typeName];
  const listMap = listMapName === undefined ? undefined : named(listMapName, "listMaps");
  if (listMap) candidates.push({ kind: "listMap", field: listMap });
  if (candidates.length > 1)
    problems.add(`jsonrpcDialect: ${m.typeName} has ${candidates.map((c) => c.kind).join(" and ")} rules`);
  const id = m.typeName.slice(m.file.proto.package.length + 1).replace(/\./g, "_");
  return {
    m,
    id,
    rule: candidates[0] ?? { kind: "fields" },
    fields,
    kindValue: d.kinds[m.typeName],
    nullResult: d.nullResults.includes(m.typeName),
  };
}
