/**
 * Request checks on the decoded message, before the handler runs, from the
 * version's input rules (ProtocolTables.inputRules: the descriptors' REQUIRED
 * fields as the override files amend them):
 *
 *   scalar    not at its default ("" · 0 · false)   enum   not 0 (UNSPECIFIED)
 *   message   present                               list   at least minItems (default 1) items
 *   map       not empty                             oneof  one member set
 *
 * Set messages are checked at any depth (list items and map values too),
 * google.protobuf.* excepted. The first problem found is returned as text
 * naming its field path in the JSON the binding reads: ProtoJSON names
 * (`message.parts[0]`, `config.pushNotificationConfig.url`); on a JSON-RPC
 * binding with a dialect (v0.3), its renamed keys (`message.parts` for
 * `content`), and a wrapper request's wrapped field left out (the params are
 * that field). An explicit 0 for an enum is unset in proto3 (binary cannot
 * tell them apart), so `ROLE_UNSPECIFIED` fails a rule as an absent role
 * does. Unknown enum names never reach the message (json-request-check.ts).
 */
import type { DescField, DescMessage, Message } from "@bufbuild/protobuf";
import type { HandlerContext, InputRule, ProtocolTables } from "./definition.js";

/** Checks one request message; returns what is wrong, or undefined. */
export type RequestCheck = (
  input: Message,
  binding: HandlerContext["binding"],
  /** The version a bridged request was converted from: rules waived for it are skipped. */
  from?: string,
) => string | undefined;

interface Naming {
  /** JSON key of a field, or undefined to leave the segment out. */
  key(m: DescMessage, f: DescField): string | undefined;
}

type Rules = Readonly<Record<string, readonly InputRule[]>>;

const plain: Naming = { key: (_m, f) => f.jsonName };

/** The check of requests of type `desc` under `tables`' rules; undefined when the version has none. */
export function requestCheck(tables: ProtocolTables, desc: DescMessage): RequestCheck | undefined {
  const rules = tables.inputRules;
  if (!rules || Object.keys(rules).length === 0) return undefined;
  const d = tables.jsonrpcDialect;
  const dialect: Naming | undefined = d
    ? {
        key(m, f) {
          if (d.wrappers.some((w) => w.message === m.typeName && w.field === f.name)) return undefined;
          return d.renames[`${m.typeName}.${f.name}`] ?? f.jsonName;
        },
      }
    : undefined;
  return (input, binding, from) =>
    walk(rules, desc, input as unknown as Fields, binding === "JSONRPC" && dialect ? dialect : plain, "", from);
}

type Fields = Record<string, unknown> & { $typeName?: string };

function walk(
  rules: Rules,
  m: DescMessage,
  msg: Fields,
  naming: Naming,
  path: string,
  from: string | undefined,
): string | undefined {
  for (const rule of rules[m.typeName] ?? []) {
    if (from !== undefined && rule.waivedFrom?.includes(from)) continue;
    const problem = broken(m, msg, rule, naming, path);
    if (problem) return problem;
  }
  for (const f of m.fields) {
    const sub = messageOf(f);
    if (!sub || sub.typeName.startsWith("google.protobuf.")) continue;
    const at = join(path, naming.key(m, f));
    const v = fieldValue(msg, f);
    const items =
      f.fieldKind === "list"
        ? (v as unknown[]).map((x, i) => [x, `${at}[${i}]`] as const)
        : f.fieldKind === "map"
          ? Object.entries(v as Record<string, unknown>).map(([k, x]) => [x, join(at, k)] as const)
          : v === undefined
            ? []
            : [[v, at] as const];
    for (const [x, p] of items) {
      const problem = walk(rules, sub, x as Fields, naming, p, from);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** What breaks the rule, or undefined. */
function broken(m: DescMessage, msg: Fields, rule: InputRule, naming: Naming, path: string): string | undefined {
  const oneof = m.oneofs.find((o) => o.name === rule.field);
  if (oneof) {
    if ((msg[oneof.localName] as { case?: unknown } | undefined)?.case !== undefined) return undefined;
    const members = oneof.fields.map((f) => naming.key(m, f) ?? f.jsonName).join(", ");
    return `${path === "" ? "the request" : path} must set one of ${members}`;
  }
  const f = m.fields.find((x) => x.name === rule.field);
  if (!f) return undefined;
  const at = join(path, naming.key(m, f)) || f.jsonName;
  const v = fieldValue(msg, f);
  switch (f.fieldKind) {
    case "list": {
      const min = rule.minItems ?? 1;
      return (v as unknown[]).length >= min ? undefined : `${at} must have at least ${min} item${min > 1 ? "s" : ""}`;
    }
    case "map":
      return Object.keys(v as object).length > 0 ? undefined : `${at} is required`;
    case "message":
      return v !== undefined ? undefined : `${at} is required`;
    default:
      return v === undefined || v === "" || v === 0 || v === false || v === 0n || isEmptyBytes(v)
        ? `${at} is required`
        : undefined;
  }
}

function fieldValue(msg: Fields, f: DescField): unknown {
  if (f.oneof) {
    const o = msg[f.oneof.localName] as { case?: string; value?: unknown } | undefined;
    return o?.case === f.localName ? o.value : undefined;
  }
  return msg[f.localName];
}

function messageOf(f: DescField): DescMessage | undefined {
  if (f.fieldKind === "message") return f.message;
  if (f.fieldKind === "list" && f.listKind === "message") return f.message;
  if (f.fieldKind === "map" && f.mapKind === "message") return f.message;
  return undefined;
}

const isEmptyBytes = (v: unknown) => v instanceof Uint8Array && v.length === 0;

const join = (path: string, key: string | undefined) =>
  key === undefined ? path : path === "" ? key : `${path}.${key}`;
