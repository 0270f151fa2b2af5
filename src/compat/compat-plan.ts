/**
 * The cross-version conversion plan, and the coverage check that builds it.
 *
 * Pairs: each message of the newer package pairs with the message of the same
 * name in the older one, unless a compat entry names another counterpart or
 * compat.unpaired says it has none (with the reason). Every message of the
 * older package must be someone's counterpart, wrap one (a request that
 * holds a pair's older message: wrapped-request.ts), or be listed as unpaired.
 *
 * Fields, in each direction: a source field converts by its rule (rename,
 * transform, moved, lossy) or, without one, to the target field of the same
 * name, which must be compatible: the same scalar type; enums whose every
 * source value name exists in the target; messages that are a pair themselves
 * (or the same well-known type); the same list or map shape. Anything else is
 * a gap, and generation fails with the list of gaps.
 */
import type { ApiModel, CompatRule, FieldModel, MessageModel } from "../model/model-types.js";
import type { Problems } from "../generation-error.js";
import { type CompatTransformName, compatTransformNames, isCompatTransform } from "./transforms.js";
import { planWrapper, type PlanWrapper } from "./wrapped-request.js";

/** How one source field converts: conversion-ir.ts resolves each step against the descriptors. */
export type PlanStep =
  | { readonly from: string; readonly op: "copy" | "message" | "moved"; readonly to: string }
  | { readonly from: string; readonly op: "transform"; readonly transform: CompatTransformName }
  | { readonly from: string; readonly op: "lossy"; readonly reason: string };

export interface PlanPair {
  readonly newer: string;
  readonly older: string;
  readonly toOlder: readonly PlanStep[];
  readonly toNewer: readonly PlanStep[];
  /**
   * Newer field → older dialect key path: what the older JSON-RPC dialect carries although the
   * older proto cannot (see CompatPair).
   */
  readonly dialectFields: Readonly<Record<string, string>>;
  /** The older request that wraps the older message, if one does (wrapped-request.ts). */
  readonly wrappedBy: PlanWrapper | undefined;
  readonly entry: string | undefined;
  readonly source: string | undefined;
  readonly decision: string | undefined;
}

export interface CompatPlan {
  readonly newer: string;
  readonly older: string;
  readonly pairs: readonly PlanPair[];
  readonly unpaired: {
    readonly newer: Readonly<Record<string, string>>;
    readonly older: Readonly<Record<string, string>>;
  };
}

const inPackage = (pkg: string, name: string) =>
  name.startsWith(pkg + ".") && !name.slice(pkg.length + 1).includes(".");

type Compat = NonNullable<ApiModel["compat"]>;

/** What the steps of every pair are checked against: the request's enums, and where problems go. */
interface StepCtx {
  readonly enums: ApiModel["enums"];
  readonly problems: Problems;
}

export function buildCompatPlan(newer: ApiModel, problems: Problems): CompatPlan | undefined {
  const compat = newer.compat;
  const older = compat?.otherPackage;
  if (!compat || !older) return undefined;
  const messages = newer.messages;
  if (![...messages.keys()].some((n) => inPackage(older, n))) return undefined; // the other version is not here
  const where = (name: string) => compat.explicit.get(name)?.entry ?? `compat pairing of ${name}`;
  const pairOf = pairMessages(newer, compat, older, where, problems);
  const reverse = new Map([...pairOf].map(([a, b]) => [b, a]));
  const ctx: StepCtx = { enums: newer.enums, problems };
  const pairs: PlanPair[] = [];
  for (const [newerName, olderName] of pairOf) {
    const explicit = compat.explicit.get(newerName);
    const srcNewer = messages.get(newerName)!;
    const srcOlder = messages.get(olderName)!;
    const place = where(newerName);
    const dialectFields = explicit?.dialectFields ?? {};
    checkDialectFields(srcNewer, explicit?.toOlder ?? {}, dialectFields, place, problems);
    pairs.push({
      newer: newerName,
      older: olderName,
      toOlder: steps(ctx, srcNewer, srcOlder, explicit?.toOlder ?? {}, pairOf, `${place} (toOlder)`),
      toNewer: steps(ctx, srcOlder, srcNewer, explicit?.toNewer ?? {}, reverse, `${place} (toNewer)`),
      dialectFields,
      wrappedBy:
        explicit?.wrappedBy &&
        planWrapper(explicit.wrappedBy, { newer: srcNewer, older: srcOlder }, messages, place, problems),
      entry: explicit?.entry,
      source: explicit?.source,
      decision: explicit?.decision,
    });
  }
  return { newer: newer.package, older, pairs, unpaired: compat.unpaired };
}

/**
 * Each newer message → its older counterpart: the one its compat entry names, else the one of the same name.
 * Reports a newer message without one and an older message no newer one pairs with, unless listed unpaired.
 */
function pairMessages(
  newer: ApiModel,
  compat: Compat,
  older: string,
  where: (name: string) => string,
  problems: Problems,
): Map<string, string> {
  const messages = newer.messages;
  const pairOf = new Map<string, string>();
  for (const name of [...messages.keys()].filter((n) => inPackage(newer.package, n))) {
    if (compat.unpaired.newer[name] !== undefined) continue;
    const counterpart = compat.explicit.get(name)?.older ?? `${older}.${name.slice(newer.package.length + 1)}`;
    if (!messages.has(counterpart)) {
      problems.add(
        `${where(name)}: ${name} has no counterpart ${counterpart}; ` +
          `name one (counterpart) or list it in compat.unpaired with the reason`,
      );
      continue;
    }
    pairOf.set(name, counterpart);
  }
  // A wrapper request converts with the pair it wraps (wrapped-request.ts).
  const wrappers = [...compat.explicit.values()].flatMap((e) => (e.wrappedBy ? [e.wrappedBy.message] : []));
  const paired = new Set([...pairOf.values(), ...wrappers]);
  for (const name of [...messages.keys()].filter((n) => inPackage(older, n))) {
    if (!paired.has(name) && compat.unpaired.older[name] === undefined) {
      problems.add(
        `compat: ${name} is no message's counterpart; ` +
          `pair it (compat.<Message> counterpart) or list it in compat.unpaired.older with the reason`,
      );
    }
  }
  for (const name of [...Object.keys(compat.unpaired.newer), ...Object.keys(compat.unpaired.older)]) {
    if (!messages.has(name)) problems.add(`compat.unpaired: no message ${name} in the request`);
  }
  return pairOf;
}

/** dialectFields name fields lossy toward the older proto, each with the dotted key a2a.json carries it under. */
function checkDialectFields(
  msg: MessageModel,
  toOlder: Readonly<Record<string, CompatRule>>,
  dialectFields: Readonly<Record<string, string>>,
  place: string,
  problems: Problems,
): void {
  for (const [name, path] of Object.entries(dialectFields)) {
    const rule = toOlder[name];
    if (!msg.fields.some((f) => f.name === name))
      problems.add(`${place} (dialectFields): ${msg.fullName} has no field "${name}"`);
    else if (!rule || !("lossy" in rule))
      problems.add(
        `${place} (dialectFields): ${msg.fullName}.${name} is carried by the older proto already; ` +
          `dialectFields is for fields lossy toward it`,
      );
    if (!/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/.test(path))
      problems.add(`${place} (dialectFields): "${path}" is not a dotted key path`);
  }
}

/** One direction of a pair: a step per field of `from`, by its rule, else to the field of the same name. */
function steps(
  ctx: StepCtx,
  from: MessageModel,
  to: MessageModel,
  rules: Readonly<Record<string, CompatRule>>,
  counterparts: ReadonlyMap<string, string>,
  place: string,
): PlanStep[] {
  const { problems } = ctx;
  for (const key of Object.keys(rules)) {
    if (!from.fields.some((f) => f.name === key)) problems.add(`${place}: ${from.fullName} has no field "${key}"`);
  }
  const out: PlanStep[] = [];
  for (const f of from.fields) {
    const rule = rules[f.name];
    if (rule && "lossy" in rule) out.push({ from: f.name, op: "lossy", reason: rule.lossy });
    else if (rule && "moved" in rule) out.push({ from: f.name, op: "moved", to: rule.moved });
    else if (rule && "transform" in rule) {
      if (isCompatTransform(rule.transform)) out.push({ from: f.name, op: "transform", transform: rule.transform });
      else {
        problems.add(
          `${place}: ${from.fullName}.${f.name}: unknown transform "${rule.transform}"; ` +
            `known: ${compatTransformNames.join(", ")}`,
        );
      }
    } else {
      const step = copyStep(ctx, from, f, to, rule && "field" in rule ? rule.field : undefined, counterparts, place);
      if (step) out.push(step);
    }
  }
  return out;
}

/** A field carried over as it is (renamed when `renamed`): a copy, or a message converted by its pair. */
function copyStep(
  ctx: StepCtx,
  from: MessageModel,
  f: FieldModel,
  to: MessageModel,
  renamed: string | undefined,
  counterparts: ReadonlyMap<string, string>,
  place: string,
): PlanStep | undefined {
  const targetName = renamed ?? f.name;
  const target = to.fields.find((t) => t.name === targetName);
  if (!target) {
    ctx.problems.add(
      `${place}: ${from.fullName}.${f.name} has no counterpart in ${to.fullName}` +
        `${renamed !== undefined ? ` (field "${targetName}" does not exist)` : ""}` +
        `; add a rule: field, transform or lossy`,
    );
    return undefined;
  }
  const gap = incompatible(ctx, f, target, counterparts);
  if (gap) {
    ctx.problems.add(`${place}: ${from.fullName}.${f.name} → ${to.fullName}.${target.name}: ${gap}`);
    return undefined;
  }
  // A message, a list of them or a map to them is converted value by value as its pair; anything else is copied.
  const value = f.map ? f.mapEntry : f;
  const paired = value !== undefined && value.kind === "message" && !isWkt(value.type);
  return { from: f.name, op: paired ? "message" : "copy", to: target.name };
}

/** Why a value of field `a` cannot be copied into field `b`, if it cannot. */
function incompatible(
  ctx: StepCtx,
  a: FieldModel,
  b: FieldModel,
  counterparts: ReadonlyMap<string, string>,
): string | undefined {
  if (a.repeated !== b.repeated || a.map !== b.map) return "one is repeated or a map and the other is not";
  if (a.kind !== b.kind) return `${a.kind} vs ${b.kind}`;
  if (a.kind === "scalar") return a.type === b.type ? undefined : `${a.type} vs ${b.type}`;
  if (a.kind === "enum") {
    const from = ctx.enums.get(a.type);
    const to = ctx.enums.get(b.type);
    const missing = (from?.values ?? []).filter((v) => !to?.values.some((w) => w.name === v.name)).map((v) => v.name);
    return missing.length > 0
      ? `enum values ${missing.join(", ")} have no counterpart in ${b.type}; use a transform`
      : undefined;
  }
  if (a.map)
    return a.type.replace(/\b[a-z0-9_.]+\.([A-Z]\w*)/g, "$1") === b.type.replace(/\b[a-z0-9_.]+\.([A-Z]\w*)/g, "$1")
      ? undefined
      : `${a.type} vs ${b.type}`;
  if (isWkt(a.type) || isWkt(b.type)) return a.type === b.type ? undefined : `${a.type} vs ${b.type}`;
  return counterparts.get(a.type) === b.type ? undefined : `${a.type} does not pair with ${b.type}`;
}

const isWkt = (type: string) => type.startsWith("google.protobuf.");
