/**
 * The a2a.json dialect as IR: what the dialect table (override
 * api.jsonrpcDialect) says about each message of the older version, worked
 * out once from the table and the descriptors. The a2a.json codec of that
 * version (emit/conversions/jsonrpc-codec-*) and the direct conversions
 * between its a2a.json and the newer messages (json-ir.ts) both read it, so
 * the dialect is interpreted in one place.
 *
 *   dialect = { message }, part form, null results, enum spellings, runtime names
 *   message = rule, kind?, null result?, { field }
 *   rule    = array (the bare list of one field) | union (a oneof written bare, told apart by `kind`)
 *           | part | wrapper (one field, the others derived) | typed (a oneof beside a `type`)
 *           | listMap (a map of string lists, bare) | fields (key by key)
 *   field   = key (a rename, else the JSON name), sub (the message to recurse into, not a
 *             well-known type), resource (the resource-name pattern and the ids a request may leave
 *             out), always (written at its default)
 *
 * The OpenRPC schemas of the dialect (emit/openrpc) read it too; the runtime names (what the JSON request
 * checks read: enum spellings, the part, wrappers, renames, resource names) are worked out here and printed
 * into the codec as they are. Nothing else reads the table.
 *
 * A message has at most one whole-message rule; two that claim one, or a rule that names a field the
 * message lacks, are problems naming the message and the rule.
 */
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import type { JsonRpcDialect, JsonRpcNames, ResourceNamePattern } from "@protoc-gen-a2a/runtime/protocol";
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
  /** The ids of that pattern a request may leave out when the name is required (the first never is). */
  readonly optionalIds: readonly string[];
  /** Written even at its default. */
  readonly always: boolean;
}

export type MessageRule =
  | { readonly kind: "array"; readonly field: FieldRule }
  | { readonly kind: "union" }
  | { readonly kind: "part" }
  | { readonly kind: "wrapper"; readonly field: FieldRule; readonly derived: readonly DerivedField[] }
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

/** A wrapper's field filled from ids of the wrapped message: its JSON name and pattern (`tasks/{id}`). */
export interface DerivedField {
  readonly jsonName: string;
  readonly name: string;
  readonly pattern: string;
}

/** The dialect of a version's messages. */
export interface DialectIr {
  /** The rules of each message, by type name. */
  readonly messages: ReadonlyMap<string, MessageRules>;
  /** The part: its message, the file member's message with its uri and bytes fields, the data member's. */
  readonly part: JsonRpcDialect["part"];
  /** Messages the dialect writes as null (results without content), by type name, as the table lists them. */
  readonly nullResults: readonly string[];
  /** The dialect's spelling of an enum value, by the value's proto name; a value it keeps is not here. */
  readonly enumSpellings: ReadonlyMap<string, string>;
  /** What the runtime's JSON request checks read, printed into the codec. */
  readonly runtimeNames: JsonRpcNames;
}

/** The dialect's spelling of an enum value (its proto name when the dialect keeps it). */
export const spelled = (ir: DialectIr, valueName: string): string => ir.enumSpellings.get(valueName) ?? valueName;

/** The dialect of a version's messages; what cannot hold is reported to `problems`. */
export function dialectRules(dialect: JsonRpcDialect, messages: readonly DescMessage[], problems: Problems): DialectIr {
  const rules = new Map<string, MessageRules>();
  for (const m of messages) rules.set(m.typeName, messageRules(m, dialect, problems));
  return {
    messages: rules,
    part: dialect.part,
    nullResults: dialect.nullResults,
    enumSpellings: new Map(Object.entries(dialect.enums)),
    runtimeNames: runtimeNames(dialect),
  };
}

/**
 * What a request check reads: the enum spellings, the part message, the wrappers, the renames, and of each
 * resource name field and each wrapper's field derived from ids its pattern with the ids as the request names
 * them (`tasks/{id}`, `{pushNotificationConfig.id}`) and the ids it may leave out.
 */
function runtimeNames(d: JsonRpcDialect): JsonRpcNames {
  const resourceNames: Record<string, ResourceNamePattern> = {};
  for (const r of d.resourceNames)
    resourceNames[`${r.message}.${r.field}`] = r.optional
      ? { pattern: r.pattern, optional: r.optional }
      : { pattern: r.pattern };
  for (const w of d.wrappers)
    for (const [field, pattern] of Object.entries(w.derived)) resourceNames[`${w.message}.${field}`] = { pattern };
  return {
    enums: d.enums,
    part: d.part.message,
    wrappers: d.wrappers.map((w) => ({ message: w.message, field: w.field })),
    renames: d.renames,
    resourceNames,
  };
}

function resourceOf(d: JsonRpcDialect, m: DescMessage, f: DescField): Pick<FieldRule, "resource" | "optionalIds"> {
  const r = d.resourceNames.find((x) => x.message === m.typeName && x.field === f.name);
  return { resource: r?.pattern, optionalIds: r?.optional ?? [] };
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
      ...resourceOf(d, m, f),
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
    const derived = Object.entries(w.derived).flatMap(([name, pattern]): DerivedField[] => {
      const x = fields.find((y) => y.f.name === name);
      return x ? [{ jsonName: x.f.jsonName, name, pattern }] : [];
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
