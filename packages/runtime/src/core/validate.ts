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
 * `content`), a resource name by the id it lacks (`id` for `tasks/{id}`; a
 * later id unless the dialect lets it be left out), and a
 * wrapper request's wrapped field left out (the params are that field). An
 * explicit 0 for an enum is unset in proto3 (binary cannot
 * tell them apart), so `ROLE_UNSPECIFIED` fails a rule as an absent role
 * does.
 *
 * Every enum value of the request (a field, list items, map values) must be
 * one its enum declares, under any version's rules or none: proto3 enums are
 * open, so ProtoJSON and binary decoding keep a number such as 99, which no
 * handler can act on (`message.role: unknown value 99 for lf.a2a.v1.Role`).
 * Unknown enum names never reach the message (json-request-check.ts).
 */
import type { DescEnum, DescField, DescMessage, Message } from "@bufbuild/protobuf";
import type { ResourceNamePattern } from "./conversion-types.js";
import { messageOf } from "./message-fields.js";

/**
 * One input rule of a request message (override target `input.<Message>.<field>`): the field must be set (a
 * scalar not at its default, an enum not at 0, a message present, a list with at least `minItems` items, a map
 * not empty), or, when `field` names a oneof, one of its members must be set.
 */
export interface InputRule {
  /** Proto name of the field, or of a oneof. */
  readonly field: string;
  /** For a list: the fewest items it may hold; absent means 1 (S10 §5.7: a required array holds at least one). */
  readonly minItems?: number;
  /** Protocol versions whose requests, converted to this version by the version bridge, may leave it unset. */
  readonly waivedFrom?: readonly string[];
}

/**
 * What the check reads of a JSON-RPC dialect (the codec's JsonRpcNames): its wrapper requests, renames and the
 * resource names it spells as separate ids (a `tasks/{id}` name without its id is named `id`).
 */
export interface DialectNames {
  readonly wrappers: readonly { readonly message: string; readonly field: string }[];
  readonly renames: Readonly<Record<string, string>>;
  readonly resourceNames?: Readonly<Record<string, ResourceNamePattern>>;
}

/** Checks one request message; returns what is wrong, or undefined. */
export type RequestCheck = (
  input: Message,
  binding: "JSONRPC" | "HTTP+JSON" | "GRPC",
  /** The version a bridged request was converted from: rules waived for it are skipped. */
  from?: string,
) => string | undefined;

interface Naming {
  /** JSON key of a field, or undefined to leave the segment out. */
  key(m: DescMessage, f: DescField): string | undefined;
  /** The ids of a resource name field the binding spells as separate ids. */
  ids?(m: DescMessage, f: DescField): NameIds | undefined;
}

/** A resource name's ids, compiled once from its dialect pattern: the name as a RegExp, and each id's key. */
interface NameIds {
  readonly match: RegExp;
  readonly ids: readonly { readonly key: string; readonly required: boolean }[];
}

function nameIds(p: ResourceNamePattern): NameIds {
  const quote = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const ids: { key: string; required: boolean }[] = [];
  let source = "^";
  let last = 0;
  for (const m of p.pattern.matchAll(/\{([^}]+)\}/g)) {
    // Any text, "/" too: the codec writes each id as the request holds it (tasks/a/b/pushNotificationConfigs/).
    source += `${quote(p.pattern.slice(last, m.index))}(.*)`;
    last = m.index + m[0].length;
    ids.push({ key: m[1]!, required: ids.length === 0 || !p.optional?.includes(m[1]!) });
  }
  return { match: new RegExp(`${source}${quote(p.pattern.slice(last))}$`), ids };
}

/** The first required id a resource name leaves empty, as "<key> is required"; undefined when it has them all. */
function missingId(n: NameIds, name: string, path: string): string | undefined {
  const got = n.match.exec(name);
  if (!got) return undefined;
  const i = n.ids.findIndex((id, k) => id.required && got[k + 1] === "");
  return i < 0 ? undefined : `${join(path, n.ids[i]!.key)} is required`;
}

type Rules = Readonly<Record<string, readonly InputRule[]>>;

const plain: Naming = { key: (_m, f) => f.jsonName };

/** The check of requests of type `desc` under a version's rules; undefined when the version has none. */
export function requestCheck(
  rules: Rules | null | undefined,
  d: DialectNames | null | undefined,
  desc: DescMessage,
): RequestCheck | undefined {
  rules ??= {};
  if (Object.keys(rules).length === 0 && !reachesEnum(desc)) return undefined;
  // Each resource name's pattern compiled once, for both its key and its check.
  const compiled = new Map<string, NameIds>();
  const idsOf = (m: DescMessage, f: DescField): NameIds | undefined => {
    const name = `${m.typeName}.${f.name}`;
    const resource = d?.resourceNames?.[name];
    if (!resource) return undefined;
    const known = compiled.get(name);
    if (known) return known;
    const n = nameIds(resource);
    compiled.set(name, n);
    return n;
  };
  const dialect: Naming | undefined = d
    ? {
        key(m, f) {
          if (d.wrappers.some((w) => w.message === m.typeName && w.field === f.name)) return undefined;
          const name = `${m.typeName}.${f.name}`;
          return idsOf(m, f)?.ids[0]?.key ?? d.renames[name] ?? f.jsonName;
        },
        ids: idsOf,
      }
    : undefined;
  const plainPlans = planner(rules, plain);
  const dialectPlans = dialect ? planner(rules, dialect) : plainPlans;
  return (input, binding, from) => {
    const plans = binding === "JSONRPC" ? dialectPlans : plainPlans;
    return walk(plans, plans(desc), input as unknown as Fields, "", from);
  };
}

type Fields = Record<string, unknown> & { $typeName?: string };

/** What is checked in a message of one type: its rules, its enums, and the fields that lead to more. */
interface Plan {
  /** The message's rules, each with its check. */
  readonly rules: readonly { readonly rule: InputRule; readonly check: Check }[];
  /** Its enum fields (singular, list or map values), with their JSON key. */
  readonly enums: readonly { readonly field: DescField; readonly key: string | undefined; readonly e: DescEnum }[];
  /** Message fields whose type has rules or enums at some depth, with their JSON key. */
  readonly children: readonly {
    readonly field: DescField;
    readonly key: string | undefined;
    readonly sub: DescMessage;
  }[];
}

type Plans = (m: DescMessage) => Plan;

/** The enum of a field, a list of enums or a map with enum values. */
function enumOf(f: DescField): DescEnum | undefined {
  if (f.fieldKind === "enum") return f.enum;
  if (f.fieldKind === "list" && f.listKind === "enum") return f.enum;
  if (f.fieldKind === "map" && f.mapKind === "enum") return f.enum;
  return undefined;
}

/** Whether the message, or one below it (google.protobuf.* excepted), has a field that holds enum values. */
function reachesEnum(m: DescMessage, seen = new Set<string>()): boolean {
  if (seen.has(m.typeName)) return false;
  seen.add(m.typeName);
  return m.fields.some((f) => enumOf(f) !== undefined || reachesOn(messageOf(f), seen));
}

const reachesOn = (m: DescMessage | undefined, seen: Set<string>) => m !== undefined && reachesEnum(m, seen);

/** Plans per message type, built once: a field is entered only when rules or enums can be found below it. */
function planner(rules: Rules, naming: Naming): Plans {
  const plans = new Map<string, Plan>();
  const reaches = new Map<string, boolean>();
  const leadsOn = (m: DescMessage | undefined): boolean => m !== undefined && reach(m);
  const reach = (m: DescMessage): boolean => {
    const known = reaches.get(m.typeName);
    if (known !== undefined) return known;
    reaches.set(m.typeName, true); // a cycle: assume something below it, which only costs a visit
    const has = (f: DescField) => enumOf(f) !== undefined || leadsOn(messageOf(f));
    const yes = (rules[m.typeName]?.length ?? 0) > 0 || m.fields.some(has);
    reaches.set(m.typeName, yes);
    return yes;
  };
  return (m) => {
    let plan = plans.get(m.typeName);
    if (!plan) {
      plan = {
        rules: (rules[m.typeName] ?? []).flatMap((rule) => {
          const check = compileRule(m, rule, naming);
          return check ? [{ rule, check }] : [];
        }),
        enums: m.fields.flatMap((field) => {
          const e = enumOf(field);
          return e ? [{ field, key: naming.key(m, field), e }] : [];
        }),
        children: m.fields.flatMap((field) => {
          const sub = messageOf(field);
          return sub && reach(sub) ? [{ field, key: naming.key(m, field), sub }] : [];
        }),
      };
      plans.set(m.typeName, plan);
    }
    return plan;
  };
}

/**
 * The first value of an enum field (`key` under `path`) that its enum does not declare, as a problem naming it;
 * else undefined. Nothing is allocated unless a value is refused.
 */
function undeclared(field: DescField, e: DescEnum, v: unknown, path: string, key: string | undefined) {
  if (field.fieldKind === "enum" && (typeof v !== "number" || e.value[v] !== undefined)) return undefined;
  const bad = (n: unknown) => typeof n === "number" && e.value[n] === undefined;
  let at: string | number | undefined;
  let value: unknown = v;
  if (field.fieldKind === "list") {
    const i = (v as unknown[]).findIndex(bad);
    if (i < 0) return undefined;
    [at, value] = [i, (v as unknown[])[i]];
  } else if (field.fieldKind === "map") {
    const k = Object.keys(v as object).find((name) => bad((v as Record<string, unknown>)[name]));
    if (k === undefined) return undefined;
    [at, value] = [k, (v as Record<string, unknown>)[k]];
  } else if (!bad(v)) return undefined;
  const base = join(path, key) || field.jsonName;
  const where = at === undefined ? base : typeof at === "number" ? `${base}[${at}]` : join(base, at);
  return `${where}: unknown value ${String(value)} for ${e.typeName}`;
}

function walk(plans: Plans, plan: Plan, msg: Fields, path: string, from: string | undefined): string | undefined {
  for (const { rule, check } of plan.rules) {
    if (from !== undefined && rule.waivedFrom?.includes(from)) continue;
    const problem = check(msg, path);
    if (problem) return problem;
  }
  for (const { field, key, e } of plan.enums) {
    const v = fieldValue(msg, field);
    const problem = v === undefined ? undefined : undeclared(field, e, v, path, key);
    if (problem) return problem;
  }
  for (const { field, key, sub } of plan.children) {
    const v = fieldValue(msg, field);
    if (v === undefined) continue;
    const at = join(path, key);
    const subPlan = plans(sub);
    if (field.fieldKind === "list") {
      const list = v as Fields[];
      for (let i = 0; i < list.length; i++) {
        const problem = walk(plans, subPlan, list[i]!, `${at}[${i}]`, from);
        if (problem) return problem;
      }
    } else if (field.fieldKind === "map") {
      const map = v as Record<string, Fields>;
      for (const k of Object.keys(map)) {
        const problem = walk(plans, subPlan, map[k]!, join(at, k), from);
        if (problem) return problem;
      }
    } else {
      const problem = walk(plans, subPlan, v as Fields, at, from);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** A rule bound to its field or oneof: what breaks it in a message at `path`, or undefined. */
type Check = (msg: Fields, path: string) => string | undefined;

/** The rule's check, resolved once; undefined for a rule naming no field or oneof of the message. */
function compileRule(m: DescMessage, rule: InputRule, naming: Naming): Check | undefined {
  const oneof = m.oneofs.find((o) => o.name === rule.field);
  if (oneof) {
    const members = oneof.fields.map((f) => naming.key(m, f) ?? f.jsonName).join(", ");
    return (msg, path) =>
      (msg[oneof.localName] as { case?: unknown } | undefined)?.case !== undefined
        ? undefined
        : `${path === "" ? "the request" : path} must set one of ${members}`;
  }
  const f = m.fields.find((x) => x.name === rule.field);
  if (!f) return undefined;
  const key = naming.key(m, f);
  const at = (path: string) => join(path, key) || f.jsonName;
  switch (f.fieldKind) {
    case "list": {
      const min = rule.minItems ?? 1;
      const says = ` must have at least ${min} item${min > 1 ? "s" : ""}`;
      return (msg, path) => ((fieldValue(msg, f) as unknown[]).length >= min ? undefined : at(path) + says);
    }
    case "map":
      return (msg, path) =>
        Object.keys(fieldValue(msg, f) as object).length > 0 ? undefined : `${at(path)} is required`;
    case "message":
      return (msg, path) => (fieldValue(msg, f) !== undefined ? undefined : `${at(path)} is required`);
    default: {
      const ids = naming.ids?.(m, f);
      return (msg, path) => {
        const v = fieldValue(msg, f);
        if (v === undefined || v === "" || v === 0 || v === false || v === 0n || isEmptyBytes(v))
          return `${at(path)} is required`;
        return ids && typeof v === "string" ? missingId(ids, v, path) : undefined;
      };
    }
  }
}

function fieldValue(msg: Fields, f: DescField): unknown {
  if (f.oneof) {
    const o = msg[f.oneof.localName] as { case?: string; value?: unknown } | undefined;
    return o?.case === f.localName ? o.value : undefined;
  }
  return msg[f.localName];
}

const isEmptyBytes = (v: unknown) => v instanceof Uint8Array && v.length === 0;

const join = (path: string, key: string | undefined) =>
  key === undefined ? path : path === "" ? key : `${path}.${key}`;
